extension APNsClientRequest {
    /// The same request as a `curl` command to paste into a shell: HTTP/2, `caFile` to trust the
    /// server's certificate (nil: the system's CAs, as for Apple's hosts), every header, and the
    /// body as it is. `-i` prints the answer's status and headers (`apns-id`) with its body; `-sS` leaves out the progress meter, not errors.
    public func curlCommand(baseURL: String, caFile: String? = "certs/ca.pem") -> String {
        var parts = ["curl -sS -i --http2"]
        if let caFile { parts.append("--cacert \(Self.shellQuoted(caFile))") }
        if method != "POST" || body.isEmpty { parts.append("-X \(method)") }
        for header in headers { parts.append("-H \(Self.shellQuoted("\(header.name): \(header.value)"))") }
        if !body.isEmpty { parts.append("--data-binary \(Self.shellQuoted(String(decoding: body, as: UTF8.self)))") }
        parts.append(Self.shellQuoted(baseURL + path))
        return parts.joined(separator: " \\\n  ")
    }

    /// `text` in single quotes, each `'` in it closed, escaped and reopened: a POSIX shell reads
    /// it back exactly, whatever it holds.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: #"'\''"#) + "'"
    }
}

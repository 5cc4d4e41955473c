import PushlabCore
import Hummingbird

/// One file of the dashboard (`Embedded/dashboard/`, compiled into the binary by the EmbedFiles
/// plugin), with what the browser is told about it. The binary serves the same page from any
/// working directory, and offline: the page loads nothing from anywhere else.
struct DashboardFile: Sendable {
    let name: String
    let body: ByteBuffer
    let contentType: String
    /// Changes whenever the content does: the browser revalidates each load (`no-cache`) and
    /// gets a 304 without a body for the file it holds.
    let etag: String

    /// The dashboard's files by name (flat: `index.html`, `app.js`, …).
    static let byName: [String: DashboardFile] = {
        let prefix = "dashboard/"
        var files: [String: DashboardFile] = [:]
        for (path, text) in EmbeddedFiles.byPath where path.hasPrefix(prefix) {
            let name = String(path.dropFirst(prefix.count))
            files[name] = DashboardFile(name: name, text: text)
        }
        return files
    }()

    init(name: String, text: String) {
        self.name = name
        body = ByteBuffer(string: text)
        contentType = Self.contentType(of: name)
        etag = "\"\(Self.hexFingerprint(of: text))\""
    }

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        case "json": "application/json; charset=utf-8"
        default: "application/octet-stream"
        }
    }

    /// The page may run only its own script and style and talk only to this server: whatever a
    /// payload or a device name holds is shown as text, never run.
    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// FNV-1a, 64 bits, in hex: stable across runs (unlike `Hasher`), enough to tell versions apart.
    private static func hexFingerprint(of text: String) -> String {
        let hex = String(FNV1a(text).state, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

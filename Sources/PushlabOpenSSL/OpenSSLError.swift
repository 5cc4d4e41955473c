import COpenSSL

/// An OpenSSL failure, with the library's own error queue rendered as text.
public struct OpenSSLError: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let details: [String]

    public init(_ operation: String) {
        self.operation = operation
        self.details = OpenSSLError.drainErrorQueue()
    }

    public var description: String {
        details.isEmpty ? "\(operation) failed" : "\(operation) failed: \(details.joined(separator: "; "))"
    }

    /// Empties the thread's OpenSSL error queue, so a later failure does not report a stale error.
    @discardableResult
    static func drainErrorQueue() -> [String] {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages
    }
}

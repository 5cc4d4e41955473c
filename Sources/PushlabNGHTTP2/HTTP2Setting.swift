import CNGHTTP2

/// An HTTP/2 SETTINGS parameter (RFC 9113 section 6.5.2).
public struct HTTP2Setting: Hashable, Sendable, CustomStringConvertible {
    public enum Identifier: Int32, Sendable, CaseIterable {
        case headerTableSize = 1
        case enablePush = 2
        case maxConcurrentStreams = 3
        case initialWindowSize = 4
        case maxFrameSize = 5
        case maxHeaderListSize = 6
    }

    public var identifier: Identifier
    public var value: UInt32

    public init(_ identifier: Identifier, _ value: UInt32) {
        self.identifier = identifier
        self.value = value
    }

    public var description: String { "\(identifier)=\(value)" }

    var entry: nghttp2_settings_entry {
        nghttp2_settings_entry(settings_id: identifier.rawValue, value: value)
    }
}

/// HTTP/2 error codes (RFC 9113 section 7).
public enum HTTP2ErrorCode: UInt32, Sendable {
    case noError = 0
    case protocolError = 1
    case internalError = 2
    case flowControlError = 3
    case settingsTimeout = 4
    case streamClosed = 5
    case frameSizeError = 6
    case refusedStream = 7
    case cancel = 8
    case compressionError = 9
    case connectError = 10
    case enhanceYourCalm = 11
    case inadequateSecurity = 12
    case http11Required = 13
}

public struct NGHTTP2Error: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let operation: String

    init(_ code: Int32, _ operation: String) {
        self.code = code
        self.operation = operation
    }

    public var description: String { "\(operation): \(String(cString: nghttp2_strerror(code)))" }

    /// Errors after which the session cannot continue (the connection must end).
    public var isFatal: Bool { nghttp2_is_fatal(code) != 0 || code == NGHTTP2_ERR_BAD_CLIENT_MAGIC.rawValue }
}

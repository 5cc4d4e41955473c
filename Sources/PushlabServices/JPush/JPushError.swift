import PushlabCore

/// Every error code JPush's REST API v3 answers with, and the HTTP status that goes with it: the
/// single place where a code meets its status. Sources: JPush's push, device and report API
/// documentation (their error tables), messages seen from the live service in its clients' issue
/// threads, and what its official clients parse.
public enum JPushErrorCode: Int, Sendable, CaseIterable {
    // Push API.
    case systemError = 1000
    case onlyPost = 1001
    case missingParameter = 1002
    case invalidParameter = 1003
    case authenticationFailed = 1004
    case messageTooLarge = 1005
    case invalidAppKey = 1008
    case unsupportedKey = 1009
    case noTarget = 1011
    case onlyHTTPS = 1020
    case internalTimeout = 1030
    case rateLimitExceeded = 2002
    case appKeyRestricted = 2003
    case noPermission = 2004
    case tooManyMessages = 2005
    // Report API.
    case reportSystemError = 10
    case reportAuthenticationFailed = 3001
    case reportTimeUnitMismatch = 3004
    case reportRangeTooLong = 3005
    // Device API.
    case deviceInternalError = 7000
    case deviceEmptyCredentials = 7001
    case deviceInvalidParameter = 7002
    case deviceAuthenticationFailed = 7004
    case deviceAppKeyUnknown = 7008
    case devicePartlyInvalid = 7013
    case deviceBusy = 7030

    public var httpStatus: Int {
        switch self {
        case .systemError, .reportSystemError, .deviceInternalError: 500
        case .onlyPost: 405
        case .authenticationFailed, .reportAuthenticationFailed, .deviceEmptyCredentials, .deviceAuthenticationFailed: 401
        case .onlyHTTPS: 404
        case .internalTimeout, .deviceBusy: 503
        case .rateLimitExceeded: 429
        case .appKeyRestricted, .noPermission, .tooManyMessages: 403
        case .missingParameter, .invalidParameter, .messageTooLarge, .invalidAppKey, .unsupportedKey, .noTarget,
             .deviceInvalidParameter, .deviceAppKeyUnknown, .devicePartlyInvalid,
             .reportTimeUnitMismatch, .reportRangeTooLong: 400
        }
    }

    /// The message JPush sends where one was seen on the wire; otherwise its documentation's words.
    public var defaultMessage: String {
        switch self {
        case .systemError: "Internal System Error"
        case .onlyPost: "Only HTTP Post methods are supported"
        case .missingParameter: "Necessary parameters are missed."
        case .invalidParameter: "The parameter value is illegal"
        case .authenticationFailed: "Authen failed"
        case .messageTooLarge: "Message body is too large"
        case .invalidAppKey: "Illegal app_key parameter"
        case .unsupportedKey: "Unsupported key in push object"
        case .noTarget: "cannot find user by this audience or has been inactive for more than 255 days"
        case .onlyHTTPS: "Only supports HTTPS requests"
        case .internalTimeout: "Internal service timeout"
        case .rateLimitExceeded: "Rate limit exceeded"
        case .appKeyRestricted: "The appKey is in black list."
        case .noPermission: "No permission to perform the current operation"
        case .tooManyMessages: "The amount of information sent exceeds a reasonable range."
        case .reportSystemError: "Internal System Error"
        case .reportAuthenticationFailed: "Basic authentication failed"
        case .reportTimeUnitMismatch: "time_unit and start do not match"
        case .reportRangeTooLong: "Only user statistics within the last 60 days can be queried"
        case .deviceInternalError: "Internal error"
        case .deviceEmptyCredentials: "Authentication information is empty"
        case .deviceInvalidParameter: "Illegal request parameter"
        case .deviceAuthenticationFailed: "Authentication failed"
        case .deviceAppKeyUnknown: "The appkey does not exist"
        case .devicePartlyInvalid: "Some request parameters are illegal"
        case .deviceBusy: "System busy, try again later"
        }
    }
}

/// A refusal: JPush's code and the message that says what was wrong with this request.
public struct JPushError: Error, Sendable, Equatable {
    public var code: JPushErrorCode
    public var message: String

    public init(_ code: JPushErrorCode, _ message: String? = nil) {
        self.code = code
        self.message = message ?? code.defaultMessage
    }

    public var httpStatus: Int { code.httpStatus }

    /// `{"error":{"code":1003,"message":"…"}}`, with the push's `msg_id` (a number in error bodies)
    /// when one was given to it. The official Python client reads `error.code` and `error.message`
    /// from every non-2xx answer, and fails on one without them.
    public func body(messageID: Int64? = nil) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("msg_id", messageID)
        writer.key("error")
        writer.beginObject()
        writer.field("code", Int64(code.rawValue))
        writer.field("message", message)
        writer.endObject()
        writer.endObject()
        return writer.text
    }
}

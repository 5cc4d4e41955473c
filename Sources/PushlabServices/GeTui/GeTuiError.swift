import PushlabCore

/// GeTui's REST API v2 return codes and the HTTP status each comes with: the one place a code
/// meets its status. Source: GeTui's RestAPI V2 return-code page (the 30000 block as DCloud's
/// uni-push, which runs on GeTui, republishes it). Code 301 (wrong data centre) is never sent:
/// the official SDKs would switch hosts on it.
public enum GeTuiCode: Int, Sendable, CaseIterable {
    case success = 0
    case failure = 1
    case notFound = 404
    case methodNotAllowed = 405
    case tokenInvalid = 10001
    case blacklisted = 10002
    case authenticationRateExceeded = 10003
    case noDetailPermission = 10004
    case rateExceeded = 10005
    case invalidParameter = 20001
    case scheduledTaskAlreadyRan = 22001
    case invalidTask = 22002
    case tagOperationFailed = 23001
    case appPushDailyLimit = 30007
    case listPushDailyLimit = 30008
    case appPushRateExceeded = 30014
    case systemBusy = 30019

    public var httpStatus: Int {
        switch self {
        case .success, .failure: 200
        case .notFound: 404
        case .methodNotAllowed: 405
        case .tokenInvalid, .blacklisted, .authenticationRateExceeded, .noDetailPermission, .rateExceeded: 401
        case .invalidParameter, .scheduledTaskAlreadyRan, .invalidTask, .tagOperationFailed: 400
        case .appPushDailyLimit, .listPushDailyLimit, .appPushRateExceeded, .systemBusy: 403
        }
    }

    public var defaultMessage: String {
        switch self {
        case .success: "success"
        case .failure: "failed"
        case .notFound: "url error"
        case .methodNotAllowed: "method not supported"
        case .tokenInvalid: "token错误/失效"
        case .blacklisted: "appId或ip在黑名单中"
        case .authenticationRateExceeded: "每分钟鉴权频率超限"
        case .noDetailPermission: "没有查询消息明细的权限"
        case .rateExceeded: "每分钟调用频率超限"
        case .invalidParameter: "parameter error"
        case .scheduledTaskAlreadyRan: "定时任务已经执行,无法删除"
        case .invalidTask: "任务无效或定时任务时间不合法"
        case .tagOperationFailed: "操作tag失败"
        case .appPushDailyLimit: "app/all推送,推送次数超过每日推送总数限制,每日最多推送100次"
        case .listPushDailyLimit: "list推送次数超过每日推送总数限制,每日最多推送2000000次"
        case .appPushRateExceeded: "app 推送 频率超过每分钟频率限制,每分钟最多操作5次"
        case .systemBusy: "系统繁忙,请稍后重试"
        }
    }
}

/// A refusal: GeTui's code, and a message in its words (`{param} is invalid`, `{param} can not be
/// empty`, …).
public struct GeTuiError: Error, Sendable, Equatable {
    public var code: GeTuiCode
    public var message: String

    public init(_ code: GeTuiCode, _ message: String? = nil) {
        self.code = code
        self.message = message ?? code.defaultMessage
    }

    public static func invalid(_ parameter: String) -> GeTuiError { GeTuiError(.invalidParameter, "\(parameter) is invalid") }
    public static func empty(_ parameter: String) -> GeTuiError { GeTuiError(.invalidParameter, "\(parameter) can not be empty") }

    public var httpStatus: Int { code.httpStatus }

    /// `{"code":20001,"msg":"…"}`, every answer's envelope.
    public var body: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("code", Int64(code.rawValue))
        writer.field("msg", message)
        writer.endObject()
        return writer.text
    }
}

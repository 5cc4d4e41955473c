import Foundation

/// The transport-level rules every APNs request meets before any validation of its content:
/// POST only (405 `MethodNotAllowed`), a path under `/3/device/` (404 `BadPath`) and a
/// non-empty body (400 `PayloadEmpty`). Everything else is accepted.
public struct BasicAPNsService: APNsService {
    public var maxConcurrentStreams: UInt32

    public init(maxConcurrentStreams: UInt32 = 1000) {
        self.maxConcurrentStreams = maxConcurrentStreams
    }

    public func makeConnectionHandler(for connection: ConnectionInfo) -> any APNsConnectionHandler {
        Handler(initialMaxConcurrentStreams: maxConcurrentStreams)
    }

    final class Handler: APNsConnectionHandler {
        let initialMaxConcurrentStreams: UInt32

        init(initialMaxConcurrentStreams: UInt32) {
            self.initialMaxConcurrentStreams = initialMaxConcurrentStreams
        }

        func handle(_ request: APNsRequest) -> APNsOutcome {
            let apnsID = APNsID.echoOrGenerate(request.header("apns-id"))
            if let reason = BasicAPNsService.rejection(for: request) {
                return APNsOutcome(.failure(reason, apnsID: apnsID))
            }
            return APNsOutcome(.success(apnsID: apnsID))
        }
    }

    static func rejection(for request: APNsRequest) -> APNsErrorReason? {
        if request.method != "POST" { return .methodNotAllowed }
        guard let path = request.path, path.hasPrefix("/3/device/") else { return .badPath }
        if request.bodyLength == 0 { return .payloadEmpty }
        return nil
    }
}

public enum APNsID {
    /// The request's `apns-id` as sent, or a new UUID in upper case, as APNs generates them.
    public static func echoOrGenerate(_ requested: String?) -> String {
        if let requested, !requested.isEmpty { return requested }
        return UUID().uuidString
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import PushlabCore

/// An APNs listener that could not bind its address, and why, in words a user can act on.
public struct ListenerUnavailable: Error, CustomStringConvertible {
    public let listener: APNsListener
    /// "the address is in use", "permission denied (ports below 1024 need root)", or the system's text.
    public let reason: String

    public var description: String {
        let host = listener.host.contains(":") ? "[\(listener.host)]" : listener.host
        let name = listener.role == .channelManagement ? "\(listener.environment.rawValue) channel management" : listener.environment.rawValue
        return "The \(name) listener cannot listen on \(host):\(listener.port): \(reason)"
    }

    /// Whether another process holds the address (the usual case: a second server).
    public var addressInUse: Bool { reason == Self.inUse }

    static let inUse = "the address is in use"

    static func reason(of error: any Error) -> String {
        guard let failure = error as? IOError else { return "\(error)" }
        switch failure.errnoCode {
        case EADDRINUSE: return inUse
        case EACCES: return "permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE)"
        case EADDRNOTAVAIL: return "no interface has this address"
        default: return "\(failure)"
        }
    }
}

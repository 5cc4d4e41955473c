/// Apple's two push environments.
public enum APNsEnvironment: String, Sendable, Hashable, CaseIterable, Codable {
    case development
    case production

    /// The environment an Apple host name selects, or nil for any other host.
    /// `api.development.push.apple.com` is Apple's older sandbox name, still used by clients;
    /// `api-manage-broadcast` is the channel management host (A10), `api-broadcast` the host of
    /// Apple's broadcast samples (A12).
    public init?(appleHost host: String) {
        var name = host.lowercased()[...]
        if let colon = name.firstIndex(of: ":") { name = name[..<colon] }  // an IPv6 literal is no Apple host anyway
        if name.hasSuffix(".") { name = name.dropLast() }
        switch name {
        case "api.sandbox.push.apple.com", "api.development.push.apple.com", "api-manage-broadcast.sandbox.push.apple.com",
             "api-broadcast.sandbox.push.apple.com":
            self = .development
        case "api.push.apple.com", "api-manage-broadcast.push.apple.com", "api-broadcast.push.apple.com": self = .production
        default: return nil
        }
    }
}

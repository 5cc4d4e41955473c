/// A path of the broadcast and channel management API (A10, A12) and the bundle id it names.
struct ChannelAPIEndpoint: Equatable {
    enum Resource: Equatable {
        /// `/4/broadcasts/apps/<bundle>`: the provider API's broadcast send.
        case broadcasts
        /// `/1/apps/<bundle>/channels`: one channel, named by `apns-channel-id` (or made by a create).
        case channels
        /// `/1/apps/<bundle>/all-channels`: the app's channels.
        case allChannels
    }

    var resource: Resource
    var bundleID: String

    static let broadcastPrefix = "/4/broadcasts/apps/"
    static let channelPrefix = "/1/apps/"

    /// nil for any other path (`BadPath`). The bundle id is one non-empty path segment.
    init?(path: String) {
        func segment(_ text: Substring) -> String? {
            text.isEmpty || text.contains("/") || text.contains("?") ? nil : String(text)
        }
        if path.hasPrefix(Self.broadcastPrefix) {
            guard let bundleID = segment(path.dropFirst(Self.broadcastPrefix.count)) else { return nil }
            self.init(resource: .broadcasts, bundleID: bundleID)
        } else if path.hasPrefix(Self.channelPrefix) {
            let rest = path.dropFirst(Self.channelPrefix.count)
            guard let slash = rest.lastIndex(of: "/"), let bundleID = segment(rest[..<slash]) else { return nil }
            switch rest[rest.index(after: slash)...] {
            case "channels": self.init(resource: .channels, bundleID: bundleID)
            case "all-channels": self.init(resource: .allChannels, bundleID: bundleID)
            default: return nil
            }
        } else {
            return nil
        }
    }

    init(resource: Resource, bundleID: String) {
        self.resource = resource
        self.bundleID = bundleID
    }

    /// Whether a path may belong to this API rather than the device API: `/1/…` or `/4/…`, told
    /// by two bytes, so the device API's requests pay no more than that for it.
    static func mayMatch(_ path: UnsafeRawBufferPointer?) -> Bool {
        guard let path, path.count >= 3, path[0] == UInt8(ascii: "/"), path[2] == UInt8(ascii: "/") else { return false }
        return path[1] == UInt8(ascii: "1") || path[1] == UInt8(ascii: "4")
    }

    /// Broadcasts belong to the provider API, channels to channel management (A10, A12).
    func isServed(by role: APNsListenerRole) -> Bool {
        resource == .broadcasts ? role.servesProvider : role.servesChannelManagement
    }

    /// What a method asks of this path; nil is `MethodNotAllowed`.
    func operation(for method: String?) -> ChannelAPIOperation? {
        switch (resource, method) {
        case (.broadcasts, "POST"): .broadcast
        case (.channels, "POST"): .create
        case (.channels, "GET"): .read
        case (.channels, "DELETE"): .delete
        case (.allChannels, "GET"): .list
        default: nil
        }
    }
}

/// The five requests of the broadcast and channel management API.
enum ChannelAPIOperation: Equatable {
    case broadcast, create, read, delete, list

    /// Whether the request names its channel in `apns-channel-id`.
    var namesChannel: Bool { self == .broadcast || self == .read || self == .delete }
}

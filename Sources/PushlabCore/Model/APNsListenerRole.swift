/// The APIs one listener serves. Apple splits them by host: the provider API (device pushes and
/// broadcasts) on api(.sandbox).push.apple.com, channel management on
/// api-manage-broadcast(.sandbox).push.apple.com:2195/2196 (A10, A12).
public enum APNsListenerRole: String, Sendable, Equatable, CaseIterable {
    /// `/3/device/…` and `/4/broadcasts/apps/…`.
    case provider
    /// `/1/apps/…/channels` and `/1/apps/…/all-channels`.
    case channelManagement
    /// Both: lenient, for one port that answers every client.
    case both

    public var servesProvider: Bool { self != .channelManagement }
    public var servesChannelManagement: Bool { self != .provider }
}

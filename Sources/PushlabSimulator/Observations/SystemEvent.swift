import PushlabCore

/// Something iOS (or the paired watch, or the MDM agent) does that is not a banner, a sound, a
/// badge or an app callback: the call screen, an app killed for breaking a rule, a widget reload.
public struct SystemEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// CallKit's incoming-call screen (full screen when locked, a banner when in use).
        case incomingCall
        /// iOS ended the app, with its console message.
        case appTerminated
        /// iOS stops delivering VoIP pushes to the app.
        case voipDeliveryStopped
        /// The Notification Service Extension's result: what was shown, and why.
        case serviceExtension
        /// The extension donated an `INSendMessageIntent`: a Communication Notification.
        case communicationNotification
        /// Push to Talk: the system shows the speaker and activates audio.
        case pushToTalkAudio
        /// Push to Talk: the app left the channel; its token stops working.
        case pushToTalkLeftChannel
        /// File Provider: the system signalled the enumerator of a container.
        case enumeratorSignalled
        /// WidgetKit reloaded the app's widget timelines.
        case widgetsReloaded
        /// The control reloaded.
        case controlsReloaded
        /// The paired watch updated the complication.
        case complicationUpdated
        /// The MDM agent checked in with the MDM server.
        case mdmCheckIn
    }

    public var kind: Kind
    public var message: String?
    /// Event-specific fields (`caller`, `presentation`, `shown`, …).
    public var details: JSONValue

    public init(_ kind: Kind, message: String? = nil, details: JSONValue = .object([])) {
        self.kind = kind
        self.message = message
        self.details = details
    }
}

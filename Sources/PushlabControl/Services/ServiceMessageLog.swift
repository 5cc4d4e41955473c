import PushlabCore
import PushlabSimulator

/// A message a service sent (a JPush push, a GeTui task): to which phones, what APNs answered for
/// each, and what became of its custom message or transmission. `GET /v1/services/messages`.
public struct ServiceMessage: Sendable {
    public enum Channel: String, Sendable {
        /// Handed to the SDK at once, over the service's connection.
        case deliveredNow
        /// Kept for an app that was not connected, until its time to live.
        case kept
        /// Kept, then handed over at the app's next login, flagged offline.
        case handedOver
        /// Under GeTui's strategy 4, waiting for APNs's answer before it goes over GeTui's connection.
        case awaitingAPNs
    }

    public struct Target: Sendable {
        /// The registration id or cid.
        public var id: String
        public var deviceID: String?
        public var bundleID: String?
        /// APNs's answer to the service's request for this phone.
        public var apns: APNsAnswer?
        /// Why no answer came (the connection could not be made).
        public var apnsFailure: String?
        /// The custom message's or transmission's way, when the push had one for this phone.
        public var channel: Channel?

        init(id: String, channel: Channel?) {
            self.id = id
            self.channel = channel
        }

        /// What came of the service's APNs request for this phone.
        mutating func record(_ answer: Result<APNsAnswer, ServiceAPNsFailure>) {
            switch answer {
            case .success(let apns): self.apns = apns
            case .failure(let failure): apnsFailure = failure.description
            }
        }
    }

    public var service: ThirdPartySDK.Service
    public var appKey: String
    /// JPush's msg_id, or GeTui's task id.
    public var id: String
    public var time: EpochMilliseconds
    public var targets: [Target]
}

struct ServiceMessageLog {
    static let kept = 1_000
    private(set) var messages: [ServiceMessage] = []

    mutating func add(_ message: ServiceMessage) {
        if let index = messages.lastIndex(where: { $0.service == message.service && $0.id == message.id }) {
            messages[index].targets += message.targets
        } else {
            messages.append(message)
            if messages.count > Self.kept { messages.removeFirst(messages.count - Self.kept) }
        }
    }

    mutating func update(service: ThirdPartySDK.Service, id: String, target: String, _ change: (inout ServiceMessage.Target) -> Void) {
        guard let index = messages.lastIndex(where: { $0.service == service && $0.id == id }),
              let slot = messages[index].targets.firstIndex(where: { $0.id == target }) else { return }
        change(&messages[index].targets[slot])
    }

    /// Messages kept for a phone went over at its login.
    mutating func handedOver(_ handed: [(id: String, target: String)], service: ThirdPartySDK.Service) {
        for (id, target) in handed { update(service: service, id: id, target: target) { $0.channel = .handedOver } }
    }
}

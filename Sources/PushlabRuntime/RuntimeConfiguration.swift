import Foundation
import PushlabTransport

/// How a `PushlabRuntime` runs its cores: where it listens, how pushes reach the phones, what it
/// keeps. `pushlab serve`, `pushlab run` and `PushlabTestServer` differ only in this.
public struct RuntimeConfiguration: Sendable {
    /// The APNs listeners, TLS and HTTP/2 settings. A new listener is one more entry here.
    public var server: ServerConfiguration
    public var delivery: Delivery
    /// SQLite store for observations, requests and devices; nil keeps nothing.
    public var store: StoreSettings?
    /// The control API (plain HTTP); nil runs none.
    public var control: ControlSettings?
    /// Real time: how often due events (local notifications, held pushes) are run; nil never
    /// (a manual clock moves only when told).
    public var tickInterval: Duration?
    /// The JPush and GeTui APIs' HTTPS listeners (with the APNs listeners' certificate); nil runs none.
    public var services: ServiceSettings?

    public init(
        server: ServerConfiguration, delivery: Delivery = .queued(), store: StoreSettings? = nil, control: ControlSettings? = nil, tickInterval: Duration? = nil,
        services: ServiceSettings? = nil
    ) {
        self.server = server
        self.delivery = delivery
        self.store = store
        self.control = control
        self.tickInterval = tickInterval
        self.services = services
    }

    public struct ServiceSettings: Sendable {
        public var host: String
        /// JPush's API (api.jpush.cn, device.jpush.cn, report.jpush.cn); nil runs none, 0 picks a free port.
        public var jpushPort: Int?
        /// GeTui's API (restapi.getui.com); nil runs none, 0 picks a free port.
        public var getuiPort: Int?
        /// When false, a port that cannot be bound leaves that service without a listener
        /// (`PushlabRuntime.serviceListenersUnavailable` says why) instead of failing the start.
        public var required: Bool

        public init(host: String = "127.0.0.1", jpushPort: Int? = 2200, getuiPort: Int? = 2201, required: Bool = true) {
            self.host = host
            self.jpushPort = jpushPort
            self.getuiPort = getuiPort
            self.required = required
        }
    }

    /// How an accepted push reaches the simulated phones.
    public enum Delivery: Sendable, Equatable {
        /// As APNs does: answered first, delivered by a worker thread that catches up below the
        /// event loops' priority; readers of devices and observations wait only for what came
        /// before them. A full queue slows the answers and loses nothing.
        case queued(capacity: Int = 2_000_000)
        /// Delivered on the event loop before the answer is sent: simpler to reason about in a
        /// test, slower under load.
        case inline
    }

    public struct StoreSettings: Sendable {
        public var path: String
        /// Observations and requests kept, each; nil keeps everything.
        public var historyLimit: Int?
        /// Every request's record (an acknowledged push's among them) is committed within this
        /// time, under any load: what `kill -9` can lose at most.
        public var crashWindow: Duration
        /// Every answer waits until its record is committed (group commit): `kill -9` loses no
        /// acknowledged push.
        public var durable: Bool

        public init(path: String, historyLimit: Int? = 1_000_000, crashWindow: Duration = .milliseconds(250), durable: Bool = false) {
            self.path = path
            self.historyLimit = historyLimit
            self.crashWindow = crashWindow
            self.durable = durable
        }
    }

    public struct ControlSettings: Sendable {
        public var host: String
        /// 0 picks a free port.
        public var port: Int
        /// When false, a port that cannot be bound leaves the runtime without a control API
        /// (`PushlabRuntime.controlUnavailable` says why) instead of failing the start.
        public var required: Bool
        /// Every request must carry `authorization: Bearer <token>`; nil lets anyone who reaches
        /// the address in (right for loopback only).
        public var token: String?

        public init(host: String = "127.0.0.1", port: Int, required: Bool = true, token: String? = nil) {
            self.host = host
            self.port = port
            self.required = required
            self.token = token
        }

        /// Whether the address is this machine's alone (127.0.0.0/8, ::1, localhost).
        public var isLoopback: Bool {
            host == "localhost" || host == "::1" || host.hasPrefix("127.")
        }
    }
}

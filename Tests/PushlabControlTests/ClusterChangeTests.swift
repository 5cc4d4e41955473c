@testable import PushlabControl
import Testing

/// Which control API requests every node of a cluster applies (`ClusterChange.kind`), and which
/// go to one phone's node or are read where they land.
@Suite struct ClusterChangeTests {
    @Test(arguments: [
        ("POST", "/v1/reset", ClusterChange.Kind.reset),
        ("POST", "/v1/scenario", .load),
        ("POST", "/v1/keys", .change),
        ("DELETE", "/v1/keys/PUSHLAB001", .change),
        ("POST", "/v1/apps", .change),
        ("POST", "/v1/clock", .change),
        ("POST", "/v1/faults", .change),
        ("DELETE", "/v1/faults", .change),
        ("DELETE", "/v1/faults/fault-1", .change),
        ("PUT", "/v1/stand-in/rules", .change),
        ("DELETE", "/v1/stand-in/requests", .change),
        // The provider report and the latency profile: every node records and answers alike.
        ("PUT", "/v1/report", .change),
        ("DELETE", "/v1/report", .change),
        ("PUT", "/v1/latency", .change),
        ("DELETE", "/v1/latency", .change),
        ("POST", "/v1/clock?ignored=1", .change),
    ])
    func worldChangesAreEveryNodes(method: String, path: String, kind: ClusterChange.Kind) {
        #expect(ClusterChange.kind(of: method, path: path) == kind)
    }

    @Test(arguments: [
        ("GET", "/v1/devices"), ("GET", "/v1/clock"), ("GET", "/v1/faults"), ("GET", "/v1/health"), ("GET", "/v1/report"),
        // What only the phone's own node holds: the phone itself, its apps, their states, a tap,
        // a Live Activity, a local notification. Their tokens reach the others as published changes.
        ("POST", "/v1/devices"), ("DELETE", "/v1/devices/phone-1"),
        ("POST", "/v1/devices/phone-1/apps"), ("PATCH", "/v1/devices/phone-1/apps/com.example.app"),
        ("DELETE", "/v1/devices/phone-1/apps/com.example.app"), ("POST", "/v1/devices/phone-1/apps/com.example.app/reinstall"),
        ("PATCH", "/v1/devices/phone-1"), ("POST", "/v1/devices/phone-1/interactions"),
        ("POST", "/v1/devices/phone-1/apps/com.example.app/activities"),
        ("POST", "/v1/devices/phone-1/apps/com.example.app/local-notifications"),
        // Sent through this node's own APNs listener, where the engine admits it.
        ("POST", "/v1/send"),
        // Look-alikes of other shapes.
        ("POST", "/v1/devices/phone-1/apps/com.example.app/activities/a1/end"), ("POST", "/v2/reset"), ("POST", "/v1/stand-in/rules"),
    ])
    func readsAndOnePhonesChangesAreNot(method: String, path: String) {
        #expect(ClusterChange.kind(of: method, path: path) == nil)
    }
}

@testable import PushlabSimulator
import PushlabCore
import Testing

/// Reference 1 (`serviceExtension`): `mutable-content: 1` goes through a Notification Service
/// Extension when the app has one.
@Suite("mutable-content and the Notification Service Extension")
struct ServiceExtensionTests {
    static let mutablePayload = #"{"aps":{"alert":{"title":"Photo","body":"A new photo"},"mutable-content":1},"image":"https://example.com/p.jpg"}"#

    @Test("With an extension: didReceiveNotificationRequest:withContentHandler: runs before the notification is shown",
          arguments: [AppState.background, .notRunning, .foreground])
    func routedThroughExtension(_ state: AppState) throws {
        let h = try SimulatorHarness(.testApp(state: state, willPresentOptions: [.banner, .list], serviceExtension: true))
        var id = ""
        let seen = try h.during { id = try h.push(Self.mutablePayload) }
        let extensionCall = try #require(seen.first { if case .callback(.serviceExtension, _, _) = $0.event { true } else { false } })
        let banner = try #require(seen.banners.first)
        #expect(extensionCall.sequence < banner.sequence)
        #expect(extensionCall.notificationID == id)
        #expect(seen.callbacks.first { $0.callback == .serviceExtension }?.arguments.userInfo == (try Fixture.json(Self.mutablePayload)))
    }

    @Test("Without an extension: shown as it came, no extension call")
    func noExtension() throws {
        let h = try SimulatorHarness(.testApp(state: .background, serviceExtension: false))
        let seen = try h.during { try h.push(Self.mutablePayload) }
        #expect(seen.banners.count == 1)
        #expect(!seen.callbacks.map(\.callback).contains(.serviceExtension))
    }

    @Test("Without mutable-content the extension is not involved")
    func notMutable() throws {
        let h = try SimulatorHarness(.testApp(state: .background, serviceExtension: true))
        let seen = try h.during { try h.alert() }
        #expect(seen.banners.count == 1)
        #expect(!seen.callbacks.map(\.callback).contains(.serviceExtension))
    }
}

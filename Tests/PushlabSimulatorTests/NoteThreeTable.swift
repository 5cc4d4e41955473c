@testable import PushlabSimulator
import PushlabCore
import Testing

/// The five cases of note 003 (reference section 3's table).
enum NoteThreeCase: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case foreground
    case backgroundTapNotification
    case backgroundTapIcon
    case notRunningTapNotification
    case notRunningTapIcon

    var testDescription: String { rawValue }

    var stateWhenItArrives: AppState {
        switch self {
        case .foreground: .foreground
        case .backgroundTapNotification, .backgroundTapIcon: .background
        case .notRunningTapNotification, .notRunningTapIcon: .notRunning
        }
    }

    var tapsNotification: Bool { self == .backgroundTapNotification || self == .notRunningTapNotification }
    var tapsIcon: Bool { self == .backgroundTapIcon || self == .notRunningTapIcon }
}

/// What one case of the table must observe.
struct TableExpectation {
    /// Notification callbacks (and `didFinishLaunching`) while the notification arrives, in order.
    var atArrival: [CallbackStep]
    /// The same after the user acts (nothing, taps the notification, or taps the icon).
    var afterUser: [CallbackStep]
    /// The launch options `didFinishLaunching` must receive, when it runs.
    var launchOptions: JSONValue
}

extension TableExpectation {
    /// The table's rows, given which callback delivers the notification to a running app
    /// (`delivering`, nil when the app implements none) and what a launch from the notification
    /// carries. `launchThenResponse` is the user-notifications row "didFinishLaunching then
    /// didReceiveNotificationResponse".
    static func row(
        _ situation: NoteThreeCase, foregroundCallback: AppCallback?, tapCallback: AppCallback?,
        launchKey: String, payload: JSONValue, launchThenTapCallback: Bool
    ) -> TableExpectation {
        let launchedFromNotification = JSONValue.object([(launchKey, payload)])
        switch situation {
        case .foreground:
            return TableExpectation(atArrival: foregroundCallback.map { [CallbackStep($0, .foreground)] } ?? [], afterUser: [], launchOptions: .object([]))
        case .backgroundTapNotification:
            // The app comes to the foreground (inactive while the callback runs, as on iOS).
            return TableExpectation(atArrival: [], afterUser: tapCallback.map { [CallbackStep($0, .inactive)] } ?? [], launchOptions: .object([]))
        case .backgroundTapIcon:
            return TableExpectation(atArrival: [], afterUser: [], launchOptions: .object([]))
        case .notRunningTapNotification:
            var steps = [CallbackStep(.didFinishLaunching, .inactive)]
            if launchThenTapCallback, let tapCallback { steps.append(CallbackStep(tapCallback, .inactive)) }
            return TableExpectation(atArrival: [], afterUser: steps, launchOptions: launchedFromNotification)
        case .notRunningTapIcon:
            return TableExpectation(atArrival: [], afterUser: [CallbackStep(.didFinishLaunching, .inactive)], launchOptions: .object([]))
        }
    }
}

/// Runs one case: `arrive` delivers the notification (returning its id) to an app that is in the
/// case's state; then the user does what the case says. Checks everything the table prescribes.
func checkNoteThreeCase(
    _ situation: NoteThreeCase, harness h: SimulatorHarness, expected: TableExpectation,
    payload: JSONValue, trigger: String, badge: Int, arrive: () throws -> String,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    var id = ""
    let atArrival = try h.during { id = try arrive() }

    #expect(atArrival.notificationCallbacks.map(\.step) == expected.atArrival, "callbacks when it arrives", sourceLocation: sourceLocation)
    if situation == .foreground {
        // 2.1: no banner, no sound by default; nothing lands in Notification Center.
        #expect(atArrival.banners.isEmpty, sourceLocation: sourceLocation)
        #expect(atArrival.sounds.isEmpty, sourceLocation: sourceLocation)
        #expect(try h.notificationCenterIDs().isEmpty, sourceLocation: sourceLocation)
    } else {
        // 2.2: banner, sound, badge and Notification Center; "icon has a number, notification
        // center has the notification" (note 003).
        #expect(atArrival.banners.count == 1, sourceLocation: sourceLocation)
        #expect(atArrival.sounds == ["default"], sourceLocation: sourceLocation)
        #expect(try h.app().badge == badge, sourceLocation: sourceLocation)
        #expect(try h.notificationCenterIDs() == [id], sourceLocation: sourceLocation)
        #expect(try h.app().state == situation.stateWhenItArrives, "no launch, no resume before the user acts", sourceLocation: sourceLocation)
    }

    let afterUser = try h.during {
        if situation.tapsNotification { try h.tapNotification(id) }
        if situation.tapsIcon { try h.tapIcon() }
    }
    let seen = afterUser.notificationCallbacks
    #expect(seen.map(\.step) == expected.afterUser, "callbacks after the user acts", sourceLocation: sourceLocation)

    for callback in (atArrival.notificationCallbacks + seen) {
        if callback.callback == .didFinishLaunching {
            #expect(callback.arguments.launchOptions == expected.launchOptions, "launch options", sourceLocation: sourceLocation)
        } else {
            #expect(callback.arguments.userInfo == payload, "\(callback.callback.rawValue) carries the payload", sourceLocation: sourceLocation)
        }
        if callback.callback == .didReceiveResponse {
            #expect(callback.arguments.actionIdentifier == CallbackKey.defaultActionIdentifier, sourceLocation: sourceLocation)
            #expect(callback.arguments.trigger == trigger, sourceLocation: sourceLocation)
        }
    }

    // The app ends up on screen, active.
    #expect(try h.app().state == .foreground, sourceLocation: sourceLocation)
    if situation != .foreground {
        // The badge stays until the app or user clears it; tapping the notification removes its
        // entry, tapping the icon leaves it.
        #expect(try h.app().badge == badge, "badge stays", sourceLocation: sourceLocation)
        #expect(try h.notificationCenterIDs() == (situation.tapsIcon ? [id] : []), "Notification Center entry", sourceLocation: sourceLocation)
    }
}

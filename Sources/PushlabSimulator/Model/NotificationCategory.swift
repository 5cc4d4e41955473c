/// A category an app registers: the buttons a notification naming it in `aps.category` shows.
public struct NotificationCategory: Sendable, Codable, Equatable {
    public struct Action: Sendable, Codable, Equatable {
        public enum Activation: String, Sendable, Codable, CaseIterable {
            /// Launches the app or brings it forward before the callback.
            case foreground
            /// Runs the callback with the app in the background.
            case background
        }

        public var identifier: String
        public var title: String
        public var activation: Activation
        public var destructive: Bool
        /// On a locked device the user must unlock first.
        public var authenticationRequired: Bool
        /// A text-input action: the typed text reaches the callback.
        public var textInput: Bool

        public init(identifier: String, title: String? = nil, activation: Activation = .foreground, destructive: Bool = false, authenticationRequired: Bool = false, textInput: Bool = false) {
            self.identifier = identifier
            self.title = title ?? identifier
            self.activation = activation
            self.destructive = destructive
            self.authenticationRequired = authenticationRequired
            self.textInput = textInput
        }
    }

    public var identifier: String
    public var actions: [Action]
    /// Dismissing calls `didReceiveNotificationResponse` with the dismiss action id.
    public var customDismissAction: Bool

    public init(identifier: String, actions: [Action] = [], customDismissAction: Bool = false) {
        self.identifier = identifier
        self.actions = actions
        self.customDismissAction = customDismissAction
    }
}

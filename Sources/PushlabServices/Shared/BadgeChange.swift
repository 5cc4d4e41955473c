/// A badge a push service sets for a phone: a number, or `"+N"` / `"-N"` to add to or take from
/// the badge the service keeps for the device (the one its SDK last sent with `setBadge:`).
/// JPush's `notification.ios.badge` and GeTui's `auto_badge` both work so; the service resolves
/// it, so the phone receives a plain number, and below zero the badge is cleared.
public enum BadgeChange: Sendable, Equatable {
    case set(Int)
    case add(Int)

    /// An integer, or a string of one with an optional sign. The official clients send strings
    /// (`"+1"`, `"5"`); an empty string clears. nil: not a badge JPush takes.
    public init?(integer: Int64) {
        guard (0...Int64(Self.largestValue)).contains(integer) else { return nil }
        self = .set(Int(integer))
    }

    public init?(text: String) {
        if text.isEmpty {
            self = .set(0)
            return
        }
        let sign = text.first!
        let digits = sign == "+" || sign == "-" ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), let value = Int(digits) else { return nil }
        switch sign {
        case "+", "-":
            guard value <= Self.largestStep else { return nil }
            self = .add(sign == "+" ? value : -value)
        default:
            guard value <= Self.largestValue else { return nil }
            self = .set(value)
        }
    }

    /// `setBadge:`'s range, and the old clients' for a number to set.
    public static let largestValue = 99_999
    /// JPush's current documentation: `+N` and `-N` with N in [0, 99].
    public static let largestStep = 99

    /// The number the phone receives, given the badge JPush keeps for it.
    public func resolved(against stored: Int) -> Int {
        switch self {
        case .set(let value): value
        case .add(let step): max(0, stored + step)
        }
    }
}

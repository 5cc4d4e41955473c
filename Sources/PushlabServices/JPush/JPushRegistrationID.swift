/// JPush's registration ids: what its SDK receives at launch (`registrationIDCompletionHandler`)
/// and what a backend pushes to. Real ones are 19 hexadecimal-looking characters
/// (`140fe1da9e22a23f92f`); JPush answers 1003 "The registration_id … is invalid!" for one that is
/// not of its form, and 1011 for one of its form that no device of the app holds.
public enum JPushRegistrationID {
    /// The ids Pushlab gives out: 19 lower-case hexadecimal characters, as JPush's look.
    public static let length = 19

    /// Letters and digits, 11 to 32 of them: the ids seen from JPush and from its clients' tests
    /// fall in this range; shorter or other characters are refused as malformed [INF].
    public static func isWellFormed(_ id: String) -> Bool {
        (11...32).contains(id.utf8.count) && id.utf8.allSatisfy { (48...57).contains($0) || (97...122).contains($0) || (65...90).contains($0) }
    }
}

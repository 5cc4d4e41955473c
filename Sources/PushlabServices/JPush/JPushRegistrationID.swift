/// JPush's registration ids: what its SDK receives at launch (`registrationIDCompletionHandler`)
/// and what a backend pushes to. Real ones are 19 hexadecimal-looking characters
/// (`140fe1da9e22a23f92f`); JPush answers 1003 "The registration_id … is invalid!" for one that is
/// not of its form, and 1011 for one of its form that no device of the app holds.
public enum JPushRegistrationID {
    public static let length = 19

    /// Letters and digits, 11 to 32 of them: the ids seen from JPush and from its clients' tests
    /// fall in this range; shorter or other characters are refused as malformed [INF].
    public static func isWellFormed(_ id: String) -> Bool {
        (11...32).contains(id.utf8.count) && id.utf8.allSatisfy { (48...57).contains($0) || (97...122).contains($0) || (65...90).contains($0) }
    }

    /// The `number`-th id Pushlab gives out under a seed: 19 lowercase hexadecimal characters,
    /// the same for the same seed and number, different for any other.
    public static func make(seed: UInt64, number: UInt64) -> String {
        var state = seed &+ number &* 0x9E37_79B9_7F4A_7C15
        var digits = ""
        for _ in 0..<2 {
            state = (state ^ (state >> 30)) &* 0xBF58_476D_1CE4_E5B9
            state = (state ^ (state >> 27)) &* 0x94D0_49BB_1331_11EB
            state ^= state >> 31
            let part = String(state, radix: 16)
            digits += String(repeating: "0", count: 16 - part.count) + part
        }
        return String(digits.prefix(length))
    }
}

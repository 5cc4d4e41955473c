import PushlabCore

/// `POST /v1/clock`: one change of the serve clock.
struct ClockBody: ControlBody {
    /// Seconds to move forward; everything due on the way happens at its own time.
    var advance: Double?
    /// A time to jump to (ISO 8601); nothing due before it is replayed when moving back.
    var set: String?
    /// `manual` (stands still until set or advanced) or `real`.
    var mode: String?

    enum Mode: String, CaseIterable {
        case manual, real
    }

    enum Change: Equatable {
        case advance(milliseconds: Int64)
        case set(EpochMilliseconds)
        case mode(Mode)
    }

    static let shape = BodyShape.fields(["advance", "set", "mode"])
    static let example = #"{"advance":3600}"#

    func change() throws(ControlError) -> Change {
        let given = [advance != nil, set != nil, mode != nil].filter { $0 }.count
        guard given == 1 else {
            throw .invalid("Give exactly one of advance (seconds), set (ISO 8601) or mode (manual or real), e.g. \(Self.example)")
        }
        if let advance {
            guard advance.isFinite, advance >= 0 else { throw .invalid("advance must be 0 or more seconds, not \(advance)") }
            try InputLimits.checkSpan(advance, field: "advance")
            return .advance(milliseconds: Int64((advance * 1000).rounded()))
        }
        if let set { return .set(try ISO8601Input.require(set, field: "set")) }
        return .mode(try Choice.parse(mode ?? "", as: Mode.self, field: "mode"))
    }
}

import PushlabCore

/// `POST /v1/faults`: which requests (all, narrowed by the optional fields) and one action.
struct FaultBody: ControlBody {
    var deviceToken: String?
    var topic: String?
    var everyNth: Int?
    var probability: Double?
    var count: Int?
    var respond: RespondBody?
    var delayMs: Int64?
    var goAway: String?
    var resetStream: Bool?
    var closeConnection: Bool?

    struct RespondBody: Decodable {
        /// Optional: the reason decides it; given, it must be the reason's own.
        var status: Int?
        var reason: String
    }

    static let shape = BodyShape.fields(
        ["deviceToken", "topic", "everyNth", "probability", "count", "respond", "delayMs", "goAway", "resetStream", "closeConnection"],
        ["respond": .fields(["status", "reason"])]
    )
    static let example = #"{"respond":{"status":503,"reason":"ServiceUnavailable"},"count":1}"#
    static let actions = "respond, delayMs, goAway, resetStream or closeConnection"

    func rule() throws(ControlError) -> FaultRule {
        let given = [respond != nil, delayMs != nil, goAway != nil, resetStream != nil, closeConnection != nil].filter { $0 }.count
        guard given == 1 else {
            throw .invalid("Give exactly one action: \(Self.actions), e.g. \(Self.example)")
        }
        let fault: Fault
        if let respond {
            let reason = try Self.reason(respond.reason, field: "respond.reason")
            if let status = respond.status, status != reason.status {
                throw .invalid("respond.status: \(reason.rawValue) is answered with \(reason.status), not \(status) (leave status out to use the reason's own)")
            }
            fault = .respond(reason)
        } else if let delayMs {
            fault = .delay(milliseconds: delayMs)
        } else if let goAway {
            fault = .goAway(try Self.reason(goAway, field: "goAway"))
        } else if let resetStream {
            guard resetStream else { throw .invalid("resetStream must be true (leave it out for another action)") }
            fault = .resetStream
        } else {
            guard closeConnection == true else { throw .invalid("closeConnection must be true (leave it out for another action)") }
            fault = .closeConnection
        }
        return FaultRule(deviceToken: deviceToken, topic: topic, everyNth: everyNth, probability: probability, count: count, fault: fault)
    }

    private static func reason(_ text: String, field: String) throws(ControlError) -> APNsErrorReason {
        try Choice.parse(text, as: APNsErrorReason.self, field: field)
    }
}

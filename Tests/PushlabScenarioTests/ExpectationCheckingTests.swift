import PushlabCore
@testable import PushlabScenario
import Testing

@Suite("Scenario steps: checking expectations")
struct ExpectationCheckingTests {
    func observation(_ json: String) -> JSONValue { try! JSONParser.parse(json) }

    let observed: [JSONValue] = [
        #"{"deviceId":"a","kind":"delivered"}"#,
        #"{"deviceId":"a","kind":"banner","title":"Hi","actions":[]}"#,
        #"{"deviceId":"b","kind":"banner","title":"Other"}"#,
        #"{"deviceId":"a","kind":"callback","callback":"x","launchOptions":{"k":{"n":1,"m":2}}}"#,
    ].map { try! JSONParser.parse($0) }

    func pattern(_ json: String) -> ObservationPattern {
        guard case .object(let fields) = try! JSONParser.parse(json) else { fatalError() }
        return ObservationPattern(fields: fields)
    }

    func failures(_ expectation: StepExpectation, device: String? = "a", answer: APNsAnswer? = nil) -> [String] {
        expectation.failures(answer: answer, observations: observed, stepDevice: device)
    }

    @Test func patternsMatchInOrderOnTheStepsDevice() {
        var expectation = StepExpectation()
        expectation.observations = [pattern(#"{"kind":"delivered"}"#), pattern(#"{"kind":"banner","title":"Hi"}"#), pattern(#"{"kind":"callback"}"#)]
        #expect(failures(expectation).isEmpty)
        // Device b's banner is not the step device's.
        expectation.observations = [pattern(#"{"kind":"banner","title":"Other"}"#)]
        #expect(failures(expectation) == [#"expected an observation {"kind":"banner","title":"Other"}; none matched"#])
        expectation.observations = [pattern(#"{"deviceId":"b","kind":"banner","title":"Other"}"#)]
        #expect(failures(expectation).isEmpty)
        expectation.observations = [pattern(#"{"kind":"callback"}"#), pattern(#"{"kind":"delivered"}"#)]
        #expect(failures(expectation) == [#"observed {"kind":"delivered"}, but not in the expected order"#])
    }

    @Test func objectsAreSubsetsButEmptyMeansEmpty() {
        var expectation = StepExpectation()
        expectation.observations = [pattern(#"{"launchOptions":{"k":{"n":1}}}"#)]
        #expect(failures(expectation).isEmpty)
        expectation.observations = [pattern(#"{"launchOptions":{}}"#)]
        #expect(failures(expectation).count == 1)
        expectation.observations = [pattern(#"{"kind":"banner","actions":[]}"#)]
        #expect(failures(expectation).isEmpty)
        expectation.observations = [pattern(#"{"kind":"banner","actions":["REPLY"]}"#)]
        #expect(failures(expectation).count == 1)
    }

    @Test func absentAndNothingObserved() {
        var expectation = StepExpectation()
        expectation.absent = [pattern(#"{"kind":"sound"}"#)]
        #expect(failures(expectation).isEmpty)
        expectation.absent = [pattern(#"{"kind":"banner"}"#)]
        #expect(failures(expectation).first?.hasPrefix(#"expected no observation {"kind":"banner"}, but saw {"deviceId":"a","kind":"banner""#) == true)
        expectation = StepExpectation()
        expectation.nothingObserved = true
        #expect(failures(expectation).first?.hasPrefix("expected nothing observed, but saw 3") == true)
        #expect(expectation.failures(answer: nil, observations: [], stepDevice: "a").isEmpty)
    }

    @Test func theAnswerIsCheckedFieldByField() {
        var expectation = StepExpectation()
        expectation.status = 410
        expectation.reason = "Unregistered"
        expectation.timestamp = .exactly(1_767_229_200_000)
        let right = APNsAnswer(status: 410, apnsID: nil, reason: "Unregistered", timestamp: 1_767_229_200_000)
        #expect(failures(expectation, answer: right).isEmpty)
        let wrong = APNsAnswer(status: 400, apnsID: nil, reason: "BadDeviceToken", timestamp: nil)
        #expect(failures(expectation, answer: wrong) == [
            "expected status 410, got 400 BadDeviceToken",
            "expected reason Unregistered, got BadDeviceToken (400 BadDeviceToken)",
            "expected timestamp 1767229200000 (2026-01-01T01:00:00.000Z), got none",
        ])
        #expect(failures(expectation, answer: nil) == ["expected an APNs answer; the step sent no push"])
    }
}

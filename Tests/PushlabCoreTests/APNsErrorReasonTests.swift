import PushlabCore
import Testing

@Suite("Error reasons and responses")
struct APNsErrorReasonTests {
    /// Reference section 2, row by row.
    static let table: [(String, Int)] = [
        ("BadCollapseId", 400), ("BadDeviceToken", 400), ("BadExpirationDate", 400), ("BadMessageId", 400),
        ("BadPriority", 400), ("BadTopic", 400), ("DeviceTokenNotForTopic", 400), ("DuplicateHeaders", 400),
        ("IdleTimeout", 400), ("InvalidPushType", 400), ("MissingDeviceToken", 400), ("MissingTopic", 400),
        ("PayloadEmpty", 400), ("TopicDisallowed", 400), ("BadCertificate", 403), ("BadCertificateEnvironment", 403),
        ("ExpiredProviderToken", 403), ("Forbidden", 403), ("InvalidProviderToken", 403), ("MissingProviderToken", 403),
        ("UnrelatedKeyIdInToken", 403), ("BadEnvironmentKeyIdInToken", 403), ("BadEnvironmentKeyInToken", 403),
        ("BadPath", 404), ("MethodNotAllowed", 405), ("ExpiredToken", 410), ("Unregistered", 410),
        ("PayloadTooLarge", 413), ("TooManyProviderTokenUpdates", 429), ("TooManyRequests", 429),
        ("InternalServerError", 500), ("ServiceUnavailable", 503), ("Shutdown", 503),
        // The broadcast and channel management API's (A11); BadRequestPayload also in strict payload mode.
        ("BadRequestPayload", 400), ("FeatureNotEnabled", 400), ("MissingChannelId", 400), ("BadChannelId", 400),
        ("ChannelNotRegistered", 400), ("BadRequestParams", 400), ("MissingPushType", 400), ("CannotCreateChannelConfig", 400),
        ("TopicMismatch", 403),
    ]

    @Test(arguments: table)
    func everyReasonHasApplesStatus(reason: String, status: Int) throws {
        let parsed = try #require(APNsErrorReason(rawValue: reason))
        #expect(parsed.status == status)
    }

    @Test func theEnumHasExactlyTheReferenceReasons() {
        #expect(Set(APNsErrorReason.allCases.map(\.rawValue)) == Set(Self.table.map(\.0)))
    }

    @Test func failureBodyIsApplesJSON() {
        let response = APNsResponse.failure(.badDeviceToken, apnsID: "X")
        #expect(response.status == 400)
        #expect(response.body.map { String(decoding: $0, as: UTF8.self) } == #"{"reason":"BadDeviceToken"}"#)
        #expect(response.timestamp == nil)
    }

    @Test func goneBodiesCarryTheTimestampAsAnInteger() {
        let response = APNsResponse.failure(.expiredToken, apnsID: "X", timestamp: 1_763_769_600_000)
        #expect(response.body.map { String(decoding: $0, as: UTF8.self) } == #"{"reason":"ExpiredToken","timestamp":1763769600000}"#)
    }

    @Test func timestampIsDroppedForReasonsThatAreNot410() {
        let response = APNsResponse.failure(.badTopic, apnsID: "X", timestamp: 5)
        #expect(response.timestamp == nil)
        #expect(response.body.map { String(decoding: $0, as: UTF8.self) } == #"{"reason":"BadTopic"}"#)
    }

    @Test func successHasNoBody() {
        #expect(APNsResponse.success(apnsID: "X").body == nil)
        #expect(APNsResponse.success(apnsID: "X").status == 200)
    }
}

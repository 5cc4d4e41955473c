@testable import PushlabCore
import Testing

@Suite("A request's fields, kept as bytes")
struct RequestFieldsTests {
    @Test func everyAPNsNameIsRecognisedAsItArrivesAndNothingElseIs() {
        let names: [(String, APNsHeaderFields.Field)] = [
            ("apns-id", .apnsID), ("apns-priority", .priority), ("apns-push-type", .pushType),
            ("apns-expiration", .expiration), ("apns-collapse-id", .collapseID), ("apns-topic", .topic),
            ("authorization", .authorization),
        ]
        for (name, field) in names {
            #expect(Array(name.utf8).withUnsafeBytes { RequestFields.classify($0) } == Int8(field.rawValue), "\(name)")
        }
        for other in ["apns-topix", "apns-unique-id", "apns-", "apns-priorit", "apns-collapse-ie"] {
            #expect(Array(other.utf8).withUnsafeBytes { RequestFields.classify($0) } == RequestFields.Span.otherAPNs, "\(other)")
        }
        for other in ["user-agent", "x", "", "apns", "authorisation", "content-type"] {
            #expect(Array(other.utf8).withUnsafeBytes { RequestFields.classify($0) } == RequestFields.Span.other, "\(other)")
        }
    }

    @Test func pathAndHeadersReadBackInOrderWithDuplicatesKept() {
        let headers = [("apns-topic", "a"), ("user-agent", "x/1"), ("apns-topic", "b"), ("empty", "")]
        let fields = RequestFields(path: "/3/device/ab", headers: headers)
        #expect(fields.path == "/3/device/ab")
        #expect(fields.headers.map(\.name) == headers.map(\.0))
        #expect(fields.headers.map(\.value) == headers.map(\.1))
        #expect(RequestFields(path: nil, headers: []).path == nil)
        #expect(RequestFields(path: "", headers: []).path == "")
    }

    @Test func aReusedRecordForgetsEverythingButItsCapacity() {
        var fields = RequestFields(path: "/3/device/ab", headers: [("apns-topic", "a")])
        fields.removeAll()
        #expect(fields.path == nil && fields.headerCount == 0)
        fields.appendHeader(name: "apns-push-type", value: "alert")
        #expect(fields.headers.map(\.name) == ["apns-push-type"] && fields.value(at: 0) == "alert")
    }

    @Test func aRepeatedUndefinedAPNsHeaderIsADuplicateAndOtherRepeatsAreNot() {
        func fields(_ headers: [(String, String)]) -> APNsHeaderFields {
            APNsProviderConnection.collectHeaders(APNsRequest(path: "/3/device/ab", headers: headers))
        }
        #expect(fields([("apns-foo", "1"), ("apns-topic", "t"), ("apns-foo", "2")]).hasDuplicate)
        #expect(fields([("apns-topic", "t"), ("apns-topic", "t")]).hasDuplicate)
        #expect(!fields([("apns-foo", "1"), ("apns-bar", "2"), ("user-agent", "a"), ("user-agent", "b")]).hasDuplicate)
        let found = fields([("apns-priority", "5"), ("apns-topic", "t")])
        #expect(found.value(.priority, in: APNsRequest(headers: [("apns-priority", "5"), ("apns-topic", "t")])) == "5")
    }
}

@testable import PushlabTransport
import Testing

@Suite("Header names the transport recognises without making strings")
struct HeaderNameTests {
    @Test func everyKnownNameIsFoundAtItsIndexAndNothingElseIs() {
        for (index, name) in HeaderName.known.enumerated() {
            let found = Array(name.utf8).withUnsafeBytes { HeaderName.knownIndex($0) }
            #expect(found == index, "\(name)")
        }
        for other in ["apns-topix", "user-agenT", "x", "", "apns-priorit", "content-typo", "apns-collapse-ie", "apns-unique-id"] {
            #expect(Array(other.utf8).withUnsafeBytes { HeaderName.knownIndex($0) } == nil, "\(other)")
        }
    }
}

import PushlabCore
import Testing

/// One part of a URL as a provider backend's path or a cluster node's query needs it.
@Suite struct PercentEncodingTests {
    @Test func unreservedCharactersStayAndEveryOtherByteIsEscaped() {
        #expect(PercentEncoding.encode("plain-text_1.2~") == "plain-text_1.2~")
        #expect(PercentEncoding.encode("app:com.example.app online&x=1 é/?") == "app%3Acom.example.app%20online%26x%3D1%20%C3%A9%2F%3F")
    }
}

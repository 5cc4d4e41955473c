@testable import PushlabTransport
import Testing

@Suite("A stream's request record")
struct StreamStateTests {
    @Test func headersPastTheAnnouncedListSizeAreCountedButNotKept() {
        let stream = StreamState(streamID: 1)
        let cache = HeaderValueCache(slots: HeaderName.cacheSlots)
        let name = Array("x-filler".utf8), value = [UInt8](repeating: UInt8(ascii: "a"), count: 100)
        for _ in 0..<1000 {
            name.withUnsafeBytes { name in value.withUnsafeBytes { stream.addHeader(name: name, value: $0, cache: cache, limit: 8000) } }
        }
        #expect(stream.headerListSize == 1000 * (8 + 100 + 32))
        #expect(stream.request.fields.headerCount == 8000 / (8 + 100 + 32))
        stream.reuse(for: 3)
        #expect(stream.headerListSize == 0 && stream.request.fields.headerCount == 0 && stream.request.path == nil)
    }
}

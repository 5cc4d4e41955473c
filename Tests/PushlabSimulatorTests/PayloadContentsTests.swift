@testable import PushlabSimulator
import Testing

@Suite struct PayloadContentsTests {
    /// The cache's check that a slot holds these very bytes, word by word and then the tail.
    @Test(arguments: [0, 1, 7, 8, 9, 250, 257])
    func aCachedPayloadMatchesOnlyTheSameBytes(length: Int) {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        #expect(payload.withUnsafeBytes { PayloadContents.same(payload, $0) })
        for changed in [0, length / 2, length - 1] where length > 0 {
            var other = payload
            other[changed] ^= 0x20
            #expect(!other.withUnsafeBytes { PayloadContents.same(payload, $0) }, "byte \(changed) of \(length)")
        }
        #expect(!(payload + [0]).withUnsafeBytes { PayloadContents.same(payload, $0) })
    }
}

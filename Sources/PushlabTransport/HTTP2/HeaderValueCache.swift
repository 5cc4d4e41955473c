/// The values of the headers that repeat on every request of a connection (`authorization`,
/// `apns-topic`, `:authority`, …), kept per connection. A repeated value costs a byte comparison
/// instead of a new string, and the APNs layer's own comparisons then see the very same string.
/// Used on one event loop only, never re-entrantly: its stored state skips Swift's run-time
/// exclusivity checks (`@exclusivity(unchecked)`, see Benchmarks/results/performance-history.md).
final class HeaderValueCache {
    @exclusivity(unchecked) private var values: [String?]

    init(slots: Int) {
        values = Array(repeating: nil, count: slots)
    }

    func value(slot: Int, bytes: UnsafeRawBufferPointer) -> String {
        if var cached = values[slot] {
            let same = cached.withUTF8 { stored in
                stored.count == bytes.count && (bytes.count == 0 || memcmp(stored.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
            }
            if same { return cached }
        }
        let fresh = String(decoding: bytes, as: UTF8.self)
        values[slot] = fresh
        return fresh
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

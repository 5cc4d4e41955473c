import PushlabCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A request being received on one stream. A class, so the handler mutates it in place
/// through its one-entry cache instead of hashing into a dictionary for every header.
/// Used on one event loop only, never re-entrantly: its stored state skips Swift's run-time
/// exclusivity checks (`@exclusivity(unchecked)`, see Benchmarks/results/performance-history.md).
final class StreamState {
    @exclusivity(unchecked) private(set) var streamID: Int32
    @exclusivity(unchecked) var request: APNsRequest
    /// RFC 9113 header list size: name + value + 32 for each field.
    @exclusivity(unchecked) var headerListSize = 0

    init(streamID: Int32) {
        self.streamID = streamID
        request = APNsRequest(method: nil, authority: nil, scheme: nil, streamID: streamID)
        request.fields.reserveCapacity(headers: 8, bytes: 512)
    }

    /// Makes the record ready for another stream, keeping its arrays' capacity. A request the
    /// APNs layer kept (the simulator holds payloads) is copied on write, not clobbered.
    func reuse(for streamID: Int32) {
        self.streamID = streamID
        headerListSize = 0
        request.method = nil
        request.authority = nil
        request.scheme = nil
        request.fields.removeAll()
        request.body.removeAll(keepingCapacity: true)
        request.bodyLength = 0
        request.streamID = streamID
    }

    /// Past `limit` (the announced MAX_HEADER_LIST_SIZE) fields are only counted: the stream is
    /// refused at its end, and a peer that keeps sending headers does not grow the record.
    func addHeader(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, cache: HeaderValueCache, limit: Int) {
        headerListSize += name.count + value.count + 32
        guard headerListSize <= limit else { return }
        guard name.first == UInt8(ascii: ":") else {
            request.fields.appendHeader(name: name, value: value)
            return
        }
        switch HeaderName.pseudo(name) {
        case .method: request.method = cache.value(slot: HeaderName.methodSlot, bytes: value)
        case .path: request.fields.setPath(value)
        case .authority: request.authority = cache.value(slot: HeaderName.authoritySlot, bytes: value)
        case .scheme: request.scheme = cache.value(slot: HeaderName.schemeSlot, bytes: value)
        case nil: break  // nghttp2 already rejects unknown pseudo-headers
        }
    }

    func addBody(_ data: UnsafeRawBufferPointer, limit: Int) {
        request.bodyLength += data.count
        let room = limit - request.body.count
        if room > 0 {
            if request.body.isEmpty { request.body.reserveCapacity(min(limit, max(data.count, 512))) }
            request.body.append(contentsOf: data.prefix(room))
        }
    }
}

/// Pseudo-header names, matched without making strings; the ones that repeat on a connection
/// are kept in a `HeaderValueCache`.
enum HeaderName {
    enum Pseudo { case method, path, authority, scheme }

    static let methodSlot = 0
    static let authoritySlot = 1
    static let schemeSlot = 2
    /// Slots a `HeaderValueCache` needs.
    static let cacheSlots = 3

    static func pseudo(_ name: UnsafeRawBufferPointer) -> Pseudo? {
        func matches(_ candidate: StaticString) -> Bool {
            candidate.utf8CodeUnitCount == name.count && memcmp(candidate.utf8Start, name.baseAddress!, name.count) == 0
        }
        switch name.count {
        case 5 where matches(":path"): return .path
        case 7 where matches(":method"): return .method
        case 7 where matches(":scheme"): return .scheme
        case 10 where matches(":authority"): return .authority
        default: return nil
        }
    }
}

import PushlabCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A request being received on one stream. A class, so the handler mutates it in place
/// through its one-entry cache instead of hashing into a dictionary for every header.
/// Used on one event loop only, never re-entrantly: its stored state skips Swift's run-time
/// exclusivity checks (`@exclusivity(unchecked)`, see docs/PERFORMANCE.md).
final class StreamState {
    @exclusivity(unchecked) private(set) var streamID: Int32
    @exclusivity(unchecked) var request: APNsRequest
    /// RFC 9113 header list size: name + value + 32 for each field.
    @exclusivity(unchecked) var headerListSize = 0

    init(streamID: Int32) {
        self.streamID = streamID
        request = APNsRequest(method: nil, path: nil, authority: nil, scheme: nil, headers: [], body: [], bodyLength: 0, streamID: streamID)
        request.headers.reserveCapacity(8)
    }

    /// Makes the record ready for another stream, keeping its arrays' capacity. A request the
    /// APNs layer kept (the simulator holds payloads) is copied on write, not clobbered.
    func reuse(for streamID: Int32) {
        self.streamID = streamID
        headerListSize = 0
        request.method = nil
        request.path = nil
        request.authority = nil
        request.scheme = nil
        request.headers.removeAll(keepingCapacity: true)
        request.body.removeAll(keepingCapacity: true)
        request.bodyLength = 0
        request.streamID = streamID
    }

    func addHeader(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, cache: HeaderValueCache) {
        headerListSize += name.count + value.count + 32
        if name.first == UInt8(ascii: ":") {
            switch HeaderName.pseudo(name) {
            case .method: request.method = cache.value(slot: HeaderName.methodSlot, bytes: value)
            case .path: request.path = String(decoding: value, as: UTF8.self)
            case .authority: request.authority = cache.value(slot: HeaderName.authoritySlot, bytes: value)
            case .scheme: request.scheme = cache.value(slot: HeaderName.schemeSlot, bytes: value)
            case nil: break  // nghttp2 already rejects unknown pseudo-headers
            }
            return
        }
        if let known = HeaderName.knownIndex(name) {
            // apns-id and apns-expiration change per request; the others repeat.
            let repeats = known != HeaderName.apnsIDIndex && known != HeaderName.expirationIndex
            let text = repeats ? cache.value(slot: known, bytes: value) : String(decoding: value, as: UTF8.self)
            request.headers.append((HeaderName.known[known], text))
        } else {
            request.headers.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
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

/// Header names APNs defines, kept as constants so that receiving them allocates nothing.
enum HeaderName {
    enum Pseudo { case method, path, authority, scheme }

    static let known: [String] = [
        APNsHeaderName.topic, APNsHeaderName.pushType, APNsHeaderName.priority, APNsHeaderName.apnsID,
        APNsHeaderName.expiration, APNsHeaderName.collapseID, APNsHeaderName.authorization,
        "content-type", "content-length", "user-agent", "accept", "accept-encoding", "te",
    ]
    static let apnsIDIndex = 3
    static let expirationIndex = 4
    static let methodSlot = known.count
    static let authoritySlot = known.count + 1
    static let schemeSlot = known.count + 2
    /// Slots a `HeaderValueCache` needs: one per known name, then the repeating pseudo-headers.
    static let cacheSlots = known.count + 3

    /// The index in `known` of a header name, by its length first: one or two comparisons with
    /// constant bytes, and no array read (and so no reference counting) per header.
    static func knownIndex(_ name: UnsafeRawBufferPointer) -> Int? {
        guard let base = name.baseAddress else { return nil }
        func matches(_ candidate: StaticString) -> Bool { memcmp(candidate.utf8Start, base, name.count) == 0 }
        switch name.count {
        case 2: return matches("te") ? 12 : nil
        case 6: return matches("accept") ? 10 : nil
        case 7: return matches("apns-id") ? 3 : nil
        case 10: return matches("apns-topic") ? 0 : matches("user-agent") ? 9 : nil
        case 12: return matches("content-type") ? 7 : nil
        case 13: return matches("authorization") ? 6 : matches("apns-priority") ? 2 : nil
        case 14: return matches("apns-push-type") ? 1 : matches("content-length") ? 8 : nil
        case 15: return matches("apns-expiration") ? 4 : matches("accept-encoding") ? 11 : nil
        case 16: return matches("apns-collapse-id") ? 5 : nil
        default: return nil
        }
    }

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

import PushlabCore

/// A request being received on one stream.
struct StreamState {
    var request: APNsRequest
    /// RFC 9113 header list size: name + value + 32 for each field.
    var headerListSize = 0

    init(streamID: Int32) {
        request = APNsRequest(method: nil, path: nil, authority: nil, scheme: nil, headers: [], body: [], bodyLength: 0, streamID: streamID)
        request.headers.reserveCapacity(10)
    }

    mutating func addHeader(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        headerListSize += name.count + value.count + 32
        let valueString = String(decoding: value, as: UTF8.self)
        if name.first == UInt8(ascii: ":") {
            switch String(decoding: name, as: UTF8.self) {
            case ":method": request.method = valueString
            case ":path": request.path = valueString
            case ":authority": request.authority = valueString
            case ":scheme": request.scheme = valueString
            default: break  // nghttp2 already rejects unknown pseudo-headers
            }
        } else {
            request.headers.append((String(decoding: name, as: UTF8.self), valueString))
        }
    }

    mutating func addBody(_ data: UnsafeRawBufferPointer, limit: Int) {
        request.bodyLength += data.count
        let room = limit - request.body.count
        if room > 0 { request.body.append(contentsOf: data.prefix(room)) }
    }
}

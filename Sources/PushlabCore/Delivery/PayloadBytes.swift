/// An accepted push's payload as the device side reads it: a range of a chunk that a
/// connection's `PayloadArena` copied it into. A push waiting for the simulator then holds no
/// buffer of its request (the connection reuses that for its next request), and a connection's
/// accepted payloads cost one allocation per chunk instead of one each.
public struct PayloadBytes: Sendable, Equatable {
    private let chunk: PayloadChunk?
    private let start: Int
    public let count: Int

    /// The bytes in a chunk of their own.
    public init(_ bytes: [UInt8] = []) {
        guard !bytes.isEmpty else {
            chunk = nil
            start = 0
            count = 0
            return
        }
        var arena = PayloadArena(firstChunk: bytes.count)
        self = arena.copy(bytes)
    }

    fileprivate init(chunk: PayloadChunk, start: Int, count: Int) {
        self.chunk = chunk
        self.start = start
        self.count = count
    }

    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        guard let chunk else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(chunk.storage)[start..<start + count]))
    }

    public var array: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Whether both live in the same chunk (tests of the arena).
    func sharesChunk(with other: PayloadBytes) -> Bool {
        chunk != nil && chunk === other.chunk
    }

    /// Whether both are the same bytes of the same chunk, not two copies (tests of the arena).
    func isSameCopy(as other: PayloadBytes) -> Bool {
        sharesChunk(with: other) && start == other.start && count == other.count
    }

    public static func == (left: PayloadBytes, right: PayloadBytes) -> Bool {
        left.withUnsafeBytes { a in right.withUnsafeBytes { b in a.elementsEqual(b) } }
    }
}

/// Where one connection copies the payloads it accepts: into the current chunk while it has
/// room, else into a new one. A chunk lives as long as a push holds part of it. Chunks start
/// small and double as they fill, up to `largestChunk`, so a connection that pushes now and then
/// keeps a few KiB and a busy one allocates rarely.
struct PayloadArena {
    private var chunk: PayloadChunk?
    private var nextChunkSize: Int
    private let largestChunk: Int
    /// The payload copied last. A provider sending one body to many devices (a broadcast, a load
    /// test) makes every push share these bytes instead of filling chunks with copies, so a
    /// queued push costs its 152 bytes and not 400.
    private var last = PayloadBytes()

    init(firstChunk: Int = 4 * 1024, largestChunk: Int = 64 * 1024) {
        nextChunkSize = firstChunk
        self.largestChunk = max(firstChunk, largestChunk)
    }

    mutating func copy(_ bytes: [UInt8]) -> PayloadBytes {
        let count = bytes.count
        guard count > 0 else { return PayloadBytes() }
        if last.count == count, last.withUnsafeBytes({ bytes.holdsSameBytes(as: $0) }) { return last }
        let chunk: PayloadChunk
        if let current = self.chunk, current.storage.count - current.used >= count {
            chunk = current
        } else {
            chunk = PayloadChunk(capacity: max(nextChunkSize, count))
            nextChunkSize = min(largestChunk, nextChunkSize * 2)
            self.chunk = chunk
        }
        let start = chunk.used
        bytes.withUnsafeBytes { chunk.storage.baseAddress!.advanced(by: start).copyMemory(from: $0.baseAddress!, byteCount: count) }
        chunk.used += count
        last = PayloadBytes(chunk: chunk, start: start, count: count)
        return last
    }
}

/// Raw storage that an arena fills front to back. `@unchecked Sendable`: only the connection
/// that owns the arena writes, each range once and before the push holding it is handed on
/// (through the delivery queue's lock); afterwards a range is only read.
final class PayloadChunk: @unchecked Sendable {
    let storage: UnsafeMutableRawBufferPointer
    var used = 0

    init(capacity: Int) {
        storage = .allocate(byteCount: capacity, alignment: 1)
    }

    deinit {
        storage.deallocate()
    }
}

import PushlabCore

/// Encodes an `Encodable` value straight into JSON bytes, field by field, with no tree in between.
///
/// Foundation's `JSONEncoder` builds a dictionary per keyed container before it writes a byte;
/// saving a hundred thousand device snapshots with it took about 40 µs each, most of the store
/// writer's time under a load test. The output is plain JSON that `JSONDecoder` reads back the
/// same way, so snapshots written before and after this encoder load alike.
///
/// It relies on what synthesized `Codable` conformances do: each value asks for one container
/// and fills it before its parent moves on to the next field. A container whose parent writes its
/// next field is closed then; the last ones are closed when `encode` returns.
enum StreamingJSONEncoder {
    static func encode(_ value: some Encodable) throws -> [UInt8] {
        let stream = JSONByteStream()
        try stream.encodeValue(value, depth: 0)
        stream.close(deeperThan: 0)
        return stream.bytes
    }
}

/// The bytes written so far and the containers still open, outermost first.
final class JSONByteStream {
    // One stream lives on one thread for one `encode`: the run-time exclusivity checks cost
    // more than the writing.
    @exclusivity(unchecked) private(set) var bytes: [UInt8] = []
    /// Whether each open container is an object (else an array) and has an element yet.
    @exclusivity(unchecked) private var open: [(isObject: Bool, hasElements: Bool)] = []
    /// The key each value being written was given, by depth (nil for an array's element): a
    /// value's coding path, made only if asked for. A path built for every nested value was an
    /// allocation each.
    @exclusivity(unchecked) private var keys: [(any CodingKey)?] = []

    init() {
        bytes.reserveCapacity(2048)
    }

    /// Closes every container deeper than `depth`: the one at `depth` is about to write again.
    func close(deeperThan depth: Int) {
        while open.count > depth {
            bytes.append(open.removeLast().isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }

    /// Opens a container as the value being written at `depth`; it lives at index `depth`.
    func openContainer(isObject: Bool, depth: Int) {
        close(deeperThan: depth)
        bytes.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
        open.append((isObject, false))
    }

    /// Starts the next element of the container at index `depth` (and writes its key).
    func beginElement(in depth: Int, key: String?) {
        close(deeperThan: depth + 1)
        if open[depth].hasElements { bytes.append(UInt8(ascii: ",")) }
        open[depth].hasElements = true
        if let key {
            string(key)
            bytes.append(UInt8(ascii: ":"))
        }
    }

    /// The value about to be written at `depth + 1` goes under `key` (nil: an array's element).
    func enter(_ key: (any CodingKey)?, below depth: Int) {
        if keys.count > depth {
            keys.removeSubrange(depth...)
        } else {
            while keys.count < depth { keys.append(nil) }
        }
        keys.append(key)
    }

    /// The coding path of the value being written at `depth`.
    func codingPath(at depth: Int) -> [any CodingKey] {
        keys.prefix(depth).compactMap { $0 }
    }

    /// A value at `depth`: its own container (if any) goes at that index.
    func encodeValue(_ value: some Encodable, depth: Int) throws {
        let start = bytes.count
        try value.encode(to: StreamEncoder(stream: self, depth: depth))
        // A value that wrote nothing is an empty object, as Foundation's encoder has it.
        if bytes.count == start { bytes.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")]) }
    }

    private func ascii(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    func null() { ascii("null") }

    func bool(_ value: Bool) { value ? ascii("true") : ascii("false") }

    /// Digits written in place: `description` made a string a number.
    func integer(_ value: some BinaryInteger) {
        guard let magnitude = UInt64(exactly: value.magnitude) else {
            bytes.append(contentsOf: value.description.utf8)
            return
        }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = magnitude
            var first = digits.count
            repeat {
                first -= 1
                digits[first] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[first...]))
        }
    }

    func double(_ value: Double, codingPath: @autoclosure () -> [any CodingKey]) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath(), debugDescription: "\(value) is not a JSON number"))
        }
        if value == value.rounded(), abs(value) < 1e15 {
            integer(Int64(value))
        } else {
            bytes.append(contentsOf: value.description.utf8)
        }
    }

    /// Escaped as the observations' JSON is (`JSONWriter`).
    func string(_ text: String) { JSONWriter.appendString(text, to: &bytes) }
}

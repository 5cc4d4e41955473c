/// The `Encoder` a value is handed by `JSONByteStream.encodeValue`: its container opens at `depth`.
struct StreamEncoder: Encoder {
    let stream: JSONByteStream
    let depth: Int
    var codingPath: [any CodingKey] { stream.codingPath(at: depth) }
    /// Snapshots leave out what decoding restores unasked (`AppInstall.implements`).
    var userInfo: [CodingUserInfoKey: Any] { Self.snapshotUserInfo }

    private nonisolated(unsafe) static let snapshotUserInfo: [CodingUserInfoKey: Any] = [.omitsDefaults: true]

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        stream.openContainer(isObject: true, depth: depth)
        return KeyedEncodingContainer(StreamKeyedContainer(stream: stream, depth: depth))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        stream.openContainer(isObject: false, depth: depth)
        return StreamUnkeyedContainer(stream: stream, depth: depth)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        StreamSingleValueContainer(stream: stream, depth: depth)
    }
}

extension JSONByteStream {
    /// Any value: the standard library's scalars are written as JSON scalars (arrays and sets
    /// of them reach here through the generic entry points), everything else encodes itself.
    func encodeAny<T: Encodable>(_ value: T, depth: Int) throws {
        // Metatype comparisons, not `as?` casts: a cast per field cost more than writing it.
        if T.self == String.self { return string(unsafeBitCast(value, to: String.self)) }
        if T.self == Bool.self { return bool(unsafeBitCast(value, to: Bool.self)) }
        if T.self == Int.self { return integer(unsafeBitCast(value, to: Int.self)) }
        if T.self == Int64.self { return integer(unsafeBitCast(value, to: Int64.self)) }
        if T.self == Int32.self { return integer(unsafeBitCast(value, to: Int32.self)) }
        if T.self == Int16.self { return integer(unsafeBitCast(value, to: Int16.self)) }
        if T.self == Int8.self { return integer(unsafeBitCast(value, to: Int8.self)) }
        if T.self == UInt.self { return integer(unsafeBitCast(value, to: UInt.self)) }
        if T.self == UInt64.self { return integer(unsafeBitCast(value, to: UInt64.self)) }
        if T.self == UInt32.self { return integer(unsafeBitCast(value, to: UInt32.self)) }
        if T.self == UInt16.self { return integer(unsafeBitCast(value, to: UInt16.self)) }
        if T.self == UInt8.self { return integer(unsafeBitCast(value, to: UInt8.self)) }
        if T.self == Double.self { return try double(unsafeBitCast(value, to: Double.self), codingPath: codingPath(at: depth)) }
        if T.self == Float.self { return try double(Double(unsafeBitCast(value, to: Float.self)), codingPath: codingPath(at: depth)) }
        try encodeValue(value, depth: depth)
    }
}

struct StreamKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let stream: JSONByteStream
    let depth: Int
    var codingPath: [any CodingKey] { stream.codingPath(at: depth) }

    private func begin(_ key: Key) { stream.beginElement(in: depth, key: key.stringValue) }

    /// Begins an element whose value writes itself (at `depth + 1`, under `key`).
    private func enter(_ key: Key) {
        begin(key)
        stream.enter(key, below: depth)
    }

    mutating func encodeNil(forKey key: Key) throws { begin(key); stream.null() }
    mutating func encode(_ value: Bool, forKey key: Key) throws { begin(key); stream.bool(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { begin(key); stream.string(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { begin(key); try stream.double(value, codingPath: codingPath + [key]) }
    mutating func encode(_ value: Float, forKey key: Key) throws { begin(key); try stream.double(Double(value), codingPath: codingPath + [key]) }
    mutating func encode(_ value: Int, forKey key: Key) throws { begin(key); stream.integer(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { begin(key); stream.integer(value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { begin(key); stream.integer(value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { begin(key); stream.integer(value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { begin(key); stream.integer(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { begin(key); stream.integer(value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { begin(key); stream.integer(value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { begin(key); stream.integer(value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { begin(key); stream.integer(value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { begin(key); stream.integer(value) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        enter(key)
        try stream.encodeAny(value, depth: depth + 1)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        enter(key)
        return StreamEncoder(stream: stream, depth: depth + 1).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        enter(key)
        return StreamEncoder(stream: stream, depth: depth + 1).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        enter(key)
        return StreamEncoder(stream: stream, depth: depth + 1)
    }
}

struct StreamUnkeyedContainer: UnkeyedEncodingContainer {
    let stream: JSONByteStream
    let depth: Int
    var codingPath: [any CodingKey] { stream.codingPath(at: depth) }
    private(set) var count = 0

    init(stream: JSONByteStream, depth: Int) {
        self.stream = stream
        self.depth = depth
    }

    private mutating func begin() {
        stream.beginElement(in: depth, key: nil)
        count += 1
    }

    /// Begins an element whose value writes itself (at `depth + 1`; an element adds no key).
    private mutating func enter() {
        begin()
        stream.enter(nil, below: depth)
    }

    mutating func encodeNil() throws { begin(); stream.null() }
    mutating func encode(_ value: Bool) throws { begin(); stream.bool(value) }
    mutating func encode(_ value: String) throws { begin(); stream.string(value) }
    mutating func encode(_ value: Double) throws { begin(); try stream.double(value, codingPath: codingPath) }
    mutating func encode(_ value: Int) throws { begin(); stream.integer(value) }
    mutating func encode(_ value: Int64) throws { begin(); stream.integer(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        enter()
        try stream.encodeAny(value, depth: depth + 1)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        enter()
        return StreamEncoder(stream: stream, depth: depth + 1).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        enter()
        return StreamEncoder(stream: stream, depth: depth + 1).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        enter()
        return StreamEncoder(stream: stream, depth: depth + 1)
    }
}

/// A value written in place: at the depth its parent gave it, with no container of its own.
struct StreamSingleValueContainer: SingleValueEncodingContainer {
    let stream: JSONByteStream
    let depth: Int
    var codingPath: [any CodingKey] { stream.codingPath(at: depth) }

    mutating func encodeNil() throws { stream.close(deeperThan: depth); stream.null() }
    mutating func encode(_ value: Bool) throws { stream.close(deeperThan: depth); stream.bool(value) }
    mutating func encode(_ value: String) throws { stream.close(deeperThan: depth); stream.string(value) }
    mutating func encode(_ value: Double) throws { stream.close(deeperThan: depth); try stream.double(value, codingPath: codingPath) }
    mutating func encode(_ value: Int) throws { stream.close(deeperThan: depth); stream.integer(value) }
    mutating func encode(_ value: Int64) throws { stream.close(deeperThan: depth); stream.integer(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        stream.close(deeperThan: depth)
        try stream.encodeAny(value, depth: depth)
    }
}

/// An optional part of a model kept out of line: absent it costs one pointer, and copies share
/// it until one of them changes it (copy on write). For what most installs of a million-device
/// load lack (Live Activities, push services, a backend), which inline would cost each install
/// hundreds of bytes.
@propertyWrapper
public struct OutOfLine<Value: Sendable & Codable & Equatable>: Sendable, Equatable {
    private final class Box: @unchecked Sendable {
        // Written only through a uniquely referenced box (see `wrappedValue`'s setter).
        var value: Value

        init(_ value: Value) {
            self.value = value
        }
    }

    private var box: Box?

    public init(wrappedValue: Value?) {
        box = wrappedValue.map(Box.init)
    }

    public var wrappedValue: Value? {
        get { box?.value }
        set {
            guard let newValue else {
                box = nil
                return
            }
            if box != nil, isKnownUniquelyReferenced(&box!) {
                box!.value = newValue
            } else {
                box = Box(newValue)
            }
        }
    }

    public static func == (lhs: OutOfLine, rhs: OutOfLine) -> Bool { lhs.wrappedValue == rhs.wrappedValue }
}

extension OutOfLine: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(wrappedValue: container.decodeNil() ? nil : try container.decode(Value.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value = wrappedValue { try container.encode(value) } else { try container.encodeNil() }
    }
}

extension KeyedDecodingContainer {
    /// A missing key is an absent part (installs saved before the part existed).
    public func decode<Value>(_ type: OutOfLine<Value>.Type, forKey key: Key) throws -> OutOfLine<Value> {
        try decodeIfPresent(type, forKey: key) ?? OutOfLine(wrappedValue: nil)
    }
}

import PushlabCore

/// A scenario's `generatedDevices` entry: `count` phones alike, `idPrefix-N` each with one app
/// whose token is `tokenPrefix` then N in hex. Each is made when it is needed, from its number
/// alone, so that a cluster node makes only the phones it simulates of millions.
public struct GeneratedPhones: Sendable, Equatable {
    public var idPrefix: String
    /// Lower-case hex digits, under 48.
    public var tokenPrefix: String
    public var count: Int
    /// Every phone's app, its token left empty.
    public var app: AppInstall

    public init(idPrefix: String, tokenPrefix: String, count: Int, app: AppInstall) {
        self.idPrefix = idPrefix
        self.tokenPrefix = tokenPrefix
        self.count = count
        self.app = app
    }

    public func id(_ number: Int) -> String { idPrefix + "-" + String(number) }

    public func token(_ number: Int) -> String { Self.token(prefix: Array(tokenPrefix.utf8), number: number) }

    public func device(_ number: Int) -> SimulatedDevice {
        var install = app
        install.deviceToken = token(number)
        return SimulatedDevice(id: id(number), apps: [install])
    }

    /// The number of the phone with `id`, if this entry makes it.
    public func number(of id: String) -> Int? {
        guard id.count > idPrefix.count + 1, id.hasPrefix(idPrefix) else { return nil }
        let rest = id.dropFirst(idPrefix.count)
        guard rest.first == "-" else { return nil }
        let digits = rest.dropFirst()
        // `idPrefix-007` is no generated phone's id: numbers are written without leading zeros.
        guard let number = Int(digits), String(number) == digits, (0..<count).contains(number) else { return nil }
        return number
    }

    /// `prefix`, then `number` in hex, zero-padded to 64 digits: written straight into the
    /// string, since a million of them are made at start.
    public static func token(prefix: [UInt8], number: Int) -> String {
        var number = UInt64(number)
        return String(unsafeUninitializedCapacity: 64) { buffer in
            for index in 0..<64 { buffer[index] = UInt8(ascii: "0") }
            for (index, byte) in prefix.enumerated() { buffer[index] = byte }
            var position = 63
            while number > 0, position >= prefix.count {
                buffer[position] = hexDigits[Int(number & 0xF)]
                number >>= 4
                position -= 1
            }
            return 64
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}

/// A scenario's phones: those it lists, and those it generates (`GeneratedPhones`), which are
/// made only when asked for.
public struct ScenarioPhones: Sendable {
    public var listed: [SimulatedDevice]
    public var generated: [GeneratedPhones]

    public init(listed: [SimulatedDevice] = [], generated: [GeneratedPhones] = []) {
        self.listed = listed
        self.generated = generated
    }

    public var count: Int { listed.count + generated.reduce(0) { $0 + $1.count } }

    /// Every phone, the listed ones first; `progress` hears how far generating has come.
    public func all(progress: LoadProgress? = nil) -> [SimulatedDevice] {
        var devices = listed
        let total = count - listed.count
        devices.reserveCapacity(count)
        for entry in generated {
            for number in 0..<entry.count {
                devices.append(entry.device(number))
                progress?.count(.generatingDevices, done: devices.count - listed.count, of: total)
            }
        }
        return devices
    }

    /// The id two phones have, if any: a scenario names each phone once.
    public var duplicateID: String? {
        var ids = Set<String>(minimumCapacity: listed.count)
        if let duplicate = listed.first(where: { !$0.id.isEmpty && !ids.insert($0.id).inserted })?.id { return duplicate }
        var prefixes = Set<String>()
        for entry in generated where entry.count > 0 {
            guard prefixes.insert(entry.idPrefix).inserted else { return entry.id(0) }
        }
        return listed.first { device in generated.contains { $0.number(of: device.id) != nil } }?.id
    }
}

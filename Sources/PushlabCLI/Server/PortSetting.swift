import ArgumentParser

/// A listener's port, or `off` for no listener: a flag value or a config-file value.
enum PortSetting: Equatable, ExpressibleByArgument, Decodable {
    case port(Int)
    case off

    init?(argument: String) {
        if argument == "off" {
            self = .off
        } else if let port = Int(argument), (0...65535).contains(port) {
            self = .port(port)
        } else {
            return nil
        }
    }

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let port = try? container.decode(Int.self) {
            guard (0...65535).contains(port) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "a port is 0...65535, not \(port)")
            }
            self = .port(port)
        } else if let word = try? container.decode(String.self), word == "off" {
            self = .off
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a port (0...65535) or off")
        }
    }

    var port: Int? {
        if case .port(let port) = self { return port }
        return nil
    }
}

/// A command as Redis reads it: an array of bulk strings. Arguments are bytes, so keys and
/// values are binary-safe; `encode` writes the whole command in one go, so a pipeline of them is
/// one write.
public struct RESPCommand: Sendable, Equatable, CustomStringConvertible {
    public var arguments: [[UInt8]]

    public init(_ name: String, _ arguments: [RESPArgument] = []) {
        self.arguments = [Array(name.utf8)] + arguments.map(\.bytes)
    }

    public init(_ name: String, _ arguments: RESPArgument...) {
        self.init(name, arguments)
    }

    /// The command's name in upper case (`GET`, `XADD`).
    public var name: String { String(decoding: arguments.first ?? [], as: UTF8.self).uppercased() }

    public func encode(into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "*"))
        bytes.append(contentsOf: String(arguments.count).utf8)
        bytes.append(contentsOf: [13, 10])
        for argument in arguments {
            bytes.append(UInt8(ascii: "$"))
            bytes.append(contentsOf: String(argument.count).utf8)
            bytes.append(contentsOf: [13, 10])
            bytes.append(contentsOf: argument)
            bytes.append(contentsOf: [13, 10])
        }
    }

    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        encode(into: &bytes)
        return bytes
    }

    /// For logs and errors: the name and at most the first few arguments, shortened.
    public var description: String {
        arguments.prefix(4).map { String(decoding: $0.prefix(40), as: UTF8.self) }.joined(separator: " ") + (arguments.count > 4 ? " …" : "")
    }
}

/// One argument of a command.
public struct RESPArgument: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    public var bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }
    public init(_ text: String) { bytes = Array(text.utf8) }
    public init(_ value: some BinaryInteger) { bytes = Array(String(value).utf8) }
    public init(stringLiteral value: String) { self.init(value) }
    public init(integerLiteral value: Int) { self.init(value) }
}

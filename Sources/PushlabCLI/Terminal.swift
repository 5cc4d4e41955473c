import Foundation

/// Colour and progress for people at a terminal; plain text when the output is piped or
/// `NO_COLOR` is set (no-color.org), so logs and scripts see no escape codes.
struct Terminal: Sendable {
    let colours: Bool
    /// Lines that are rewritten in place (progress) only make sense on a terminal.
    let interactive: Bool

    static let standardOutput = Terminal(fileDescriptor: STDOUT_FILENO)

    init(fileDescriptor: Int32) {
        interactive = isatty(fileDescriptor) == 1
        colours = interactive && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    enum Colour: String {
        case red = "31", green = "32", yellow = "33", dim = "2", bold = "1"
    }

    func paint(_ text: String, _ colour: Colour) -> String {
        colours ? "\u{1B}[\(colour.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// A status line that the next write replaces (on a terminal; nothing otherwise).
    func progress(_ text: String) {
        guard interactive else { return }
        FileHandle.standardOutput.write(Data("\r\u{1B}[2K\(paint(text, .dim))".utf8))
    }

    func clearProgress() {
        guard interactive else { return }
        FileHandle.standardOutput.write(Data("\r\u{1B}[2K".utf8))
    }

    func write(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

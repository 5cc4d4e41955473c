import Foundation

/// The files `pushlab` uses when none is named (the sample certificates, the default scenario):
/// in the working directory, as in a clone of the repository; else beside the executable, as in
/// an unpacked release (`bin/pushlab` next to `certs/` and `scenarios/`), wherever it was unpacked.
enum DefaultFiles {
    static func path(_ relative: String) -> String {
        if FileManager.default.fileExists(atPath: relative) { return relative }
        for root in installRoots {
            let candidate = root.appendingPathComponent(relative).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        return relative
    }

    static func exists(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: path(relative)) }

    /// The executable's directory and its parent, links resolved.
    private static let installRoots: [URL] = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let directory = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        return [directory.deletingLastPathComponent(), directory]
    }()
}

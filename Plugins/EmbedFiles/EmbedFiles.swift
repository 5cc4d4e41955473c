import Foundation
import PackagePlugin

/// Compiles every file under a target's `Embedded/` folder into the target, as the Swift
/// dictionary `EmbeddedFiles.byPath` (path under `Embedded/` to the file's text), so the binary
/// serves them from wherever it runs. A string literal compiles in a moment where SwiftPM's
/// `.embedInCode` resources (an array literal of bytes) take minutes for a file of 100 KB.
@main
struct EmbedFiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        // `Target.directoryURL` needs tools version 6.1; the package is on 6.0.
        let folder = context.package.directoryURL.appending(path: "Sources/\(target.name)/Embedded")
        let files = (FileManager.default.subpaths(atPath: folder.path) ?? [])
            .filter { path in
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(atPath: folder.appending(path: path).path, isDirectory: &isDirectory) && !isDirectory.boolValue
            }
            .sorted()
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) file(s) of \(target.name)/Embedded",
                executable: try context.tool(named: "EmbedFilesTool").url,
                arguments: [folder.path, output.path] + files,
                inputFiles: files.map { folder.appending(path: $0) },
                outputFiles: [output]
            )
        ]
    }
}

import Foundation

/// Paths of the committed test certificates in `certs/`.
enum TestCertificates {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("certs")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}

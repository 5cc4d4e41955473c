import ArgumentParser
import Foundation
import PushlabScenario
import Yams

/// `pushlab serve --config FILE`: the same settings as the flags, in YAML. Flags win.
///
/// ```yaml
/// host: 127.0.0.1
/// developmentPort: 2197
/// productionPort: 2196
/// channelManagementPort: 2195   # or off
/// controlHost: 127.0.0.1
/// controlPort: 2198
/// jpushPort: 2200               # or off
/// getuiPort: 2201               # or off
/// threads: 2
/// tls:
///   certificate: certs/server.pem
///   key: certs/server-key.pem
///   clientCA: certs/ca.pem
/// http2:
///   maxConcurrentStreams: 1000
/// shutdownGracePeriodSeconds: 10
/// deliveryQueue: 2000000
/// historyLimit: 1000000
/// crashWindowMs: 250
/// durable: false
/// ```
struct ServeConfigurationFile: Decodable, Equatable {
    struct TLS: Decodable, Equatable {
        var certificate: String?
        var key: String?
        var clientCA: String?
    }

    struct HTTP2: Decodable, Equatable {
        var maxConcurrentStreams: UInt32?
    }

    var scenario: String?
    var db: String?
    var host: String?
    var developmentPort: Int?
    var productionPort: Int?
    var channelManagementPort: PortSetting?
    var controlHost: String?
    var controlPort: Int?
    var jpushPort: PortSetting?
    var getuiPort: PortSetting?
    var threads: Int?
    var tls: TLS?
    var http2: HTTP2?
    var shutdownGracePeriodSeconds: Double?
    var deliveryQueue: Int?
    var historyLimit: Int?
    var crashWindowMs: Int?
    var durable: Bool?
    /// A latency profile: a shipped one's name or a file (`--latency`).
    var latency: String?
    /// Record the provider report from the start (`--report`).
    var report: Bool?

    static func load(path: String) throws -> ServeConfigurationFile {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ValidationError("Cannot read config file \(path): \(error.localizedDescription)")
        }
        let unknown = unknownKeys(in: text)
        if !unknown.isEmpty {
            throw ValidationError("Config file \(path) has unknown keys: \(unknown.joined(separator: ", ")) (see pushlab serve --help)")
        }
        do {
            return try YAMLDecoder().decode(ServeConfigurationFile.self, from: text)
        } catch let error as DecodingError {
            throw ValidationError("Config file \(path) is not valid: \(error.readableDescription)")
        }
    }

    private static let schema: [String: Set<String>] = [
        "": ["scenario", "db", "host", "developmentPort", "productionPort", "channelManagementPort", "controlHost", "controlPort", "jpushPort", "getuiPort", "threads", "tls", "http2", "shutdownGracePeriodSeconds", "deliveryQueue", "historyLimit", "crashWindowMs", "durable", "latency", "report"],
        "tls": ["certificate", "key", "clientCA"],
        "http2": ["maxConcurrentStreams"],
    ]

    /// Misspelled settings are errors, not silently ignored.
    private static func unknownKeys(in yaml: String) -> [String] {
        guard let root = try? Yams.compose(yaml: yaml), let mapping = root.mapping else { return [] }
        var unknown: [String] = []
        for (keyNode, value) in mapping {
            guard let key = keyNode.string else { continue }
            if !schema[""]!.contains(key) {
                unknown.append(key)
            } else if let allowed = schema[key], let nested = value.mapping {
                unknown += nested.keys.compactMap(\.string).filter { !allowed.contains($0) }.map { "\(key).\($0)" }
            }
        }
        return unknown
    }
}

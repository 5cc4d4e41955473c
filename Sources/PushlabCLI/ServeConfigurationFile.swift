import ArgumentParser
import Foundation
import Yams

/// `pushlab serve --config FILE`: the same settings as the flags, in YAML. Flags win.
///
/// ```yaml
/// host: 127.0.0.1
/// developmentPort: 2197
/// productionPort: 2196
/// threads: 2
/// tls:
///   certificate: certs/server.pem
///   key: certs/server-key.pem
///   clientCA: certs/ca.pem
/// http2:
///   maxConcurrentStreams: 1000
/// shutdownGracePeriodSeconds: 10
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
    var host: String?
    var developmentPort: Int?
    var productionPort: Int?
    var threads: Int?
    var tls: TLS?
    var http2: HTTP2?
    var shutdownGracePeriodSeconds: Double?

    static func load(path: String) throws -> ServeConfigurationFile {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ValidationError("Cannot read config file \(path): \(error.localizedDescription)")
        }
        do {
            return try YAMLDecoder().decode(ServeConfigurationFile.self, from: text)
        } catch let error as DecodingError {
            throw ValidationError("Config file \(path) is not valid: \(error.readableDescription)")
        }
    }
}

extension DecodingError {
    var readableDescription: String {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        case .keyNotFound(let key, _):
            return "missing key \(key.stringValue)"
        @unknown default:
            return String(describing: self)
        }
    }
}

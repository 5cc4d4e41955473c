import Foundation
import PushlabOpenSSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// `write` alone would name CertsOutputFolder.write inside the struct.
#if canImport(Glibc)
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
private let systemWrite = Darwin.write
#endif

/// The folder `pushlab certs` writes into: reads what is already there and writes each file
/// whole (a temporary file renamed into place), private keys with mode 0600 from the start.
struct CertsOutputFolder {
    /// The folder as the user named it, for the lines printed.
    let path: String

    /// Makes the folder (and its parents) when missing; fails readably when it cannot be used.
    init(_ path: String) throws {
        self.path = path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw CLIFailure("\(path) exists and is not a folder") }
        } else {
            try Self.makeFolders(path)
        }
        guard access(path, W_OK | X_OK) == 0 else {
            throw CLIFailure("Cannot write into \(path): \(Self.lastError())")
        }
    }

    func filePath(_ name: String) -> String {
        path.hasSuffix("/") ? path + name : path + "/" + name
    }

    func exists(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: filePath(name))
    }

    /// The file's text, nil when it does not exist; a file that exists but cannot be read is an error.
    func text(of name: String) throws -> String? {
        try bytes(of: name).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The file's bytes, nil when it does not exist; a file that exists but cannot be read is an error.
    func bytes(of name: String) throws -> [UInt8]? {
        guard exists(name) else { return nil }
        guard let data = FileManager.default.contents(atPath: filePath(name)) else {
            throw CLIFailure("Cannot read \(filePath(name))")
        }
        return Array(data)
    }

    struct PairProblem: Error, CustomStringConvertible {
        let description: String
    }

    /// A certificate file and its key file read as a pair: nil when neither exists, a problem when
    /// one is missing, unreadable as PEM, or the key is not the certificate's.
    func pair(_ certificateFile: String, _ keyFile: String) throws -> Result<CertificateWithKey, PairProblem>? {
        switch (try text(of: certificateFile), try text(of: keyFile)) {
        case (nil, nil):
            return nil
        case (.some, nil):
            return .failure(PairProblem(description: "\(certificateFile) is there without \(keyFile)"))
        case (nil, .some):
            return .failure(PairProblem(description: "\(keyFile) is there without \(certificateFile)"))
        case (.some(let certificatePEM), .some(let keyPEM)):
            guard let certificate = try? X509Certificate(pem: certificatePEM) else {
                return .failure(PairProblem(description: "\(certificateFile) holds no PEM certificate"))
            }
            guard let key = try? PrivateKey(pem: keyPEM) else {
                return .failure(PairProblem(description: "\(keyFile) holds no unencrypted PEM private key"))
            }
            guard let pair = try? CertificateWithKey(certificate: certificate, key: key) else {
                return .failure(PairProblem(description: "\(keyFile) is not the private key of \(certificateFile)"))
            }
            return .success(pair)
        }
    }

    func write(_ file: CertificateSet.File) throws {
        let destination = filePath(file.name)
        let temporary = filePath(".\(file.name).\(getpid()).tmp")
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, file.isPrivate ? 0o600 : 0o644)
        guard descriptor >= 0 else { throw CLIFailure("Cannot write \(destination): \(Self.lastError())") }
        let bytes = file.bytes
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let reason = Self.lastError()
                close(descriptor)
                unlink(temporary)
                throw CLIFailure("Cannot write \(destination): \(reason)")
            }
            written += count
        }
        guard close(descriptor) == 0, rename(temporary, destination) == 0 else {
            let reason = Self.lastError()
            unlink(temporary)
            throw CLIFailure("Cannot write \(destination): \(reason)")
        }
    }

    /// `mkdir -p`, by hand: Foundation's error text names no cause on Linux, mkdir's errno does.
    private static func makeFolders(_ path: String) throws {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component + "/"
            if mkdir(prefix, 0o755) != 0, errno != EEXIST {
                throw CLIFailure("Cannot create the folder \(path): \(lastError())")
            }
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIFailure("Cannot create the folder \(path): a file of that name is in the way")
        }
    }

    private static func lastError() -> String {
        String(cString: strerror(errno))
    }
}

import Foundation
import PushlabRedis
import Synchronization
import Testing

/// Real `redis-server` processes from Debian's package, on loopback ports of their own, in a
/// folder of their own: one standalone server, or the masters of a new cluster. Stopped by
/// `stop()`, and at the latest when the test process exits.
final class RedisServers: Sendable {
    let endpoints: [RedisEndpoint]
    private let processes: [Process]
    private let folder: URL

    static let binary = "/usr/bin/redis-server"
    static let cli = "/usr/bin/redis-cli"

    private init(endpoints: [RedisEndpoint], processes: [Process], folder: URL) {
        self.endpoints = endpoints
        self.processes = processes
        self.folder = folder
    }

    /// `count` servers; with `cluster`, made one cluster of `count` masters (every slot served).
    static func start(count: Int = 1, cluster: Bool = false) throws -> RedisServers {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw Missing(description: "redis-server is not installed: scripts/install-deps.sh installs it (Debian's redis-server)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pushlab-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var processes: [Process] = []
        var endpoints: [RedisEndpoint] = []
        for index in 0..<count {
            let (process, port) = try launch(in: folder.appendingPathComponent("node-\(index)"), cluster: cluster)
            processes.append(process)
            endpoints.append(RedisEndpoint(host: "127.0.0.1", port: port))
        }
        let servers = RedisServers(endpoints: endpoints, processes: processes, folder: folder)
        running.withLock { $0.append(contentsOf: processes.map(\.processIdentifier)) }
        if cluster { try servers.createCluster() }
        return servers
    }

    /// A server on a free port (the cluster bus takes the port + 10000 too), ready for commands.
    private static func launch(in directory: URL, cluster: Bool) throws -> (Process, Int) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for _ in 0..<20 {
            let port = Int.random(in: 20_000..<50_000)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.currentDirectoryURL = directory
            var arguments = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
                             "--logfile", directory.appendingPathComponent("redis.log").path]
            if cluster { arguments += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000"] }
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            if waitForPing(port: port, process: process) { return (process, port) }
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        throw Missing(description: "redis-server did not start on any of 20 ports")
    }

    private static func waitForPing(port: Int, process: Process) -> Bool {
        for _ in 0..<200 {
            guard process.isRunning else { return false }
            if (try? cliOutput(["-p", String(port), "PING"])) == "PONG" { return true }
            usleep(10_000)
        }
        return false
    }

    @discardableResult
    static func cliOutput(_ arguments: [String]) throws -> String {
        // Into a file, not a pipe: a server started meanwhile by another test would inherit the
        // pipe's writing end, and the read would never see its end.
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pushlab-redis-cli-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: cli)
        process.arguments = ["-h", "127.0.0.1"] + arguments
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return String(decoding: try Data(contentsOf: output), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `redis-cli` on node `index`.
    @discardableResult
    func cli(_ index: Int, _ arguments: String...) throws -> String {
        try Self.cliOutput(["-p", String(endpoints[index].port)] + arguments)
    }

    private func createCluster() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.cli)
        process.arguments = ["--cluster", "create"] + endpoints.map(\.description) + ["--cluster-replicas", "0", "--cluster-yes"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Missing(description: "redis-cli --cluster create failed") }
        // Every node must agree that every slot is served before a test relies on it.
        for _ in 0..<500 {
            if try endpoints.indices.allSatisfy({ try cli($0, "CLUSTER", "INFO").contains("cluster_state:ok") }) { return }
            usleep(10_000)
        }
        throw Missing(description: "the cluster did not reach cluster_state:ok in 5 s")
    }

    /// Node `index`'s cluster id.
    func nodeID(_ index: Int) throws -> String { try cli(index, "CLUSTER", "MYID") }

    /// The index of the server at `endpoint`.
    func index(of endpoint: RedisEndpoint) -> Int? { endpoints.firstIndex(of: endpoint) }

    /// SIGKILL, not SIGTERM: a process spawned from a test's thread may inherit a signal mask
    /// that blocks SIGTERM, and nothing of these servers needs to be kept.
    func stop() {
        for process in processes where process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// `kill -9` of node `index`.
    func kill(_ index: Int) {
        Foundation.kill(processes[index].processIdentifier, SIGKILL)
        processes[index].waitUntilExit()
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    /// Every server started, killed when the test process exits (a failed test never stops its own).
    private static let running: Mutex<[Int32]> = {
        atexit {
            for pid in RedisServers.running.withLock({ $0 }) { Foundation.kill(pid, SIGKILL) }
        }
        return Mutex([])
    }()
}

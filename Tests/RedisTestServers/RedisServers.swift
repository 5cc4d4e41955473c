import Foundation
import PushlabRedis
import Synchronization

/// Real `redis-server` processes (for PushlabRedisTests and PushlabClusterTests) from Debian's package, on loopback ports of their own, in a
/// folder of their own: one standalone server, or the masters of a new cluster. Stopped by
/// `stop()`, and at the latest when the test process exits.
public final class RedisServers: Sendable {
    public let endpoints: [RedisEndpoint]
    private let processes: [Process]
    private let folder: URL

    public static let binary = "/usr/bin/redis-server"
    public static let cli = "/usr/bin/redis-cli"

    private init(endpoints: [RedisEndpoint], processes: [Process], folder: URL) {
        self.endpoints = endpoints
        self.processes = processes
        self.folder = folder
    }

    /// One three-master cluster for the tests that neither change its topology nor cut its
    /// connections; each keeps to keys of its own (a prefix of its own). Never stopped: it goes
    /// with the test process.
    ///
    /// `changing`: another cluster, for the one serialized suite whose tests move slots and cut
    /// connections, one test at a time (each on slots and keys of its own).
    public static func sharedCluster(changing: Bool = false) async throws -> RedisServers {
        // The first call starts it, which blocks: off the pool.
        try await offThePool {
            guard let cluster = changing ? changed : shared else {
                throw Missing(description: "the shared cluster did not start (see the tests that start their own)")
            }
            return cluster
        }
    }

    private static let shared: RedisServers? = try? startBlocking(count: 3, cluster: true, replicas: 0)
    private static let changed: RedisServers? = try? startBlocking(count: 3, cluster: true, replicas: 0)

    /// `count` servers; with `cluster`, made one cluster of `count / (replicas + 1)` masters
    /// (every slot served), each with `replicas` replicas.
    public static func start(count: Int = 1, cluster: Bool = false, replicas: Int = 0) async throws -> RedisServers {
        try await offThePool { try startBlocking(count: count, cluster: cluster, replicas: replicas) }
    }

    private static func startBlocking(count: Int, cluster: Bool, replicas: Int) throws -> RedisServers {
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
        running.withLock { running in
            running.pids.append(contentsOf: processes.map(\.processIdentifier))
            running.folders.append(folder)
        }
        if cluster { try servers.createCluster(replicas: replicas) }
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
            if cluster { arguments += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "1000"] }
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
    public static func cliOutput(_ arguments: [String]) throws -> String {
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
    public func cli(_ index: Int, _ arguments: String...) async throws -> String {
        let arguments = ["-p", String(endpoints[index].port)] + arguments
        return try await Self.offThePool { try Self.cliOutput(arguments) }
    }

    private func cliBlocking(_ index: Int, _ arguments: String...) throws -> String {
        try Self.cliOutput(["-p", String(endpoints[index].port)] + arguments)
    }

    private func createCluster(replicas: Int) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.cli)
        process.arguments = ["--cluster", "create"] + endpoints.map(\.description) + ["--cluster-replicas", String(replicas), "--cluster-yes"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Missing(description: "redis-cli --cluster create failed") }
        // Every node must agree that every slot is served before a test relies on it.
        for _ in 0..<1_000 {
            if try endpoints.indices.allSatisfy({ index in
                let info = try cliBlocking(index, "INFO", "replication")
                return try cliBlocking(index, "CLUSTER", "INFO").contains("cluster_state:ok") && (info.contains("role:master") || info.contains("master_link_status:up"))
            }) { return }
            usleep(10_000)
        }
        throw Missing(description: "the cluster did not reach cluster_state:ok with every replica linked in 10 s")
    }

    /// Node `index`'s cluster id.
    public func nodeID(_ index: Int) async throws -> String { try await cli(index, "CLUSTER", "MYID") }

    /// The index of the server at `endpoint`.
    public func index(of endpoint: RedisEndpoint) -> Int? { endpoints.firstIndex(of: endpoint) }

    /// SIGKILL, not SIGTERM: a process spawned from a test's thread may inherit a signal mask
    /// that blocks SIGTERM, and nothing of these servers needs to be kept.
    public func stop() {
        for process in processes where process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// `kill -9` of node `index`.
    public func kill(_ index: Int) {
        Foundation.kill(processes[index].processIdentifier, SIGKILL)
        processes[index].waitUntilExit()
    }

    /// Runs blocking work (processes, polling) on a thread of its own. On the cooperative pool
    /// it would hold one of its threads (two on a 2-core machine) for seconds, and stall every
    /// other suite's tasks meanwhile.
    private static func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    public struct Missing: Error, CustomStringConvertible {
        public var description: String
    }

    /// Every server started, killed when the test process exits (a failed test never stops its
    /// own, and the shared cluster is never stopped), and their folders removed.
    private static let running: Mutex<(pids: [Int32], folders: [URL])> = {
        atexit {
            let (pids, folders) = RedisServers.running.withLock { $0 }
            for pid in pids { Foundation.kill(pid, SIGKILL) }
            for pid in pids { waitpid(pid, nil, 0) }
            for folder in folders { try? FileManager.default.removeItem(at: folder) }
        }
        return Mutex(([], []))
    }()
}

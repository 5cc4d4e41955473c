import PushlabRedis
import RedisTestServers
import Testing

/// One connection against a real `redis-server`.
@Suite(.serialized) struct RedisConnectionTests {
    @Test func commandsArePipelinedAndAnsweredInOrder() async throws {
        let servers = try await RedisServers.start()
        defer { servers.stop() }
        let connection = try await RedisConnection.connect(to: servers.endpoints[0])
        let answers = try await connection.pipeline(
            [RESPCommand("SET", "a", "1"), RESPCommand("INCR", "a"), RESPCommand("GET", "a"), RESPCommand("GET", "missing"), RESPCommand("LPUSH", "a", "x")]
        )
        #expect(answers[0] == .simpleString("OK"))
        #expect(answers[1] == .integer(2))
        #expect(answers[2].text == "2")
        #expect(answers[3] == .null, "RESP3's null")
        #expect(answers[4].errorMessage?.hasPrefix("WRONGTYPE") == true, "a server error stays a value in a pipeline")
        await #expect(throws: RedisError.self) { try await connection.send(RESPCommand("LPUSH", "a", "x")) }
        // RESP3: HGETALL answers a map.
        _ = try await connection.send(RESPCommand("HSET", "h", "k", "v"))
        #expect(try await connection.send(RESPCommand("HGETALL", "h"))["k"]?.text == "v")
        await connection.close()
    }

    @Test func manyCallersShareOneConnection() async throws {
        let servers = try await RedisServers.start()
        defer { servers.stop() }
        let connection = try await RedisConnection.connect(to: servers.endpoints[0])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for caller in 0..<50 {
                group.addTask {
                    for n in 0..<20 {
                        let answer = try await connection.send(RESPCommand("INCR", RESPArgument("counter-\(caller)")))
                        #expect(answer == .integer(Int64(n + 1)))
                    }
                }
            }
            try await group.waitForAll()
        }
        await connection.close()
    }

    @Test func aLostConnectionFailsWhatItOwesAndSaysWhy() async throws {
        let servers = try await RedisServers.start()
        let connection = try await RedisConnection.connect(to: servers.endpoints[0])
        servers.kill(0)
        do {
            _ = try await connection.send(RESPCommand("PING"))
            Issue.record("a command to a killed server was answered")
        } catch {
            #expect(error.kind == .connection)
        }
        #expect(!connection.isActive)
        servers.stop()
        do {
            _ = try await RedisConnection.connect(to: servers.endpoints[0], timeout: .milliseconds(500))
            Issue.record("connected to a stopped server")
        } catch {
            #expect(error.kind == .connection)
            #expect(error.description.contains(servers.endpoints[0].description))
        }
    }
}

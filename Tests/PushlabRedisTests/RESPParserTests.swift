@testable import PushlabRedis
import Testing

@Suite struct RESPParserTests {
    private func parse(_ text: String) throws -> [RESPValue] {
        var parser = RESPParser()
        parser.append(Array(text.utf8))
        var values: [RESPValue] = []
        while let value = try parser.next() { values.append(value) }
        #expect(parser.unreadCount == 0)
        return values
    }

    @Test func everyRESP3TypeIsRead() throws {
        let values = try parse(
            "+OK\r\n-ERR unknown command\r\n:-42\r\n$5\r\nhe\r\no\r\n$0\r\n\r\n_\r\n,3.25\r\n,inf\r\n#t\r\n#f\r\n(3492890328409238509324850943850943825024385\r\n"
                + "!21\r\nSYNTAX invalid syntax\r\n=15\r\ntxt:Some string\r\n"
        )
        #expect(values == [
            .simpleString("OK"), .error("ERR unknown command"), .integer(-42), .bulkString(Array("he\r\no".utf8)), .bulkString([]), .null,
            .double(3.25), .double(.infinity), .boolean(true), .boolean(false), .bigNumber("3492890328409238509324850943850943825024385"),
            .error("SYNTAX invalid syntax"), .verbatimString(format: "txt", text: Array("Some string".utf8)),
        ])
    }

    @Test func aggregatesNestAndKeepTheirKind() throws {
        let values = try parse("*2\r\n:1\r\n*1\r\n+a\r\n%2\r\n+first\r\n:1\r\n$6\r\nsecond\r\n_\r\n~1\r\n+x\r\n>2\r\n+pubsub\r\n+hi\r\n|1\r\n+ttl\r\n:3\r\n:7\r\n")
        #expect(values.count == 5)
        #expect(values[0] == .array([.integer(1), .array([.simpleString("a")])]))
        #expect(values[1]["first"] == .integer(1))
        #expect(values[1]["second"] == .null)
        #expect(values[2] == .set([.simpleString("x")]))
        #expect(values[3] == .push([.simpleString("pubsub"), .simpleString("hi")]))
        #expect(values[4].integer == 7, "an attribute goes with its value")
    }

    @Test func resp2NullsAreNull() throws {
        #expect(try parse("$-1\r\n*-1\r\n") == [.null, .null])
    }

    /// Bytes come as the network splits them: a value is whole only once its last byte is in,
    /// wherever the split falls.
    @Test func aValueSplitAtAnyByteIsReadOnceWhole() throws {
        let bytes = Array("*3\r\n$3\r\nkey\r\n%1\r\n+a\r\n:12\r\n,1.5\r\n+next\r\n".utf8)
        for split in 1..<bytes.count {
            var parser = RESPParser()
            parser.append(bytes[..<split])
            var values: [RESPValue] = []
            while let value = try parser.next() { values.append(value) }
            parser.append(bytes[split...])
            while let value = try parser.next() { values.append(value) }
            #expect(values == [.array([.bulkString(Array("key".utf8)), .map([(.simpleString("a"), .integer(12))]), .double(1.5)]), .simpleString("next")],
                    "split at \(split)")
        }
    }

    @Test func bytesThatAreNotRESPAreRefused() {
        for text in ["?what\r\n", ":12a\r\n", "$3\r\nabcd\r\n", "#x\r\n", "*-2\r\n", "=3\r\nabc\r\n"] {
            var parser = RESPParser()
            parser.append(Array(text.utf8))
            #expect(throws: RESPParseError.self, "\(text)") { _ = try parser.next() }
        }
    }

    @Test func nestingDeeperThanTheLimitIsRefused() {
        var parser = RESPParser()
        parser.append(Array((String(repeating: "*1\r\n", count: RESPParser.deepestNesting + 2) + ":1\r\n").utf8))
        #expect(throws: RESPParseError.tooDeep) { _ = try parser.next() }
    }

    @Test func aCommandIsAnArrayOfBulkStrings() {
        let command = RESPCommand("SET", "key", RESPArgument(bytes: [0, 13, 10]), 42)
        #expect(command.encoded == Array("*4\r\n$3\r\nSET\r\n$3\r\nkey\r\n$3\r\n".utf8) + [0, 13, 10] + Array("\r\n$2\r\n42\r\n".utf8))
        #expect(command.name == "SET")
    }
}

@Suite struct HashSlotTests {
    /// The values of the cluster specification and of `CLUSTER KEYSLOT`.
    @Test func slotsAreRedisOwn() {
        #expect(HashSlot.crc16(Array("123456789".utf8)) == 0x31C3)
        #expect(HashSlot.of("foo") == 12_182)
        #expect(HashSlot.of("bar") == 5_061)
        #expect(HashSlot.of("") == 0)
    }

    @Test func aHashTagDecidesTheSlot() {
        #expect(HashSlot.of("{user1000}.following") == HashSlot.of("{user1000}.followers"))
        #expect(HashSlot.of("{user1000}.following") == HashSlot.of("user1000"))
        #expect(HashSlot.of("foo{}{bar}") == HashSlot.of("foo{}{bar}"), "an empty tag: the whole key")
        #expect(String(decoding: HashSlot.tag(of: Array("foo{}{bar}".utf8)), as: UTF8.self) == "foo{}{bar}")
        #expect(String(decoding: HashSlot.tag(of: Array("foo{{bar}}zap".utf8)), as: UTF8.self) == "{bar")
        #expect(String(decoding: HashSlot.tag(of: Array("foo{bar}{zap}".utf8)), as: UTF8.self) == "bar")
        #expect(String(decoding: HashSlot.tag(of: Array("foo{bar".utf8)), as: UTF8.self) == "foo{bar")
    }
}

@Suite struct SlotMapTests {
    @Test func clusterSlotsIsReadIntoMastersAndReplicas() throws {
        let node = { (host: String, port: Int64) in RESPValue.array([.bulkString(Array(host.utf8)), .integer(port), .bulkString(Array("id".utf8))]) }
        let reply = RESPValue.array([
            .array([.integer(5461), .integer(16383), node("10.0.0.2", 7001), node("10.0.0.3", 7004)]),
            .array([.integer(0), .integer(5460), node("", 7000)]),
        ])
        let map = try SlotMap(clusterSlots: reply, answeredBy: RedisEndpoint(host: "seed", port: 7000))
        #expect(map.master(ofSlot: 0) == RedisEndpoint(host: "seed", port: 7000), "an empty host is the node that answered")
        #expect(map.master(ofSlot: 16383) == RedisEndpoint(host: "10.0.0.2", port: 7001))
        #expect(map.replicas(ofSlot: 6000) == [RedisEndpoint(host: "10.0.0.3", port: 7004)])
        #expect(map.coversEverySlot)
        #expect(map.masters.count == 2)
        #expect(map.firstSlot(of: RedisEndpoint(host: "10.0.0.2", port: 7001)) == 5461)
        #expect(throws: RedisError.self) { try SlotMap(clusterSlots: .array([.integer(1)]), answeredBy: RedisEndpoint(host: "x", port: 1)) }
    }

    @Test func redirectsAreRead() {
        #expect(Redirect("MOVED 3999 127.0.0.1:6381")?.kind == .moved(RedisEndpoint(host: "127.0.0.1", port: 6381)))
        #expect(Redirect("ASK 3999 [::1]:6381")?.kind == .ask(RedisEndpoint(host: "::1", port: 6381)))
        #expect(Redirect("TRYAGAIN Multiple keys request during rehashing of slot")?.kind == .retry)
        #expect(Redirect("CLUSTERDOWN The cluster is down")?.kind == .retry)
        #expect(Redirect("ERR wrong number of arguments") == nil)
        #expect(RedisEndpoint("redis://localhost:7000/") == RedisEndpoint(host: "localhost", port: 7000))
        #expect(RedisEndpoint("localhost") == nil)
        #expect(RedisEndpoint("host:0") == nil)
    }
}

@testable import PushlabCore
import PushlabDelivery
import PushlabSimulator
import Synchronization
import Testing

/// The deliverer of a shared log's partitions, on the in-memory log: what it reads reaches the
/// phones through the pipeline, and is taken with their observations and state, once.
@Suite struct PartitionReaderTests {
    /// A reader "a" of a log of four partitions, behind a queued pipeline, holding the harness
    /// device's partition.
    struct Setup {
        let h: PipelineHarness
        let log = InMemoryPartitionedPushLog(partitions: DevicePartitions(count: 4))
        let reader: PartitionReader<InMemoryPartitionedPushLog.Reader>
        let partition: Int

        init(holding: Bool = true) throws {
            h = try PipelineHarness(queue: 100)
            reader = PartitionReader(log: log.reader("a"), pipeline: h.pipeline, partitions: log.partitions)
            h.simulator.addSink(reader)
            partition = log.partitions.partition(of: h.deviceID)
            if holding { reader.hold(partition, resuming: []) }
        }

        func alerts(_ numbers: ClosedRange<UInt64>) throws -> [AcceptedPush] {
            let token = try h.token()
            return numbers.map { h.acceptedAlert(to: token, number: $0) }
        }

        var written: [Observation] { log.observations(partition: partition).flatMap { $0 } }
    }

    @Test func whatItReadsIsDeliveredAndTakenWithTheObservationsAndThePhone() async throws {
        let s = try Setup()
        s.log.append(try s.alerts(1...2))
        s.log.append(try s.alerts(3...3))
        #expect(await s.reader.round().read == 2, "two entries read")
        #expect(s.reader.isTaking, "read, not yet taken: the pipeline has them")
        await s.reader.flush()
        #expect(s.log.untaken(partition: s.partition) == 0, "taken once delivered")
        #expect(!s.reader.isTaking)
        let delivered = s.written.filter { $0.kind == .delivered }
        #expect(delivered.count == 3 && delivered.allSatisfy { !$0.afterRestart }, "the observations went with the takings")
        #expect(s.h.log.observations(device: s.h.deviceID).filter { $0.kind == .delivered }.count == 3, "each push reached the phone once")
        let phone = try #require(s.log.phones(partition: s.partition)[s.h.deviceID] ?? nil, "the phone as the takings left it")
        #expect(phone.id == s.h.deviceID)
    }

    /// A write that fails (a master failing over) is done again whole: the takings, the
    /// observations and the phones, though the simulator hands a phone's change out once.
    @Test func aFailedWriteIsWrittenWholeNextTime() async throws {
        let s = try Setup()
        s.log.append(try s.alerts(1...1))
        _ = await s.reader.round()
        s.log.failTakes(partition: s.partition, count: 1)
        _ = try s.h.simulator.updateDevice(s.h.deviceID, name: "Ana's iPhone")
        #expect(await s.reader.flush().isEmpty)
        #expect(s.log.untaken(partition: s.partition) == 1 && s.written.isEmpty, "nothing written")
        #expect(await s.reader.flush().isEmpty)
        #expect(s.log.untaken(partition: s.partition) == 0, "taken")
        #expect(s.written.contains { $0.kind == .delivered }, "with what the phone observed")
        #expect((s.log.phones(partition: s.partition)[s.h.deviceID] ?? nil)?.name == "Ana's iPhone", "and the phone as it is")
    }

    @Test func aPartitionAnotherReaderHoldsIsDroppedWithNothingWritten() async throws {
        let s = try Setup()
        let lost = Mutex<[Int]>([])
        s.reader.onLost { partition in lost.withLock { $0.append(partition) } }
        s.log.hold(s.partition, by: "b")
        s.log.append(try s.alerts(1...1))
        // The round's write (the phone changed when it was made) finds it out, or the flush's.
        let found = await s.reader.round().lost + s.reader.flush()
        #expect(found == [s.partition])
        #expect(lost.withLock { $0 } == [s.partition], "the handler heard it once")
        #expect(s.reader.held.isEmpty && !s.reader.holds(s.partition))
        #expect(s.written.isEmpty, "nothing written")
        #expect(s.log.untaken(partition: s.partition) == 1, "the entry stays for the holder")
    }

    @Test func whatAnotherReaderLeftIsDeliveredAsResumed() async throws {
        let s = try Setup(holding: false)
        s.log.append(try s.alerts(1...2))
        // Reader b read the entry and died without taking it.
        #expect(try await s.log.reader("b").readNew(partition: s.partition, count: 10).count == 1)
        #expect(await s.reader.round().read == 0, "a partition not held is not read")
        let abandoned = try await s.reader.log.claimAbandoned(partition: s.partition, minIdle: .zero, count: 10)
        await s.reader.withTurn { s.reader.hold(s.partition, resuming: abandoned) }
        await s.reader.flush()
        let delivered = s.written.filter { $0.kind == .delivered }
        #expect(delivered.count == 2 && delivered.allSatisfy(\.afterRestart))
        #expect(s.log.untaken(partition: s.partition) == 0)
    }

    @Test func anUnreadableEntryIsTakenWithoutDelivery() async throws {
        let s = try Setup()
        s.log.appendUnreadable(partition: s.partition, pushes: 3)
        s.log.append(try s.alerts(1...1))
        _ = await s.reader.round()
        await s.reader.flush()
        #expect(s.log.untaken(partition: s.partition) == 0)
        #expect(s.written.filter { $0.kind == .delivered }.count == 1, "only the readable push reached the phone")
    }

    @Test func aBroadcastIsTakenOnceItRanInOrderWithThePushes() async throws {
        let s = try Setup()
        s.log.append(try s.alerts(1...1))
        let channel = BroadcastChannel(id: "Y2hhbm5lbA==", bundleID: Fixture.bundleID, environment: .development, storagePolicy: .noStorage, createdAt: 0)
        let payload = #"{"aps":{"event":"update","timestamp":1767225700,"content-state":{}}}"#
        s.log.append(broadcast: AcceptedBroadcast(
            requestID: APNsID("B0000000-0000-4000-8000-000000000001"), receivedAt: s.h.now, environment: .development, bundleID: Fixture.bundleID,
            channel: channel, priority: 10, expiration: nil, payload: try JSONParser.parse(payload), payloadBytes: PayloadBytes(Array(payload.utf8)),
            connectionID: 1
        ))
        s.log.append(try s.alerts(2...2))
        #expect(await s.reader.round().read == 3)
        await s.reader.flush()
        #expect(s.log.untaken(partition: s.partition) == 0, "the pushes and the broadcast between them taken")
        #expect(s.written.filter { $0.kind == .delivered }.count == 2)
    }

    @Test func aNewWorldReadsAfreshAndTakesNothingOfTheOldReadingLate() async throws {
        let s = try Setup()
        s.log.append(try s.alerts(1...1))
        _ = await s.reader.round()
        // Delivered and written first, then every partition reads afresh.
        #expect(await s.reader.withTurn { await s.reader.startAfresh() } == [s.partition])
        #expect(s.log.untaken(partition: s.partition) == 0 && !s.reader.isTaking)
        s.log.append(try s.alerts(2...2))
        _ = await s.reader.round()
        await s.reader.flush()
        #expect(s.log.untaken(partition: s.partition) == 0)
        #expect(s.written.filter { $0.kind == .delivered }.count == 2)
    }
}

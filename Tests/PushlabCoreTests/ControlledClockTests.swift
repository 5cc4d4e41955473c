import PushlabCore
import Testing

@Suite("The serve clock: real until set, manual on request")
struct ControlledClockTests {
    @Test func realTimeUntilAdvancedThenFrozen() throws {
        let clock = ControlledClock()
        #expect(clock.mode == .real)
        let before = SystemClock().now()
        clock.advance(milliseconds: 7_200_000)
        #expect(clock.mode == .manual)
        let advanced = clock.now()
        #expect(advanced >= before + 7_200_000 && advanced < before + 7_200_000 + 60_000)
        #expect(clock.now() == advanced, "manual time stands still")
        clock.setMode(.real)
        #expect(abs(clock.now() - SystemClock().now()) < 60_000)
    }

    @Test func setAndManualStart() {
        let clock = ControlledClock(manualStart: 1_767_225_600_000)
        #expect(clock.mode == .manual && clock.now() == 1_767_225_600_000)
        clock.set(1_800_000_000_000)
        #expect(clock.now() == 1_800_000_000_000)
        clock.setMode(.manual)
        #expect(clock.now() == 1_800_000_000_000, "already manual: unchanged")
    }

    @Test func goingManualFreezesRealTimeAndAdvancingAddsToIt() {
        let clock = ControlledClock()
        clock.setMode(.manual)
        let frozen = clock.now()
        #expect(clock.mode == .manual && abs(frozen - SystemClock().now()) < 60_000)
        clock.advance(milliseconds: 1_500)
        clock.advance(milliseconds: 500)
        #expect(clock.now() == frozen + 2_000)
        clock.set(EpochMilliseconds.min)
        #expect(clock.mode == .manual, "the value that stands for real time is not a time to set")
    }
}

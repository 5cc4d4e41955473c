@testable import PushlabDelivery
import Testing

/// What a partition's reader remembers of the entries it delivered, to take an entry the log
/// handed out again without delivering it twice.
struct RecentIDsTests {
    @Test func theOldestGoFirst() {
        var recent = RecentIDs<Int>(capacity: 3)
        let ids = Array(1...5)
        for id in ids.prefix(3) { recent.insert(id) }
        recent.insert(ids[0])  // again: nothing moves
        #expect(ids.prefix(3).allSatisfy(recent.contains))
        recent.insert(ids[3])
        recent.insert(ids[4])
        #expect(!recent.contains(ids[0]) && !recent.contains(ids[1]))
        #expect(ids.suffix(3).allSatisfy(recent.contains))
    }
}

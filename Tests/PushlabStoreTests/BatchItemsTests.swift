import PushlabCore
import PushlabSimulator
@testable import PushlabStore
import Testing

@Suite("A batch's items, walked where they lie")
struct BatchItemsTests {
    @Test func itemsOfTwoThreadsComeOutInSequenceOrder() {
        func observation(_ sequence: Int64) -> Observation {
            Observation(sequence: sequence, time: 0, deviceID: "phone", bundleID: "app", notificationID: nil, event: .badge(Int(sequence)))
        }
        let items = BatchItems([[3, 5].map(observation), [1, 4].map(observation), [2, 6].map(observation)], orderedBy: { $0.pointee.sequence })
        var sequences: [Int64] = []
        items.forEach(in: items.indices) { sequences.append($0.pointee.sequence) }
        #expect(sequences == [1, 2, 3, 4, 5, 6])
        #expect(items.map(\.sequence) == [1, 2, 3, 4, 5, 6])
        var inPart: [Int64] = []
        items.forEach(in: 2..<4) { inPart.append($0.pointee.sequence) }
        #expect(inPart == [3, 4])
    }
}

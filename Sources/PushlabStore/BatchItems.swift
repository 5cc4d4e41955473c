import PushlabCore
import PushlabSimulator

/// A batch's items as one collection over the arrays they were handed over in, without copying
/// them: a batch can hold a few hundred thousand observations, and one copy of them (retaining
/// every string of each, in freshly mapped pages) cost the writer more than encoding them.
/// `forEach(in:_:)` hands each element's address over, so walking the batch copies nothing
/// either.
struct BatchItems<Element>: RandomAccessCollection {
    fileprivate struct Position {
        var array: Int32
        var index: Int32
    }

    fileprivate let arrays: [[Element]]
    fileprivate let positions: [Position]

    /// The items in the order of the arrays.
    init(_ arrays: [[Element]]) {
        self.arrays = arrays
        var positions: [Position] = []
        positions.reserveCapacity(arrays.reduce(0) { $0 + $1.count })
        for array in arrays.indices {
            for index in arrays[array].indices { positions.append(Position(array: Int32(array), index: Int32(index))) }
        }
        self.positions = positions
    }

    /// The items ordered by `key` (stable: equal keys keep the arrays' order). Sorts only when
    /// the arrays' order is not already it: items from one thread come in order, those of two
    /// threads interleave.
    init(_ arrays: [[Element]], orderedBy key: (UnsafePointer<Element>) -> Int64) {
        self.arrays = arrays
        var keyed: [(key: Int64, position: Position)] = []
        keyed.reserveCapacity(arrays.reduce(0) { $0 + $1.count })
        var sorted = true
        for array in arrays.indices {
            arrays[array].withUnsafeBufferPointer { items in
                for index in items.indices {
                    let itemKey = key(items.baseAddress! + index)
                    if let last = keyed.last, last.key > itemKey { sorted = false }
                    keyed.append((itemKey, Position(array: Int32(array), index: Int32(index))))
                }
            }
        }
        if !sorted {
            keyed.sort { ($0.key, $0.position.array, $0.position.index) < ($1.key, $1.position.array, $1.position.index) }
        }
        positions = keyed.map(\.position)
    }

    var startIndex: Int { 0 }
    var endIndex: Int { positions.count }

    subscript(position: Int) -> Element {
        _read {
            let place = positions[position]
            yield arrays[Int(place.array)][Int(place.index)]
        }
    }
}

extension BatchItems {
    /// Calls `body` with the address of each item at `range`, where it lies in its array. An
    /// address, not a borrowed value: handed over as a value, every observation (136 bytes, five
    /// counted references) was copied and destroyed again at each of the writer's four walks
    /// over a batch, a third of its time. `body` reads the fields it needs through the pointer
    /// and must not keep it.
    func forEach(in range: Range<Int>, _ body: (UnsafePointer<Element>) throws -> Void) rethrows {
        for position in range {
            let place = positions[position]
            try arrays[Int(place.array)].withUnsafeBufferPointer { items in try body(items.baseAddress! + Int(place.index)) }
        }
    }
}

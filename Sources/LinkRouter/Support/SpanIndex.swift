/// Finds a byte string among those gathered so far, by position: a linear search while there are few, a hash
/// table once there are many (a URL may bring a thousand query keys, and a linear search for each would be
/// quadratic). Used while merging a match's parameters; `release()` frees the table.
struct SpanIndex {
    private static let linearLimit = 16
    /// Hashed mode: 2^bits slots, each 0 (empty) or a position + 1.
    private var slots: UnsafeMutablePointer<Int32>?
    private var bits = 0

    /// Room for `capacity` strings (positions below 2^31).
    init(capacity: Int) {
        guard capacity > SpanIndex.linearLimit else { return }
        while (1 << bits) < 2 &* capacity { bits &+= 1 }
        let table = UnsafeMutablePointer<Int32>.allocate(capacity: 1 << bits)
        table.initialize(repeating: 0, count: 1 << bits)
        slots = table
    }

    func release() { slots?.deallocate() }

    /// The position of `key` among the first `count` positions, whose strings `key(position)` gives.
    @inline(__always)
    func find(_ key: ByteSpan, count: Int, key stored: (Int) -> ByteSpan) -> Int? {
        guard let slots else {
            for i in 0..<count where stored(i).equals(key) { return i }
            return nil
        }
        let mask = (1 << bits) &- 1
        var i = slotIndex(UInt64(digest(key.start, key.count, fold: false).hash), bits)
        while slots[i] != 0 {
            let position = Int(slots[i]) &- 1
            if stored(position).equals(key) { return position }
            i = (i &+ 1) & mask
        }
        return nil
    }

    /// Records that `key` is at `position` (not already present).
    @inline(__always)
    mutating func insert(_ key: ByteSpan, at position: Int) {
        guard let slots else { return }
        let mask = (1 << bits) &- 1
        var i = slotIndex(UInt64(digest(key.start, key.count, fold: false).hash), bits)
        while slots[i] != 0 { i = (i &+ 1) & mask }
        slots[i] = Int32(truncatingIfNeeded: position &+ 1)
    }
}

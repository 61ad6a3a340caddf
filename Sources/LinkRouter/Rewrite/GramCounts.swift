/// How many rules have each gram key: an open-addressing table (no hashing cost beyond a multiply), built
/// once per rule set by one thread and dropped with the builder.
final class GramCounts {
    private let keys: UnsafeMutableBufferPointer<UInt64>
    private let counts: UnsafeMutableBufferPointer<Int32>
    private let shift: UInt64
    private let mask: Int

    init(capacity: Int) {
        var bits = 4
        while (1 << bits) < capacity &* 2 && bits < 40 { bits &+= 1 }
        keys = .allocate(capacity: 1 << bits)
        keys.initialize(repeating: 0)
        counts = .allocate(capacity: 1 << bits)
        counts.initialize(repeating: 0)
        shift = UInt64(64 &- bits)
        mask = (1 << bits) &- 1
    }

    deinit {
        // SAFETY: allocated in `init`, owned by this object alone (it never leaves the index builder), freed once.
        keys.deallocate()
        counts.deallocate()
    }

    @inline(__always) private func index(_ key: UInt64) -> Int {
        var i = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> shift) & mask
        while keys[i] != 0 && keys[i] != key { i = (i &+ 1) & mask }
        return i
    }

    /// Counts one more rule for `key` (never 0). The table was sized for every key added, so it never fills.
    func add(_ key: UInt64) {
        let i = index(key)
        keys[i] = key
        counts[i] &+= 1
    }

    subscript(key: UInt64) -> Int { Int(counts[index(key)]) }
}

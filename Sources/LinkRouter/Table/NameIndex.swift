/// Route names → route ids, for uniqueness checks and for building URLs by name.
///
/// Open addressing in a `ChunkedArray`, like the static-route table: a snapshot shares the chunks and a change
/// copies only the chunk it writes, so N single adds of named routes stay O(N) in all (a `Dictionary` copied per
/// change would make them O(N²)). Keys point at the name bytes inside the route's block, in the table's arena.
/// A removed route leaves a tombstone (its slot keeps probe chains intact) until the next growth drops it.
struct NameIndex {
    private var slots = ChunkedArray<NameSlot>(shift: 8, fill: NameSlot())
    /// log2 of the slot count; 0 while no route has a name (nothing allocated).
    private var bits = 0
    /// Slots with a key, tombstones included.
    private var used = 0

    /// The route id named `name`, or -1.
    func find(_ name: ByteSpan) -> Int32 {
        guard bits > 0 else { return -1 }
        let tag = NameIndex.tag(name)
        let mask = (1 << bits) - 1
        var i = slotIndex(tag, bits)
        while true {
            let s = slots[i]
            guard let key = s.key else { return -1 }
            if s.tag == tag && Int(s.length) == name.count && bytesEqual(key, name.start, name.count) { return s.route }
            i = (i + 1) & mask
        }
    }

    /// Records `name` (bytes that live as long as the route's block) for `route`. The caller has checked
    /// that no live route has the name.
    mutating func insert(_ name: ByteSpan, route: Int32) {
        if bits == 0 || (used + 1) * 2 > (1 << bits) { grow() }
        let tag = NameIndex.tag(name)
        let mask = (1 << bits) - 1
        var i = slotIndex(tag, bits)
        while let key = slots[i].key {
            if slots[i].tag == tag && Int(slots[i].length) == name.count && bytesEqual(key, name.start, name.count) {
                slots[i] = NameSlot(tag: tag, key: name.start, length: Int32(truncatingIfNeeded: name.count), route: route)
                return
            }
            i = (i + 1) & mask
        }
        slots[i] = NameSlot(tag: tag, key: name.start, length: Int32(truncatingIfNeeded: name.count), route: route)
        used += 1
    }

    /// Frees `name` (its route was removed).
    mutating func remove(_ name: ByteSpan) {
        guard bits > 0 else { return }
        let tag = NameIndex.tag(name)
        let mask = (1 << bits) - 1
        var i = slotIndex(tag, bits)
        while let key = slots[i].key {
            if slots[i].tag == tag && Int(slots[i].length) == name.count && bytesEqual(key, name.start, name.count) {
                slots[i].route = -1
                return
            }
            i = (i + 1) & mask
        }
    }

    /// Doubles the table (or makes the first one), dropping tombstones.
    private mutating func grow() {
        let old = slots, oldSize = bits == 0 ? 0 : 1 << bits
        bits = bits == 0 ? 4 : bits + 1
        slots = ChunkedArray(shift: 8, fill: NameSlot(), count: 1 << bits)
        used = 0
        let mask = (1 << bits) - 1
        for k in 0..<oldSize where old[k].key != nil && old[k].route >= 0 {
            var i = slotIndex(old[k].tag, bits)
            while slots[i].key != nil { i = (i + 1) & mask }
            slots[i] = old[k]
            used += 1
        }
    }

    private static func tag(_ name: ByteSpan) -> UInt64 {
        UInt64(digest(name.start, name.count, fold: false).hash)
    }
}

struct NameSlot: BitwiseCopyable {
    var tag: UInt64 = 0
    var key: UnsafePointer<UInt8>? = nil  // nil: an empty slot
    var length: Int32 = 0
    var route: Int32 = -1  // -1 with a key: a removed route's name
}

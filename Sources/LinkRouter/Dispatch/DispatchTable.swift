/// Who answers an open, published with the router's snapshot so that a change (a route added with its
/// handler, a guard registered) is seen whole: handlers by route id and by target, the guards, the unmatched
/// handler and the log sink.
final class DispatchTable: Sendable {
    static let empty = DispatchTable()

    let byRoute: [Int: Handler]
    let byTarget: TargetHandlers
    let guards: [String: Guard]
    /// Global guards in the order they were added: they run first, for every match.
    let globalGuards: [String]
    let unmatched: UnmatchedHandler?
    let log: LogSink

    init(byRoute: [Int: Handler] = [:], byTarget: TargetHandlers = TargetHandlers(), guards: [String: Guard] = [:],
         globalGuards: [String] = [], unmatched: UnmatchedHandler? = nil, log: LogSink = LogSink()) {
        self.byRoute = byRoute
        self.byTarget = byTarget
        self.guards = guards
        self.globalGuards = globalGuards
        self.unmatched = unmatched
        self.log = log
    }

    /// A copy with `change` applied.
    func with(_ change: (inout Fields) -> Void) -> DispatchTable {
        var f = Fields(byRoute: byRoute, byTarget: byTarget, guards: guards, globalGuards: globalGuards,
                       unmatched: unmatched, log: log)
        change(&f)
        return DispatchTable(byRoute: f.byRoute, byTarget: f.byTarget, guards: f.guards, globalGuards: f.globalGuards,
                             unmatched: f.unmatched, log: f.log)
    }

    struct Fields {
        var byRoute: [Int: Handler]
        var byTarget: TargetHandlers
        var guards: [String: Guard]
        var globalGuards: [String]
        var unmatched: UnmatchedHandler?
        var log: LogSink
    }

    /// The handler for a match: the route's own, else its target's.
    func handler(for match: MatchRecord) -> Handler? {
        if !byRoute.isEmpty, let h = byRoute[match.routeID] { return h }
        return byTarget.handler(for: match.field(.target))
    }

    /// The C function that handles a match (as `handler(for:)` finds it), its owner retained; nil when there is
    /// none or the handler is not a C function. Only the function is copied out, not the handler.
    @inline(__always)
    func cFunction(for match: MatchRecord) -> CFunctionHandler.Retained? {
        if !byRoute.isEmpty, let h = byRoute[match.routeID] {
            guard case .c(let f) = h.body else { return nil }
            return f.retained
        }
        // The target's C function is read as plain values kept beside its handler (no copy of the handler).
        return byTarget.cFunction(for: match.field(.target))?.retained
    }
}

/// Handlers by target, found from the target's bytes in the match: an open makes no String to find its
/// handler. An open-addressing table, rebuilt when a handler is set (rare). Each slot holds the target's first
/// eight bytes as a word with its length, so that a target of up to eight bytes (most) is found and compared
/// there, with no hash over bytes and no second read; a longer one is hashed with the trie's `digest` and its
/// bytes compared in its entry.
struct TargetHandlers: Sendable {
    private var entries: [(target: [UInt8], handler: Handler)] = []
    /// Each entry's handler as plain values when it is a C function (`entries` holds its owner).
    private var cFunctions: [CFunctionHandler.Unowned?] = []
    private var slots: [Slot] = []

    private struct Slot {
        var head: UInt64 = 0
        var hash: UInt32 = 0
        var count: UInt32 = 0
        /// Index into `entries`; -1: empty.
        var entry: Int32 = -1
    }

    /// Sets (nil: removes) the handler of `target`.
    mutating func set(_ handler: Handler?, for target: String) {
        let bytes = Array(target.utf8)
        entries.removeAll { $0.target == bytes }
        if let handler { entries.append((bytes, handler)) }
        cFunctions = entries.map { e -> CFunctionHandler.Unowned? in
            guard case .c(let f) = e.handler.body else { return nil }
            return f.unowned
        }
        var size = 8
        while size < 2 * entries.count { size *= 2 }
        slots = entries.isEmpty ? [] : [Slot](repeating: Slot(), count: size)
        for (i, e) in entries.enumerated() {
            // Targets are counted in the table's limits, far below 4 GiB; a longer one is never found (no route has it).
            guard let count = UInt32(exactly: e.target.count) else { continue }
            let key = e.target.withUnsafeBufferPointer { TargetHandlers.key($0.baseAddress, $0.count) }
            var k = Int(truncatingIfNeeded: key.hash) & (size - 1)
            while slots[k].entry >= 0 { k = (k + 1) & (size - 1) }
            slots[k] = Slot(head: key.head, hash: key.hash, count: count, entry: Int32(truncatingIfNeeded: i))
        }
    }

    /// `target`'s handler; nil when it has none.
    func handler(for target: ByteSpan) -> Handler? {
        guard let i = index(of: target) else { return nil }
        return entries[i].handler
    }

    /// `target`'s handler when it is a C function, as plain values (see `cFunctions`).
    @inline(__always)
    func cFunction(for target: ByteSpan) -> CFunctionHandler.Unowned? {
        guard let i = index(of: target) else { return nil }
        return cFunctions[i]
    }

    /// Where `target`'s handler is in `entries`.
    @inline(__always)
    private func index(of target: ByteSpan) -> Int? {
        guard !slots.isEmpty else { return nil }
        let n = target.count, key = TargetHandlers.key(target.start, n), mask = slots.count &- 1
        var k = Int(truncatingIfNeeded: key.hash) & mask
        while true {
            let slot = slots[k]
            guard slot.entry >= 0 else { return nil }
            if slot.head == key.head, Int(slot.count) == n, slot.hash == key.hash {
                let i = Int(slot.entry)
                // Up to eight bytes, the head is the whole target.
                if n <= 8 || entries[i].target.withUnsafeBufferPointer({ target.equals(ByteSpan(start: $0.baseAddress, count: $0.count)) }) {
                    return i
                }
            }
            k = (k &+ 1) & mask
        }
    }

    /// The first eight bytes of a target (zero-padded) and its hash: for up to eight bytes, the head's; beyond,
    /// `digest`'s, so that long targets sharing a prefix spread.
    @inline(__always)
    private static func key(_ p: UnsafePointer<UInt8>?, _ n: Int) -> (head: UInt64, hash: UInt32) {
        guard let p, n > 0 else { return (0, 0) }
        if n > 8 {
            return (UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)), digest(p, n, fold: false).hash)
        }
        let head: UInt64
        if n >= 4 {  // two overlapping words of four, read as little-endian so that byte i lands at bits 8i
            let first = UInt64(UInt32(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt32.self)))
            let last = UInt64(UInt32(littleEndian: UnsafeRawPointer(p + (n &- 4)).loadUnaligned(as: UInt32.self)))
            head = first | last &<< UInt64((n &- 4) &* 8)
        } else {  // the first, middle and last byte
            head = UInt64(p[0]) | UInt64(p[n &>> 1]) &<< UInt64((n &>> 1) &* 8) | UInt64(p[n &- 1]) &<< UInt64((n &- 1) &* 8)
        }
        let mixed = (head ^ UInt64(truncatingIfNeeded: n)) &* 0x9E37_79B9_7F4A_7C15
        return (head, UInt32(truncatingIfNeeded: mixed &>> 32))
    }
}

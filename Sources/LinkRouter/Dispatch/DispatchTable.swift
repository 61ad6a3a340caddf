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
        if byTarget.isEmpty { return nil }
        return byTarget.handler(for: match.field(.target))
    }

    /// The C function that handles a match (as `handler(for:)` finds it), its owner retained; nil when there is
    /// none or the handler is not a C function.
    @inline(__always)
    func cFunction(for match: MatchRecord) -> CFunctionHandler.Retained? {
        if !byRoute.isEmpty, let h = byRoute[match.routeID] {
            guard case .c(let f) = h.body else { return nil }
            return f.retained
        }
        return byTarget.cFunction(for: match.field(.target))
    }
}

/// Handlers by target, found from the target's bytes in the match: an open makes no String to find its
/// handler. An open-addressing table on the trie's key hash (`digest`), rebuilt when a handler is set (rare).
struct TargetHandlers: Sendable {
    private var entries: [(hash: UInt32, target: [UInt8], handler: Handler)] = []
    /// Indexes into `entries` (-1: empty); a power of two, at most half full.
    private var slots: [Int32] = []

    var isEmpty: Bool { entries.isEmpty }

    /// Sets (nil: removes) the handler of `target`.
    mutating func set(_ handler: Handler?, for target: String) {
        let bytes = Array(target.utf8)
        entries.removeAll { $0.target == bytes }
        if let handler {
            let hash = bytes.withUnsafeBufferPointer { digest($0.baseAddress, $0.count, fold: false).hash }
            entries.append((hash, bytes, handler))
        }
        var size = 8
        while size < 2 * entries.count { size *= 2 }
        slots = entries.isEmpty ? [] : [Int32](repeating: -1, count: size)
        for (i, e) in entries.enumerated() {
            var k = Int(truncatingIfNeeded: e.hash) & (size - 1)
            while slots[k] >= 0 { k = (k + 1) & (size - 1) }
            slots[k] = Int32(truncatingIfNeeded: i)
        }
    }

    func handler(for target: ByteSpan) -> Handler? {
        guard let i = index(of: target) else { return nil }
        return entries[i].handler
    }

    /// `handler(for:)`'s C function, its owner retained.
    func cFunction(for target: ByteSpan) -> CFunctionHandler.Retained? {
        guard let i = index(of: target), case .c(let f) = entries[i].handler.body else { return nil }
        return f.retained
    }

    /// Where `target`'s handler is in `entries`.
    @inline(__always)
    private func index(of target: ByteSpan) -> Int? {
        guard !slots.isEmpty else { return nil }
        let hash = digest(target.start, target.count, fold: false).hash, mask = slots.count &- 1
        var k = Int(truncatingIfNeeded: hash) & mask
        while true {
            let i = Int(slots[k])
            guard i >= 0 else { return nil }
            // Field by field: a copy of the entry would retain its array and handler.
            if entries[i].hash == hash,
               entries[i].target.withUnsafeBufferPointer({ target.equals(ByteSpan(start: $0.baseAddress, count: $0.count)) }) {
                return i
            }
            k = (k &+ 1) & mask
        }
    }
}

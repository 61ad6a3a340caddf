/// Resolving into caller memory: the zero-allocation lookup of the C ABI and the packed result of bindings.

/// The outcome of `resolveFlat`: the route, not where its parameters are (that is in `FlatMatch`, filled in
/// place), so that the outcome stays small as it passes up through the layers.
package enum FlatOutcome {
    /// The route; `FlatMatch` says where its parameters and the routed URL are.
    case matched(RouteBlob)
    case noMatch
    /// Too little room: a scratch size and a params capacity that suffice.
    case needsMemory(scratch: Int, params: Int)
    /// Refused (a limit, a malformed URL, no memory). A case rather than a throw: the lookup runs inside closures
    /// (the snapshot, the temporary values), and a typed throw through each would wrap the outcome in a Result
    /// at every layer, which costs more than the lookup's own set-up.
    case failed(RouterError)
}

/// Where a matched flat lookup put things: filled by `resolveFlat` through the caller's address rather than
/// copied out of every layer. `params[0..<pathCount]` are the path parameters, `params[pathCount..<count]` the
/// query pairs that no path parameter takes, in order.
/// The route's target, pattern and id are read here, in the core, where the route's accessors inline (from the
/// C ABI's module each is a call).
package struct FlatMatch: BitwiseCopyable {
    package var target = ByteSpan(start: nil, count: 0)
    package var pattern = ByteSpan(start: nil, count: 0)
    package var sequence = 0
    package var routed = ByteSpan(start: nil, count: 0)
    package var rewritten = false
    package var pathCount = 0
    package var count = 0

    package init() {}

    /// The match of route `blob` for the routed URL, with `count` parameters written (its path parameters first).
    @inline(__always)
    init(_ blob: RouteBlob, routed: ByteSpan, rewritten: Bool, count: Int) {
        (target, pattern, sequence, pathCount) = (blob.target, blob.pattern, blob.sequence, blob.paramCount)
        (self.routed, self.rewritten, self.count) = (routed, rewritten, count)
    }
}

extension RouterState {
    /// Resolves `url` using only the caller's memory: decoded bytes (and a rewritten URL) in `scratch`,
    /// parameter names and values in `params`, as spans into the URL, `scratch` or the table.
    package func resolveFlat(_ url: ByteSpan, scratch: inout ByteWriter, params: UnsafeMutablePointer<QueryPair>?,
                             capacity: Int, into found: inout FlatMatch) -> FlatOutcome {
        let valueCount = table.maxParams &+ 1  // a route's parameters: a few thousand at most
        return withTemporary(ByteSpan.self, capacity: valueCount) { values -> FlatOutcome in
            do throws(RouterError) {
                return try resolveFlat(url, scratch: &scratch, params: params, capacity: capacity, values: values,
                                       valueCount: valueCount, into: &found)
            } catch {
                return .failed(error)
            }
        } ?? .failed(RouterError(.noMemory, "out of memory: \(valueCount) parameter values"))
    }

    @inline(__always)
    private func resolveFlat(_ url: ByteSpan, scratch: inout ByteWriter, params: UnsafeMutablePointer<QueryPair>?,
                             capacity: Int, values: UnsafeMutablePointer<ByteSpan>, valueCount: Int,
                             into found: inout FlatMatch) throws(RouterError) -> FlatOutcome {
        let mark = scratch.count
        var memory = ResolveMemory(scratch: scratch, values: values, valueCapacity: valueCount,
                                   pairs: nil, pairCapacity: 0)
        defer { scratch = memory.scratch }
        switch try resolve(url, query: false, memory: &memory) {
        case .noMatch:
            return .noMatch
        case let .needsMemory(scratchSize, values, pairs):
            // Before matching, the route is not known: every route's parameters fit in `values - 1`.
            return .needsMemory(scratch: scratchSize, params: values - 1 + pairs)
        case .matched(let blob):
            let pathCount = blob.paramCount
            let pairCount = memory.queryPairCount  // within maxParams: resolve checked
            guard let params, capacity >= pathCount &+ pairCount else {  // both bounded by the limits
                // The room `resolve` checked before matching (its `scratchNeeded`: a rewritten URL, then 8 × the
                // routed URL + 64), which the query's decodes fit in too: one call with these sizes succeeds.
                // Not the bytes used so far, which leave out the query's decodes. (Wrapping: the routed URL is
                // within maxURLLength, checked by `resolve`.)
                let routed = memory.routed
                let rewrittenBytes = routed.start == url.start ? 0 : routed.count
                return .needsMemory(scratch: mark &+ rewrittenBytes &+ 8 &* routed.count &+ 64,
                                    params: pathCount &+ pairCount)
            }
            let count = RouterState.writeParams(blob, values: values, query: memory.parts.query(in: memory.routed),
                                                pairCount: pairCount, scratch: &memory.scratch, into: params)
            found = FlatMatch(blob, routed: memory.routed, rewritten: memory.routed.start != url.start, count: count)
            return .matched(blob)
        }
    }

    /// Writes a flat match's parameters to `params` (room for `blob.paramCount + pairCount`): the path
    /// parameters, then the query's pairs whose key no path parameter takes (a query never overrides a path
    /// parameter), in order. Returns how many were written. Every name and value written has a non-nil start, as
    /// the C ABI promises (an empty one is `ByteSpan.empty`, at a static ""). `values` holds at least
    /// `blob.paramCount + 1` spans; once the path parameters are copied it is free, and `keepUntaken` uses it.
    @inline(__always)
    static func writeParams(_ blob: RouteBlob, values: UnsafeMutablePointer<ByteSpan>, query: ByteSpan, pairCount: Int,
                            scratch: inout ByteWriter, into params: UnsafeMutablePointer<QueryPair>) -> Int {
        let pathCount = blob.paramCount
        for i in 0..<pathCount {
            params[i] = QueryPair(key: blob.paramName(i), value: values[i])
        }
        var count = pathCount
        if pairCount > 0 {  // most URLs have no query: no call then
            let parsed = Query.parse(query, scratch: &scratch, into: params + pathCount, capacity: pairCount)
            // Many path parameters and many pairs: a hash table, not pathCount × parsed comparisons.
            if pathCount > 8 && parsed > 8 {
                return keepUntaken(params, pathCount: pathCount, parsed: parsed, room: values)
            }
            for k in pathCount..<(pathCount &+ parsed) {
                let key = params[k].key
                var taken = false
                for i in 0..<pathCount where params[i].key.equals(key) { taken = true }
                if !taken {
                    params[count] = params[k]
                    count &+= 1  // at most pathCount + parsed
                }
            }
        }
        return count
    }

    /// `writeParams`' filter of the query pairs `params[pathCount ..< pathCount + parsed]` for many path
    /// parameters: their names go in an open-addressing table of Int32 slots (position + 1, 0 empty) laid in
    /// `room`, the values array, free by now. It holds at least pathCount + 1 spans of 16 bytes, room for
    /// 4 × (pathCount + 1) slots; the table takes the least power of two ≥ 2 × pathCount, fewer. Linear in the
    /// counts, and nothing allocated. Returns how many parameters `params` holds after.
    @inline(never)
    static func keepUntaken(_ params: UnsafeMutablePointer<QueryPair>, pathCount: Int, parsed: Int,
                            room: UnsafeMutablePointer<ByteSpan>) -> Int {
        var bits = 1
        while (1 << bits) < 2 &* pathCount { bits &+= 1 }  // pathCount ≤ maxRouteParams (65,535)
        let size = 1 << bits, mask = size &- 1
        let spans = (size &+ 3) / 4
        return room.withMemoryRebound(to: Int32.self, capacity: spans &* 4) { slots -> Int in
            slots.initialize(repeating: 0, count: size)
            for i in 0..<pathCount {
                let key = params[i].key
                var s = slotIndex(UInt64(digest(key.start, key.count, fold: false).hash), bits)
                while slots[s] != 0 { s = (s &+ 1) & mask }  // a name twice is stored twice: harmless
                slots[s] = Int32(truncatingIfNeeded: i &+ 1)
            }
            var count = pathCount
            for k in pathCount..<(pathCount &+ parsed) {
                let key = params[k].key
                var s = slotIndex(UInt64(digest(key.start, key.count, fold: false).hash), bits)
                var taken = false
                while slots[s] != 0 {
                    if params[Int(slots[s]) &- 1].key.equals(key) {
                        taken = true
                        break
                    }
                    s = (s &+ 1) & mask
                }
                if !taken {
                    params[count] = params[k]
                    count &+= 1
                }
            }
            return count
        }
    }

    /// Resolves `url` into one packed buffer (the layout is documented with lr_router_resolve_packed in
    /// Include/linkrouter.h). Returns false for no match; `out.overflowed` tells the caller to retry with
    /// `out.count` bytes.
    package func resolvePacked(_ url: ByteSpan, into out: inout ByteWriter) throws(RouterError) -> Bool {
        try withResolution(url, query: true) { resolution -> Result<Bool, RouterError> in
            guard let r = resolution else { return .success(false) }
            do throws(RouterError) {
                try Packed.write(r, into: &out)
                return .success(true)
            } catch {
                return .failure(error)
            }
        }.get()
    }
}

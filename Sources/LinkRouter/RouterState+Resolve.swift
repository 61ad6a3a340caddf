/// The lookup pipeline, in one place for every front end (Swift API, C ABI, packed results, CLI):
/// validate → rewrite (once) → parse → match → query.

/// The outcome of routing one URL: spans into the URL, the rewritten URL, scratch memory and the table.
/// Valid only as long as the memory it was resolved into, and the snapshot it came from.
package struct Resolution {
    package let blob: RouteBlob
    /// The URL as given.
    package let url: ByteSpan
    /// The URL that was routed: the rewritten one, or `url` when no rule fired.
    package let routed: ByteSpan
    package let parts: URLParts
    /// The values of the route's parameters (`blob.paramCount`, names from `blob.paramName`).
    package let values: UnsafePointer<ByteSpan>
    /// Every query pair, in order (empty when the query was not asked for).
    package let pairs: UnsafeBufferPointer<QueryPair>

    package var wasRewritten: Bool { routed.start != url.start || routed.count != url.count }
}

/// Working memory for one lookup, provided by the caller: nothing is allocated while resolving.
package struct ResolveMemory {
    /// The rewritten URL and decoded bytes go here; `3 × URL length + 64` bytes suffice when no rule fires.
    package var scratch: ByteWriter
    package let values: UnsafeMutablePointer<ByteSpan>?
    package let valueCapacity: Int
    package let pairs: UnsafeMutablePointer<QueryPair>?
    package let pairCapacity: Int

    package init(scratch: ByteWriter, values: UnsafeMutablePointer<ByteSpan>?, valueCapacity: Int,
                 pairs: UnsafeMutablePointer<QueryPair>?, pairCapacity: Int) {
        self.scratch = scratch
        self.values = values
        self.valueCapacity = values == nil ? 0 : valueCapacity
        self.pairs = pairs
        self.pairCapacity = pairs == nil ? 0 : pairCapacity
    }
}

package enum ResolveOutcome {
    case matched(Resolution)
    case noMatch
    /// The memory was too small: sizes that suffice (for the same snapshot and URL).
    case needsMemory(scratch: Int, values: Int, pairs: Int)
}

extension RouterState {
    /// Refuses text that is too long or not UTF-8.
    package func validate(_ url: ByteSpan) throws(RouterError) {
        guard url.count <= limits.maxURLLength else {
            throw .limit("URL of \(url.count) bytes is longer than maxURLLength (\(limits.maxURLLength))")
        }
        guard isValidUTF8(url.start, url.count) else { throw .invalidURL("URL is not valid UTF-8") }
    }

    /// Routes `url` using only `memory`. With `query`, the query pairs are parsed too (else `pairs` is empty).
    package func resolve(_ url: ByteSpan, query: Bool, memory: inout ResolveMemory) throws(RouterError) -> ResolveOutcome {
        try validate(url)
        var routed = url
        if !rewrites.isEmpty {
            let mark = memory.scratch.count
            if try rewrites.rewrite(url, into: &memory.scratch, limits: limits) {
                let length = memory.scratch.count - mark
                if memory.scratch.overflowed {
                    return .needsMemory(scratch: mark + 4 * length + 64, values: table.maxParams + 1, pairs: 0)
                }
                routed = memory.scratch.span(from: mark)
            }
        }
        guard routed.count <= limits.maxURLLength else {
            throw .limit("rewritten URL of \(routed.count) bytes is longer than maxURLLength (\(limits.maxURLLength))")
        }
        guard let parts = URLParts.parse(routed) else { throw notAbsolute(routed) }
        try checkSegments(routed, parts)
        let pairCount = query ? Query.pairCount(parts.query(in: routed)) : 0
        if pairCount > limits.maxParams {
            throw .limit("URL has \(pairCount) query pairs, more than maxParams (\(limits.maxParams))")
        }
        let scratchNeeded = memory.scratch.count + 3 * routed.count + 64
        guard memory.scratch.capacity >= scratchNeeded, memory.valueCapacity > table.maxParams,
              memory.pairCapacity >= pairCount, let values = memory.values else {
            return .needsMemory(scratch: scratchNeeded, values: table.maxParams + 1, pairs: pairCount)
        }
        guard let blob = table.match(routed, parts, scratch: &memory.scratch, values: values) else { return .noMatch }
        var written = 0
        if pairCount > 0, let pairs = memory.pairs {
            written = Query.parse(parts.query(in: routed), scratch: &memory.scratch, into: pairs, capacity: pairCount)
        }
        return .matched(Resolution(blob: blob, url: url, routed: routed, parts: parts, values: values,
                                   pairs: UnsafeBufferPointer(start: memory.pairs, count: written)))
    }

    /// Routes `url` in stack memory (heap only for very long URLs); `body` receives the resolution, nil for no
    /// match, while that memory is alive.
    package func withResolution<R>(_ url: ByteSpan, query: Bool, _ body: (Resolution?) -> R) throws(RouterError) -> R {
        var sizes = (scratch: 3 * url.count + 256, values: table.maxParams + 1, pairs: query ? 16 : 0)
        while true {
            let attempt: ResolveAttempt<R> = withBytes(sizes.scratch) { scratch in
                withUnsafeTemporaryAllocation(of: ByteSpan.self, capacity: sizes.values) { values in
                    withUnsafeTemporaryAllocation(of: QueryPair.self, capacity: sizes.pairs) { pairs in
                        var memory = ResolveMemory(
                            scratch: ByteWriter(base: scratch, capacity: sizes.scratch),
                            values: values.baseAddress, valueCapacity: values.count,
                            pairs: pairs.baseAddress, pairCapacity: pairs.count)
                        do throws(RouterError) {
                            switch try resolve(url, query: query, memory: &memory) {
                            case .matched(let resolution): return .done(body(resolution))
                            case .noMatch: return .done(body(nil))
                            case let .needsMemory(scratch, values, pairs): return .retry(scratch: scratch, values: values, pairs: pairs)
                            }
                        } catch {
                            return .failed(error)
                        }
                    }
                }
            }
            switch attempt {
            case .done(let value): return value
            case .failed(let error): throw error
            case let .retry(scratch, values, pairs):
                sizes = (max(scratch, sizes.scratch), max(values, sizes.values), max(pairs, sizes.pairs))
            }
        }
    }

    /// Runs `body` with the URL after rewriting and whether a rule fired.
    package func withRewritten<R>(_ url: ByteSpan, _ body: (ByteSpan, Bool) -> R) throws(RouterError) -> R {
        if rewrites.isEmpty { return body(url, false) }
        var capacity = max(256, 2 * url.count + 64)
        while true {
            let outcome = withBytes(capacity) { base -> Result<R?, RouterError> in
                var out = ByteWriter(base: base, capacity: capacity)
                do throws(RouterError) {
                    let fired = try rewrites.rewrite(url, into: &out, limits: limits)
                    if out.overflowed {
                        capacity = out.count
                        return .success(nil)
                    }
                    return .success(body(fired ? out.span(from: 0) : url, fired))
                } catch {
                    return .failure(error)
                }
            }
            if let value = try outcome.get() { return value }
        }
    }

    func notAbsolute(_ url: ByteSpan) -> RouterError {
        let shown = url.count > 80 ? String(decoding: url.buffer.prefix(80), as: UTF8.self) + "..." : url.string
        return .invalidURL("'\(shown)' is not an absolute URL (expected scheme \":\" ...)")
    }

    /// A path cannot hold more segments than about half its length, so only long paths are counted.
    func checkSegments(_ url: ByteSpan, _ parts: URLParts) throws(RouterError) {
        let length = parts.pathEnd - parts.pathStart
        guard length >= 2 * limits.maxSegments - 1, let p = url.start else { return }
        var segments = 0
        var inSegment = false
        for i in parts.pathStart..<parts.pathEnd {
            let slash = p[i] == ASCII.slash
            if !slash && !inSegment { segments += 1 }
            inSegment = !slash
        }
        if segments > limits.maxSegments {
            throw .limit("URL has \(segments) path segments, more than maxSegments (\(limits.maxSegments))")
        }
    }
}

/// One try of `withResolution` in memory of a given size.
enum ResolveAttempt<R> {
    case done(R)
    case retry(scratch: Int, values: Int, pairs: Int)
    case failed(RouterError)
}

/// `count` bytes of scratch memory for `body`: on the stack when small, else on the heap.
@inline(__always)
func withBytes<R>(_ count: Int, _ body: (UnsafeMutablePointer<UInt8>?) -> R) -> R {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { body($0.baseAddress) }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension RouterState {
    /// Refuses text that is too long or not UTF-8.
    package func validate(_ url: ByteSpan) throws(RouterError) {
        try checkLength(url)
        guard isValidUTF8(url.start, url.count) else { throw .invalidURL("URL is not valid UTF-8") }
    }

    /// Refuses a URL longer than `maxURLLength`. Every front end calls it before it sizes anything from the
    /// URL's length: a caller's length is a number to check, not a size to trust (it may be 2^60).
    @inline(__always)
    package func checkLength(_ url: ByteSpan) throws(RouterError) {
        guard url.count <= limits.maxURLLength else {
            throw .limit("URL of \(url.count) bytes is longer than maxURLLength (LR_LIMIT_URL_LENGTH, \(limits.maxURLLength))")
        }
    }

    /// Routes `url` using only `memory`. With `query`, the query pairs are parsed too (else `pairs` is empty).
    /// The result stays in `memory`, which is not copied.
    package func resolve(_ url: ByteSpan, query: Bool, memory: inout ResolveMemory) throws(RouterError) -> ResolveOutcome {
        memory.routed = url
        try checkLength(url)
        // Without rewrite rules, UTF-8 is validated after the parse, and only when it saw a non-ASCII byte: one
        // pass over the URL instead of two. PCRE2 runs without its own UTF-8 check, so rules need it first.
        if !rewrites.isEmpty {
            try validate(url)
            let mark = memory.scratch.count
            if try rewrites.rewrite(url, into: &memory.scratch, limits: limits) {
                let length = memory.scratch.count - mark
                if memory.scratch.overflowed {
                    // Room for the rewritten URL, then for matching it (see `scratchNeeded` below). Its query was
                    // not seen, so the pair count is a bound that suffices: a URL of n bytes has at most n/2 + 1.
                    return .needsMemory(scratch: mark + 9 * length + 64, values: table.maxParams + 1,
                                        pairs: min(length / 2 + 1, limits.maxParams))
                }
                memory.routed = memory.scratch.span(from: mark)
            }
        }
        let routed = memory.routed
        guard routed.count <= limits.maxURLLength else {
            throw .limit("rewritten URL of \(routed.count) bytes is longer than maxURLLength (LR_LIMIT_URL_LENGTH, \(limits.maxURLLength))")
        }
        guard memory.parts.scan(routed, requireScheme: true) else {
            try validate(routed)
            throw notAbsolute(routed)
        }
        if !memory.parts.isASCII { try validate(routed) }
        try checkSegments(routed, from: memory.parts.pathStart, to: memory.parts.pathEnd,
                          host: memory.parts.hasAuthority && memory.parts.hostCount > 0)
        // Every entry point refuses a URL with too many query pairs, matched or not, asked for its query or not.
        let pairCount = memory.parts.hasQuery ? Query.pairCount(memory.parts.query(in: routed)) : 0
        if pairCount > limits.maxParams {
            throw .limit("URL has \(pairCount) query pairs, more than maxParams (LR_LIMIT_PARAMS, \(limits.maxParams))")
        }
        memory.queryPairCount = pairCount
        // Every decode the walk may write, each at most once: the host, "host:port", the greedy descent's
        // lookups, the full search's, the captured values, the catch-all and the query: 7 × the URL at most.
        // Wrapping: the URL is within maxURLLength (checked above), the scratch within the caller's capacity.
        let scratchNeeded = memory.scratch.count &+ 8 &* routed.count &+ 64
        guard memory.scratch.capacity >= scratchNeeded, memory.valueCapacity > table.maxParams,
              memory.pairCapacity >= (query ? pairCount : 0), let values = memory.values else {
            return .needsMemory(scratch: scratchNeeded, values: table.maxParams + 1, pairs: pairCount)
        }
        guard let blob = try table.match(routed, &memory.parts, scratch: &memory.scratch, values: values) else {
            return memory.scratch.overflowed ? .needsMemory(scratch: memory.scratch.count + 64, values: table.maxParams + 1,
                                                           pairs: pairCount) : .noMatch
        }
        memory.pairCount = 0
        if query && pairCount > 0, let pairs = memory.pairs {
            memory.pairCount = Query.parse(memory.parts.query(in: routed), scratch: &memory.scratch, into: pairs,
                                           capacity: pairCount)
        }
        if memory.scratch.overflowed {  // cannot happen with the room checked above; never return a torn result
            return .needsMemory(scratch: memory.scratch.count + 64, values: table.maxParams + 1, pairs: pairCount)
        }
        return .matched(blob)
    }

    /// Routes `url` in temporary memory (the stack when small, else malloc); `body` receives the resolution,
    /// nil for no match, while that memory is alive. The URL's length is checked against `maxURLLength` before
    /// anything is sized from it, so memory is bounded by the limits, never by the caller's number.
    package func withResolution<R>(_ url: ByteSpan, query: Bool, _ body: (Resolution?) -> R) throws(RouterError) -> R {
        try checkLength(url)
        // The scratch `resolve` asks for when no rule fires (the values and the URL's decodes).
        // Wrapping: the URL is within maxURLLength (at most 2^30, checked above) and a route has at most
        // maxRouteParams parameters, so none of these can overflow.
        var sizes = (scratch: 8 &* url.count &+ 64, values: table.maxParams &+ 1, pairs: 0)
        if query {
            // 16 pairs (the most `pairsGuess` gives) when the stack block has room for them anyway, as it has for
            // short URLs: no scan of the URL then.
            let room = temporaryStackBytes &- sizes.scratch &- sizes.values &* MemoryLayout<ByteSpan>.stride
            sizes.pairs = room >= 16 * MemoryLayout<QueryPair>.stride ? 16 : RouterState.pairsGuess(url)
        }
        // The first try fits unless a rule fires or the query is long; the second has what `resolve` asked for.
        for _ in 0..<ResolveAttempt<R>.tries {
            // One block: the values, the query pairs, then the scratch bytes (small URLs: on the stack).
            let valueBytes = sizes.values.multipliedReportingOverflow(by: MemoryLayout<ByteSpan>.stride)
            let pairBytes = sizes.pairs.multipliedReportingOverflow(by: MemoryLayout<QueryPair>.stride)
            let arrays = valueBytes.partialValue.addingReportingOverflow(pairBytes.partialValue)
            let total = arrays.partialValue.addingReportingOverflow(sizes.scratch)
            let attempt: ResolveAttempt<R>
            if valueBytes.overflow || pairBytes.overflow || arrays.overflow || total.overflow {
                attempt = .noMemory
            } else {
                attempt = withTemporaryBytes(total.partialValue) { block in
                    let values = block.bindMemory(to: ByteSpan.self, capacity: sizes.values)
                    let pairs = (block + valueBytes.partialValue).bindMemory(to: QueryPair.self, capacity: sizes.pairs)
                    let scratch = (block + arrays.partialValue).bindMemory(to: UInt8.self, capacity: sizes.scratch)
                    var memory = ResolveMemory(
                        scratch: ByteWriter(base: scratch, capacity: sizes.scratch),
                        values: values, valueCapacity: sizes.values, pairs: pairs, pairCapacity: sizes.pairs)
                    do throws(RouterError) {
                        switch try resolve(url, query: query, memory: &memory) {
                        case .matched(let blob): return .done(body(Resolution(blob, url, memory, values: values)))
                        case .noMatch: return .done(body(nil))
                        case let .needsMemory(scratch, values, pairs): return .retry(scratch: scratch, values: values, pairs: pairs)
                        }
                    } catch {
                        return .failed(error)
                    }
                } ?? .noMemory
            }
            switch attempt {
            case .done(let value): return value
            case .failed(let error): throw error
            case .noMemory:
                throw RouterError(.noMemory, "out of memory: \(sizes.scratch) bytes of scratch for a URL of \(url.count) bytes")
            case let .retry(scratch, values, pairs):
                sizes = (max(scratch, sizes.scratch), max(values, sizes.values), max(pairs, sizes.pairs))
            }
        }
        throw ResolveAttempt<R>.exhausted(url)
    }

    /// Room for the query pairs of `url` on a first try: one per '&' after the '?', at most 16, none without
    /// a query (a rewritten URL that needs more asks for it, and the second try has it).
    static func pairsGuess(_ url: ByteSpan) -> Int {
        guard let start = url.start, let mark = memchr(start, Int32(UInt8(ascii: "?")), url.count) else { return 0 }
        let end = UnsafeRawPointer(start + url.count)
        var at = UnsafeRawPointer(mark) + 1, pairs = 1
        while pairs < 16, at < end, let amp = memchr(at, Int32(UInt8(ascii: "&")), end - at) {
            pairs &+= 1
            at = UnsafeRawPointer(amp) + 1
        }
        return pairs
    }

    /// Runs `body` with the URL after rewriting and whether a rule fired.
    package func withRewritten<R>(_ url: ByteSpan, _ body: (ByteSpan, Bool) -> R) throws(RouterError) -> R {
        if rewrites.isEmpty { return body(url, false) }
        try checkLength(url)
        var capacity = max(256, 2 * url.count + 64)
        for _ in 0..<ResolveAttempt<R>.tries {
            let outcome = withTemporary(UInt8.self, capacity: capacity) { base -> Result<R?, RouterError> in
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
            guard let outcome else {
                throw RouterError(.noMemory, "out of memory: \(capacity) bytes for a rewritten URL")
            }
            if let value = try outcome.get() { return value }
        }
        throw ResolveAttempt<R>.exhausted(url)
    }

    func notAbsolute(_ url: ByteSpan) -> RouterError {
        .invalidURL("'\(excerpt(url.string))' is not an absolute URL: it needs a scheme, as in 'app://...'")
    }

    /// A path of n bytes holds at most (n + 1) / 2 segments, so only long paths are counted. The host counts as
    /// one segment, as in patterns.
    /// (The bound is checked inline; the count, for long paths only, is a call.)
    @inline(__always)
    func checkSegments(_ url: ByteSpan, from pathStart: Int, to pathEnd: Int, host: Bool) throws(RouterError) {
        let hostSegments = host ? 1 : 0
        // Wrapping operators, for no overflow checks on every lookup: offsets within a URL no longer than
        // maxURLLength cannot overflow.
        guard (pathEnd &- pathStart &+ 1) / 2 &+ hostSegments > limits.maxSegments else { return }
        try countSegments(url, from: pathStart, to: pathEnd, hostSegments: hostSegments)
    }

    @inline(never)
    private func countSegments(_ url: ByteSpan, from pathStart: Int, to pathEnd: Int, hostSegments: Int) throws(RouterError) {
        guard let p = url.start else { return }
        var segments = hostSegments
        var inSegment = false
        for i in pathStart..<pathEnd {
            let slash = p[i] == ASCII.slash
            if !slash && !inSegment { segments += 1 }
            inSegment = !slash
        }
        if segments > limits.maxSegments {
            throw .limit("URL has \(segments) segments (host included), more than maxSegments (LR_LIMIT_SEGMENTS, \(limits.maxSegments))")
        }
    }
}

/// One try of `withResolution` in memory of a given size.
enum ResolveAttempt<R> {
    case done(R)
    case retry(scratch: Int, values: Int, pairs: Int)
    case failed(RouterError)
    case noMemory

    /// Tries before giving up: the second always has the room the first asked for, so a third is a bug's
    /// symptom, reported as an error rather than looped on.
    static var tries: Int { 3 }

    static func exhausted(_ url: ByteSpan) -> RouterError {
        RouterError(.noMemory, "a lookup of a URL of \(url.count) bytes still lacked room after \(tries) tries")
    }
}

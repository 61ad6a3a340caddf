/// The lookup pipeline, in one place for every front end (Swift API, C ABI, CLI):
/// validate → rewrite (once) → parse → match → query.

/// The outcome of routing one URL: spans into the URL, the rewritten URL, scratch memory and the table.
/// Valid only inside the closure that receives it.
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
}

extension RouterState {
    /// Refuses text that is too long or not UTF-8.
    package func validate(_ url: ByteSpan) throws(RouterError) {
        guard url.count <= limits.maxURLLength else {
            throw .limit("URL of \(url.count) bytes is longer than maxURLLength (\(limits.maxURLLength))")
        }
        guard isValidUTF8(url.start, url.count) else { throw .invalidURL("URL is not valid UTF-8") }
    }

    /// Runs `body` with the URL after rewriting and whether a rule fired.
    package func withRewritten<R>(_ url: ByteSpan, _ body: (ByteSpan, Bool) throws(RouterError) -> R) throws(RouterError) -> R {
        if rewrites.isEmpty { return try body(url, false) }
        var capacity = max(256, 2 * url.count + 64)
        while true {
            // Expand into a stack buffer; in the rare case it is too small, again into one of the size needed.
            let outcome = withBytes(capacity) { base -> Result<R?, RouterError> in
                var out = ByteWriter(base: base, capacity: capacity)
                do throws(RouterError) {
                    let fired = try rewrites.rewrite(url, into: &out, limits: limits)
                    if out.overflowed {
                        capacity = out.count
                        return .success(nil)
                    }
                    return .success(try body(fired ? out.span(from: 0) : url, fired))
                } catch {
                    return .failure(error)
                }
            }
            if let value = try outcome.get() { return value }
        }
    }

    /// Routes `url`; `body` receives the resolution (nil for no match) while its memory is alive.
    package func withResolution<R>(_ url: ByteSpan, query: Bool, _ body: (Resolution?) -> R) throws(RouterError) -> R {
        try validate(url)
        return try withRewritten(url) { routed, _ throws(RouterError) in
            guard routed.count <= limits.maxURLLength else {
                throw .limit("rewritten URL of \(routed.count) bytes is longer than maxURLLength (\(limits.maxURLLength))")
            }
            guard let parts = URLParts.parse(routed) else { throw notAbsolute(routed) }
            try checkSegments(routed, parts)
            let pairCount = query ? Query.pairCount(parts.query(in: routed)) : 0
            let scratchSize = 3 * routed.count + 64
            return try withBytes(scratchSize) { scratchBase -> Result<R, RouterError> in
                withUnsafeTemporaryAllocation(of: ByteSpan.self, capacity: table.maxParams + 1) { values in
                    withUnsafeTemporaryAllocation(of: QueryPair.self, capacity: min(pairCount, limits.maxParams)) { pairs in
                        guard let values = values.baseAddress else { return .success(body(nil)) }
                        var scratch = ByteWriter(base: scratchBase, capacity: scratchSize)
                        guard let blob = table.match(routed, parts, scratch: &scratch, values: values) else {
                            return .success(body(nil))
                        }
                        if pairCount > limits.maxParams {
                            return .failure(.limit("URL has \(pairCount) query pairs, more than maxParams (\(limits.maxParams))"))
                        }
                        var written = 0
                        if let p = pairs.baseAddress {
                            written = Query.parse(parts.query(in: routed), scratch: &scratch, into: p, capacity: pairs.count)
                        }
                        return .success(body(Resolution(blob: blob, url: url, routed: routed, parts: parts,
                                                        values: values, pairs: UnsafeBufferPointer(rebasing: pairs[0..<written]))))
                    }
                }
            }.get()
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

/// `count` bytes of scratch memory for `body`: on the stack when small, else on the heap.
@inline(__always)
func withBytes<R>(_ count: Int, _ body: (UnsafeMutablePointer<UInt8>?) -> R) -> R {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { body($0.baseAddress) }
}

/// The quick lane: the lookup most URLs take, without the general pipeline's set-up.
///
/// A table with no rewrite rules and routes no deeper than 15 levels, a URL that is absolute, ASCII and within
/// the limits (with at most 16 query pairs, for a match record): such a lookup is a scan and a walk, with a few
/// bound checks. The lane answers exactly what `resolve` answers for it; anything else (a rule, a refusal, too little
/// room) it hands back as `.general`, and the caller runs the general pipeline, which also words every error.

/// What the quick lane found. Trivial values only, so that it passes up through the snapshot closure for free.
package enum QuickMatch {
    case matched(RouteBlob)
    case noMatch
    /// Not a case for the lane: run the general pipeline.
    case general
}

/// What `quickRecord` made: the match record, no match, or "run the general pipeline".
package enum QuickRecord {
    case matched(UnsafeMutableRawPointer)
    case noMatch
    case general
}

extension RouterState {
    /// Room for the values of a quick lookup: tables whose routes have fewer parameters (catch-all included)
    /// take the lane. A constant, so that the values are a fixed slot in the caller's frame.
    @inline(__always) static var quickValues: Int { 16 }

    /// `resolve` (without parsing the query) in the lane's conditions, else `.general`. `values` has room for
    /// `quickValues`; `scratch` takes decoded bytes (the lane asks for the room `resolve` asks for). `pairCount`
    /// is the number of the query's pairs (checked against maxParams, as `resolve` checks it).
    @inline(__always)
    package func quickMatch(_ url: ByteSpan, _ parts: inout URLParts, scratch: inout ByteWriter,
                            values: UnsafeMutablePointer<ByteSpan>, pairCount: inout Int) -> QuickMatch {
        // In order: the URL's length is checked before the scratch room is sized from it (wrapping: at most
        // 2^30 bytes).
        guard rewrites.isEmpty, table.maxParams < RouterState.quickValues, table.maxDepth < 16,
              url.count <= limits.maxURLLength, scratch.capacity &- scratch.count >= 8 &* url.count &+ 64 else { return .general }
        // The commonest URL is matched as it is read (`directMatch`, a query too); else it is scanned, then walked.
        pairCount = 0
        if let p = url.start, let blob = directMatch(p, url.count, &parts, values: values),
           (url.count &- parts.pathStart &+ 1) / 2 &+ 1 <= limits.maxSegments {
            return countPairs(url, &parts, &pairCount) ? .matched(blob) : .general
        }
        guard parts.scan(url, requireScheme: true), parts.isASCII,
              // `checkSegments`'s bound (host counted), without its count: past it, the general path counts.
              (parts.pathEnd &- parts.pathStart &+ 1) / 2 &+ 1 <= limits.maxSegments,
              countPairs(url, &parts, &pairCount) else { return .general }
        do throws(RouterError) {
            guard let blob = try table.match(url, &parts, scratch: &scratch, values: values) else {
                return scratch.overflowed ? .general : .noMatch
            }
            return scratch.overflowed ? .general : .matched(blob)
        } catch {
            return .general  // only for deep tables, which the guard keeps out
        }
    }

    /// `quickMatch`'s count of the query's pairs into `pairCount` (untouched without a query); false past
    /// maxParams, which `resolve` refuses. (`parts` in place: see `MatchRecord.buildPathOnly`.)
    @inline(__always)
    private func countPairs(_ url: ByteSpan, _ parts: inout URLParts, _ pairCount: inout Int) -> Bool {
        guard parts.hasQuery else { return true }
        pairCount = Query.pairCount(parts.query(in: url))
        return pairCount <= limits.maxParams
    }

    /// The lane's direct match (`RouteTable.directMatch`): the URL as it is, else, when a "?" ended its plain path,
    /// the path before the "?" with the query after it, if that is ASCII without "#" (`parts` then hold the
    /// query too). nil: the scan and the walk decide.
    @inline(__always)
    package func directMatch(_ p: UnsafePointer<UInt8>, _ n: Int, _ parts: inout URLParts,
                             values: UnsafeMutablePointer<ByteSpan>) -> RouteBlob? {
        var question = 0
        if let blob = table.directMatch(p, n, &parts, values: values, question: &question) { return blob }
        return question > 0 ? directMatch(p, n, question: question, &parts, values: values) : nil
    }

    /// `directMatch`'s second try, the path before the "?" at `question`.
    @inline(never)  // URLs with a query are the fewer
    private func directMatch(_ p: UnsafePointer<UInt8>, _ n: Int, question: Int, _ parts: inout URLParts,
                             values: UnsafeMutablePointer<ByteSpan>) -> RouteBlob? {
        guard RouteTable.isPlainQuery(p, from: question &+ 1, to: n) else { return nil }
        var again = 0
        guard let blob = table.directMatch(p, question, &parts, values: values, question: &again) else { return nil }
        parts.setQuery(question &+ 1, n)
        return blob
    }

    /// `quickFlat` into a `FlatMatch` variable.
    @inline(__always)
    package func quickFlat(_ url: ByteSpan, scratch: inout ByteWriter, params: UnsafeMutablePointer<QueryPair>?,
                           capacity: Int, into found: inout FlatMatch) -> QuickMatch {
        withUnsafeMutablePointer(to: &found) { quickFlat(url, scratch: &scratch, params: params, capacity: capacity, into: $0) }
    }

    /// `resolveFlat` in the quick lane: `.matched` with `found` set and `params[0 ..< found.count]` filled (the
    /// path parameters, then the query pairs no path parameter takes, as `writeParams` writes them), `.noMatch`,
    /// or `.general` with nothing written but scratch. `found` may be uninitialized memory: it is initialized
    /// when matched, and only then.
    @inline(__always)
    package func quickFlat(_ url: ByteSpan, scratch: inout ByteWriter, params: UnsafeMutablePointer<QueryPair>?,
                           capacity: Int, into found: UnsafeMutablePointer<FlatMatch>) -> QuickMatch {
        withUnsafeTemporaryAllocation(of: ByteSpan.self, capacity: RouterState.quickValues) { buffer -> QuickMatch in
            guard let values = buffer.baseAddress else { return .general }
            var parts = URLParts()
            var pairCount = 0
            switch quickMatch(url, &parts, scratch: &scratch, values: values, pairCount: &pairCount) {
            case .general: return .general
            case .noMatch: return .noMatch
            case .matched(let blob):
                let pathCount = blob.paramCount
                // Too little room: the general path says how much is needed. (Both bounded by the limits.)
                guard let params, capacity >= pathCount &+ pairCount else { return .general }
                let count = RouterState.writeParams(blob, values: values, query: parts.query(in: url), pairCount: pairCount,
                                                    scratch: &scratch, into: params)
                // The query's decodes fit in the room checked by quickMatch; never return a torn result.
                if scratch.overflowed { return .general }
                found.initialize(to: FlatMatch(blob, routed: url, rewritten: false, count: count))
                return .matched(blob)
            }
        }
    }

    /// Most query pairs a record of the quick lane parses (on the stack); a URL with more takes the general path.
    @inline(__always) static var quickPairs: Int { 16 }

    /// `quickRecord`'s record of a URL with a query or with extras: the query's pairs parsed on the stack, then
    /// merged and written by `MatchRecord.build` (SPEC §4), as the general path does after its own parse. nil
    /// when the lane cannot (more than `quickPairs` pairs, too little scratch, no memory): the general path then.
    @inline(never)  // URLs with a query are the fewer: `quickRecord`, inlined into every lookup, stays small
    private func mergedRecord(_ blob: RouteBlob, _ url: ByteSpan, _ parts: inout URLParts, values: UnsafePointer<ByteSpan>,
                              pairCount: Int, scratch: inout ByteWriter, extras: UnsafeBufferPointer<QueryPair>,
                              allocate: (Int) -> UnsafeMutableRawPointer?) throws(RouterError) -> UnsafeMutableRawPointer? {
        guard pairCount <= RouterState.quickPairs else { return nil }
        let maxNesting = limits.maxNestingDepth
        let outcome = withUnsafeTemporaryAllocation(of: QueryPair.self, capacity: RouterState.quickPairs) { buffer -> Result<UnsafeMutableRawPointer?, RouterError> in
            guard let pairs = buffer.baseAddress else { return .success(nil) }
            let parsed = pairCount > 0 ? Query.parse(parts.query(in: url), scratch: &scratch, into: pairs, capacity: pairCount) : 0
            // The decodes fit in the room quickMatch checked; never build from a torn parse.
            if scratch.overflowed { return .success(nil) }
            let resolution = Resolution(blob, url, parts, values: values, pairs: UnsafeBufferPointer(start: pairs, count: parsed))
            do throws(RouterError) {
                return .success(try MatchRecord.build(resolution, extras: extras, maxNesting: maxNesting, allocate: allocate))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// Scratch for the quick lane of `matchRecord`: a fixed block on the stack, enough for URLs of up to 120
    /// bytes (8 × 120 + 64); longer ones take the general path. (A temporary allocation of more than 1 KiB
    /// costs a runtime check of the stack's room, so values and scratch are two blocks.)
    @inline(__always) static var quickScratch: Int { 1024 }

    /// `matchRecord` in the quick lane, its working memory on the stack: `.general` when the lane does not apply
    /// or the record cannot be made (the general path then says why).
    @inline(__always)
    package func quickRecord(_ url: ByteSpan, extras: UnsafeBufferPointer<QueryPair>,
                             allocate: (Int) -> UnsafeMutableRawPointer?) -> QuickRecord {
        withUnsafeTemporaryAllocation(of: ByteSpan.self, capacity: RouterState.quickValues) { valueBuffer -> QuickRecord in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: RouterState.quickScratch) { scratchBuffer -> QuickRecord in
                guard let values = valueBuffer.baseAddress, let scratchBase = scratchBuffer.baseAddress else { return .general }
                var scratch = ByteWriter(base: scratchBase, capacity: RouterState.quickScratch)
                var parts = URLParts()
                var pairCount = 0
                switch quickMatch(url, &parts, scratch: &scratch, values: values, pairCount: &pairCount) {
                case .general: return .general
                case .noMatch: return .noMatch
                case .matched(let blob):
                    do throws(RouterError) {
                        let block: UnsafeMutableRawPointer?
                        if extras.isEmpty && pairCount == 0 {
                            block = try MatchRecord.buildPathOnly(blob, url: url, parts: &parts, values: values,
                                                                  maxNesting: limits.maxNestingDepth, allocate: allocate)
                        } else {
                            block = try mergedRecord(blob, url, &parts, values: values, pairCount: pairCount, scratch: &scratch,
                                                     extras: extras, allocate: allocate)
                        }
                        guard let block else { return .general }
                        return .matched(block)
                    } catch {
                        return .general
                    }
                }
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A match as one block of memory: a header of u32 words, a table of (offset, length) string references, then
/// every string NUL-terminated. The C ABI's `lr_match` is such a block (one `malloc`, one `free`); a Swift
/// `Match` holds one in a single tail-allocated object. Both are written by `MatchRecord.write` (the quick lane's
/// matches of path parameters alone by `buildPathOnly`, which lays out the same format; a test holds the two to
/// the same reading), straight from the resolve pipeline's spans: no dictionary, no hashing, no reference
/// counting on the way.
///
/// ```
/// word 0 total bytes        word 3 merged params P      word 6 extras E      word 9  meta M
/// word 1 route id           word 4 path params A        word 7 requires R    word 10 nesting limit
/// word 2 flags              word 5 query pairs Q        word 8 zero (reserved)  word 11 bytes allocated
/// refs: 11 fixed strings (target pattern name metadata url routed scheme host port path fragment),
///       then P merged (name, value) -- none when flag 8 says the merged parameters are the path parameters --,
///       A path (name, value), Q query (name, value), E extras (name, value), R requires, M meta (key, value);
///       each ref is (u32 offset from the block, u32 length)
/// bytes: first the route's strings as its `RouteBlob` holds them (pattern, target, name, metadata, parameter
///        names, then guards and meta with the blob's tables between), copied in one piece; then the match's
///        strings; each followed by a NUL (an empty one is that NUL alone)
/// ```
/// Merged parameters follow SPEC §4: path parameters in pattern order, then query keys in order of first
/// appearance with their last value (a key a path parameter takes is skipped), then extras; an extra replaces
/// the value of a name already there (extra > path > query), keeping its place.
package struct MatchRecord {
    package let base: UnsafeRawPointer

    package init(_ base: UnsafeRawPointer) { self.base = base }

    typealias Word = MatchLayout.Word
    static let headerWords = MatchLayout.headerWords

    package typealias Field = MatchLayout.Field
    static let fieldCount = Field.allCases.count

    static let rewrittenFlag: UInt32 = 1
    static let nameFlag: UInt32 = 2
    static let metadataFlag: UInt32 = 4
    /// The merged parameters are the path parameters, in order (no query, no extras): their refs are the path
    /// parameters' refs, written once.
    static let mergedArePathFlag = MatchLayout.mergedArePathFlag

    // MARK: Reading

    @inline(__always) func word(_ w: Word) -> Int { MatchLayout.word(w.rawValue, in: base) }

    @inline(__always) func ref(_ i: Int) -> ByteSpan {
        ByteSpan(start: MatchLayout.refStart(i, in: base), count: MatchLayout.refCount(i, in: base))
    }

    /// A fixed string; NUL-terminated.
    @inline(__always) package func field(_ f: Field) -> ByteSpan { ref(f.rawValue) }

    /// Bytes the record spans (a copy of that many bytes is a valid record).
    package var size: Int { word(.size) }
    package var routeID: Int { word(.routeID) }
    package var wasRewritten: Bool { UInt32(word(.flags)) & MatchRecord.rewrittenFlag != 0 }
    package var hasName: Bool { UInt32(word(.flags)) & MatchRecord.nameFlag != 0 }
    package var hasMetadata: Bool { UInt32(word(.flags)) & MatchRecord.metadataFlag != 0 }
    package var paramCount: Int { word(.params) }
    package var pathParamCount: Int { word(.pathParams) }
    package var queryCount: Int { word(.queryPairs) }
    package var extraCount: Int { word(.extras) }
    package var requiresCount: Int { word(.requires) }
    package var metaCount: Int { word(.meta) }
    package var maxNesting: Int { word(.nesting) }
    /// Bytes of the block the record was written in (at least `size`): a C match's block is reused when freed.
    package var capacity: Int { word(.capacity) }

    /// Records that the block at `base` has `capacity` bytes (≤ 4 GiB, as the record's size is).
    package static func setCapacity(_ base: UnsafeMutableRawPointer, _ capacity: Int) {
        base.storeBytes(of: UInt32(truncatingIfNeeded: capacity), toByteOffset: 4 &* Word.capacity.rawValue, as: UInt32.self)
    }

    @inline(__always) private func pair(_ first: Int, _ i: Int) -> (name: ByteSpan, value: ByteSpan) {
        (ref(first &+ 2 &* i), ref(first &+ 2 &* i &+ 1))
    }

    private var mergedStart: Int { MatchLayout.firstParamRef }
    private var pathStart: Int { MatchLayout.pathStart(in: base) }
    private var queryStart: Int { MatchLayout.queryStart(in: base) }
    private var extraStart: Int { MatchLayout.extraStart(in: base) }
    private var requiresStart: Int { MatchLayout.requiresStart(in: base) }
    private var metaStart: Int { MatchLayout.metaStart(in: base) }

    /// Merged parameter `i` (each name once; see the type's comment for the order).
    @inline(__always) package func param(_ i: Int) -> (name: ByteSpan, value: ByteSpan) { pair(mergedStart, i) }
    package func pathParam(_ i: Int) -> (name: ByteSpan, value: ByteSpan) { pair(pathStart, i) }
    package func query(_ i: Int) -> (name: ByteSpan, value: ByteSpan) { pair(queryStart, i) }
    package func extra(_ i: Int) -> (name: ByteSpan, value: ByteSpan) { pair(extraStart, i) }
    package func requires(_ i: Int) -> ByteSpan { ref(requiresStart + i) }
    package func meta(_ i: Int) -> (name: ByteSpan, value: ByteSpan) { pair(metaStart, i) }

    /// The index of merged parameter `name`, or nil.
    @inline(__always) package func paramIndex(_ name: ByteSpan) -> Int? {
        firstParam { $0.equals(name) }
    }

    /// The index of the first merged parameter whose name `isName` accepts, or nil.
    @inline(__always) private func firstParam(_ isName: (ByteSpan) -> Bool) -> Int? {
        let n = paramCount
        var i = 0
        while i < n {
            if isName(ref(mergedStart &+ 2 &* i)) { return i }
            i &+= 1
        }
        return nil
    }

    /// The nested view of the parameters (bracket keys nest): path parameters, then query keys, then extras,
    /// with the precedence of `param` (an extra taking a query key's top-level name replaces it in place).
    package var nestedParams: ParamValue {
        let maxNesting = self.maxNesting
        let tree = ParamTree(maxDepth: maxNesting)
        for i in 0..<pathParamCount {
            let p = pathParam(i)
            tree.set(p.name.string, p.value.string)
        }
        // Names by bytes (`ExactKey`), as the flat parameters and `lr_match_get` tell them apart.
        var extras: [ExactKey: String] = [:]
        for i in 0..<extraCount { extras[ExactKey(extra(i).name.string)] = extra(i).value.string }
        let pathNames = Set((0..<pathParamCount).map { ExactKey(pathParam($0).name.string) })
        for i in 0..<queryCount {
            let q = query(i)
            let key = q.name.string
            let top = ParamTree.topLevelKey(key, maxDepth: maxNesting)
            if pathNames.contains(ExactKey(top)) { continue }
            if let value = extras[ExactKey(top)] {
                tree.set(top, value)
            } else {
                tree.addQuery(key, q.value.string)
            }
        }
        for i in 0..<extraCount { tree.set(extra(i).name.string, extra(i).value.string) }
        return tree.value
    }

    /// The match as one JSON object (`lr_match_to_json`): `target pattern url rewritten scheme host port path
    /// fragment`, then `name`, `meta` (an object) and `requires` (a list) when the route has them, then
    /// `params` (nested) and `query` (every pair as `[key, value]`).
    package var json: String {
        var w = JSONWriter()
        w.beginObject()
        let fields: [(String, Field)] = [("target", .target), ("pattern", .pattern), ("url", .url), ("rewritten", .routed),
                                         ("scheme", .scheme), ("host", .host), ("port", .port), ("path", .path),
                                         ("fragment", .fragment)]
        for (key, f) in fields {
            w.key(key)
            w.string(field(f))
        }
        if hasName {
            w.key("name")
            w.string(field(.name))
        }
        if metaCount > 0 {
            w.key("meta")
            w.beginObject()
            for i in 0..<metaCount {
                w.key(meta(i).name.string)
                w.string(meta(i).value)
            }
            w.endObject()
        }
        if requiresCount > 0 {
            w.key("requires")
            w.beginArray()
            for i in 0..<requiresCount { w.string(requires(i)) }
            w.endArray()
        }
        w.key("params")
        w.value(nestedParams)
        w.key("query")
        w.beginArray()
        for i in 0..<queryCount {
            w.beginArray()
            w.string(query(i).name)
            w.string(query(i).value)
            w.endArray()
        }
        w.endArray()
        w.endObject()
        return w.text
    }

    // MARK: Writing

    /// Builds the record of `r` with `extras` (in the order given; a repeated name: the last wins) in memory
    /// from `allocate(size)`, which returns nil when it cannot; nil then, and when the memory for merging is
    /// refused. Throws `.limit` for a record over 4 GiB (its offsets are u32).
    @inline(__always)  // into the lookup: most matches take the first branch, straight to `write`
    package static func build(_ r: Resolution, extras: UnsafeBufferPointer<QueryPair>, maxNesting: Int,
                              allocate: (Int) -> UnsafeMutableRawPointer?) throws(RouterError) -> UnsafeMutableRawPointer? {
        // Path parameters alone (no query, no extras): the merged parameters are they, in order, with no merge.
        if r.pairs.isEmpty && extras.isEmpty {
            return try write(r, sources: Sources(r, extras), merged: nil, maxNesting: maxNesting, allocate: allocate)
        }
        return try mergeAndWrite(r, extras: extras, maxNesting: maxNesting, allocate: allocate)
    }

    /// `build` of the quick lane's match (`RouterState.quickRecord`): the route's path parameters alone, of a URL
    /// that was not rewritten and has no query pair, with no extras. The record `write` makes, written more directly:
    /// scheme, host and port are one copy of the URL's head (up to the host's or the port's end) with a NUL on
    /// the byte after each (":", "]", or the head's end), instead of three copies.
    ///
    /// `parts` is `inout` only to be passed in place; it is not written. Passed by value, the caller's parts,
    /// which the scan has just stored field by field, were first copied in 16-byte loads, and such a load waits
    /// until every store it overlaps has reached the cache (no store-to-load forwarding): about 8 ns of a
    /// 130 ns `lr_router_resolve` (`make bench-steps`).
    @inline(never)
    static func buildPathOnly(_ blob: RouteBlob, url: ByteSpan, parts: inout URLParts, values: UnsafePointer<ByteSpan>,
                              maxNesting: Int, allocate: (Int) -> UnsafeMutableRawPointer?) throws(RouterError) -> UnsafeMutableRawPointer? {
        guard let u = url.start else { return nil }  // a matched URL is never empty
        let n = url.count
        let pathStart = parts.pathStart, pathEnd = parts.pathEnd, schemeEnd = parts.schemeEnd
        let hostStart = parts.hostStart, hostCount = max(0, parts.hostEnd &- hostStart)
        let portStart = parts.portStart, portCount = max(0, parts.portEnd &- portStart)
        let headEnd = max(schemeEnd, hostStart &+ hostCount, portStart &+ portCount)
        let pathCount = blob.paramCount, requiresCount = blob.requiresCount, metaCount = blob.metaCount
        let tableEnd = 4 &* headerWords &+ 8 &* (fieldCount &+ 2 &* (pathCount &+ metaCount) &+ requiresCount)
        let routeBytes = blob.stringsEnd &- blob.patternOffset
        // Without a fragment (and there is no query here) the path ends the URL and is read in its copy.
        let pathIsSuffix = pathEnd == n
        let urlAt = tableEnd &+ routeBytes, headAt = urlAt &+ n &+ 1
        var size = headAt &+ headEnd &+ 1
        if !pathIsSuffix { size &+= pathEnd &- pathStart &+ 1 }
        for i in 0..<pathCount { size &+= values[i].count &+ 1 }
        guard size <= Int(UInt32.max) else {
            throw .limit("a match of \(size) bytes is more than a match may hold (4 GiB)")
        }
        guard let block = allocate(size) else { return nil }

        // Every offset and count below is at most `size`, which fits a u32.
        let bytes = block.assumingMemoryBound(to: UInt8.self), refs = block.assumingMemoryBound(to: UInt32.self) + headerWords
        @inline(__always) func setRef(_ i: Int, _ offset: Int, _ count: Int) { MatchRecord.setRef(refs, i, offset, count) }
        // The route's strings (the path parameters' refs follow the fixed ones, then requires and meta), the
        // header, the URL, the head.
        let shift = writeRoute(blob, routeBytes, into: block, tableEnd: tableEnd, extrasAt: fieldCount &+ 2 &* pathCount,
                               requiresCount: requiresCount, metaCount: metaCount)
        writeHeader(block, size: size, blob: blob, flags: mergedArePathFlag, params: pathCount, queryPairs: 0, extras: 0,
                    requires: requiresCount, meta: metaCount, maxNesting: maxNesting)
        copyBytes(bytes + urlAt, u, n)
        bytes[urlAt &+ n] = 0
        copyBytes(bytes + headAt, u, headEnd)
        bytes[headAt &+ headEnd] = 0
        setRef(Field.url.rawValue, urlAt, n)
        setRef(Field.routed.rawValue, urlAt, n)
        setRef(Field.fragment.rawValue, urlAt &+ (parts.hasFragment ? parts.fragmentStart : n),
               parts.hasFragment ? parts.fragmentEnd &- parts.fragmentStart : 0)
        // Scheme, host and port in the head, each ended by a NUL on the byte after it; scheme and host are
        // reported lower-cased. (An empty host or port is the head's last NUL.)
        bytes[headAt &+ schemeEnd] = 0
        setRef(Field.scheme.rawValue, headAt, schemeEnd)
        let hostAt = hostCount > 0 ? headAt &+ hostStart : headAt &+ headEnd
        bytes[hostAt &+ hostCount] = 0
        setRef(Field.host.rawValue, hostAt, hostCount)
        if parts.schemeHasUppercase || parts.hostHasUppercase || parts.hostHasPercent {
            foldHead(block, schemeAt: headAt, schemeCount: schemeEnd, host: ByteSpan(start: u + hostStart, count: hostCount),
                     hostAt: hostAt, schemeHasUppercase: parts.schemeHasUppercase, hostHasUppercase: parts.hostHasUppercase,
                     hostHasPercent: parts.hostHasPercent)
        }
        let portAt = portCount > 0 ? headAt &+ portStart : headAt &+ headEnd
        bytes[portAt &+ portCount] = 0
        setRef(Field.port.rawValue, portAt, portCount)
        var cursor = headAt &+ headEnd &+ 1
        /// Copies `s` and a NUL at the cursor and points ref `i` at it.
        @inline(__always) func put(_ s: ByteSpan, ref i: Int) {
            copyBytes(bytes + cursor, s.start, s.count)
            bytes[cursor &+ s.count] = 0
            setRef(i, cursor, s.count)
            cursor &+= s.count &+ 1
        }
        if pathIsSuffix {
            setRef(Field.path.rawValue, urlAt &+ pathStart, pathEnd &- pathStart)
        } else {
            put(ByteSpan(start: u + pathStart, count: max(0, pathEnd &- pathStart)), ref: Field.path.rawValue)
        }

        // The path parameters' refs, which are also the merged ones (`mergedArePathFlag`).
        for i in 0..<pathCount {
            let name = blob.paramNameEntry(i)
            setRef(fieldCount &+ 2 &* i, name.offset &+ shift, name.count)
            put(values[i], ref: fieldCount &+ 2 &* i &+ 1)
        }
        return block
    }

    /// `build` of a match with query pairs or extras: merged first (SPEC §4), then written.
    @inline(never)
    private static func mergeAndWrite(_ r: Resolution, extras: UnsafeBufferPointer<QueryPair>, maxNesting: Int,
                                      allocate: (Int) -> UnsafeMutableRawPointer?) throws(RouterError) -> UnsafeMutableRawPointer? {
        let sources = Sources(r, extras)
        // The merged parameters are pairs of indexes into the sources (where the name comes from, where the
        // value comes from).
        let outcome = withTemporary((name: Int32, value: Int32).self, capacity: sources.count) { merged -> Result<UnsafeMutableRawPointer?, RouterError> in
            let count = merge(sources, into: merged)
            do throws(RouterError) {
                return .success(try write(r, sources: sources, merged: UnsafeBufferPointer(start: merged, count: count),
                                          maxNesting: maxNesting, allocate: allocate))
            } catch {
                return .failure(error)
            }
        }
        guard let outcome else { return nil }
        return try outcome.get()
    }

    /// Every (name, value) pair a match holds, in one list: path parameters, query pairs, extras.
    struct Sources {
        let blob: RouteBlob
        let values: UnsafePointer<ByteSpan>
        let pairs: UnsafeBufferPointer<QueryPair>
        let extras: UnsafeBufferPointer<QueryPair>
        let pathCount: Int, queryEnd: Int, count: Int

        init(_ r: Resolution, _ extras: UnsafeBufferPointer<QueryPair>) {
            blob = r.blob
            values = r.values
            pairs = r.pairs
            self.extras = extras
            pathCount = r.blob.paramCount
            queryEnd = pathCount &+ r.pairs.count
            count = queryEnd &+ extras.count
        }

        @inline(__always) subscript(i: Int) -> QueryPair {
            if i < pathCount { return QueryPair(key: blob.paramName(i), value: values[i]) }
            if i < queryEnd { return pairs[i &- pathCount] }
            return extras[i &- queryEnd]
        }
    }

    /// SPEC §4's merge over `src` (path pairs, then query pairs, then extras): writes one (name origin, value
    /// origin) per merged parameter to `out` and returns how many.
    static func merge(_ src: Sources, into out: UnsafeMutablePointer<(name: Int32, value: Int32)>) -> Int {
        let pathCount = src.pathCount, queryEnd = src.queryEnd
        var index = SpanIndex(capacity: src.count)
        defer { index.release() }
        var count = 0
        func key(_ k: Int) -> ByteSpan { src[Int(out[k].name)].key }
        for i in 0..<src.count {
            // Indexes fit an Int32: a URL has at most maxParams (≤ 2^24) pairs, extras are counted below 2^31.
            let origin = Int32(truncatingIfNeeded: i)
            let name = src[i].key
            if let at = index.find(name, count: count, key: key) {
                if i >= pathCount && Int(out[at].name) >= pathCount || i >= queryEnd {
                    out[at].value = origin  // a later query value, or an extra; a query never overrides a path parameter
                }
            } else {
                out[count] = (origin, origin)
                index.insert(name, at: count)
                count &+= 1
            }
        }
        return count
    }

    /// Writes the record; `merged` nil means the merged parameters are the sources, in order (path parameters
    /// alone, each name once).
    @inline(__always)
    private static func write(_ r: Resolution, sources: Sources,
                              merged: UnsafeBufferPointer<(name: Int32, value: Int32)>?, maxNesting: Int,
                              allocate: (Int) -> UnsafeMutableRawPointer?) throws(RouterError) -> UnsafeMutableRawPointer? {
        let blob = r.blob
        let rewritten = r.wasRewritten
        let routed = r.routed, parts = r.parts
        // The parts' spans, made here with one branch-free clamp each instead of `URLParts`'s guards: an empty
        // span (count 0) is taken as empty by `room` and `put`. (A matched URL is never empty: one test, hoisted.)
        let u = routed.start
        @inline(__always) func span(_ from: Int, _ to: Int) -> ByteSpan {
            u.map { ByteSpan(start: $0 + from, count: max(0, to &- from)) } ?? .empty
        }
        let scheme = span(0, parts.schemeEnd), host = span(parts.hostStart, parts.hostEnd)
        let port = span(parts.portStart, parts.portEnd), path = span(parts.pathStart, parts.pathEnd)
        let pathCount = sources.pathCount, values = r.values
        let requiresCount = blob.requiresCount, metaCount = blob.metaCount
        // Without `merged`, the merged parameters are the path parameters: their refs serve as both.
        let mergedCount = merged?.count ?? sources.count, mergedRefs = merged?.count ?? 0
        let refCount = fieldCount &+ 2 &* (mergedRefs &+ sources.count &+ metaCount) &+ requiresCount
        let tableEnd = 4 &* headerWords &+ 8 &* refCount
        let routeBytes = blob.stringsEnd &- blob.patternOffset

        // Sizes first. Each string is copied once: merged parameters point at the copies of the pairs they come
        // from, and an URL that was not rewritten is its own routed URL.
        // The fragment ends the routed URL, and so does the path when there is no query or fragment: both are
        // then read in the routed URL's copy, whose NUL ends them too.
        let pathIsSuffix = parts.pathEnd == routed.count
        // Each string and its NUL; an empty one is its NUL alone (no branch for it here or in `put`).
        @inline(__always) func room(_ s: ByteSpan) -> Int { s.count &+ 1 }
        var size = tableEnd &+ routeBytes &+ room(r.url) &+ room(scheme) &+ room(host) &+ room(port)
        if !pathIsSuffix { size &+= room(path) }
        if rewritten { size &+= room(routed) }
        for i in 0..<pathCount { size &+= room(values[i]) }
        for p in r.pairs { size &+= room(p.key) &+ room(p.value) }
        for p in sources.extras { size &+= room(p.key) &+ room(p.value) }
        guard size <= Int(UInt32.max) else {
            throw .limit("a match of \(size) bytes is more than a match may hold (4 GiB)")
        }
        guard let block = allocate(size) else { return nil }

        // Every offset and count below is at most `size`, which fits a u32.
        let bytes = block.assumingMemoryBound(to: UInt8.self), refs = block.assumingMemoryBound(to: UInt32.self) + headerWords
        @inline(__always) func setRef(_ i: Int, _ offset: Int, _ count: Int) { MatchRecord.setRef(refs, i, offset, count) }
        // The sources' refs follow the merged ones: path, query, extras, in `sources` order; then requires and meta.
        let mergedStart = fieldCount
        let sourceStart = mergedStart &+ 2 &* mergedRefs
        let shift = writeRoute(blob, routeBytes, into: block, tableEnd: tableEnd, extrasAt: sourceStart &+ 2 &* sources.count,
                               requiresCount: requiresCount, metaCount: metaCount)
        var cursor = tableEnd &+ routeBytes
        /// Copies `s` and a NUL at the cursor and points ref `i` at it.
        @inline(__always) func put(_ s: ByteSpan, ref i: Int) {
            copyBytes(bytes + cursor, s.start, s.count)
            bytes[cursor &+ s.count] = 0
            setRef(i, cursor, s.count)
            cursor &+= s.count &+ 1
        }

        writeHeader(block, size: size, blob: blob,
                    flags: (rewritten ? rewrittenFlag : 0) | (merged == nil ? mergedArePathFlag : 0),
                    params: mergedCount, queryPairs: r.pairs.count, extras: sources.extras.count,
                    requires: requiresCount, meta: metaCount, maxNesting: maxNesting)
        put(r.url, ref: Field.url.rawValue)
        if rewritten {
            put(routed, ref: Field.routed.rawValue)
        } else {
            refs[2 &* Field.routed.rawValue] = refs[2 &* Field.url.rawValue]
            refs[2 &* Field.routed.rawValue &+ 1] = refs[2 &* Field.url.rawValue &+ 1]
        }
        let routedAt = Int(refs[2 &* Field.routed.rawValue])
        // Scheme and host are reported lower-cased (and the host decoded), as `buildPathOnly` reports them.
        let schemeAt = cursor
        put(scheme, ref: Field.scheme.rawValue)
        let hostAt = cursor
        put(host, ref: Field.host.rawValue)
        if parts.schemeHasUppercase || parts.hostHasUppercase || parts.hostHasPercent {
            foldHead(block, schemeAt: schemeAt, schemeCount: scheme.count, host: host, hostAt: hostAt,
                     schemeHasUppercase: parts.schemeHasUppercase, hostHasUppercase: parts.hostHasUppercase,
                     hostHasPercent: parts.hostHasPercent)
        }
        put(port, ref: Field.port.rawValue)
        if pathIsSuffix {
            setRef(Field.path.rawValue, routedAt &+ parts.pathStart, path.count)
        } else {
            put(path, ref: Field.path.rawValue)
        }
        setRef(Field.fragment.rawValue, routedAt &+ (parts.hasFragment ? parts.fragmentStart : routed.count),
               parts.hasFragment ? parts.fragmentEnd &- parts.fragmentStart : 0)

        for i in 0..<pathCount {
            let name = blob.paramNameEntry(i)
            setRef(sourceStart &+ 2 &* i, name.offset &+ shift, name.count)
            put(values[i], ref: sourceStart &+ 2 &* i &+ 1)
        }
        var at = sourceStart &+ 2 &* pathCount
        for p in r.pairs {
            put(p.key, ref: at)
            put(p.value, ref: at &+ 1)
            at &+= 2
        }
        for p in sources.extras {
            put(p.key, ref: at)
            put(p.value, ref: at &+ 1)
            at &+= 2
        }
        if let merged {
            for (k, m) in merged.enumerated() {
                let name = 2 &* (sourceStart &+ 2 &* Int(m.name)), value = 2 &* (sourceStart &+ 2 &* Int(m.value) &+ 1)
                refs[2 &* (mergedStart &+ 2 &* k)] = refs[name]
                refs[2 &* (mergedStart &+ 2 &* k) &+ 1] = refs[name &+ 1]
                refs[2 &* (mergedStart &+ 2 &* k &+ 1)] = refs[value]
                refs[2 &* (mergedStart &+ 2 &* k &+ 1) &+ 1] = refs[value &+ 1]
            }
        }
        return block
    }

    // MARK: Writing, the parts both writers share

    /// The scheme and host copied at `schemeAt` and `hostAt` made what a match reports, when either is not
    /// already (upper case, or a `%` in the host): out of line, as few URLs need it; both writers call it. The
    /// parts' flags as values: passed `URLParts`, `buildPathOnly` would copy the parts first (see there).
    @inline(never)
    private static func foldHead(_ block: UnsafeMutableRawPointer, schemeAt: Int, schemeCount: Int, host: ByteSpan,
                                 hostAt: Int, schemeHasUppercase: Bool, hostHasUppercase: Bool, hostHasPercent: Bool) {
        if schemeHasUppercase {
            let bytes = block.assumingMemoryBound(to: UInt8.self) + schemeAt
            for k in 0..<schemeCount { bytes[k] = ASCII.lowercased(bytes[k]) }
        }
        reportHost(host, at: hostAt, in: block, hasUppercase: hostHasUppercase, hasPercent: hostHasPercent)
    }

    /// Makes the host `raw`, copied at `at` with its NUL and ref, what a match reports: lower-cased, and when it
    /// has a `%` percent-decoded as the router compares it (`decodedHost`, rare).
    @inline(__always)
    private static func reportHost(_ raw: ByteSpan, at: Int, in block: UnsafeMutableRawPointer, hasUppercase: Bool,
                                   hasPercent: Bool) {
        if hasPercent {
            decodedHost(raw, at: at, in: block)
        } else if hasUppercase {
            let bytes = block.assumingMemoryBound(to: UInt8.self) + at
            for k in 0..<raw.count { bytes[k] = ASCII.lowercased(bytes[k]) }
        }
    }

    /// `reportHost` of a host with a `%`: decoded (`decodeHost`), lower-cased, its NUL and ref moved to its new end.
    @inline(never)
    private static func decodedHost(_ raw: ByteSpan, at: Int, in block: UnsafeMutableRawPointer) {
        let bytes = block.assumingMemoryBound(to: UInt8.self) + at
        let count = decodeHost(raw, over: bytes) ?? raw.count
        for k in 0..<count { bytes[k] = ASCII.lowercased(bytes[k]) }
        bytes[count] = 0
        setRef(block.assumingMemoryBound(to: UInt32.self) + headerWords, Field.host.rawValue, at, count)
    }

    /// Ref `i` of the table at `refs`: (offset, count), each a u32 (both at most the record's size).
    @inline(__always)
    private static func setRef(_ refs: UnsafeMutablePointer<UInt32>, _ i: Int, _ offset: Int, _ count: Int) {
        refs[2 &* i] = UInt32(truncatingIfNeeded: offset)
        refs[2 &* i &+ 1] = UInt32(truncatingIfNeeded: count)
    }

    /// The header of a record of `size` bytes for `blob`; `flags` beside the name and metadata flags, which
    /// come from the route.
    @inline(__always)
    private static func writeHeader(_ block: UnsafeMutableRawPointer, size: Int, blob: RouteBlob, flags: UInt32,
                                    params: Int, queryPairs: Int, extras: Int, requires: Int, meta: Int, maxNesting: Int) {
        let words = block.assumingMemoryBound(to: UInt32.self)
        @inline(__always) func word(_ w: Word, _ v: Int) { words[w.rawValue] = UInt32(truncatingIfNeeded: v) }
        var flags = flags
        if blob.hasName { flags |= nameFlag }
        if blob.hasMetadata { flags |= metadataFlag }
        word(.size, size)
        word(.routeID, blob.sequence)
        word(.flags, Int(flags))
        word(.params, params)
        word(.pathParams, blob.paramCount)
        word(.queryPairs, queryPairs)
        word(.extras, extras)
        word(.requires, requires)
        word(.zero, 0)
        word(.meta, meta)
        word(.nesting, maxNesting)
        word(.capacity, size)
    }

    /// Copies the route's strings, `routeBytes` from `patternOffset` (pattern, target, name, metadata, parameter
    /// names, guards, meta: one run in its block, each string keeping its distance from the run's start), to
    /// `tableEnd`, and points at the copies the refs of pattern, target, name and metadata, and the
    /// `requiresCount` requires and `metaCount` meta refs from ref `extrasAt`. Returns the shift: a blob offset
    /// plus it is the record offset of the same byte (the caller points the parameter names' refs with it).
    @inline(__always)
    private static func writeRoute(_ blob: RouteBlob, _ routeBytes: Int, into block: UnsafeMutableRawPointer,
                                   tableEnd: Int, extrasAt: Int, requiresCount: Int, metaCount: Int) -> Int {
        let refs = block.assumingMemoryBound(to: UInt32.self) + headerWords
        let routeStart = blob.patternOffset
        // Read before the copy is written (the compiler cannot tell the blob from the record).
        let patternCount = blob.patternLength, targetCount = blob.targetLength
        let nameCount = blob.nameLength, metadataCount = blob.metadataLength
        copyBytes(block.assumingMemoryBound(to: UInt8.self) + tableEnd,
                  (blob.base + routeStart).assumingMemoryBound(to: UInt8.self), routeBytes)
        let shift = tableEnd &- routeStart
        // In the copy: pattern NUL target NUL name NUL metadata NUL (as `RouteBlob` lays them out).
        let targetAt = tableEnd &+ patternCount &+ 1, nameAt = targetAt &+ targetCount &+ 1
        setRef(refs, Field.pattern.rawValue, tableEnd, patternCount)
        setRef(refs, Field.target.rawValue, targetAt, targetCount)
        setRef(refs, Field.name.rawValue, nameAt, nameCount)
        setRef(refs, Field.metadata.rawValue, nameAt &+ nameCount &+ 1, metadataCount)
        if requiresCount > 0 || metaCount > 0 {
            for i in 0..<requiresCount {
                let e = blob.requiresEntry(i)
                setRef(refs, extrasAt &+ i, e.offset &+ shift, e.count)
            }
            let metaStart = extrasAt &+ requiresCount
            for i in 0..<metaCount {
                let e = blob.metaEntry(i)
                setRef(refs, metaStart &+ 2 &* i, e.key &+ shift, e.keyCount)
                setRef(refs, metaStart &+ 2 &* i &+ 1, e.value &+ shift, e.valueCount)
            }
        }
        return shift
    }
}

/// Copies `n` bytes. Up to 16 (most names and values) inline, with no loop: two overlapping words of 8 or 4
/// bytes, or for 1 to 3 bytes the first, middle and last byte. Longer ones (URLs, hosts, the route's strings)
/// with memcpy, which moves 32 bytes an instruction where a loop here moves 8 in five.
@inline(__always)
func copyBytes(_ dst: UnsafeMutablePointer<UInt8>, _ src: UnsafePointer<UInt8>?, _ n: Int) {
    guard let src, n > 0 else { return }
    let d = UnsafeMutableRawPointer(dst), s = UnsafeRawPointer(src)
    if n > 16 {
        d.copyMemory(from: s, byteCount: n)
    } else if n >= 8 {
        let first = s.loadUnaligned(as: UInt64.self), last = s.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
        d.storeBytes(of: first, as: UInt64.self)
        d.storeBytes(of: last, toByteOffset: n &- 8, as: UInt64.self)
    } else if n >= 4 {
        let first = s.loadUnaligned(as: UInt32.self), last = s.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
        d.storeBytes(of: first, as: UInt32.self)
        d.storeBytes(of: last, toByteOffset: n &- 4, as: UInt32.self)
    } else {
        dst[0] = src[0]
        dst[n &>> 1] = src[n &>> 1]
        dst[n &- 1] = src[n &- 1]
    }
}

/// Frees the C match at `base` (`lr_match_free`): its block becomes this thread's spare when it is small enough
/// (`ThreadState`). A free function, not a static method: one call into the core, where a static method is
/// reached through a thunk that drops its unused metatype.
package func freeCMatchBlock(_ base: UnsafeMutableRawPointer) {
    ThreadState.recycleMatchBlock(base, capacity: MatchRecord(base).capacity)
}

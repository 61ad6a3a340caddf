/// A match as one block of memory: a header of u32 words, a table of (offset, length) string references, then
/// every string NUL-terminated. The C ABI's `lr_match` is such a block (one `malloc`, one `free`); a Swift
/// `Match` holds one in a single tail-allocated object. Both are written by `MatchRecord.write`, straight from
/// the resolve pipeline's spans: no dictionary, no hashing, no reference counting on the way.
///
/// ```
/// word 0 total bytes        word 3 merged params P      word 6 extras E      word 9  meta M
/// word 1 route id           word 4 path params A        word 7 requires R    word 10 nesting limit
/// word 2 flags              word 5 query pairs Q        word 8 (reserved)    word 11 (reserved)
/// refs: 11 fixed strings (target pattern name metadata url routed scheme host port path fragment),
///       then P merged (name, value), A path (name, value), Q query (name, value), E extras (name, value),
///       R requires, M meta (key, value) -- each ref is (u32 offset from the block, u32 length)
/// bytes: the strings, each followed by a NUL
/// ```
/// Merged parameters follow SPEC §4: path parameters in pattern order, then query keys in order of first
/// appearance with their last value (a key a path parameter takes is skipped), then extras; an extra replaces
/// the value of a name already there (extra > path > query), keeping its place.
package struct MatchRecord {
    package let base: UnsafeRawPointer

    package init(_ base: UnsafeRawPointer) { self.base = base }

    enum Word: Int { case size, routeID, flags, params, pathParams, queryPairs, extras, requires, reserved8, meta, nesting, reserved11 }
    static let headerWords = 12

    package enum Field: Int, CaseIterable {
        case target, pattern, name, metadata, url, routed, scheme, host, port, path, fragment
    }
    static let fieldCount = Field.allCases.count

    static let rewrittenFlag: UInt32 = 1
    static let nameFlag: UInt32 = 2
    static let metadataFlag: UInt32 = 4

    // MARK: Reading

    @inline(__always) func word(_ w: Word) -> Int {
        Int(base.loadUnaligned(fromByteOffset: 4 &* w.rawValue, as: UInt32.self))
    }

    @inline(__always) func ref(_ i: Int) -> ByteSpan {
        let at = 4 &* MatchRecord.headerWords &+ 8 &* i
        let offset = Int(base.loadUnaligned(fromByteOffset: at, as: UInt32.self))
        let count = Int(base.loadUnaligned(fromByteOffset: at &+ 4, as: UInt32.self))
        return ByteSpan(start: (base + offset).assumingMemoryBound(to: UInt8.self), count: count)
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

    @inline(__always) private func pair(_ first: Int, _ i: Int) -> (name: ByteSpan, value: ByteSpan) {
        (ref(first &+ 2 &* i), ref(first &+ 2 &* i &+ 1))
    }

    private var mergedStart: Int { MatchRecord.fieldCount }
    private var pathStart: Int { mergedStart + 2 * paramCount }
    private var queryStart: Int { pathStart + 2 * pathParamCount }
    private var extraStart: Int { queryStart + 2 * queryCount }
    private var requiresStart: Int { extraStart + 2 * extraCount }
    private var metaStart: Int { requiresStart + requiresCount }

    /// Merged parameter `i` (each name once; see the type's comment for the order).
    @inline(__always) package func param(_ i: Int) -> (name: ByteSpan, value: ByteSpan) { pair(mergedStart, i) }
    package func pathParam(_ i: Int) -> (name: ByteSpan, value: ByteSpan) { pair(pathStart, i) }
    package func query(_ i: Int) -> (name: ByteSpan, value: ByteSpan) { pair(queryStart, i) }
    package func extra(_ i: Int) -> (name: ByteSpan, value: ByteSpan) { pair(extraStart, i) }
    package func requires(_ i: Int) -> ByteSpan { ref(requiresStart + i) }
    package func meta(_ i: Int) -> (name: ByteSpan, value: ByteSpan) { pair(metaStart, i) }

    /// The index of merged parameter `name`, or nil.
    @inline(__always) package func paramIndex(_ name: ByteSpan) -> Int? {
        let n = paramCount
        var i = 0
        while i < n {
            if ref(mergedStart &+ 2 &* i).equals(name) { return i }
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
        var extras: [String: String] = [:]
        for i in 0..<extraCount { extras[extra(i).name.string] = extra(i).value.string }
        for i in 0..<queryCount {
            let q = query(i)
            let key = q.name.string
            let top = ParamTree.topLevelKey(key, maxDepth: maxNesting)
            if (0..<pathParamCount).contains(where: { pathParam($0).name.string == top }) { continue }
            if let value = extras[top] {
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
    /// from `allocate(size)`, which returns nil when it cannot; nil then. Throws `.limit` for a record over
    /// 4 GiB (its offsets are u32).
    package static func build(_ r: Resolution, extras: UnsafeBufferPointer<QueryPair>, maxNesting: Int,
                              allocate: (Int) -> UnsafeMutableRawPointer?) throws(RouterError) -> UnsafeMutableRawPointer? {
        // Every (name, value) pair the match holds, in one list: path parameters, query pairs, extras. The merged
        // parameters are pairs of indexes into it (where the name comes from, where the value comes from).
        let pathCount = r.blob.paramCount
        let sourceCount = pathCount &+ r.pairs.count &+ extras.count
        return try withUnsafeTemporaryAllocation(of: QueryPair.self, capacity: max(sourceCount, 1)) { sources throws(RouterError) in
            try withUnsafeTemporaryAllocation(of: (name: Int32, value: Int32).self, capacity: max(sourceCount, 1)) { merged throws(RouterError) in
                guard let src = sources.baseAddress, let m = merged.baseAddress else { return nil }
                for i in 0..<pathCount { src[i] = QueryPair(key: r.blob.paramName(i), value: r.values[i]) }
                for (i, q) in r.pairs.enumerated() { src[pathCount &+ i] = q }
                for (i, e) in extras.enumerated() { src[pathCount &+ r.pairs.count &+ i] = e }
                let count = merge(src, pathCount: pathCount, queryCount: r.pairs.count, extraCount: extras.count, into: m)
                return try write(r, sources: UnsafeBufferPointer(start: src, count: sourceCount), extraCount: extras.count,
                                 merged: UnsafeBufferPointer(start: m, count: count), maxNesting: maxNesting, allocate: allocate)
            }
        }
    }

    /// SPEC §4's merge over `src` (path pairs, then query pairs, then extras): writes one (name origin, value
    /// origin) per merged parameter to `out` and returns how many.
    static func merge(_ src: UnsafeMutablePointer<QueryPair>, pathCount: Int, queryCount: Int, extraCount: Int,
                      into out: UnsafeMutablePointer<(name: Int32, value: Int32)>) -> Int {
        var index = SpanIndex(capacity: pathCount &+ queryCount &+ extraCount)
        defer { index.release() }
        var count = 0
        func key(_ k: Int) -> ByteSpan { src[Int(out[k].name)].key }
        for i in 0..<(pathCount &+ queryCount &+ extraCount) {
            // Indexes fit an Int32: a URL has at most maxParams (≤ 2^24) pairs, extras are counted below 2^31.
            let origin = Int32(truncatingIfNeeded: i)
            if let at = index.find(src[i].key, count: count, key: key) {
                if i >= pathCount && Int(out[at].name) >= pathCount || i >= pathCount &+ queryCount {
                    out[at].value = origin  // a later query value, or an extra; a query never overrides a path parameter
                }
            } else {
                out[count] = (origin, origin)
                index.insert(src[i].key, at: count)
                count &+= 1
            }
        }
        return count
    }

    private static func write(_ r: Resolution, sources: UnsafeBufferPointer<QueryPair>, extraCount: Int,
                              merged: UnsafeBufferPointer<(name: Int32, value: Int32)>, maxNesting: Int,
                              allocate: (Int) -> UnsafeMutableRawPointer?) throws(RouterError) -> UnsafeMutableRawPointer? {
        let blob = r.blob
        let rewritten = r.wasRewritten
        let routed = r.routed, parts = r.parts
        let name = blob.name ?? .empty, metadata = blob.metadata ?? .empty
        let scheme = parts.scheme(in: routed), host = parts.host(in: routed), port = parts.port(in: routed)
        let path = parts.path(in: routed), fragment = parts.fragment(in: routed)
        let requiresCount = blob.requiresCount, metaCount = blob.metaCount
        let refCount = fieldCount &+ 2 &* (merged.count &+ sources.count &+ metaCount) &+ requiresCount
        let tableEnd = 4 &* headerWords &+ 8 &* refCount

        // Sizes first. Each string is copied once: merged parameters point at the copies of the pairs they come
        // from, and an URL that was not rewritten is its own routed URL.
        // The fragment ends the routed URL, and so does the path when there is no query or fragment: both are
        // then read in the routed URL's copy, whose NUL ends them too.
        let pathIsSuffix = parts.pathEnd == routed.count
        var size = tableEnd &+ blob.target.count &+ blob.pattern.count &+ name.count &+ metadata.count &+ r.url.count
            &+ scheme.count &+ host.count &+ port.count &+ 8
        if !pathIsSuffix { size &+= path.count &+ 1 }
        if rewritten { size &+= routed.count &+ 1 }
        for p in sources { size &+= p.key.count &+ p.value.count &+ 2 }
        if requiresCount > 0 || metaCount > 0 {
            for i in 0..<requiresCount { size &+= blob.requires(i).count &+ 1 }
            for i in 0..<metaCount { size &+= blob.meta(i).key.count &+ blob.meta(i).value.count &+ 2 }
        }
        guard size <= Int(UInt32.max) else {
            throw .limit("a match of \(size) bytes is more than a match may hold (4 GiB)")
        }
        guard let block = allocate(size) else { return nil }

        // Every offset and count below is at most `size`, which fits a u32.
        let words = block.assumingMemoryBound(to: UInt32.self)
        @inline(__always) func word(_ w: Word, _ v: Int) { words[w.rawValue] = UInt32(truncatingIfNeeded: v) }
        let refs = words + headerWords
        let bytes = block.assumingMemoryBound(to: UInt8.self)
        var cursor = tableEnd
        /// Copies `s` and a NUL at the cursor and points ref `i` at it.
        @inline(__always) func put(_ s: ByteSpan, ref i: Int) {
            copyBytes(bytes + cursor, s.start, s.count)
            bytes[cursor &+ s.count] = 0
            refs[2 &* i] = UInt32(truncatingIfNeeded: cursor)
            refs[2 &* i &+ 1] = UInt32(truncatingIfNeeded: s.count)
            cursor &+= s.count &+ 1
        }

        var flags: UInt32 = rewritten ? rewrittenFlag : 0
        if blob.name != nil { flags |= nameFlag }
        if blob.metadata != nil { flags |= metadataFlag }
        word(.size, size)
        word(.routeID, blob.sequence)
        word(.flags, Int(flags))
        word(.params, merged.count)
        word(.pathParams, blob.paramCount)
        word(.queryPairs, r.pairs.count)
        word(.extras, extraCount)
        word(.requires, requiresCount)
        word(.reserved8, 0)
        word(.meta, metaCount)
        word(.nesting, maxNesting)
        word(.reserved11, 0)

        put(blob.target, ref: Field.target.rawValue)
        put(blob.pattern, ref: Field.pattern.rawValue)
        put(name, ref: Field.name.rawValue)
        put(metadata, ref: Field.metadata.rawValue)
        put(r.url, ref: Field.url.rawValue)
        if rewritten {
            put(routed, ref: Field.routed.rawValue)
        } else {
            refs[2 &* Field.routed.rawValue] = refs[2 &* Field.url.rawValue]
            refs[2 &* Field.routed.rawValue &+ 1] = refs[2 &* Field.url.rawValue &+ 1]
        }
        let routedAt = Int(refs[2 &* Field.routed.rawValue])
        @inline(__always) func inRouted(_ start: Int, _ count: Int, ref i: Int) {
            refs[2 &* i] = UInt32(truncatingIfNeeded: routedAt &+ start)
            refs[2 &* i &+ 1] = UInt32(truncatingIfNeeded: count)
        }
        // Scheme and host are reported lower-cased.
        let schemeAt = cursor
        put(scheme, ref: Field.scheme.rawValue)
        for k in schemeAt..<(schemeAt &+ scheme.count) { bytes[k] = ASCII.lowercased(bytes[k]) }
        let hostAt = cursor
        put(host, ref: Field.host.rawValue)
        if parts.hostHasUppercase {
            for k in hostAt..<(hostAt &+ host.count) { bytes[k] = ASCII.lowercased(bytes[k]) }
        }
        put(port, ref: Field.port.rawValue)
        if pathIsSuffix {
            inRouted(parts.pathStart, path.count, ref: Field.path.rawValue)
        } else {
            put(path, ref: Field.path.rawValue)
        }
        inRouted(parts.hasFragment ? parts.fragmentStart : routed.count, fragment.count, ref: Field.fragment.rawValue)

        // The sources' refs follow the merged ones: path, query, extras, in `sources` order.
        let mergedStart = fieldCount
        let sourceStart = mergedStart &+ 2 &* merged.count
        for (i, p) in sources.enumerated() {
            put(p.key, ref: sourceStart &+ 2 &* i)
            put(p.value, ref: sourceStart &+ 2 &* i &+ 1)
        }
        for (k, m) in merged.enumerated() {
            let name = 2 &* (sourceStart &+ 2 &* Int(m.name)), value = 2 &* (sourceStart &+ 2 &* Int(m.value) &+ 1)
            refs[2 &* (mergedStart &+ 2 &* k)] = refs[name]
            refs[2 &* (mergedStart &+ 2 &* k) &+ 1] = refs[name &+ 1]
            refs[2 &* (mergedStart &+ 2 &* k &+ 1)] = refs[value]
            refs[2 &* (mergedStart &+ 2 &* k &+ 1) &+ 1] = refs[value &+ 1]
        }
        if requiresCount > 0 || metaCount > 0 {
            let requiresStart = sourceStart &+ 2 &* sources.count
            for i in 0..<requiresCount { put(blob.requires(i), ref: requiresStart &+ i) }
            let metaStart = requiresStart &+ requiresCount
            for i in 0..<metaCount {
                let (k, v) = blob.meta(i)
                put(k, ref: metaStart &+ 2 &* i)
                put(v, ref: metaStart &+ 2 &* i &+ 1)
            }
        }
        return block
    }
}

/// Copies `n` bytes: runs of up to 256 bytes (URLs, patterns, parameters) a word at a time, the last word
/// overlapping, instead of calling memcpy; longer ones with memcpy.
@inline(__always)
func copyBytes(_ dst: UnsafeMutablePointer<UInt8>, _ src: UnsafePointer<UInt8>?, _ n: Int) {
    guard let src, n > 0 else { return }
    if n < 8 {
        for i in 0..<n { dst[i] = src[i] }
        return
    }
    let d = UnsafeMutableRawPointer(dst), s = UnsafeRawPointer(src)
    if n > 256 {
        d.copyMemory(from: s, byteCount: n)
        return
    }
    var i = 0
    while i &+ 8 < n {
        (d + i).storeBytes(of: (s + i).loadUnaligned(as: UInt64.self), as: UInt64.self)
        i &+= 8
    }
    (d + (n &- 8)).storeBytes(of: (s + (n &- 8)).loadUnaligned(as: UInt64.self), as: UInt64.self)
}

/// One lookup over a table snapshot: the table's raw readers and what the walk needs of the URL.
struct TrieWalk {
    /// The table, read in place: copying its readers into the walk cost about 60 instructions a lookup, more
    /// than the loads through this reference. Unretained: the caller holds the snapshot for the walk.
    unowned(unsafe) let table: RouteTable
    /// Node, edge, route and static slot `i`, read in place with the store's constant chunk size (the reader's
    /// shift and mask are not loaded).
    @inline(__always) func nodeAt(_ i: Int32) -> TrieNode { table.nodes.address(Int(i), shift: TrieNode.chunkShift).pointee }
    @inline(__always) func edgeAt(_ i: Int) -> UnsafePointer<Edge> { table.edges.address(i, shift: Edge.chunkShift) }
    @inline(__always) func routeAt(_ i: Int32) -> RouteSlot { table.routes.address(Int(i), shift: RouteSlot.chunkShift).pointee }
    @inline(__always) func staticAt(_ i: Int) -> StaticSlot { table.statics.address(i, shift: StaticSlot.chunkShift).pointee }
    /// Special edge `k`, read in place.
    @inline(__always) func specialEdge(_ k: Int32) -> UnsafePointer<SpecialEdge> {
        table.specials.address(Int(k), shift: SpecialEdge.chunkShift)
    }
    @inline(__always) var edgeBits: Int { table.edgeBits }
    @inline(__always) var edgeMask: Int { table.edgeMask }
    @inline(__always) var staticBits: Int { table.staticBits }
    @inline(__always) var staticLengths: UInt64 { table.staticLengths }
    let p: UnsafePointer<UInt8>
    let urlCount: Int
    /// The URL's parts, read in place (the caller's, alive for the walk): copying the dozen fields the walk
    /// reads cost more than the loads through this pointer.
    let parts: UnsafePointer<URLParts>
    @inline(__always) var schemeEnd: Int { parts.pointee.schemeEnd }
    @inline(__always) var hostStart: Int { parts.pointee.hostStart }
    @inline(__always) var hostEnd: Int { parts.pointee.hostEnd }
    @inline(__always) var portStart: Int { parts.pointee.portStart }
    @inline(__always) var portEnd: Int { parts.pointee.portEnd }
    @inline(__always) var pathStart: Int { parts.pointee.pathStart }
    @inline(__always) var pathEnd: Int { parts.pointee.pathEnd }
    /// Element 0 is the URL's host (compared case-insensitively); else the first path segment.
    let hostFirst: Bool
    @inline(__always) var hasPort: Bool { parts.pointee.portEnd > parts.pointee.portStart }
    @inline(__always) var hostHasPercent: Bool { parts.pointee.hostHasPercent }
    /// The authority is a plain lower-case host: "host/path" may be a static key as written (if the path is
    /// canonical too, which the static probe checks only when the length filter lets the URL through).
    let staticEligible: Bool
    /// The path's slashes as bits (`URLParts.pathSlashes`), and whether they say where every segment is: the
    /// whole path is covered and has no `%` (else segments are scanned for).
    @inline(__always) var slashes: UInt64 { parts.pointee.pathSlashes }
    @inline(__always) var segmentsByBits: Bool { parts.pointee.pathSegmentsByBits }
    let elements: UnsafeMutablePointer<SequenceElement>
    let captures: UnsafeMutablePointer<Capture>
    let frames: UnsafeMutablePointer<SearchFrame>

    init(table: RouteTable, url: UnsafePointer<UInt8>, count: Int, parts: UnsafePointer<URLParts>, memory: WalkMemory) {
        self.table = table
        p = url
        urlCount = count
        self.parts = parts
        let u = parts.pointee
        hostFirst = u.hasAuthority && u.hostEnd > u.hostStart
        staticEligible = hostFirst && !u.hostHasPercent && !u.hostHasUppercase
            && u.hostStart == u.authorityStart && u.hostEnd == u.authorityEnd
        elements = memory.elements
        captures = memory.captures
        frames = memory.frames
    }

    // MARK: Keys

    @inline(__always)
    func child(_ parent: Int32, _ key: UnsafePointer<UInt8>?, _ length: Int, _ d: KeyDigest, fold: Bool) -> Int32 {
        let tag = edgeTag(parent, d.hash)
        return table.probe(from: slotIndex(tag, edgeBits), tag, key, length, head: d.head, fold: fold)
    }

    /// The end of the path segment that starts at `start`, and whether it holds a "%".
    @inline(__always)
    func segment(from start: Int) -> (end: Int, hasPercent: Bool) {
        segmentEnd(p, from: start, to: pathEnd)
    }

    /// The first path segment at or after `from` (empty segments skipped): where it starts and ends, and
    /// whether it holds a "%"; `start == pathEnd` when none is left. From the slash bits when they tell.
    @inline(__always)
    func nextSegment(from: Int) -> (start: Int, end: Int, hasPercent: Bool) {
        if segmentsByBits {
            let length = pathEnd &- pathStart  // < 64
            let offset = from &- pathStart  // 0 ... length
            let others = ~slashes & ((1 &<< UInt64(truncatingIfNeeded: length)) &- 1)  // the bytes that are not "/"
            let ahead = others &>> UInt64(truncatingIfNeeded: offset)
            if ahead == 0 { return (pathEnd, pathEnd, false) }
            let s = offset &+ ahead.trailingZeroBitCount
            let after = slashes &>> UInt64(truncatingIfNeeded: s)
            let e = after == 0 ? length : s &+ after.trailingZeroBitCount
            return (pathStart &+ s, pathStart &+ e, false)
        }
        var k = from
        while k < pathEnd && p[k] == ASCII.slash { k &+= 1 }
        if k >= pathEnd { return (pathEnd, pathEnd, false) }
        let (e, percent) = segment(from: k)
        return (k, e, percent)
    }

    /// `literalChild` for an element with a `%`: looked up decoded, or as written when it does not decode cleanly.
    @inline(never)
    func decodedLiteralChild(_ node: Int32, _ start: Int, _ end: Int, fold: Bool, _ scratch: inout ByteWriter) -> Int32 {
        let n = end &- start
        if let dst = scratch.reserve(n), let decoded = percentDecode(ByteSpan(start: p + start, count: n), into: dst) {
            scratch.commit(decoded)
            let key = UnsafePointer(dst)
            return child(node, key, decoded, digest(key, decoded, fold: fold), fold: fold)
        }
        return child(node, p + start, n, digest(p + start, n, fold: fold, before: start, after: urlCount &- start), fold: fold)
    }

    /// The literal child of `node` for "host:port", tried before the bare host for patterns naming a port.
    /// The key is made once per lookup: in the URL itself unless the host needed decoding.
    func hostWithPortChild(_ node: Int32, _ w: inout WalkState, _ scratch: inout ByteWriter) -> Int32 {
        guard hostFirst && hasPort else { return -1 }
        if w.hostPortLength < 0 {
            let host = decodedSpan(hostStart, hostEnd, &scratch)
            if host.start == p + hostStart {
                w.hostPortKey = host.start
                w.hostPortLength = portEnd &- hostStart
            } else {
                let mark = scratch.count
                scratch.append(host)
                scratch.append(ASCII.colon)
                scratch.append(ByteSpan(start: p + portStart, count: portEnd &- portStart))
                let s = scratch.span(from: mark)
                w.hostPortKey = s.start
                w.hostPortLength = s.count
            }
            w.hostPortDigest = digest(w.hostPortKey, w.hostPortLength, fold: true)
        }
        return child(node, w.hostPortKey, w.hostPortLength, w.hostPortDigest, fold: true)
    }

    /// The first special edge, from edge `k` on, whose rule names a port (`SpecialEdge.namesPort`) and accepts the
    /// URL's `host:port` (decoded, the host's case folded), with where its value is written; nil when none does.
    /// Tried, for a URL with a port, after the `host:port` literal and before the host alone (as that literal
    /// is): `https://{sub}.example.com:8080/x` matches `https://a.example.com:8080/x`. `host:port` is one span
    /// of the URL (the port follows the host's `:`).
    @inline(never)
    func portSpecial(from k: Int32, _ scratch: inout ByteWriter) -> SpecialHit? {
        guard hostFirst && hasPort && k >= 0 else { return nil }
        let start = hostStart, end = portEnd
        var key = UnsafePointer(p + start), n = end &- start
        var decoded = false
        if hostHasPercent, let dst = scratch.reserve(n), let count = percentDecode(ByteSpan(start: key, count: n), into: dst) {
            (key, n, decoded) = (UnsafePointer(dst), count, true)
        }
        var e = specialEdge(k)
        while true {
            if e.pointee.namesPort, let v = ParamRule.value(in: key, n, edge: e, fold: true) {
                guard decoded else { return SpecialHit(child: e.pointee.child, next: e.pointee.next, start: start &+ v.start, end: start &+ v.end) }
                return SpecialHit(child: e.pointee.child, next: e.pointee.next, start: rawOffset(start, decodedCount: v.start),
                                  end: rawOffset(start, decodedCount: n &- v.end, fromEnd: end))
            }
            let next = e.pointee.next
            if next < 0 { return nil }
            e = specialEdge(next)
        }
    }

    /// `start ..< end` of the URL, percent-decoded into scratch when it has a `%` that decodes cleanly.
    @inline(__always)
    func decodedSpan(_ start: Int, _ end: Int, _ scratch: inout ByteWriter) -> ByteSpan {
        decodedOrRaw(ByteSpan(start: p + start, count: end &- start), &scratch)
    }

    /// `pathIsCanonical` from the slash bits, when `segmentsByBits` (so no "%"): no "//", no trailing "/".
    @inline(__always)
    var canonicalByBits: Bool {
        let length = pathEnd &- pathStart
        return slashes & (slashes &>> 1) == 0 && (length == 0 || slashes &>> UInt64(truncatingIfNeeded: length &- 1) & 1 == 0)
    }

    /// The route of a canonically written URL from the static table, or -1. The length filter is checked
    /// inline (most URLs stop there on small tables); the rest is a call.
    @inline(__always)
    func staticRoute(_ schemeNode: Int32) -> Int32 {
        let length = pathEnd &- hostStart
        guard staticEligible, staticLengths & (1 &<< UInt64(length & 63)) != 0 else { return -1 }
        return staticProbe(schemeNode, length)
    }

    /// `staticRoute` past its length filter, for the `length` (≥ 1: a host) bytes from `hostStart`: the tail
    /// filter (`TableStore.staticFilter`), then the canonical check and the probe.
    @inline(never)
    func staticProbe(_ schemeNode: Int32, _ length: Int) -> Int32 {
        // The key's last ≤ 8 bytes (`tailWord`), with one load ending at the path's end when the URL is that long.
        let tail = pathEnd >= 8
            ? UnsafeRawPointer(p + (pathEnd &- 8)).loadUnaligned(as: UInt64.self) &>> UInt64(truncatingIfNeeded: (8 &- min(length, 8)) &* 8)
            : loadWord(p + hostStart, length)
        let bit = staticFilterBit(tail, length, bits: staticBits &+ 3)
        let word = table.staticFilter.address(bit &>> 6, shift: TableStore.filterChunkShift).pointee
        guard word & (1 &<< UInt64(truncatingIfNeeded: bit & 63)) != 0,
              segmentsByBits ? canonicalByBits : pathIsCanonical(p, from: pathStart, to: pathEnd) else { return -1 }
        let d = digest(p + hostStart, length, fold: false, before: hostStart, after: urlCount &- hostStart)
        let tag = edgeTag(schemeNode, d.hash)
        let mask = (1 << staticBits) &- 1
        var i = slotIndex(tag, staticBits)
        while true {
            let s = staticAt(i)
            guard let key = s.key else { return -1 }
            if s.tag == tag && Int(s.length) == length && bytesEqual(p + hostStart, key, length) { return s.route }
            i = (i &+ 1) & mask
        }
    }

    // MARK: Typed and in-segment parameters

    /// The first special edge, from edge `k` (≥ 0) on, whose rule accepts the element written at `start ..< end`
    /// (decoded), with where its value is written in the URL; nil when none does. The common case is checked
    /// here, inline: an element without escapes against a first edge of an unaffixed `<int>` or `<uint>`. The
    /// rest (other types, affixes, long numbers, the edges after a refusal; escapes) is out of line.
    @inline(__always)
    func special(from k: Int32, _ start: Int, _ end: Int, hasPercent: Bool, fold: Bool,
                 _ scratch: inout ByteWriter) -> SpecialHit? {
        if hasPercent { return specialDecoded(from: k, start, end, fold: fold, &scratch) }
        var edge = specialEdge(k)
        let lane = edge.pointee.lane
        if lane != .general {
            switch ParamRule.fitsLane(p + start, end &- start, signed: lane == .int) {
            case .yes: return SpecialHit(child: edge.pointee.child, next: edge.pointee.next, start: start, end: end)
            case .no:
                let next = edge.pointee.next
                if next < 0 { return nil }
                edge = specialEdge(next)
            case .unknown: break
            }
        }
        let found = firstAccepting(from: edge, UnsafePointer(p + start), end &- start, fold: fold)
        guard let e = found.edge else { return nil }
        return SpecialHit(child: e.pointee.child, next: e.pointee.next, start: start &+ found.start, end: start &+ found.end)
    }

    /// The first special edge, from `edge` on, whose rule accepts the `n` bytes at `key` (nil when none does),
    /// with the offsets of its value in them. Out of line, so that the walk's own code stays small.
    @inline(never)
    private func firstAccepting(from edge: UnsafePointer<SpecialEdge>, _ key: UnsafePointer<UInt8>, _ n: Int, fold: Bool)
        -> (edge: UnsafePointer<SpecialEdge>?, start: Int, end: Int) {
        var e = edge
        while true {
            if let v = ParamRule.value(in: key, n, edge: e, fold: fold) { return (e, v.start, v.end) }
            let k = e.pointee.next
            if k < 0 { return (nil, 0, 0) }
            e = specialEdge(k)
        }
    }

    @inline(never)
    private func specialDecoded(from k: Int32, _ start: Int, _ end: Int, fold: Bool,
                                _ scratch: inout ByteWriter) -> SpecialHit? {
        let raw = UnsafePointer(p + start), rawCount = end &- start
        // Decoded into scratch without committing: the bytes are only looked at here. An element that does not
        // decode cleanly is checked as written.
        guard let dst = scratch.reserve(rawCount), let n = percentDecode(ByteSpan(start: raw, count: rawCount), into: dst) else {
            return special(from: k, start, end, hasPercent: false, fold: fold, &scratch)
        }
        let found = firstAccepting(from: specialEdge(k), UnsafePointer(dst), n, fold: fold)
        guard let e = found.edge else { return nil }
        return SpecialHit(child: e.pointee.child, next: e.pointee.next, start: rawOffset(start, decodedCount: found.start),
                          end: rawOffset(start, decodedCount: n &- found.end, fromEnd: end))
    }

    /// Where the element that starts at `start` (and decodes cleanly) is after `count` decoded bytes, or, with
    /// `fromEnd`, before its last `count` decoded bytes: an escape `%XX` is one decoded byte.
    private func rawOffset(_ start: Int, decodedCount count: Int, fromEnd: Int? = nil) -> Int {
        if let end = fromEnd {
            var i = end, left = count
            while left > 0 {
                i = i &- 3 >= start && p[i &- 3] == ASCII.percent ? i &- 3 : i &- 1
                left &-= 1
            }
            return i
        }
        var i = start, left = count
        while left > 0 {
            i &+= p[i] == ASCII.percent ? 3 : 1
            left &-= 1
        }
        return i
    }

    // MARK: The search

    func run(_ w: inout WalkState, scratch: inout ByteWriter, values: UnsafeMutablePointer<ByteSpan>) -> RouteBlob? {
        // Level 0: the scheme, then `*://`.
        var route: Int32 = -1
        let root = nodeAt(0)
        if root.hasLiterals {
            var c: Int32
            if table.schemes.complete && schemeEnd <= 8 {
                // The URL's scheme (1 ... 8 bytes: parsed with requireScheme) has no 0 byte (URLParts.scan).
                c = table.schemes.child(lowercasedWord(loadHead(p, schemeEnd, before: 0, after: urlCount)))
            } else {
                c = child(0, p, schemeEnd, digest(p, schemeEnd, fold: true, before: 0, after: urlCount), fold: true)
            }
            if c >= 0 {
                route = staticRoute(c)
                // The host from the scheme's host index here, in the caller: in `greedy` it made the path's step a call.
                if route < 0 { route = greedy(c, indexed: hostFirst ? indexedHost(c) : -2, &w, &scratch) }
                if route < 0 { route = descend(c, &w, &scratch) }
            }
        }
        if route < 0 && root.paramChild >= 0 {
            route = greedy(root.paramChild, indexed: -2, &w, &scratch)
            if route < 0 { route = descend(root.paramChild, &w, &scratch) }
        }
        guard route >= 0, let base = routeAt(route).blob else { return nil }
        let blob = RouteBlob(base: base)
        if w.capturesMayHavePercent {
            for k in 0..<w.captureCount {
                values[k] = decodedSpan(Int(captures[k].start), Int(captures[k].end), &scratch)
            }
        } else {
            for k in 0..<w.captureCount {
                values[k] = ByteSpan(start: p + Int(captures[k].start), count: Int(captures[k].end &- captures[k].start))
            }
        }
        if blob.isCatchAll {
            values[w.captureCount] = rest(w, &scratch)
        }
        return blob
    }

    /// Takes `c` as the next captured value; `percent`: the element holds a `%` (values are decoded only then).
    @inline(__always)
    func capture(_ c: Capture, percent: Bool, _ w: inout WalkState) {
        captures[w.captureCount] = c
        w.captureCount &+= 1
        w.capturesMayHavePercent = w.capturesMayHavePercent || percent
    }

    /// The first choice at every level: literal, else `:param`, else `*`. A route reached this way is the
    /// answer of the full search; -1 means "search", with the captures cleared.
    /// The host's level is taken before the loop, so that the loop's steps are specialized for path segments
    /// (no case folding, no port). `indexed`: the host's child from `indexedHost` (-2: not looked up there).
    @inline(__always)
    func greedy(_ start: Int32, indexed: Int32, _ w: inout WalkState, _ scratch: inout ByteWriter) -> Int32 {
        var node = start
        var route: Int32 = -1
        if hostFirst { node = indexed >= 0 ? indexed : hostStep(node, literals: indexed != -1, &w, &scratch, &route) }
        var next = pathStart  // where the next path segment is looked for
        while node >= 0 {
            let (k, e, percent) = nextSegment(from: next)
            if k >= pathEnd {  // the sequence ends here
                let n = nodeAt(node)
                if n.route >= 0 { return n.route }
                if n.catchAllRoute >= 0 {
                    w.catchAllStart = -1
                    return n.catchAllRoute
                }
                break
            }
            next = e
            node = greedyStep(node, k, e, percent: percent, host: false, &w, &scratch, &route)
        }
        if route >= 0 { return route }
        w.captureCount = 0
        return -1
    }

    /// The literal child of scheme node `node` for the URL's host from the scheme's host index: ≥ 0 the child,
    /// -1 none (the index is complete), -2 the index cannot tell (none, incomplete, or a port or an escape).
    @inline(__always)
    func indexedHost(_ node: Int32) -> Int32 {
        guard !hostHasPercent && !hasPort && table.schemes.indexesHosts(node) else { return -2 }
        let n = hostEnd &- hostStart
        let key = n <= 7 ? HostIndex.key(lowercasedWord(loadHead(p + hostStart, n, before: hostStart, after: urlCount &- hostStart)), n) : 0
        return table.schemes.hostChild(node, key) ?? -2
    }

    /// The greedy descent's step for the host when the host index did not find it, out of line: with both steps
    /// inline, the inliner's size limits left the path's step a call (once per segment; this is once per lookup
    /// at most). `literals` false: the index said that no literal child matches.
    @inline(never)
    func hostStep(_ node: Int32, literals: Bool, _ w: inout WalkState, _ scratch: inout ByteWriter, _ route: inout Int32) -> Int32 {
        greedyStep(node, hostStart, hostEnd, percent: hostHasPercent, host: true, literals: literals, &w, &scratch, &route)
    }

    /// One level of the greedy descent, for the element written at `s ..< e`: the child it leads to, or -1 with
    /// `route` set when a catch-all takes the rest, or left at -1 when the descent dead-ends.
    @inline(__always)
    func greedyStep(_ node: Int32, _ s: Int, _ e: Int, percent: Bool, host: Bool, literals: Bool = true,
                    _ w: inout WalkState, _ scratch: inout ByteWriter, _ route: inout Int32) -> Int32 {
        let n = nodeAt(node)
        if host && hasPort {  // `host:port` first: the literal, then a rule that names a port
            if literals && n.hasLiterals {
                let c = hostWithPortChild(node, &w, &scratch)
                if c >= 0 { return c }
            }
            if n.paramChild < -1, let found = portSpecial(from: n.specialHead, &scratch) {
                capture(Capture(start: Int32(truncatingIfNeeded: found.start), end: Int32(truncatingIfNeeded: found.end)), percent: percent, &w)
                return found.child
            }
        }
        if literals && n.hasLiterals {  // `literals` false: the caller knows that no literal child matches
            var c: Int32
            if percent {
                c = decodedLiteralChild(node, s, e, fold: host, &scratch)
            } else {
                // The key's head here (lower-cased for a host); the lookup is the direct match's too.
                let length = e &- s
                var head = loadHead(p + s, length, before: s, after: urlCount &- s)
                if host { head = lowercasedWord(head) }
                c = table.literalChild(node, n, p + s, length, head: head, fold: host)
            }
            if c >= 0 { return c }
        }
        if n.paramChild >= 0 {
            capture(Capture(start: Int32(truncatingIfNeeded: s), end: Int32(truncatingIfNeeded: e)), percent: percent, &w)
            return n.paramChild
        }
        if n.paramChild < -1 {  // typed or in-segment parameters: the first that accepts the element
            if let found = special(from: n.specialHead, s, e, hasPercent: percent, fold: host, &scratch) {
                capture(Capture(start: Int32(truncatingIfNeeded: found.start), end: Int32(truncatingIfNeeded: found.end)), percent: percent, &w)
                return found.child
            }
        }
        if n.catchAllRoute >= 0 {
            w.catchAllStart = s
            w.catchAllFromHost = host
            route = n.catchAllRoute
        }
        return -1
    }

    /// Whether the full search's element `i` exists (finding the elements before it first).
    @inline(__always)
    func has(_ i: Int, _ w: inout WalkState) -> Bool {
        if w.found == 0 && hostFirst {
            elements[0] = SequenceElement(rawStart: Int32(truncatingIfNeeded: hostStart), rawEnd: Int32(truncatingIfNeeded: hostEnd),
                                          key: nil, keyLength: 0, digested: false, hasPercent: hostHasPercent, hash: 0, head: 0)
            w.found = 1
        }
        while w.found <= i {
            let (start, end, percent) = nextSegment(from: w.scanAt)
            guard start < pathEnd else {
                w.scanAt = start
                return false
            }
            elements[w.found] = SequenceElement(rawStart: Int32(truncatingIfNeeded: start), rawEnd: Int32(truncatingIfNeeded: end),
                                              key: nil, keyLength: 0, digested: false, hasPercent: percent, hash: 0, head: 0)
            w.found &+= 1
            w.scanAt = end
        }
        return true
    }

    /// The full search's literal lookup for element `i`, decoding and hashing it once.
    func literalChild(_ node: Int32, element i: Int, _ scratch: inout ByteWriter) -> Int32 {
        let fold = i == 0 && hostFirst
        if !elements[i].digested {
            let start = Int(elements[i].rawStart), end = Int(elements[i].rawEnd)
            let key = elements[i].hasPercent ? decodedSpan(start, end, &scratch) : ByteSpan(start: p + start, count: end &- start)
            let d = key.start == p + start ? digest(key.start, key.count, fold: fold, before: start, after: urlCount &- start)
                : digest(key.start, key.count, fold: fold)
            elements[i].key = key.start
            elements[i].keyLength = Int32(truncatingIfNeeded: key.count)
            elements[i].hash = d.hash
            elements[i].head = d.head
            elements[i].digested = true
        }
        return child(node, elements[i].key, Int(elements[i].keyLength),
                     KeyDigest(hash: elements[i].hash, head: elements[i].head), fold: fold)
    }

    /// Depth-first search in precedence order, with backtracking; the first route found is the best one.
    ///
    /// A loop over an explicit stack, `frames[i]` for the node that looks at element `i`, rather than one call per
    /// element: a URL may have 2^20 segments (the largest maxSegments) and the calling thread a 512 KiB stack.
    /// Each frame tries, in order, the `host:port` literal (element 0 only), the literal, `:param` (which it takes
    /// back when that branch dead-ends) or each accepting special edge in its list's order, then the catch-all.
    func descend(_ start: Int32, _ w: inout WalkState, _ scratch: inout ByteWriter) -> Int32 {
        var i = 0
        frames[0] = SearchFrame(node: start, step: .enter, special: -1)
        while true {
            let node = frames[i].node
            let n = nodeAt(node)
            var child: Int32 = -1
            switch frames[i].step {
            case .enter:
                guard has(i, &w) else {  // the sequence ends at this node
                    if n.route >= 0 { return n.route }
                    if n.catchAllRoute >= 0 {
                        w.catchAllStart = -1
                        return n.catchAllRoute
                    }
                    frames[i].step = .exhausted
                    continue
                }
                frames[i].step = .hostPort
                frames[i].special = n.specialHead
                continue
            case .hostPort:
                frames[i].step = .portRule
                if i == 0 && n.hasLiterals { child = hostWithPortChild(node, &w, &scratch) }
            case .portRule:  // element 0 of a URL with a port: the next rule naming a port that takes host:port
                frames[i].step = .literal
                if i == 0 && hasPort && frames[i].special >= 0, let found = portSpecial(from: frames[i].special, &scratch) {
                    capture(Capture(start: Int32(truncatingIfNeeded: found.start), end: Int32(truncatingIfNeeded: found.end)),
                            percent: elements[i].hasPercent, &w)
                    frames[i].special = found.next
                    frames[i].step = .portRuleDone
                    child = found.child
                } else {
                    frames[i].special = n.specialHead  // the host alone: the whole list again
                }
            case .portRuleDone:  // that branch dead-ended: give its capture back, try the next rule naming a port
                w.captureCount &-= 1
                frames[i].step = .portRule
                continue
            case .literal:
                frames[i].step = .param
                if n.hasLiterals { child = literalChild(node, element: i, &scratch) }
            case .param:
                frames[i].step = .catchAll
                if n.paramChild >= 0 {
                    capture(Capture(start: elements[i].rawStart, end: elements[i].rawEnd), percent: elements[i].hasPercent, &w)
                    frames[i].step = .paramDone
                    child = n.paramChild
                } else if frames[i].special >= 0 {  // the next special edge that accepts the element
                    if let found = special(from: frames[i].special, Int(elements[i].rawStart), Int(elements[i].rawEnd),
                                           hasPercent: elements[i].hasPercent, fold: i == 0 && hostFirst, &scratch) {
                        capture(Capture(start: Int32(truncatingIfNeeded: found.start), end: Int32(truncatingIfNeeded: found.end)),
                                percent: elements[i].hasPercent, &w)
                        frames[i].special = found.next
                        frames[i].step = .specialDone
                        child = found.child
                    }
                }
            case .specialDone:  // that special branch dead-ended: give its capture back, try the next edge
                w.captureCount &-= 1
                frames[i].step = frames[i].special >= 0 ? .param : .catchAll
                continue
            case .paramDone:  // the :param branch dead-ended: give its capture back
                w.captureCount &-= 1
                frames[i].step = .catchAll
                continue
            case .catchAll:
                if n.catchAllRoute >= 0 {
                    w.catchAllStart = Int(elements[i].rawStart)
                    w.catchAllFromHost = i == 0 && hostFirst
                    return n.catchAllRoute
                }
                frames[i].step = .exhausted
                continue
            case .exhausted:  // back to the parent, which tries its next choice
                if i == 0 { return -1 }
                i &-= 1
                continue
            }
            if child >= 0 {
                i &+= 1
                frames[i] = SearchFrame(node: child, step: .enter, special: -1)
            }
        }
    }

    /// The catch-all's value: the elements from `catchAllStart` on, as written, joined with "/" (empty ones
    /// dropped).
    func rest(_ w: WalkState, _ scratch: inout ByteWriter) -> ByteSpan {
        guard w.catchAllStart >= 0 else { return .empty }
        let start = w.catchAllStart, end = pathEnd
        let fromHost = w.catchAllFromHost
        if !fromHost {
            // Usually a plain substring of the path: no "//" inside and no trailing "/".
            var clean = p[end &- 1] != ASCII.slash
            var k = start
            while clean && k &+ 1 < end {
                if p[k] == ASCII.slash && p[k &+ 1] == ASCII.slash { clean = false }
                k &+= 1
            }
            if clean { return ByteSpan(start: p + start, count: end &- start) }
        }
        let mark = scratch.count
        var first = true
        if fromHost {
            scratch.append(ByteSpan(start: p + hostStart, count: hostEnd &- hostStart))
            first = false
        }
        var i = fromHost ? pathStart : start
        while i < end {
            while i < end && p[i] == ASCII.slash { i &+= 1 }
            let s = i
            while i < end && p[i] != ASCII.slash { i &+= 1 }
            if i > s {
                if !first { scratch.append(ASCII.slash) }
                scratch.append(ByteSpan(start: p + s, count: i &- s))
                first = false
            }
        }
        return scratch.span(from: mark)
    }
}

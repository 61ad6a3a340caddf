/// The direct match: the commonest lookup, its URL read once as the trie is walked.
///
/// A URL written `scheme://host/path`, and nothing else: a scheme of one to seven lower-case letters, a plain
/// host (what `hostBytesToSee` passes: no upper case, "%", port, user or "["), a path of plain bytes (what
/// `rarePathBytes` passes: no "%", "?", "#", control, space or non-ASCII byte). (A URL with a query is matched
/// as the path before its "?", which the first try reports: `RouterState.quickMatch`.) Each segment is found where the
/// walk needs it and taken as the greedy descent takes it (`TrieWalk.greedy`): the literal child, else the
/// `:param` child, else a typed parameter whose check is inline (`<int>`, `<uint>`). A route reached so, at the
/// URL's end, is the pipeline's answer: `URLParts.scan` finds these very parts, the static table holds only
/// routes this descent reaches, and the full search explores this path first.
///
/// Whatever else (another shape of URL, a rare byte, a scheme or host index that cannot tell, a dead end, a
/// catch-all taking segments, a check out of line) returns nil before anything is written, and the caller scans
/// the URL and walks as usual: one pipeline decides; this answers only where it gives the same answer, faster
/// (no `URLParts` pass, no walk set-up, no static probe, no slash bits).
extension RouteTable {
    /// The route for the `n` bytes at `p` (see above) with the values of its parameters in `values` (room for
    /// `maxParams + 1`), and `parts` (as `URLParts()` on entry) set as `URLParts.scan` sets them; nil when the
    /// direct match cannot tell, with nothing written.
    @inline(__always)
    package func directMatch(_ p: UnsafePointer<UInt8>, _ n: Int, _ parts: inout URLParts,
                             values: UnsafeMutablePointer<ByteSpan>, question: inout Int) -> RouteBlob? {
        // scheme ":" "//": the scheme by one mask on the first word, as `URLParts.scan` reads it.
        guard n >= 8, schemes.complete else { return nil }
        let head = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
        let schemeEnd = lowerSchemeLength(head)  // 1 ... 7, or 0
        let hostStart = schemeEnd &+ 3
        guard schemeEnd > 0, hostStart < n,
              UnsafeRawPointer(p + (schemeEnd &+ 1)).loadUnaligned(as: UInt16.self) == 0x2F2F else { return nil }
        let scheme = schemes.child(head & ((1 &<< UInt64(truncatingIfNeeded: schemeEnd &* 8)) &- 1))
        guard scheme >= 0 else { return nil }

        // The host, to "/" or the end: all plain bytes.
        let hostEnd = plainHostEnd(p, from: hostStart, n)
        let hostCount = hostEnd &- hostStart
        guard hostCount > 0, hostEnd == n || p[hostEnd] == ASCII.slash else { return nil }
        let hostHead = loadHead(p + hostStart, hostCount, before: hostStart, after: n &- hostStart)

        // The host's step: from the scheme's host index, else the literal child (a plain host is its own lower
        // case), else the `:param` child.
        var node: Int32 = -2
        var captureCount = 0
        if schemes.indexesHosts(scheme) {
            let key = hostCount <= 7 ? HostIndex.key(hostHead, hostCount) : 0
            node = schemes.hostChild(scheme, key) ?? -2
        }
        if node < 0 {
            let s = nodes.address(Int(scheme), shift: TrieNode.chunkShift).pointee
            var child: Int32 = -1
            if node == -2 && s.hasLiterals {  // -1: the index says that no literal child matches
                child = literalChild(scheme, s, p + hostStart, hostCount, head: hostHead, fold: true)
            }
            if child >= 0 {
                node = child
            } else if s.paramChild >= 0 {
                values[0] = ByteSpan(start: p + hostStart, count: hostCount)
                captureCount = 1
                node = s.paramChild
            } else {
                return nil
            }
        }

        // The path's segments, each found (and its bytes checked) as the walk reaches it.
        var route: Int32 = -1
        var i = hostEnd  // at the "/" that ends the host or the segment before, or at the end
        while true {
            var s = i &+ 1
            if s < n && p[s] == ASCII.slash { s = RouteTable.pastSlashes(p, s, n) }  // empty segments are skipped
            let t = nodes.address(Int(node), shift: TrieNode.chunkShift).pointee
            if s >= n {  // the sequence ends at this node
                if t.route >= 0 {
                    route = t.route
                } else if t.catchAllRoute >= 0 {  // a catch-all that takes no segment: its value is empty
                    route = t.catchAllRoute
                    values[captureCount] = .empty
                } else {
                    return nil
                }
                break
            }
            var e = s
            while true {  // to the next "/" or the end; the words read are checked for rare bytes
                let w = pathWord(p, e, n)
                let rare = rarePathBytes(w)
                guard rare == 0 else {
                    // A "?" before any other rare byte: where the path would end, for the caller's second try.
                    let mark = matchMask(w, ASCII.question)
                    if mark != 0 && rare & (0 &- rare) == mark & (0 &- mark) { question = e &+ (mark.trailingZeroBitCount &>> 3) }
                    return nil
                }
                let slash = matchMask(w, ASCII.slash)
                if slash != 0 {
                    e &+= slash.trailingZeroBitCount &>> 3
                    break
                }
                e &+= 8
                if e >= n {
                    e = n
                    break
                }
            }
            let length = e &- s
            var child: Int32 = -1
            if t.hasLiterals {
                child = literalChild(node, t, p + s, length, head: loadHead(p + s, length, before: s, after: n &- s), fold: false)
            }
            if child < 0 {
                if t.paramChild >= 0 {
                    child = t.paramChild
                } else if t.paramChild < -1 {  // typed parameters: only an inline check that accepts is taken
                    let edge = specials.address(Int(t.specialHead), shift: SpecialEdge.chunkShift)
                    let lane = edge.pointee.lane
                    guard lane != .general, ParamRule.fitsLane(p + s, length, signed: lane == .int) == .yes else { return nil }
                    child = edge.pointee.child
                } else {
                    return nil  // a catch-all takes the rest, or a dead end: the full walk
                }
                values[captureCount] = ByteSpan(start: p + s, count: length)
                captureCount &+= 1
            }
            node = child
            i = e
        }
        guard let base = routes.address(Int(route), shift: RouteSlot.chunkShift).pointee.blob else { return nil }
        parts.setPlain(schemeEnd: schemeEnd, host: hostStart, hostEnd, pathEnd: n)
        return RouteBlob(base: base)
    }

    /// Whether `p[from ..< to]` is a query the direct match takes: ASCII, and no "#" (a fragment is the scan's).
    @inline(never)  // URLs with a query are the fewer
    static func isPlainQuery(_ p: UnsafePointer<UInt8>, from: Int, to: Int) -> Bool {
        var i = from
        while i < to {
            let w = wordAt(p, i, to)
            if w & 0x8080_8080_8080_8080 != 0 || matchMask(w, ASCII.hash) != 0 { return false }
            i &+= 8
        }
        return true
    }

    /// The first byte at or after `s` that is not "/" (or `n`): out of line, as "//" in a path is rare (a loop
    /// here made the compiler keep several running copies of the index for the code after it).
    @inline(never)
    static func pastSlashes(_ p: UnsafePointer<UInt8>, _ s: Int, _ n: Int) -> Int {
        var s = s
        while s < n && p[s] == ASCII.slash { s &+= 1 }
        return s
    }

    /// The literal child of `node` (whose record is `t`) for the `length` bytes at `key`, with no "%" (`head`: as
    /// `KeyDigest.head`, lower-cased with `fold`); -1 when none. `fold`: the key is a host, compared
    /// case-insensitively. The direct match's and `TrieWalk.greedyStep`'s step.
    @inline(__always)
    func literalChild(_ node: Int32, _ t: TrieNode, _ key: UnsafePointer<UInt8>, _ length: Int, head: UInt64,
                      fold: Bool) -> Int32 {
        if t.literals >= 0 { return onlyChild(at: t.literals, key, length, head: head, fold: fold) }
        let tag = edgeTag(node, keyHash(key, length, head: head, fold: fold))
        return probe(from: slotIndex(tag, edgeBits), tag, key, length, head: head, fold: fold)
    }

    /// The literal child of a node whose one literal child's edge is at slot `i`, for the key (`head`: as
    /// `KeyDigest.head`): that edge alone is compared, without a hash. No other edge has that parent, so a miss
    /// is final. (Most trie levels have a single literal child.)
    @inline(__always)
    func onlyChild(at i: Int32, _ key: UnsafePointer<UInt8>, _ length: Int, head: UInt64, fold: Bool) -> Int32 {
        let e = edges.address(Int(i), shift: Edge.chunkShift).pointee
        return Int(e.keyLength) == length && e.head == head && tailsEqual(key, e.key, length, fold: fold) ? e.child : -1
    }

    /// The child of the edge with `tag` and the key (`head`: as `KeyDigest.head`), probing from slot `i`; -1 at
    /// an empty slot.
    @inline(__always)
    func probe(from i: Int, _ tag: UInt64, _ key: UnsafePointer<UInt8>?, _ length: Int, head: UInt64, fold: Bool) -> Int32 {
        var i = i
        while true {
            let e = edges.address(i, shift: Edge.chunkShift).pointee
            if e.tag == tag && Int(e.keyLength) == length && e.head == head && tailsEqual(key, e.key, length, fold: fold) {
                return e.child
            }
            if e.key == nil { return -1 }
            i = (i &+ 1) & edgeMask
        }
    }
}

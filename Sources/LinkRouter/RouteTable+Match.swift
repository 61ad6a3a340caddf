/// Lookup: turn a URL into its match sequence and walk the trie, literal before `:param` before `*`,
/// backtracking when a branch dead-ends.

/// One element of a URL's match sequence (its host, or a path segment), decoded for comparison.
struct SequenceElement: BitwiseCopyable {
    var key: UnsafePointer<UInt8>?  // decoded bytes: in the URL when nothing needed decoding, else in scratch
    var keyLength: Int
    var hash: UInt32
    var rawStart: Int32  // where the element is written in the URL (for the catch-all)
    var rawEnd: Int32
}

extension RouteTable {
    /// Matches `url` (already rewritten, parsed into `parts`) and returns the route, writing the values of its
    /// parameters (path order, catch-all last) to `values`, which has room for `maxParams`.
    /// Decoded bytes go to `scratch`; 3 × the URL's length always suffices.
    @inline(__always)
    package func match(_ url: ByteSpan, _ parts: URLParts, scratch: inout ByteWriter,
                       values: UnsafeMutablePointer<ByteSpan>) -> RouteBlob? {
        let capacity = maxDepth &+ 1
        return withUnsafeTemporaryAllocation(of: SequenceElement.self, capacity: capacity) { elements in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: capacity) { captures in
                guard let e = elements.baseAddress, let c = captures.baseAddress else { return nil }
                var walk = TrieWalk(table: self, elements: e, captures: c)
                return walk.run(url, parts, capacity: capacity, scratch: &scratch, values: values)
            }
        }
    }
}

/// The state of one lookup. Lives on the stack; reads the snapshot through raw chunk pointers.
struct TrieWalk {
    let nodes: ChunkReader<TrieNode>
    let edges: ChunkReader<Edge>
    let routes: ChunkReader<RouteSlot>
    let edgeBits: Int
    let edgeMask: Int
    let elements: UnsafeMutablePointer<SequenceElement>
    let captures: UnsafeMutablePointer<Int32>
    var count = 0
    var captureCount = 0
    var catchAllStart = 0
    /// Element 0 is the URL's host (compared case-insensitively); else the first path segment.
    var hostFirst = false
    /// "host:port", tried before the bare host for patterns that name a port.
    var hostWithPort = SequenceElement(key: nil, keyLength: 0, hash: 0, rawStart: 0, rawEnd: 0)
    var hasHostWithPort = false

    init(table: RouteTable, elements: UnsafeMutablePointer<SequenceElement>, captures: UnsafeMutablePointer<Int32>) {
        nodes = table.nodes
        edges = table.edges
        routes = table.routes
        edgeBits = table.edgeBits
        edgeMask = (1 << table.edgeBits) &- 1
        self.elements = elements
        self.captures = captures
    }

    @inline(__always)
    func child(_ parent: Int32, _ key: UnsafePointer<UInt8>?, _ length: Int, _ hash: UInt32, folding: Bool) -> Int32 {
        var i = edgeIndex(hash, parent, edgeBits)
        while true {
            let e = edges[i]
            guard let stored = e.key else { return -1 }
            if e.hash == hash && e.parent == parent && Int(e.keyLength) == length
                && (folding ? equalsLowercased(key, stored, length) : bytesEqual(key, stored, length)) {
                return e.child
            }
            i = (i &+ 1) & edgeMask
        }
    }

    /// A decoded element over `raw` (URL offsets `start..<end`); percent-decoded into `scratch` when needed.
    @inline(__always)
    func element(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, folding: Bool,
                 _ scratch: inout ByteWriter) -> SequenceElement {
        var key = p + start
        var length = end &- start
        if contains(key, length, ASCII.percent), let dst = scratch.reserve(length) {
            if let n = percentDecode(ByteSpan(start: key, count: length), into: dst) {
                scratch.commit(n)
                key = UnsafePointer(dst)
                length = n
            }
        }
        return SequenceElement(key: key, keyLength: length, hash: hashBytes(key, length, lowercase: folding),
                               rawStart: Int32(truncatingIfNeeded: start), rawEnd: Int32(truncatingIfNeeded: end))
    }

    mutating func run(_ url: ByteSpan, _ parts: URLParts, capacity: Int, scratch: inout ByteWriter,
                      values: UnsafeMutablePointer<ByteSpan>) -> RouteBlob? {
        guard let p = url.start else { return nil }

        // The sequence: host (when non-empty), then non-empty path segments, at most `capacity` of them
        // (one more than the deepest pattern, enough to know that a URL is longer than every pattern).
        if parts.hasAuthority && parts.hostCount > 0 {
            elements[0] = element(p, parts.hostStart, parts.hostEnd, folding: true, &scratch)
            hostFirst = true
            count = 1
            if parts.hasPort {
                hasHostWithPort = true
                if elements[0].key == p + parts.hostStart {
                    hostWithPort = element(p, parts.hostStart, parts.portEnd, folding: true, &scratch)
                } else {  // decoded host: write "host:port" to scratch
                    let mark = scratch.count
                    scratch.append(ByteSpan(start: elements[0].key, count: elements[0].keyLength))
                    scratch.append(ASCII.colon)
                    scratch.append(parts.port(in: url))
                    let s = scratch.span(from: mark)
                    hostWithPort = SequenceElement(key: s.start, keyLength: s.count,
                                                   hash: hashBytes(s.start, s.count, lowercase: true),
                                                   rawStart: Int32(truncatingIfNeeded: parts.hostStart),
                                                   rawEnd: Int32(truncatingIfNeeded: parts.hostEnd))
                }
            }
        }
        var i = parts.pathStart
        let end = parts.pathEnd
        while i < end && count < capacity {
            while i < end && p[i] == ASCII.slash { i &+= 1 }
            let start = i
            while i < end && p[i] != ASCII.slash { i &+= 1 }
            if i > start {
                elements[count] = element(p, start, i, folding: false, &scratch)
                count &+= 1
            }
        }

        // Level 0: the scheme, then `*://`.
        let scheme = parts.scheme(in: url)
        var route: Int32 = -1
        let root = nodes[0]
        if root.literalCount > 0 {
            let c = child(0, scheme.start, scheme.count, hashBytes(scheme.start, scheme.count, lowercase: true),
                          folding: true)
            if c >= 0 { route = descend(c, 0) }
        }
        if route < 0 && root.paramChild >= 0 { route = descend(root.paramChild, 0) }
        guard route >= 0, let base = routes[Int(route)].blob else { return nil }
        let blob = RouteBlob(base: base)

        for k in 0..<captureCount {
            let e = elements[Int(captures[k])]
            values[k] = ByteSpan(start: e.key, count: e.keyLength)
        }
        if blob.isCatchAll {
            values[captureCount] = rest(from: catchAllStart, url, parts, &scratch)
        }
        return blob
    }

    /// Depth-first search in precedence order; the first route found is the best one.
    mutating func descend(_ node: Int32, _ i: Int) -> Int32 {
        let n = nodes[Int(node)]
        if i == count {
            if n.route >= 0 { return n.route }
            if n.catchAllRoute >= 0 {
                catchAllStart = i
                return n.catchAllRoute
            }
            return -1
        }
        if n.literalCount > 0 {
            if i == 0 && hasHostWithPort {
                let c = child(node, hostWithPort.key, hostWithPort.keyLength, hostWithPort.hash, folding: true)
                if c >= 0 {
                    let r = descend(c, 1)
                    if r >= 0 { return r }
                }
            }
            let e = elements[i]
            let c = child(node, e.key, e.keyLength, e.hash, folding: i == 0 && hostFirst)
            if c >= 0 {
                let r = descend(c, i &+ 1)
                if r >= 0 { return r }
            }
        }
        if n.paramChild >= 0 {
            captures[captureCount] = Int32(truncatingIfNeeded: i)
            captureCount &+= 1
            let r = descend(n.paramChild, i &+ 1)
            if r >= 0 { return r }
            captureCount &-= 1
        }
        if n.catchAllRoute >= 0 {
            catchAllStart = i
            return n.catchAllRoute
        }
        return -1
    }

    /// The catch-all's value: the elements from `first` on, as written, joined with "/" (empty ones dropped).
    func rest(from first: Int, _ url: ByteSpan, _ parts: URLParts, _ scratch: inout ByteWriter) -> ByteSpan {
        guard first < count, let p = url.start else { return .empty }
        let start = Int(elements[first].rawStart)
        let fromHost = first == 0 && hostFirst
        if !fromHost {
            // Usually a plain substring of the path: no "//" inside and no trailing "/".
            var clean = p[parts.pathEnd &- 1] != ASCII.slash
            var k = start
            while clean && k &+ 1 < parts.pathEnd {
                if p[k] == ASCII.slash && p[k &+ 1] == ASCII.slash { clean = false }
                k &+= 1
            }
            if clean { return ByteSpan(start: p + start, count: parts.pathEnd &- start) }
        }
        let mark = scratch.count
        var first = true
        if fromHost {
            scratch.append(parts.host(in: url))
            first = false
        }
        var i = fromHost ? parts.pathStart : start
        while i < parts.pathEnd {
            while i < parts.pathEnd && p[i] == ASCII.slash { i &+= 1 }
            let s = i
            while i < parts.pathEnd && p[i] != ASCII.slash { i &+= 1 }
            if i > s {
                if !first { scratch.append(ASCII.slash) }
                scratch.append(ByteSpan(start: p + s, count: i &- s))
                first = false
            }
        }
        return scratch.span(from: mark)
    }
}

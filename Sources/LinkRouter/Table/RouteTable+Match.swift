/// Lookup: walk the trie over a URL's match sequence, literal before `:param` before `*`, backtracking when a
/// branch dead-ends.
///
/// Three ways in, cheapest first (before them, the quick lane tries the direct match, RouteTable+Direct.swift,
/// which walks the commonest URL greedily as it reads it, with no scan first):
/// 1. A URL written canonically (a plain lower-case host, no `%`, no `//`, no trailing `/`) holds its static
///    key, "host/a/b", as one run of bytes: one digest and one probe of the static table find an all-literal
///    route, which is always the best match (the first path the precedence order explores).
/// 2. A greedy descent takes the first choice at every level (literal, else `:param`, else `*`), scanning
///    segments as it goes and hashing only those it looks up. That is the first path the full search explores,
///    so a route found this way is the answer.
/// 3. Only when the greedy descent dead-ends does the full depth-first search run, with backtracking, over
///    elements it finds, decodes and hashes on demand.

/// One element of a URL's match sequence (its host, or a path segment), as the full search sees it.
struct SequenceElement: BitwiseCopyable {
    var rawStart: Int32  // where the element is written in the URL
    var rawEnd: Int32
    var key: UnsafePointer<UInt8>?  // decoded bytes: the raw bytes in the URL when nothing needed decoding
    var keyLength: Int32
    var digested: Bool
    var hasPercent: Bool
    var hash: UInt32
    var head: UInt64
}

/// What a `:param` took: the element as written in the URL (decoded when the route is known).
struct Capture: BitwiseCopyable {
    var start: Int32
    var end: Int32
}

/// One level of the full search's explicit stack: a node and the next choice it tries (see `TrieWalk.descend`).
struct SearchFrame: BitwiseCopyable {
    enum Step: UInt8 { case enter, hostPort, portRule, portRuleDone, literal, param, paramDone, specialDone, catchAll, exhausted }
    var node: Int32
    var step: Step
    /// The next special edge to try (-1: none left, or the node has no list).
    var special: Int32
}

/// The walk's working memory: room for one element, one capture and one search frame per level.
struct WalkMemory {
    let elements: UnsafeMutablePointer<SequenceElement>
    let captures: UnsafeMutablePointer<Capture>
    let frames: UnsafeMutablePointer<SearchFrame>

    /// The bytes for `levels` levels, carved by `init(_:levels:)`; every part stays 8-byte aligned.
    static func bytes(levels: Int) -> Int {
        levels * (MemoryLayout<SequenceElement>.stride + MemoryLayout<Capture>.stride + MemoryLayout<SearchFrame>.stride)
    }

    init(_ raw: UnsafeMutableRawPointer, levels: Int) {
        let e = levels * MemoryLayout<SequenceElement>.stride, c = levels * MemoryLayout<Capture>.stride
        elements = raw.bindMemory(to: SequenceElement.self, capacity: levels)
        captures = (raw + e).bindMemory(to: Capture.self, capacity: levels)
        frames = (raw + e + c).bindMemory(to: SearchFrame.self, capacity: levels)
    }
}

extension RouteTable {
    /// Matches `url` (already rewritten, parsed into `parts`) and returns the route, writing the values of its
    /// parameters (path order, catch-all last) to `values`, which has room for `maxParams + 1`.
    /// Decoded bytes go to `scratch`; 8 × the URL's length + 64 always suffices. Throws `.noMemory` only when a
    /// table of very deep routes needs working memory that cannot be had.
    /// (`parts` is `inout` only so that it is passed by address, not copied: the walk reads it in place.)
    @inline(__always)
    package func match(_ url: ByteSpan, _ parts: inout URLParts, scratch: inout ByteWriter,
                       values: UnsafeMutablePointer<ByteSpan>) throws(RouterError) -> RouteBlob? {
        guard let p = url.start else { return nil }
        return try withUnsafePointer(to: &parts) { parts throws(RouterError) -> RouteBlob? in
            try match(p, url.count, parts, scratch: &scratch, values: values)
        }
    }

    @inline(__always)
    private func match(_ p: UnsafePointer<UInt8>, _ count: Int, _ parts: UnsafePointer<URLParts>, scratch: inout ByteWriter,
                       values: UnsafeMutablePointer<ByteSpan>) throws(RouterError) -> RouteBlob? {
        // Room for one element per level. A constant size (the usual case) is a fixed slot in the frame;
        // deeper tables get one block from withTemporary (the stack when small, else malloc).
        if maxDepth < 16 {
            return withUnsafeTemporaryAllocation(byteCount: WalkMemory.bytes(levels: 17), alignment: 16) { raw in
                guard let base = raw.baseAddress else { return nil }
                let walk = TrieWalk(table: self, url: p, count: count, parts: parts,
                                    memory: WalkMemory(base, levels: 17))
                var state = WalkState(scanAt: parts.pointee.pathStart)
                return walk.run(&state, scratch: &scratch, values: values)
            }
        }
        let levels = maxDepth &+ 2
        let found: RouteBlob?? = withTemporary(UInt64.self, capacity: (WalkMemory.bytes(levels: levels) + 7) / 8) { raw in
            let walk = TrieWalk(table: self, url: p, count: count, parts: parts,
                                memory: WalkMemory(UnsafeMutableRawPointer(raw), levels: levels))
            var state = WalkState(scanAt: parts.pointee.pathStart)
            return walk.run(&state, scratch: &scratch, values: values)
        }
        guard let found else {
            throw RouterError(.noMemory, "out of memory: the search through routes \(maxDepth) segments deep")
        }
        return found
    }
}

/// What a lookup changes as it goes; kept apart from `TrieWalk`, which is immutable and so passed by
/// reference (a mutating method calling a non-mutating one would copy the whole walk).
struct WalkState {
    /// The full search's elements found so far, and where the search for the next one resumes.
    var found = 0
    var scanAt: Int
    var captureCount = 0
    /// Whether a capture taken so far (kept or given back) holds a `%`: only then are values decoded.
    var capturesMayHavePercent = false
    /// Where the catch-all's value starts in the URL (-1: it took no element), and whether at the host.
    var catchAllStart = -1
    var catchAllFromHost = false
    /// "host:port", made on first use (length -1 until then).
    var hostPortKey: UnsafePointer<UInt8>? = nil
    var hostPortLength = -1
    var hostPortDigest = KeyDigest(hash: 0, head: 0)

    init(scanAt: Int) { self.scanAt = scanAt }
}

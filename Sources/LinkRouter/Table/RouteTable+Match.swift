/// Lookup: walk the trie over a URL's match sequence, literal before `:param` before `*`, backtracking when a
/// branch dead-ends.
///
/// Three ways in, cheapest first:
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

extension RouteTable {
    /// Matches `url` (already rewritten, parsed into `parts`) and returns the route, writing the values of its
    /// parameters (path order, catch-all last) to `values`, which has room for `maxParams + 1`.
    /// Decoded bytes go to `scratch`; 8 × the URL's length + 64 always suffices.
    @inline(__always)
    /// (`parts` is `inout` only so that it is passed by address, not copied: the walk reads a few fields.)
    package func match(_ url: ByteSpan, _ parts: inout URLParts, scratch: inout ByteWriter,
                       values: UnsafeMutablePointer<ByteSpan>) -> RouteBlob? {
        guard let p = url.start else { return nil }
        // Room for one element per level. A constant size (the usual case) is a fixed slot in the frame;
        // a size known only at run time costs a dynamic allocation and a stack check.
        if maxDepth < 16 {
            return withUnsafeTemporaryAllocation(of: SequenceElement.self, capacity: 17) { elements in
                withUnsafeTemporaryAllocation(of: Capture.self, capacity: 17) { captures in
                    guard let e = elements.baseAddress, let c = captures.baseAddress else { return nil }
                    let walk = TrieWalk(table: self, url: p, count: url.count, parts: &parts, elements: e, captures: c)
                    var state = WalkState(scanAt: parts.pathStart)
                    return walk.run(&state, scratch: &scratch, values: values)
                }
            }
        }
        let capacity = maxDepth &+ 2
        return withUnsafeTemporaryAllocation(of: SequenceElement.self, capacity: capacity) { elements in
            withUnsafeTemporaryAllocation(of: Capture.self, capacity: capacity) { captures in
                guard let e = elements.baseAddress, let c = captures.baseAddress else { return nil }
                let walk = TrieWalk(table: self, url: p, count: url.count, parts: &parts, elements: e, captures: c)
                var state = WalkState(scanAt: parts.pathStart)
                return walk.run(&state, scratch: &scratch, values: values)
            }
        }
    }
}

/// What a lookup changes as it goes; kept apart from `TrieWalk`, which is immutable and so passed by
/// reference (a mutating method calling a non-mutating one would copy the whole walk).
struct WalkState {
    /// The full search's elements found so far, and where the search for the next one resumes.
    var found = 0
    var scanAt: Int
    var captureCount = 0
    /// Where the catch-all's value starts in the URL (-1: it took no element), and whether at the host.
    var catchAllStart = -1
    var catchAllFromHost = false
    /// "host:port", made on first use (length -1 until then).
    var hostPortKey: UnsafePointer<UInt8>? = nil
    var hostPortLength = -1
    var hostPortDigest = KeyDigest(hash: 0, head: 0)

    init(scanAt: Int) { self.scanAt = scanAt }
}

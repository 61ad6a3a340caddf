/// The route trie, stored flat so that snapshots can share it.
///
/// Level 0 is the scheme (literal children, and the `*://` subtree as the "param" child), then one level per
/// element of the match sequence (host, then path segments). Each node has at most one `:param` child, whatever
/// the parameter's name (names belong to routes, so `app://u/:id` and `app://u/:uid/posts` share it), and a
/// route whose `*` starts at it. Literal children of every node live in one open-addressing hash table keyed by
/// (parent, bytes), so a step costs one probe whatever the fan-out.
struct TrieNode: BitwiseCopyable {
    var route: Int32 = -1
    var catchAllRoute: Int32 = -1
    var paramChild: Int32 = -1
    var literalCount: Int32 = 0
}

/// A literal child in the edge table. `tag` = parent << 32 | hash, so one compare checks both; `head` holds the
/// key's first eight bytes, so keys of up to eight bytes (most path segments) compare in one more instruction.
struct Edge: BitwiseCopyable {
    var tag: UInt64 = 0
    var head: UInt64 = 0
    var key: UnsafePointer<UInt8>? = nil  // nil: an empty slot
    var keyLength: Int32 = 0
    var child: Int32 = -1
}

/// A route whose every segment is a literal, by the hash of its host and path ("host/a/b"): a URL written
/// canonically (a plain lower-case host, no `%`, no `//`, no trailing `/`) holds exactly these bytes, so it
/// finds the route with one probe. Such a match is always the best one: it is the first path the
/// precedence order explores.
struct StaticSlot: BitwiseCopyable {
    var tag: UInt64 = 0  // scheme node << 32 | hash
    var key: UnsafePointer<UInt8>? = nil  // nil: an empty slot
    var length: Int32 = 0
    var route: Int32 = -1  // -1 with a key: a removed route (the slot keeps probe chains intact)
}

struct RouteSlot: BitwiseCopyable {
    var blob: UnsafeRawPointer?  // nil once removed
    var node: Int32
}

@inline(__always) func edgeTag(_ parent: Int32, _ hash: UInt32) -> UInt64 {
    UInt64(UInt32(bitPattern: parent)) &<< 32 | UInt64(hash)
}

/// Fibonacci hashing of a tag to a slot of a table of 2^bits slots.
@inline(__always) func slotIndex(_ tag: UInt64, _ bits: Int) -> Int {
    Int(truncatingIfNeeded: (tag &* 0x9E37_79B9_7F4A_7C15) &>> UInt64(64 &- bits))
}

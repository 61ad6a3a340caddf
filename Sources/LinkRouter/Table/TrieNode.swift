/// The route trie, stored flat so that snapshots can share it.
///
/// Level 0 is the scheme (literal children, and the `*://` subtree as the "param" child), then one level per
/// element of the match sequence (host, then path segments). Each node has at most one `:param` child, whatever
/// the parameter's name (names belong to routes, so `app://u/:id` and `app://u/:uid/posts` share it), and a
/// route whose `*` starts at it. Literal children of every node live in one open-addressing hash table keyed by
/// (parent, bytes), so a step costs one probe whatever the fan-out.
///
/// Typed and in-segment parameters (`:id<int>`, `{name}.png`) are "special" children: a node that has one keeps
/// all its parameter children, the plain `:param` included, in a list of `SpecialEdge`s in precedence order, and
/// says so with `paramChild <= -2` (the list's first edge is `-paramChild - 2`). A table without such patterns
/// never has one, so its walk tests `paramChild >= 0` exactly as before.
///
/// A node with exactly one literal child keeps that child's edge-table slot in `literals`: the walk compares the
/// element with that edge directly, without digesting it (most trie levels have a single literal child). The
/// edge stays in the hash table too, so every other lookup (the store's, the full search's) is unchanged.
struct TrieNode: BitwiseCopyable {
    var route: Int32 = -1
    var catchAllRoute: Int32 = -1
    /// ≥ 0: the one plain `:param` child; -1: none; ≤ -2: a list of special edges (see above).
    var paramChild: Int32 = -1
    /// -1: no literal child; ≥ 0: the edge slot of the only one; -2: several (look them up by hash).
    var literals: Int32 = -1

    @inline(__always) var hasLiterals: Bool { literals != -1 }

    /// 512 nodes a chunk: the store's and the walk's (a constant, so the walk needs not load it).
    @inline(__always) static var chunkShift: Int { 9 }

    /// The first special edge, or -1 when the node has no list.
    @inline(__always) var specialHead: Int32 { paramChild < -1 ? ~paramChild &- 1 : -1 }  // -paramChild - 2
}

/// One parameter child in a node's special list: the rule's fields (bytes in the table's arena) and the next
/// edge in precedence order (-1 at the end).
struct SpecialEdge: BitwiseCopyable {
    var next: Int32 = -1
    var child: Int32 = -1
    var kind: ParamRule.Kind = .any
    /// The walk's inline check for this edge (set by `init`; in the padding after `kind`, so it costs no room).
    var lane: Lane = .general
    /// The rule names a port: its prefix or suffix holds a `:` (`{sub}.example.com:8080`, `h:{port<uint>}`). For
    /// a URL with a port, such an edge is tried on `host:port` before the host alone (set by `init`; padding).
    var namesPort = false
    var prefixLength: Int32 = 0
    var suffixLength: Int32 = 0
    var typeLength: Int32 = 0
    var minLength: Int32 = 1
    var maxLength: Int32 = .max
    var prefix: UnsafePointer<UInt8>? = nil
    var suffix: UnsafePointer<UInt8>? = nil
    var type: UnsafePointer<UInt8>? = nil  // the type's text: with `kind`, it identifies the type
    var charSet: UnsafePointer<UInt8>? = nil  // `.chars`: 32 bytes

    /// 512 edges a chunk: the store's and the walk's (a constant, so the walk needs not load it).
    @inline(__always) static var chunkShift: Int { 9 }

    /// The common edges the walk checks inline, without the general code: unaffixed `<uint>` and `<int>`.
    enum Lane: UInt8, BitwiseCopyable {
        case general = 0, uint, int
    }

    init(next: Int32 = -1, child: Int32 = -1, kind: ParamRule.Kind = .any, prefixLength: Int32 = 0,
         suffixLength: Int32 = 0, typeLength: Int32 = 0, minLength: Int32 = 1, maxLength: Int32 = .max,
         prefix: UnsafePointer<UInt8>? = nil, suffix: UnsafePointer<UInt8>? = nil, type: UnsafePointer<UInt8>? = nil,
         charSet: UnsafePointer<UInt8>? = nil) {
        (self.next, self.child, self.kind) = (next, child, kind)
        (self.prefixLength, self.suffixLength, self.typeLength) = (prefixLength, suffixLength, typeLength)
        (self.minLength, self.maxLength) = (minLength, maxLength)
        (self.prefix, self.suffix, self.type, self.charSet) = (prefix, suffix, type, charSet)
        if prefixLength == 0 && suffixLength == 0 {
            lane = kind == .uint ? .uint : kind == .int ? .int : .general
        }
        func hasColon(_ p: UnsafePointer<UInt8>?, _ n: Int32) -> Bool {
            guard let p else { return false }
            for i in 0..<Int(max(n, 0)) where p[i] == ASCII.colon { return true }
            return false
        }
        namesPort = hasColon(prefix, prefixLength) || hasColon(suffix, suffixLength)
    }

    /// The rule's identifying fields (a class's set and lengths included), for ordering and comparing with a rule
    /// being added.
    var rule: ParamRule {
        func bytes(_ p: UnsafePointer<UInt8>?, _ n: Int32) -> [UInt8] {
            guard let p, n > 0 else { return [] }
            return Array(UnsafeBufferPointer(start: p, count: Int(n)))
        }
        var r = ParamRule()
        r.kind = kind
        r.prefix = bytes(prefix, prefixLength)
        r.suffix = bytes(suffix, suffixLength)
        r.typeText = String(decoding: bytes(type, typeLength), as: UTF8.self)
        if kind == .chars {
            r.charSet = bytes(charSet, 32)
            (r.minLength, r.maxLength) = (minLength, maxLength)
        }
        return r
    }
}

/// A special edge that accepted an element: the node it leads to, the edge after it (to try when that branch
/// dead-ends), and where the value is in the URL.
struct SpecialHit {
    var child: Int32
    var next: Int32
    var start: Int
    var end: Int
}

/// A literal child in the edge table. `tag` = parent << 32 | hash, so one compare checks both; `head` holds the
/// key's first eight bytes, so keys of up to eight bytes (most path segments) compare in one more instruction.
struct Edge: BitwiseCopyable {
    var tag: UInt64 = 0
    var head: UInt64 = 0
    var key: UnsafePointer<UInt8>? = nil  // nil: an empty slot
    var keyLength: Int32 = 0
    var child: Int32 = -1

    /// 512 slots a chunk: the store's and the walk's (a constant, so the walk needs not load it).
    @inline(__always) static var chunkShift: Int { 9 }
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

    /// 512 slots a chunk: the store's and the walk's (a constant, so the walk needs not load it).
    @inline(__always) static var chunkShift: Int { 9 }
}

struct RouteSlot: BitwiseCopyable {
    var blob: UnsafeRawPointer?  // nil once removed
    var node: Int32

    /// 512 routes a chunk: the store's and the walk's (a constant, so the walk needs not load it).
    @inline(__always) static var chunkShift: Int { 9 }
}

@inline(__always) func edgeTag(_ parent: Int32, _ hash: UInt32) -> UInt64 {
    UInt64(UInt32(bitPattern: parent)) &<< 32 | UInt64(hash)
}

/// Fibonacci hashing of a tag to a slot of a table of 2^bits slots.
@inline(__always) func slotIndex(_ tag: UInt64, _ bits: Int) -> Int {
    Int(truncatingIfNeeded: (tag &* 0x9E37_79B9_7F4A_7C15) &>> UInt64(truncatingIfNeeded: 64 &- bits))
}

/// A key of at most eight bytes as the zero-padded little-endian word the walk compares (`loadWord`'s, as it
/// reads the URL): the word `SchemeIndex` and `HostIndex` keep.
func indexWord(_ key: [UInt8]) -> UInt64 {
    key.withUnsafeBufferPointer { b in b.baseAddress.map { loadWord($0, b.count) } ?? 0 }
}

/// The root's literal children (the schemes) while there are at most four, each of at most eight bytes: the
/// walk's first step then compares words instead of hashing the scheme. Nodes are never removed, so the index
/// only grows; a fifth or a longer scheme makes it incomplete, and the walk uses the edge table.
struct SchemeIndex: BitwiseCopyable {
    /// Each scheme's bytes, zero-padded (as `KeyDigest.head`), and its node; head 0: empty. A scheme's bytes are
    /// never 0 (ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), in patterns and in URLs alike), so its head alone
    /// gives its length: no length is kept or compared.
    private var heads: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var nodes: (Int32, Int32, Int32, Int32) = (-1, -1, -1, -1)
    private var count = 0
    private(set) var complete = true
    /// The literal children (hosts, "host:port") of each scheme's node, in the same order.
    private var hosts = (HostIndex(), HostIndex(), HostIndex(), HostIndex())

    /// Notes the root's new child `node` for the (lower-cased) scheme `key`.
    mutating func add(_ key: [UInt8], node: Int32) {
        guard complete, count < 4, !key.isEmpty, key.count <= 8, !key.contains(0) else {
            complete = false
            return
        }
        let head = indexWord(key)
        switch count {
        case 0: (heads.0, nodes.0) = (head, node)
        case 1: (heads.1, nodes.1) = (head, node)
        case 2: (heads.2, nodes.2) = (head, node)
        default: (heads.3, nodes.3) = (head, node)
        }
        count += 1
    }

    /// Notes the new literal child `node` (for `key`) of `parent`, when `parent` is an indexed scheme's node.
    mutating func addHost(_ key: [UInt8], node: Int32, parent: Int32) {
        if nodes.0 == parent { hosts.0.add(key, node: node) }
        if nodes.1 == parent { hosts.1.add(key, node: node) }
        if nodes.2 == parent { hosts.2.add(key, node: node) }
        if nodes.3 == parent { hosts.3.add(key, node: node) }
    }

    /// Whether scheme node `parent`'s hosts are indexed (checked before the URL's key is made: large tables'
    /// are not, and pay only this).
    @inline(__always)
    func indexesHosts(_ parent: Int32) -> Bool {
        if nodes.0 == parent { return hosts.0.isComplete }
        if nodes.1 == parent { return hosts.1.isComplete }
        if nodes.2 == parent { return hosts.2.isComplete }
        if nodes.3 == parent { return hosts.3.isComplete }
        return false
    }

    /// The literal child of scheme node `parent` whose key is `key` (`HostIndex.key`; 0 for a host of more than
    /// seven bytes, which matches none), -1 when none is; nil when the index cannot tell (`parent` is not an
    /// indexed scheme's node, or its hosts' index is incomplete).
    @inline(__always)
    func hostChild(_ parent: Int32, _ key: UInt64) -> Int32? {
        if nodes.0 == parent { return hosts.0.child(key) }
        if nodes.1 == parent { return hosts.1.child(key) }
        if nodes.2 == parent { return hosts.2.child(key) }
        if nodes.3 == parent { return hosts.3.child(key) }
        return nil
    }

    /// The root's child for a scheme of 1 ... 8 bytes, none of them 0, whose lower-cased, zero-padded bytes are
    /// `head`; -1 when there is none (the index is complete: the caller checks).
    @inline(__always)
    func child(_ head: UInt64) -> Int32 {
        if heads.0 == head { return nodes.0 }
        if heads.1 == head { return nodes.1 }
        if heads.2 == head { return nodes.2 }
        if heads.3 == head { return nodes.3 }
        return -1
    }
}

/// A scheme node's literal children (hosts, and "host:port" keys) while there are at most four, each of at most
/// seven bytes: the walk's host step then compares one word per child instead of hashing the host. The eighth
/// byte holds the length, so keys with 0 bytes compare right. Edges are never removed, so the index only grows;
/// a fifth or a longer key makes it incomplete, and the walk uses the edge table.
struct HostIndex: BitwiseCopyable {
    private var keys: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 0: empty (a key's length is ≥ 1)
    private var nodes: (Int32, Int32, Int32, Int32) = (-1, -1, -1, -1)
    private var count = 0
    private var complete = true
    @inline(__always) var isComplete: Bool { complete }

    /// The index's key for `n` (1 ... 7) bytes whose zero-padded word is `head`.
    @inline(__always) static func key(_ head: UInt64, _ n: Int) -> UInt64 { head | UInt64(truncatingIfNeeded: n) &<< 56 }

    mutating func add(_ key: [UInt8], node: Int32) {
        guard complete, count < 4, !key.isEmpty, key.count <= 7 else {
            complete = false
            return
        }
        let head = indexWord(key)
        let k = HostIndex.key(head, key.count)
        switch count {
        case 0: (keys.0, nodes.0) = (k, node)
        case 1: (keys.1, nodes.1) = (k, node)
        case 2: (keys.2, nodes.2) = (k, node)
        default: (keys.3, nodes.3) = (k, node)
        }
        count += 1
    }

    /// The child for `key`, -1 when none; nil when incomplete.
    @inline(__always)
    func child(_ key: UInt64) -> Int32? {
        guard complete else { return nil }
        if keys.0 == key { return nodes.0 }
        if keys.1 == key { return nodes.1 }
        if keys.2 == key { return nodes.2 }
        if keys.3 == key { return nodes.3 }
        return -1
    }
}

/// The mutable side of a table: a value that starts as a copy of a snapshot's storage (sharing its chunks)
/// and becomes the next snapshot. Used by one writer at a time.
struct TableStore {
    var nodes = ChunkedArray<TrieNode>(shift: TrieNode.chunkShift, fill: TrieNode(), count: 1)  // node 0: the root
    var edges = ChunkedArray<Edge>(shift: Edge.chunkShift, fill: Edge(), count: 16)
    var edgeBits = 4
    var edgeCount = 0
    var statics = ChunkedArray<StaticSlot>(shift: StaticSlot.chunkShift, fill: StaticSlot(), count: 16)
    var staticBits = 4
    var staticUsed = 0  // slots with a key, removed ones included
    /// Bit `length % 64` is set for the length of every static key: a cheap first filter for URLs.
    var staticLengths: UInt64 = 0
    /// The second filter: bit `staticFilterBit` of every static key (by its length and last eight bytes), 8 bits
    /// per slot of the static table, so that most URLs without a static route are refused before their key
    /// is hashed. Bits are only set (a removed route's stays until the table grows): a superset is enough.
    var staticFilter = ChunkedArray<UInt64>(shift: TableStore.filterChunkShift, fill: 0, count: 2)
    @inline(__always) static var filterChunkShift: Int { 9 }
    /// The root's literal children, for the walk's first step.
    var schemes = SchemeIndex()
    var routes = ChunkedArray<RouteSlot>(shift: RouteSlot.chunkShift, fill: RouteSlot(blob: nil, node: -1))
    /// Typed and in-segment parameter children (see `TrieNode`); empty for tables without such patterns.
    var specials = ChunkedArray<SpecialEdge>(shift: SpecialEdge.chunkShift, fill: SpecialEdge())
    var arena = ByteArena()
    /// Most elements (host and segments) any pattern consumes before its catch-all.
    var maxDepth = 0
    /// Most parameters of any route.
    var maxParams = 0
    var liveRoutes = 0
    var deadRoutes = 0
    /// Each route's id: its insertion number, never reused by this router (compaction and clearing keep it).
    var nextSequence = 0
    /// Route names → route ids (names are unique per router).
    var names = NameIndex()

    init(nextSequence: Int = 0) { self.nextSequence = nextSequence }

    // MARK: Literal children

    func findLiteral(_ parent: Int32, _ key: [UInt8]) -> Int32 {
        key.withUnsafeBufferPointer { k in
            let d = digest(k.baseAddress, k.count, fold: false)
            let tag = edgeTag(parent, d.hash)
            let mask = (1 << edgeBits) - 1
            var i = slotIndex(tag, edgeBits)
            while true {
                let e = edges[i]
                guard e.key != nil else { return -1 }
                if e.tag == tag && Int(e.keyLength) == k.count && e.head == d.head
                    && tailsEqual(k.baseAddress, e.key, k.count, fold: false) { return e.child }
                i = (i + 1) & mask
            }
        }
    }

    /// Puts `edge` in the first free slot of its probe chain and returns that slot.
    @discardableResult
    private mutating func insertEdge(_ edge: Edge) -> Int {
        let mask = (1 << edgeBits) - 1
        var i = slotIndex(edge.tag, edgeBits)
        while edges[i].key != nil { i = (i + 1) & mask }
        edges[i] = edge
        return i
    }

    /// `literals` for a node whose only literal child is in edge slot `slot` (several, in the unreachable case
    /// of a slot beyond Int32).
    private static func single(_ slot: Int) -> Int32 {
        slot <= Int(Int32.max) ? Int32(truncatingIfNeeded: slot) : -2
    }

    mutating func literalChild(_ parent: Int32, _ key: [UInt8]) -> Int32 {
        let found = findLiteral(parent, key)
        if found >= 0 { return found }
        if (edgeCount + 1) * 2 > (1 << edgeBits) { growEdges() }
        let child = Int32(truncatingIfNeeded: nodes.append(TrieNode()))  // below Int32.max: insert checked
        let stored = key.withUnsafeBufferPointer { arena.store(ByteSpan(start: $0.baseAddress, count: $0.count)) }
        let d = digest(stored, key.count, fold: false)
        let slot = insertEdge(Edge(tag: edgeTag(parent, d.hash), head: d.head, key: stored, keyLength: Int32(truncatingIfNeeded: key.count), child: child))
        edgeCount += 1
        nodes[Int(parent)].literals = nodes[Int(parent)].hasLiterals ? -2 : TableStore.single(slot)
        if parent == 0 { schemes.add(key, node: child) } else { schemes.addHost(key, node: child, parent: parent) }
        return child
    }

    /// Doubles the edge table (amortised O(1) per edge). Edges move, so single-child nodes follow theirs.
    private mutating func growEdges() {
        let old = edges
        let oldSize = 1 << edgeBits
        edgeBits += 1
        edges = ChunkedArray(shift: Edge.chunkShift, fill: Edge(), count: 1 << edgeBits)
        for i in 0..<oldSize where old[i].key != nil {
            let slot = insertEdge(old[i])
            let parent = Int(old[i].tag >> 32)
            if nodes[parent].literals >= 0 { nodes[parent].literals = TableStore.single(slot) }
        }
    }

    // MARK: Static routes

    /// The static key of an all-literal pattern (host bytes, then "/seg/seg"), or nil when it has none: a
    /// `*` scheme, a parameter, no host, or a literal that a canonical URL cannot spell as it is.
    static func staticKey(_ pattern: Pattern) -> (host: [UInt8], path: [UInt8])? {
        guard pattern.scheme != nil, case .literal(let host)? = pattern.segments.first else { return nil }
        var path: [UInt8] = []
        for (i, segment) in pattern.segments.enumerated() {
            guard case .literal(let bytes) = segment else { return nil }
            let host = i == 0
            for b in bytes where b == ASCII.slash || b == ASCII.percent || (host && (b == ASCII.colon || b == ASCII.at)) {
                return nil
            }
            if i > 0 {
                path.append(ASCII.slash)
                path += bytes
            }
        }
        return (host, path)
    }

    /// The slot of a static key, or of the empty slot where it would go.
    private func staticSlot(_ tag: UInt64, _ key: [UInt8]) -> Int {
        let mask = (1 << staticBits) - 1
        var i = slotIndex(tag, staticBits)
        while true {
            let s = statics[i]
            guard let stored = s.key else { return i }
            if s.tag == tag && Int(s.length) == key.count
                && key.withUnsafeBufferPointer({ bytesEqual($0.baseAddress, stored, key.count) }) { return i }
            i = (i + 1) & mask
        }
    }

    private mutating func setStatic(_ schemeNode: Int32, _ key: (host: [UInt8], path: [UInt8]), route: Int32) {
        let bytes = key.host + key.path
        let tag = edgeTag(schemeNode, bytes.withUnsafeBufferPointer { digest($0.baseAddress, $0.count, fold: false).hash })
        let i = staticSlot(tag, bytes)
        if statics[i].key != nil {
            statics[i].route = route
            return
        }
        guard route >= 0 else { return }
        if (staticUsed + 1) * 2 > (1 << staticBits) {
            growStatics()
            setStatic(schemeNode, key, route: route)
            return
        }
        let stored = bytes.withUnsafeBufferPointer { arena.store(ByteSpan(start: $0.baseAddress, count: $0.count)) }
        statics[i] = StaticSlot(tag: tag, key: stored, length: Int32(truncatingIfNeeded: bytes.count), route: route)
        staticUsed += 1
        staticLengths |= 1 << UInt64(bytes.count & 63)
        markFilter(stored, bytes.count)
    }

    /// Sets the static filter's bit for a key (2^(staticBits + 3) bits: 2^(staticBits - 3) words).
    private mutating func markFilter(_ key: UnsafePointer<UInt8>?, _ n: Int) {
        let bit = staticFilterBit(tailWord(key, n), n, bits: staticBits + 3)
        staticFilter[bit >> 6] |= 1 << UInt64(bit & 63)
    }

    /// Doubles the static table, dropping removed routes' slots.
    private mutating func growStatics() {
        let old = statics
        let oldSize = 1 << staticBits
        staticBits += 1
        statics = ChunkedArray(shift: StaticSlot.chunkShift, fill: StaticSlot(), count: 1 << staticBits)
        staticUsed = 0
        staticFilter = ChunkedArray(shift: TableStore.filterChunkShift, fill: 0, count: 1 << (staticBits - 3))
        let mask = (1 << staticBits) - 1
        for k in 0..<oldSize where old[k].key != nil && old[k].route >= 0 {
            var i = slotIndex(old[k].tag, staticBits)
            while statics[i].key != nil { i = (i + 1) & mask }
            statics[i] = old[k]
            staticUsed += 1
            markFilter(old[k].key, Int(old[k].length))
        }
    }

    mutating func paramChild(_ parent: Int32) -> Int32 {
        if nodes[Int(parent)].paramChild < -1 { return ruleChild(parent, ParamRule()) }
        let existing = nodes[Int(parent)].paramChild
        if existing >= 0 { return existing }
        let child = Int32(truncatingIfNeeded: nodes.append(TrieNode()))  // below Int32.max: insert checked
        nodes[Int(parent)].paramChild = child
        return child
    }

    /// The plain `:param` child of `parent`, or -1.
    func findParam(_ parent: Int32) -> Int32 {
        let n = nodes[Int(parent)]
        return n.paramChild < -1 ? findRule(parent, ParamRule()) : n.paramChild
    }

    /// The child of `parent` for a typed or in-segment parameter with `rule`, or -1.
    func findRule(_ parent: Int32, _ rule: ParamRule) -> Int32 {
        var k = nodes[Int(parent)].specialHead
        if k < 0 { return rule.isPlain ? nodes[Int(parent)].paramChild : -1 }
        while k >= 0 {
            let e = specials[Int(k)]
            if e.rule.same(as: rule) { return e.child }
            k = e.next
        }
        return -1
    }

    /// The child of `parent` for `rule`, created in its place in the precedence order when absent. The node's
    /// plain `:param` child, if any, moves into the list first.
    mutating func ruleChild(_ parent: Int32, _ rule: ParamRule) -> Int32 {
        let found = findRule(parent, rule)
        if found >= 0 { return found }
        let plain = nodes[Int(parent)].paramChild
        if plain >= 0 {
            let k = Int32(truncatingIfNeeded: specials.append(SpecialEdge(child: plain)))
            nodes[Int(parent)].paramChild = -k - 2
        }
        let child = Int32(truncatingIfNeeded: nodes.append(TrieNode()))  // below Int32.max: insert checked
        func stored(_ bytes: [UInt8]) -> UnsafePointer<UInt8>? {
            bytes.isEmpty ? nil : bytes.withUnsafeBufferPointer { arena.store(ByteSpan(start: $0.baseAddress, count: $0.count)) }
        }
        let type = Array(rule.typeText.utf8)
        var edge = SpecialEdge(child: child, kind: rule.kind, prefixLength: Int32(truncatingIfNeeded: rule.prefix.count),
                               suffixLength: Int32(truncatingIfNeeded: rule.suffix.count),
                               typeLength: Int32(truncatingIfNeeded: type.count), minLength: rule.minLength,
                               maxLength: rule.maxLength, prefix: stored(rule.prefix), suffix: stored(rule.suffix),
                               type: stored(type), charSet: stored(rule.charSet))
        // Link it after the last edge that precedes it.
        var previous: Int32 = -1
        var k = nodes[Int(parent)].specialHead
        while k >= 0 && ParamRule.precedes(specials[Int(k)].rule, rule) {
            previous = k
            k = specials[Int(k)].next
        }
        edge.next = k
        let index = Int32(truncatingIfNeeded: specials.append(edge))
        if previous >= 0 {
            specials[Int(previous)].next = index
        } else {
            nodes[Int(parent)].paramChild = -index - 2
        }
        return child
    }

    // MARK: Routes

    /// The node a pattern ends at, creating the path when `create`; nil when absent and not creating.
    private mutating func walk(_ pattern: Pattern, create: Bool) -> (scheme: Int32, end: Int32)? {
        var node: Int32 = 0
        func step(_ next: Int32) -> Bool {
            node = next
            return next >= 0
        }
        if let scheme = pattern.scheme {
            guard step(create ? literalChild(node, scheme) : findLiteral(node, scheme)) else { return nil }
        } else {
            guard step(create ? paramChild(node) : findParam(node)) else { return nil }
        }
        let scheme = node
        for segment in pattern.segments {
            switch segment {
            case .literal(let key):
                guard step(create ? literalChild(node, key) : findLiteral(node, key)) else { return nil }
            case .param:
                guard step(create ? paramChild(node) : findParam(node)) else { return nil }
            case .rule(let rule):
                guard step(create ? ruleChild(node, rule) : findRule(node, rule)) else { return nil }
            case .catchAll:
                break
            }
        }
        return (scheme, node)
    }

    private func terminal(_ node: Int32, catchAll: Bool) -> Int32 {
        catchAll ? nodes[Int(node)].catchAllRoute : nodes[Int(node)].route
    }

    func blob(_ route: Int32) -> RouteBlob? {
        routes[Int(route)].blob.map(RouteBlob.init)
    }

    /// Adds a route; a pattern matching exactly the URLs of an existing one is a conflict naming it.
    /// `sequence` keeps a route's id when the store is rebuilt. A pattern with optional groups adds one entry
    /// per variant (see `Pattern.variants`), all with the route's id; only the first is listed and named.
    /// `batch` names a route added earlier in the same batch, by its sequence ("route 1 of this batch"), and
    /// gives nil for a route that was in the router before: a conflict with the first is not with an existing
    /// route.
    mutating func insert(_ spec: RouteSpec, _ pattern: Pattern, sequence: Int? = nil,
                         batch: (_ sequence: Int) -> String? = { _ in nil }) throws(RouterError) {
        let spec = try spec.validated()
        let variants = pattern.variants
        // Nodes and routes are numbered in 32 bits (and keys measured in them: a key is at most maxRouteText
        // bytes, which Pattern.parse checked). A table that cannot number one more route refuses it, before the
        // walk creates anything, so the conversions below cannot fail.
        guard nodes.count <= Int(Int32.max) - variants.count * (pattern.segments.count + 2),
              routes.count < Int(Int32.max) - variants.count else {
            throw .limit("the table holds \(routes.count) routes and \(nodes.count) nodes: no room to number more")
        }
        /// A route a message names: as `batch` names it, else as `routeWord` and its pattern.
        func named(_ other: RouteBlob, else routeWord: String) -> String {
            let pattern = excerpt(other.pattern.string)
            return batch(other.sequence).map { "\($0) ('\(pattern)')" } ?? "\(routeWord) '\(pattern)'"
        }
        if let name = spec.name, case let other = routeNamed(name), other >= 0, let owner = blob(other) {
            throw RouterError(.conflict, "route name '\(excerpt(name))' is already used by \(named(owner, else: "route"))")
        }
        func conflict(_ k: Int, _ existing: Int32) -> RouterError? {
            guard existing >= 0, let other = blob(existing) else { return nil }
            let which = k == 0 ? "" : " (its variant without some optional groups)"
            return RouterError(.conflict, "pattern '\(excerpt(spec.pattern))'\(which) conflicts with \(named(other, else: "existing route")): "
                               + "both match exactly the same URLs")
        }
        // With optional groups, every variant is checked before any is stored, so a refused route leaves no
        // variant behind (a table file goes on to its next route, which must not meet it). Variants never clash
        // with each other (`Pattern.variants` keeps one per shape).
        if variants.count > 1 {
            for (k, variant) in variants.enumerated() {
                if let (_, node) = walk(variant, create: false), let error = conflict(k, terminal(node, catchAll: variant.hasCatchAll)) {
                    throw error
                }
            }
        }
        for (k, variant) in variants.enumerated() {
            guard let (scheme, node) = walk(variant, create: true) else { return }
            if let error = conflict(k, terminal(node, catchAll: variant.hasCatchAll)) { throw error }
            let blob = try RouteBlob.make(spec, pattern: variant, sequence: sequence ?? nextSequence, variant: k > 0, in: &arena)
            let id = Int32(truncatingIfNeeded: routes.append(RouteSlot(blob: blob.base, node: node)))  // insert checked
            if k == 0, let name = blob.name { names.insert(name, route: id) }
            if variant.hasCatchAll {
                nodes[Int(node)].catchAllRoute = id
            } else {
                nodes[Int(node)].route = id
                if let key = TableStore.staticKey(variant) { setStatic(scheme, key, route: id) }
            }
            let depth = variant.segments.count - (variant.hasCatchAll ? 1 : 0)
            maxDepth = max(maxDepth, depth)
            maxParams = max(maxParams, variant.paramNames.count)
        }
        liveRoutes += 1
        if sequence == nil { nextSequence += 1 }
    }

    /// Removes the route that `pattern` would conflict with (same scheme, segment kinds and literals), and
    /// returns its id. With optional groups, every variant's entry goes.
    @discardableResult
    mutating func remove(_ pattern: Pattern) throws(RouterError) -> Int {
        var found: [(scheme: Int32, node: Int32, id: Int32, variant: Pattern)] = []
        for variant in pattern.variants {
            guard let (scheme, node) = walk(variant, create: false), case let id = terminal(node, catchAll: variant.hasCatchAll), id >= 0 else {
                throw .notFound("no route matches the URLs of pattern '\(excerpt(pattern.text))'")
            }
            found.append((scheme, node, id, variant))
        }
        // The entries must be one route's: its own and its variants (the same id, registered together).
        let sequence = found.first.flatMap { blob($0.id)?.sequence } ?? -1
        guard found.allSatisfy({ blob($0.id)?.sequence == sequence }), let first = found.first, let own = blob(first.id),
              !own.isVariant else {
            throw .notFound("no route matches the URLs of pattern '\(excerpt(pattern.text))'")
        }
        // ... and all of them: a pattern that covers some of a route's optional-group entries removes nothing (it
        // left the others matching, under a name already freed).
        let entries = Pattern.parseStored(own.spec.pattern)?.variants.count ?? 1
        guard Set(found.map(\.id)).count == entries else {
            throw .notFound("pattern '\(excerpt(pattern.text))' covers \(found.count) of the \(entries) forms of route "
                + "'\(excerpt(own.spec.pattern))' (its optional groups): remove the route by its own pattern")
        }
        for f in found {
            if f.variant.hasCatchAll {
                nodes[Int(f.node)].catchAllRoute = -1
            } else {
                nodes[Int(f.node)].route = -1
                if let key = TableStore.staticKey(f.variant) { setStatic(f.scheme, key, route: -1) }
            }
            if let name = self.blob(f.id)?.name, !(self.blob(f.id)?.isVariant ?? true) { names.remove(name) }
            routes[Int(f.id)].blob = nil
        }
        liveRoutes -= 1
        deadRoutes += 1
        // Removed routes leave their nodes and bytes behind; rebuild once they outnumber the live ones.
        if deadRoutes > 256 && deadRoutes > liveRoutes { compact() }
        return sequence
    }

    /// The id of the live route named `name`, or -1.
    func routeNamed(_ name: String) -> Int32 {
        var name = name
        return name.withUTF8 { names.find(ByteSpan(start: $0.baseAddress, count: $0.count)) }
    }

    /// The live routes, in the order they were added.
    func liveBlobs() -> [RouteBlob] {
        (0..<routes.count).compactMap { routes[$0].blob.map(RouteBlob.init) }.filter { !$0.isVariant }
    }

    /// Rebuilds the store from its live routes, dropping what removals left behind.
    private mutating func compact() {
        var fresh = TableStore(nextSequence: nextSequence)
        for blob in liveBlobs() {
            let spec = blob.spec
            // Each pattern parsed and inserted once before, so neither step can fail now.
            guard let pattern = Pattern.parseStored(spec.pattern) else { continue }
            try? fresh.insert(spec, pattern, sequence: blob.sequence)
        }
        self = fresh
    }
}

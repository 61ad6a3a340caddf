/// An immutable snapshot of a router's routes. Lookups read it without locks; changes make a new one.
package final class RouteTable: @unchecked Sendable {
    // SAFETY: every field is written in init and never again; the storage it points to is frozen (see
    // FrozenChunks and ByteArena), so concurrent reads are safe.
    let store: TableStore
    private let frozen: (FrozenChunks<TrieNode>, FrozenChunks<Edge>, FrozenChunks<RouteSlot>, FrozenChunks<StaticSlot>,
                         FrozenChunks<SpecialEdge>, FrozenChunks<UInt64>, [AnyObject])
    let nodes: ChunkReader<TrieNode>
    let edges: ChunkReader<Edge>
    let routes: ChunkReader<RouteSlot>
    let statics: ChunkReader<StaticSlot>
    let specials: ChunkReader<SpecialEdge>
    let staticFilter: ChunkReader<UInt64>
    let edgeBits: Int
    let edgeMask: Int
    let staticBits: Int
    /// Bit `length % 64` set for each static key's length (0: no static routes, the probe is skipped).
    let staticLengths: UInt64
    let schemes: SchemeIndex
    let maxDepth: Int
    package let maxParams: Int

    init(_ store: TableStore) {
        self.store = store
        let n = store.nodes.freeze(), e = store.edges.freeze(), r = store.routes.freeze(), st = store.statics.freeze()
        let sp = store.specials.freeze(), sf = store.staticFilter.freeze()
        frozen = (n, e, r, st, sp, sf, store.arena.owners)
        staticFilter = sf.reader
        specials = sp.reader
        nodes = n.reader
        edges = e.reader
        routes = r.reader
        statics = st.reader
        edgeBits = store.edgeBits
        edgeMask = (1 << store.edgeBits) &- 1
        staticBits = store.staticBits
        staticLengths = store.staticUsed > 0 ? store.staticLengths : 0
        schemes = store.schemes
        maxDepth = store.maxDepth
        maxParams = store.maxParams
    }

    static let empty = RouteTable(TableStore())

    /// An empty table whose routes get ids after this one's (so ids are never reused).
    var cleared: RouteTable { RouteTable(TableStore(nextSequence: store.nextSequence)) }

    package var count: Int { store.liveRoutes }

    /// Bytes held by this snapshot's storage (nodes, edge table, route slots, arena).
    package var memoryBytes: Int {
        store.nodes.count * MemoryLayout<TrieNode>.stride + (1 << store.edgeBits) * MemoryLayout<Edge>.stride
            + (1 << store.staticBits) * MemoryLayout<StaticSlot>.stride
            + store.routes.count * MemoryLayout<RouteSlot>.stride + store.specials.count * MemoryLayout<SpecialEdge>.stride
            + store.staticFilter.count * 8
            + store.arena.totalBytes
    }

    /// The live routes in the order they were added.
    package var blobs: [RouteBlob] { store.liveBlobs() }

    /// The live route named `name`, or nil.
    package func route(named name: String) -> RouteBlob? {
        let id = store.routeNamed(name)
        return id >= 0 ? store.blob(id) : nil
    }

    /// A new snapshot with `body`'s changes; `body` throwing leaves nothing behind (all or none).
    func updating(_ body: (inout TableStore) throws(RouterError) -> Void) throws(RouterError) -> RouteTable {
        var next = store
        try body(&next)
        return RouteTable(next)
    }
}

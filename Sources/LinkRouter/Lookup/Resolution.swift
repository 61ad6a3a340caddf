/// The lookup pipeline, in one place for every front end (Swift API, C ABI, packed results, CLI):
/// validate → rewrite (once) → parse → match → query.

/// The outcome of routing one URL: spans into the URL, the rewritten URL, scratch memory and the table.
/// Valid only as long as the memory it was resolved into, and the snapshot it came from.
package struct Resolution {
    package let blob: RouteBlob
    /// The URL as given.
    package let url: ByteSpan
    /// The URL that was routed: the rewritten one, or `url` when no rule fired.
    package let routed: ByteSpan
    package let parts: URLParts
    /// The values of the route's parameters (`blob.paramCount`, names from `blob.paramName`).
    package let values: UnsafePointer<ByteSpan>
    /// Every query pair, in order (empty when the query was not asked for).
    package let pairs: UnsafeBufferPointer<QueryPair>

    package var wasRewritten: Bool { routed.start != url.start || routed.count != url.count }

    /// The resolution that `resolve` left in `memory`, whose values are at `values`.
    init(_ blob: RouteBlob, _ url: ByteSpan, _ memory: ResolveMemory, values: UnsafePointer<ByteSpan>) {
        self.blob = blob
        self.url = url
        routed = memory.routed
        parts = memory.parts
        self.values = values
        pairs = UnsafeBufferPointer(start: memory.pairs, count: memory.pairCount)
    }

    /// The resolution of the quick lane (`RouterState.quickMatch`): no rule fired; `pairs` are the query's.
    init(_ blob: RouteBlob, _ url: ByteSpan, _ parts: URLParts, values: UnsafePointer<ByteSpan>,
         pairs: UnsafeBufferPointer<QueryPair>) {
        self.blob = blob
        self.url = url
        routed = url
        self.parts = parts
        self.values = values
        self.pairs = pairs
    }
}

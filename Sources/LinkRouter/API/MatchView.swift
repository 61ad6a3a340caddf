/// A borrowed view of a match, for hot paths: no allocation to make it, valid only inside the closure given to
/// `Router.withMatch`. Parameters are the path parameters (pattern order), then the query pairs in order
/// except keys a path parameter takes; `self[name]` applies the precedence of `Match.params` (path, then the
/// last query pair of that name). Strings of up to 15 bytes are made without allocating.
public struct MatchView {
    let blob: RouteBlob
    let routedSpan: ByteSpan
    let pairs: UnsafeBufferPointer<QueryPair>
    let pathCount: Int

    init(blob: RouteBlob, routed: ByteSpan, pairs: UnsafeBufferPointer<QueryPair>, pathCount: Int) {
        self.blob = blob
        routedSpan = routed
        self.pairs = pairs
        self.pathCount = pathCount
    }

    /// The route's id: its insertion number in this router, never reused.
    public var routeID: Int { blob.sequence }
    /// The route's target.
    public var target: String { blob.target.string }
    /// The route's pattern as registered.
    public var pattern: String { blob.pattern.string }
    /// The URL that was matched (after rewriting).
    public var routedURL: String { routedSpan.string }
    /// The number of parameters (path parameters, then query pairs).
    public var parameterCount: Int { pairs.count }

    /// Parameter `i` as (name, value).
    public func parameter(at i: Int) -> (name: String, value: String)? {
        guard i >= 0 && i < pairs.count else { return nil }
        return (pairs[i].key.string, pairs[i].value.string)
    }

    /// The value of parameter `name` (path first, then the last query pair of that name), or nil.
    public subscript(name: String) -> String? {
        // A native string's bytes are borrowed as they are; a bridged one is copied once.
        if let found = name.utf8.withContiguousStorageIfAvailable({ value(for: ByteSpan(start: $0.baseAddress, count: $0.count)) }) {
            return found
        }
        var copy = name
        return copy.withUTF8 { value(for: ByteSpan(start: $0.baseAddress, count: $0.count)) }
    }

    private func value(for key: ByteSpan) -> String? {
        lookupParam(key, in: pairs, pathCount: pathCount).map { pairs[$0].value.string }
    }
}

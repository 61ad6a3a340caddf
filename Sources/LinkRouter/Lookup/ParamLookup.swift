/// The parameter precedence of a lookup, written once: `MatchView`, `lr_result_get` and `Match` all ask here.

/// The index of parameter `key` in `pairs`, or nil: among the path parameters `pairs[0 ..< pathCount]` the first
/// of that name (pattern order), else the last query pair of that name (a repeated query key: the last wins).
/// A query pair never overrides a path parameter. `pathCount` is clamped to `pairs`, so no count can make it
/// read outside them.
@inline(__always)
package func lookupParam(_ key: ByteSpan, in pairs: UnsafeBufferPointer<QueryPair>, pathCount: Int) -> Int? {
    let path = min(max(pathCount, 0), pairs.count)
    var i = 0
    while i < path {
        if pairs[i].key.equals(key) { return i }
        i &+= 1
    }
    i = pairs.count
    while i > path {
        i &-= 1
        if pairs[i].key.equals(key) { return i }
    }
    return nil
}

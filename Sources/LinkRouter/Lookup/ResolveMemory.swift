/// Working memory for one lookup, provided by the caller: nothing is allocated while resolving.
package struct ResolveMemory {
    /// The rewritten URL and decoded bytes go here; `8 × URL length + 64` bytes suffice when no rule fires.
    package var scratch: ByteWriter
    package let values: UnsafeMutablePointer<ByteSpan>?
    package let valueCapacity: Int
    package let pairs: UnsafeMutablePointer<QueryPair>?
    package let pairCapacity: Int
    /// Filled by `resolve`: the URL that was routed, its parts, how many pairs its query holds (counted
    /// whether parsed or not), and the number of query pairs parsed.
    package var routed = ByteSpan.empty
    package var parts = URLParts()
    package var queryPairCount = 0
    package var pairCount = 0

    package init(scratch: ByteWriter, values: UnsafeMutablePointer<ByteSpan>?, valueCapacity: Int,
                 pairs: UnsafeMutablePointer<QueryPair>?, pairCapacity: Int) {
        self.scratch = scratch
        self.values = values
        self.valueCapacity = values == nil ? 0 : valueCapacity
        self.pairs = pairs
        self.pairCapacity = pairs == nil ? 0 : pairCapacity
    }
}

package enum ResolveOutcome {
    /// The route; what else was found is in the `ResolveMemory` (see `Resolution.init`).
    case matched(RouteBlob)
    case noMatch
    /// The memory was too small: sizes that suffice (for the same snapshot and URL).
    case needsMemory(scratch: Int, values: Int, pairs: Int)
}

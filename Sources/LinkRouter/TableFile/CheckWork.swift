/// What checking a table did, in counts: tests bound the work of `TableOverlaps` and `TableLint` with these
/// (exact numbers on generated tables), not with a clock.
package struct CheckWork: Sendable, Equatable {
    /// Route pairs `TableOverlaps` looked for a shared URL in.
    package var overlapPairs = 0
    /// Pairs of trie nodes the overlap search visited to find those pairs.
    package var trieVisits = 0
    /// Sample elements built for examples, and their bytes.
    package var samples = 0
    package var sampleBytes = 0
    /// Routes tested against the known start of a rewrite rule's target.
    package var rewriteRouteTests = 0

    package init() {}
}

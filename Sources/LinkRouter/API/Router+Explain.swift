/// Explaining a lookup (docs/TABLES.md, "Explain").
extension Router {
    /// Why `url` routes where it does, or nowhere: the rewrite rules tried and the one that fired, the match
    /// sequence, each candidate route (those with the URL's scheme, at most `limit`, most relevant first) with
    /// why it matched or not, the winner, the merged parameters and the guards it requires. A URL the router
    /// refuses gives `result == .error` with the error a resolve would throw. Slow (it checks every route);
    /// meant for debugging and tools, not for the hot path.
    public func explain(_ url: String, extra: [String: String] = [:], limit: Int = 20) -> Explanation {
        let extras = extra.sorted { $0.key < $1.key }.map { Match.Param(name: $0.key, value: $0.value) }
        return withState { state in ExplainWalker(state: state, limit: max(0, limit)).explain(url, extra: extras) }
    }
}

/// Everything a lookup reads, published as one immutable snapshot: routes, rewrite rules and limits.
/// A lookup sees one snapshot from start to end, so it never mixes a table from before a change with
/// rules from after it.
package final class RouterState: Sendable {
    package let table: RouteTable
    package let rewrites: RewriteRules
    package let limits: Limits
    /// Handlers, guards, the unmatched handler and the log: who answers an open.
    let dispatch: DispatchTable

    init(table: RouteTable, rewrites: RewriteRules, limits: Limits, dispatch: DispatchTable = .empty) {
        self.table = table
        self.rewrites = rewrites
        self.limits = limits
        self.dispatch = dispatch
    }

    func with(table: RouteTable? = nil, rewrites: RewriteRules? = nil, limits: Limits? = nil,
              dispatch: DispatchTable? = nil) -> RouterState {
        RouterState(table: table ?? self.table, rewrites: rewrites ?? self.rewrites, limits: limits ?? self.limits,
                    dispatch: dispatch ?? self.dispatch)
    }
}

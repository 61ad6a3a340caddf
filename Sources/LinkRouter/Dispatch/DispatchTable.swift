/// Who answers an open, published with the router's snapshot so that a change (a route added with its
/// handler, a guard registered) is seen whole: handlers by route id and by target, the guards, the unmatched
/// handler and the log sink.
final class DispatchTable: Sendable {
    static let empty = DispatchTable()

    let byRoute: [Int: Handler]
    let byTarget: [String: Handler]
    let guards: [String: Guard]
    /// Global guards in the order they were added: they run first, for every match.
    let globalGuards: [String]
    let unmatched: UnmatchedHandler?
    let log: LogSink

    init(byRoute: [Int: Handler] = [:], byTarget: [String: Handler] = [:], guards: [String: Guard] = [:],
         globalGuards: [String] = [], unmatched: UnmatchedHandler? = nil, log: LogSink = LogSink()) {
        self.byRoute = byRoute
        self.byTarget = byTarget
        self.guards = guards
        self.globalGuards = globalGuards
        self.unmatched = unmatched
        self.log = log
    }

    /// A copy with `change` applied.
    func with(_ change: (inout Fields) -> Void) -> DispatchTable {
        var f = Fields(byRoute: byRoute, byTarget: byTarget, guards: guards, globalGuards: globalGuards,
                       unmatched: unmatched, log: log)
        change(&f)
        return DispatchTable(byRoute: f.byRoute, byTarget: f.byTarget, guards: f.guards, globalGuards: f.globalGuards,
                             unmatched: f.unmatched, log: f.log)
    }

    struct Fields {
        var byRoute: [Int: Handler]
        var byTarget: [String: Handler]
        var guards: [String: Guard]
        var globalGuards: [String]
        var unmatched: UnmatchedHandler?
        var log: LogSink
    }

    /// The handler for a match: the route's own, else its target's.
    func handler(for match: Match) -> Handler? {
        if !byRoute.isEmpty, let h = byRoute[match.routeID] { return h }
        if byTarget.isEmpty { return nil }
        return byTarget[match.target]
    }
}

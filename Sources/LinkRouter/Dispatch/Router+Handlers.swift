/// Registering who answers an open: handlers, guards, the unmatched handler, the log.
extension Router {
    /// Adds a route for `pattern` with its handler, in one change: an open never sees the route without it.
    /// The target defaults to the pattern. Throws as `add` does (`.pattern`, `.conflict`, `.limit`).
    /// The router keeps its handlers and guards: one that uses the router captures it weakly or unowned
    /// (`{ [unowned router] match in ... }`), or router and closure keep each other alive.
    ///
    /// ```swift
    /// try router.handle("app://user/:id", .sync { match in User(id: match.params["id"]) })
    /// try router.handle("app://detail", .callback { match, reply in loadLater { reply.send($0) } })
    /// ```
    public func handle(_ pattern: String, target: String? = nil, name: String? = nil, requires: [String] = [],
                       meta: [String: String] = [:], _ handler: Handler) throws(RouterError) {
        try add([(RouteSpec(pattern, target: target ?? pattern, name: name, requires: requires, meta: meta), handler)], single: true)
    }

    /// `handle(pattern, ..., .sync(body))`: the common case, a closure that returns the value `open` returns.
    public func handle(_ pattern: String, target: String? = nil, name: String? = nil, requires: [String] = [],
                       meta: [String: String] = [:], _ body: @escaping @Sendable (Match) throws -> (any Sendable)?) throws(RouterError) {
        try handle(pattern, target: target, name: name, requires: requires, meta: meta, .sync(body))
    }

    /// Sets the handler of every route whose target is `target` that has no handler of its own: how the routes
    /// of a table file (which names targets, not code) get their handlers. nil removes it.
    public func handle(target: String, _ handler: Handler?) {
        try? update { $0.with(dispatch: $0.dispatch.with { $0.byTarget.set(handler, for: target) }) }
    }

    /// Adds (or replaces) the guard `name`. A global guard runs for every match, before the routes' required
    /// guards, in the order global guards were added; others run for the routes that require them. A global
    /// guard replaced by a global one keeps its place in that order.
    public func addGuard(_ name: String, global: Bool = false, _ check: @escaping @Sendable (Match) -> Verdict) throws(RouterError) {
        guard !name.isEmpty else { throw .misuse("a guard needs a name") }
        try update { state in
            state.with(dispatch: state.dispatch.with {
                $0.guards[name] = Guard(check)
                let place = $0.globalGuards.firstIndex(of: name)
                if global {
                    if place == nil { $0.globalGuards.append(name) }
                } else if let place {
                    $0.globalGuards.remove(at: place)
                }
            })
        }
    }

    /// Removes the guard `name` (routes that require it are then denied). `.notFound` when there is none.
    public func removeGuard(_ name: String) throws(RouterError) {
        try update { state throws(RouterError) in
            guard state.dispatch.guards[name] != nil else { throw .notFound("no guard '\(excerpt(name))'") }
            return state.with(dispatch: state.dispatch.with {
                $0.guards[name] = nil
                $0.globalGuards.removeAll { $0 == name }
            })
        }
    }

    /// The names of the guards, global ones first in their order, then the others sorted.
    public var guardNames: [String] {
        let d = snapshot().dispatch
        return d.globalGuards + d.guards.keys.filter { !d.globalGuards.contains($0) }.sorted()
    }

    /// Sets the handler `open` calls for URLs no route matches (nil removes it; `open` then fails `.notFound`).
    public func onUnmatched(_ body: (@Sendable (UnmatchedURL) throws -> (any Sendable)?)?) {
        try? update { $0.with(dispatch: $0.dispatch.with { $0.unmatched = body.map(UnmatchedHandler.init) }) }
    }

    /// Sends what opens do to `write`, at `level` and below (FFRouter's log switch). `.off` (the default), or a
    /// nil `write`, turns it off; off, a message is never even made.
    public func setLog(level: LogLevel, _ write: (@Sendable (LogLevel, String) -> Void)?) {
        try? update { $0.with(dispatch: $0.dispatch.with { $0.log = LogSink(level: write == nil ? .off : level, write: write) }) }
    }
}

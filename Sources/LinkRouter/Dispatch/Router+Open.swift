import Dispatch

/// Opening a URL: the one place it happens, for Swift, C and (through C) every other binding.
///
///     rewrite → resolve ──no route──→ unmatched handler (or "unmatched")
///                 │
///           global guards, then the route's required guards, in order:
///           allow → next · deny → fails (.denied) · defer → parked in that guard's queue (.deferred)
///                 │
///           the route's handler, else its target's (none: fails .notFound)
///           run on the request's executor (or here), its reply awaited up to the timeout
///
/// No lock is held while a guard or handler runs, so they may call back into the router: open another URL,
/// add a route, resume a queue.
extension Router {
    /// The current snapshot, retained: for work that calls out to guards and handlers, which may change the
    /// router (and with it this thread's snapshot cache).
    func snapshot() -> RouterState { withState { $0 } }

    /// Opens `request` and calls `done` exactly once with the outcome: before returning when the handler runs
    /// here and replies at once, later (from whichever thread replies, or from the timer) otherwise.
    package func start(_ request: OpenRequest, done: @escaping @Sendable (OpenResult) -> Void) {
        var match: Match?
        switch route(request, &match) {
        case .decided(let result):
            done(result)
        case let .handler(state, handler):
            invoke(state, request, match, done, .handler(handler))
        case let .unmatched(state, handler):
            invoke(state, request, nil, done, .unmatched(handler, UnmatchedURL(request)))
        }
    }

    /// Where an open stands once its URL is routed and its guards have run.
    private enum Routing {
        /// Decided without running a handler: failed, denied, deferred, or unmatched with no unmatched handler.
        case decided(OpenResult)
        /// The route's handler is to run on the match `route` set.
        case handler(RouterState, Handler)
        /// No route: the unmatched handler is to run on the URL.
        case unmatched(RouterState, UnmatchedHandler)
    }

    /// Rewrite, resolve, guards and the choice of handler: everything an open does before a handler runs. The
    /// match is set apart from the outcome, so that the caller holds the only reference to it.
    @inline(__always)  // two callers; inlined, the blocking one makes no `Routing` value
    private func route(_ request: OpenRequest, _ matched: inout Match?) -> Routing {
        let state = snapshot()
        let log = state.dispatch.log
        log(.debug, "open \(request.url)")
        let match: Match
        do {
            guard let m = try makeMatch(state, request) else { return unmatched(state, request) }
            match = m
        } catch {
            log(.info, "open \(request.url): \(error)")
            return .decided(.failed(error))
        }
        return decide(state, request, match, &matched)
    }

    /// Guards and the choice of handler, for a URL that matched.
    private func decide(_ state: RouterState, _ request: OpenRequest, _ match: Match, _ matched: inout Match?) -> Routing {
        let log = state.dispatch.log
        if match.wasRewritten { log(.info, "rewrote \(request.url) to \(match.rewritten)") }
        log(.info, "matched \(match.url) to \(match.pattern) (target \(match.target))")

        if !state.dispatch.globalGuards.isEmpty || match.record.requiresCount > 0 {
            switch runGuards(state, match) {
            case .allowed:
                break
            case .denied(let error):
                return .decided(.failed(error))
            case .deferred(let guardName):
                return .decided(park(request, guardName, state))
            }
        }
        guard let handler = state.dispatch.handler(for: match.record) else {
            let error = RouterError(.notFound, "route '\(excerpt(match.pattern))' (target '\(excerpt(match.target))') has no handler")
            log(.error, "open \(request.url): \(error.message)")
            return .decided(.failed(error))
        }
        matched = match
        return .handler(state, handler)
    }

    /// The match for `request` (its string extras take part in the parameters), or nil.
    private func makeMatch(_ state: RouterState, _ request: OpenRequest) throws(RouterError) -> Match? {
        if !request.hasOptions {  // no extras, no Swift context: the common open, C's in particular
            return try request.withURLBytes { span throws(RouterError) in
                try MatchStorage.make(state, span, extras: UnsafeBufferPointer(start: nil, count: 0), reusable: true)
                    .map { Match($0, rawContext: request.rawContext) }
            }
        }
        // The string extras, in the order the caller gave them, else (a dictionary) by name.
        let extra = request.extra, order = request.extraOrder
        let strings = (order.isEmpty ? extra.keys.sorted() : order).compactMap { k in
            (extra[k] as? String).map { (key: k, value: $0) }
        }
        return try request.withURLBytes { span throws(RouterError) in
            try withExtraSpans(strings) { extras throws(RouterError) in
                try MatchStorage.make(state, span, extras: extras, reusable: true)
                    .map { Match($0, extra: request.extra, context: request.context, rawContext: request.rawContext) }
            }
        }
    }

    private enum GuardOutcome {
        case allowed
        case denied(RouterError)
        case deferred(String)
    }

    /// The global guards in the order they were added, then the route's required ones in its order (each guard
    /// once). A required guard that is not registered denies: a missing check never lets a URL through.
    private func runGuards(_ state: RouterState, _ match: Match) -> GuardOutcome {
        let dispatch = state.dispatch, log = dispatch.log
        var names = dispatch.globalGuards
        for name in match.requires where !names.contains(name) { names.append(name) }
        for name in names {
            guard let check = dispatch.guards[name] else {
                let error = RouterError(.denied, "guard '\(excerpt(name))' required by route '\(excerpt(match.pattern))' is not registered")
                log(.error, "open \(match.url): \(error.message)")
                return .denied(error)
            }
            switch check.check(match) {
            case .allow:
                log(.info, "guard \(name): allow \(match.url)")
            case .deny(let message):
                log(.info, "guard \(name): deny \(match.url): \(message)")
                return .denied(RouterError(.denied, message.isEmpty ? "denied by guard '\(excerpt(name))'" : message))
            case .defer:
                log(.info, "guard \(name): defer \(match.url)")
                return .deferred(name)
            }
        }
        return .allowed
    }

    /// Parks `request` in `guardName`'s queue, unless the queue is full (a replay is parked again all the same).
    private func park(_ request: OpenRequest, _ guardName: String, _ state: RouterState) -> OpenResult {
        let limit = state.limits.maxPending
        var kept = request.owned
        kept.isReplay = false
        let count = parked.withLock { queues -> Int? in
            let count = queues[guardName, default: []].count
            guard count < limit || request.isReplay else { return nil }
            queues[guardName, default: []].append(ParkedOpen(request: kept, guardName: guardName))
            return count + 1
        }
        guard let count else {
            let error = RouterError(.limit, "the queue of guard '\(excerpt(guardName))' is full (\(limit) opens, limit maxPending, LR_LIMIT_PENDING): "
                                    + "'\(excerpt(request.url))' was not parked")
            state.dispatch.log(.warning, error.message)
            return .failed(error)
        }
        state.dispatch.log(.info, "parked \(request.url) in \(guardName) (\(count) of \(limit))")
        return .opened(.deferred(guard: guardName))
    }

    private func unmatched(_ state: RouterState, _ request: OpenRequest) -> Routing {
        guard let handler = state.dispatch.unmatched else {
            state.dispatch.log(.info, "no route for \(request.url), and no unmatched handler")
            return .decided(.unmatched)
        }
        state.dispatch.log(.info, "no route for \(request.url): unmatched handler")
        return .unmatched(state, handler)
    }

    /// What `invoke` runs: a route's handler on the match, or the unmatched handler on the URL. Values, not a
    /// closure: an open that runs here allocates no closure for it.
    private enum Work: Sendable {
        case handler(Handler)
        case unmatched(UnmatchedHandler, UnmatchedURL)

        func run(_ match: Match?, _ reply: Reply) {
            switch self {
            case .handler(let handler):
                if let match { handler.run(match, reply) }
            case let .unmatched(handler, url):
                do {
                    reply.complete(.success(try handler.body(url)))
                } catch {
                    reply.complete(.failure(error))
                }
            }
        }
    }

    /// Runs a handler that answers as it returns (`.sync`, `.c`) here and now, its outcome into `result`; false
    /// (nothing run) for one that replies on its own. No reply to make and nothing to wait for. (A flag and an
    /// out value rather than an Optional: see Latch on memcheck.)
    /// (The request is borrowed for its URL, which only a log line or an error needs: an autoclosure over it
    /// would copy the request for every open.)
    private static func runNow(_ handler: Handler, _ match: Match?, _ request: borrowing OpenRequest, log: LogSink,
                               into result: inout OpenResult) -> Bool {
        guard let match else { return false }
        switch handler.body {
        case .c(let f):
            switch f.call(match.recordBase, match.rawContext) {
            case .success(let value):
                log(.debug, "open \(request.url): handled")
                result = .pointer(value)
            case .failure(let error):
                result = Reply.failed(error, url: request.url, log: log)
            }
        case .sync(let f):
            do {
                result = Reply.handled(try f(match), url: request.url, log: log)
            } catch {
                result = Reply.failed(error, url: request.url, log: log)
            }
        case .callback, .task:
            return false
        }
        return true
    }

    /// Runs the unmatched handler here and now.
    private static func runNow(_ handler: UnmatchedHandler, _ url: UnmatchedURL, log: LogSink) -> OpenResult {
        do {
            return Reply.handled(try handler.body(url), url: url.url, log: log)
        } catch {
            return Reply.failed(error, url: url.url, log: log)
        }
    }

    /// Runs `work` on the request's executor or here, and sees the reply through: its value or error goes to
    /// `done`, or the timeout does.
    private func invoke(_ state: RouterState, _ request: OpenRequest, _ match: Match?,
                        _ done: @escaping @Sendable (OpenResult) -> Void, _ work: Work) {
        let log = state.dispatch.log
        let url = request.url
        let reply = Reply(match, url: url, log: log, done: done)
        if let executor = request.executor {
            executor.execute {
                // The caller was told the open failed (timed out) before the work started: run nothing, so
                // that no handler acts on an open its caller has given up on.
                guard !reply.hasExpired else {
                    return log(.info, "open \(url): not run, the open timed out before its handler started")
                }
                work.run(match, reply)
            }
        } else {
            work.run(match, reply)
        }
        guard !reply.isDone else { return }
        // Not answered yet: the timeout decides, unless the reply comes first. The timer holds the reply weakly and
        // nothing else of the open's (the reply logs), so a reply answered (or dropped, which answers it) is freed
        // at once, and with it what it holds: the log sink and the callbacks' user data are not kept until the
        // timer's deadline.
        let timeout = request.timeout ?? .milliseconds(state.limits.replyTimeoutMilliseconds)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds(timeout))) { [weak reply] in
            reply?.expire(RouterError(.timeout, "'\(excerpt(url))': the handler did not reply within \(timeout)"))
        }
    }

    /// `d` in whole nanoseconds, clamped to 0 ... Int.max.
    private func nanoseconds(_ d: Duration) -> Int {
        let (seconds, attoseconds) = d.components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        guard seconds < Int64.max / 1_000_000_000 - 1 else { return Int.max }
        return Int(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    // MARK: Blocking and async front ends

    /// `start`, waited for. Work that answers as it returns, with no executor, is run directly: the common
    /// open (a synchronous handler) then makes no reply and waits on nothing, and its match's memory is kept
    /// for this thread's next open.
    package func openResult(_ request: OpenRequest) -> OpenResult {
        var match: Match?
        return keepingAlive { finish(request, route(request, &match), &match) }
    }

    /// `body`, holding this router: a guard or handler may free it while the open still needs it (a C caller's
    /// `lr_router_free` from a callback; `lr_router_open` borrows the handle without a retain). The direct path
    /// does not need it: after its C call it touches only the thread's memory.
    @inline(__always)
    private func keepingAlive<R>(_ body: () -> R) -> R {
        let kept = Unmanaged.passUnretained(self).retain()
        defer { kept.release() }
        return body()
    }

    /// `openResult` of a plain request (no extras, executor or timeout; C's `lr_router_open` without them) given
    /// as its URL bytes and raw context, handed to `opened` when the open was done directly (see `direct`: the
    /// C handler's result, and no `OpenResult` made), else to `otherwise`. The request itself is made
    /// (`request()`) only when the open needs more than the direct path. (Two continuations rather than an
    /// optional `OpenResult` returned: no outcome value to make and destroy on the direct path, and valgrind
    /// took the optional's tag test for a use of uninitialised memory.)
    @inline(__always)  // into lr_router_open, its one caller
    package func openPlain<R>(_ url: ByteSpan, rawContext: UnsafeMutableRawPointer?, request: () -> OpenRequest,
                              opened: (UnsafeMutableRawPointer?) -> R, otherwise: (OpenResult) -> R) -> R {
        let record: UnsafeMutableRawPointer, handler: CFunctionHandler.Retained, thread: Unmanaged<ThreadState>?
        switch withState({ state, thread in Router.direct(state, thread, url) }) {
        case let .call(r, h, t): (record, handler, thread) = (r, h, t)
        case let .other(rest): return otherwise(openOther(rest, rawContext, request))
        }
        // The call runs here, on nothing borrowed: it may change the router. The owner `direct` retained keeps
        // the function's user data through it (a handler may remove its own route); a handler without a release
        // function has no owner, and nothing of it can be freed.
        let (status, value, text) = handler.callReturningStatus(record, rawContext)
        /// Releases the owner; the block goes back to this thread's state, found again only when `direct` could
        /// not hand it over.
        @inline(__always) func done() {
            handler.owner?.release()
            if let thread {
                thread._withUnsafeGuaranteedRef { $0.recycleMatchBlock(record, capacity: MatchRecord(record).capacity) }
            } else {
                freeCMatchBlock(record)
            }
        }
        if status >= 0 {
            done()
            return opened(value)
        }
        // A failure's message is read first: it may point into the match, whose block `done` gives back.
        let failure = CFunctionHandler.failure(status, text)
        done()
        return otherwise(.failed(failure))
    }

    /// What `direct` found, in plain values (no reference counting on the way out of the snapshot closure).
    private enum DirectStep {
        /// The match, in this thread's match block, and its C function with the function's owner retained; and
        /// this thread's state when its slot holds it (alive until the thread ends), for the block's return.
        case call(UnsafeMutableRawPointer, CFunctionHandler.Retained, Unmanaged<ThreadState>?)
        /// Anything else, for `openOther`.
        case other(DirectRest)
    }

    /// The opens `direct` leaves to the general path.
    private enum DirectRest {
        /// The match, and the snapshot retained: more to do than a C call, `decide` goes on from the record.
        case matched(UnsafeMutableRawPointer, Unmanaged<RouterState>)
        /// No route, and no unmatched handler.
        case unmatched
        /// `route` takes the open from the start.
        case route
    }

    /// A plain open whose route needs no guard and whose handler is a C function, done as `lr_router_resolve`
    /// plus the call: on the borrowed snapshot, the URL is routed into this thread's spare match block, which
    /// `openPlain` then calls the function on. No `Match`, `Routing` or `OpenResult` is made. It decides what
    /// `route` and `decide` would (no guard applies, the handler is the route's, else its target's); anything
    /// else is `matched` (guards, a Swift handler, no handler), `unmatched`, or `route`: logging on, global
    /// guards, no route with an unmatched handler to call, or an error, which `route` meets and reports again
    /// (a URL that fails or misses is routed twice: the uncommon case pays).
    @inline(__always)  // into openPlain's closure
    private static func direct(_ state: RouterState, _ thread: ThreadState, _ url: ByteSpan) -> DirectStep {
        let dispatch = state.dispatch
        guard dispatch.log.isOff, dispatch.globalGuards.isEmpty else { return .other(.route) }
        let found: UnsafeMutableRawPointer?
        let noExtras = UnsafeBufferPointer<QueryPair>(start: nil, count: 0)
        switch state.quickCMatchRecord(url, extras: noExtras, thread: thread) {
        case .matched(let m): found = m
        case .noMatch: found = nil
        case .general:
            do throws(RouterError) {
                found = try state.cMatchRecord(url, extras: noExtras, thread: thread)
            } catch {
                return .other(.route)
            }
        }
        guard let record = found else { return .other(dispatch.unmatched == nil ? .unmatched : .route) }
        let r = MatchRecord(record)
        if r.requiresCount == 0, let call = dispatch.cFunction(for: r) {
            return .call(record, call, thread.isSlotted ? .passUnretained(thread) : nil)
        }
        return .other(.matched(record, .passRetained(state)))
    }

    /// The rest of `openPlain`, out of its line: `decide` goes on from a match, or `route` from the start.
    @inline(never)
    private func openOther(_ rest: DirectRest, _ rawContext: UnsafeMutableRawPointer?,
                           _ request: () -> OpenRequest) -> OpenResult {
        var match: Match?
        switch rest {
        case .unmatched:
            return .unmatched
        case let .matched(record, retained):
            let state = retained.takeRetainedValue()
            let m = Match(MatchStorage.copy(of: MatchRecord(record)), rawContext: rawContext)
            freeCMatchBlock(record)
            let made = request()
            return keepingAlive { finish(made, decide(state, made, m, &match), &match) }
        case .route:
            let made = request()
            return keepingAlive { finish(made, route(made, &match), &match) }
        }
    }

    /// Runs what `routing` says and waits for its outcome.
    private func finish(_ request: OpenRequest, _ routing: Routing, _ match: inout Match?) -> OpenResult {
        let state: RouterState, work: Work
        switch routing {
        case .decided(let result):
            return result
        case let .handler(s, handler):
            if !request.hasExecutor {
                var result = OpenResult.unmatched
                // `match` is passed as it is, not unwrapped into a second reference: recycling needs the only one.
                if Router.runNow(handler, match, request, log: s.dispatch.log, into: &result) {
                    MatchStorage.recycle(&match)
                    return result
                }
            }
            (state, work) = (s, .handler(handler))
        case let .unmatched(s, handler):
            let url = UnmatchedURL(request)
            if !request.hasExecutor { return Router.runNow(handler, url, log: s.dispatch.log) }
            (state, work) = (s, .unmatched(handler, url))
        }
        let box = OpenResultBox()
        invoke(state, request, match, { box.set($0) }, work)
        return box.wait()
    }

    /// The Swift view of an outcome: "unmatched" is an error there.
    static func opened(_ result: OpenResult, _ url: String) throws -> Opened {
        switch result {
        case .opened(let opened): return opened
        case .pointer(let value): return .value(value)
        case .unmatched: throw RouterError(.notFound, "no route matches '\(excerpt(url))' and there is no unmatched handler")
        case .failed(let error): throw error
        }
    }

    /// Opens `request`: resolves it, runs its guards and calls its handler (on `request.executor` when given),
    /// waiting for the reply. Returns the handler's value, or `.deferred` when a guard parked the open.
    /// Throws the handler's error unchanged, `.denied`, `.timeout`, `.notFound` (no route and no unmatched
    /// handler, or a route without a handler), `.limit` (a full queue, a URL over a limit), `.invalidURL`.
    @discardableResult
    public func open(_ request: OpenRequest) throws -> Opened {
        try Router.opened(openResult(request), request.url)
    }

    /// `open(OpenRequest(url, extra:, context:, executor:, timeout:))`.
    @discardableResult
    public func open(_ url: String, extra: [String: any Sendable] = [:], context: (any Sendable)? = nil,
                     on executor: (any Executor)? = nil, timeout: Duration? = nil) throws -> Opened {
        try open(OpenRequest(url, extra: extra, context: context, executor: executor, timeout: timeout))
    }

    /// Opens without blocking: `completion` gets the outcome exactly once, from the thread that had it.
    public func open(_ request: OpenRequest, completion: @escaping @Sendable (Result<Opened, any Error>) -> Void) {
        let url = request.url
        start(request) { result in completion(Result { try Router.opened(result, url) }) }
    }

    /// Opens from async code, suspending (not blocking a thread) until the reply: the way to open URLs whose
    /// handlers are `async`, or run on an actor or queue the caller is on.
    @discardableResult
    public func open(_ request: OpenRequest) async throws -> Opened {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<OpenResult, Never>) in
            start(request) { continuation.resume(returning: $0) }
        }
        return try Router.opened(result, request.url)
    }

    /// `await open(OpenRequest(url, extra:, context:, executor:, timeout:))`.
    @discardableResult
    public func open(_ url: String, extra: [String: any Sendable] = [:], context: (any Sendable)? = nil,
                     on executor: (any Executor)? = nil, timeout: Duration? = nil) async throws -> Opened {
        try await open(OpenRequest(url, extra: extra, context: context, executor: executor, timeout: timeout))
    }

    // MARK: Deferred opens

    /// Replays the opens parked by `guardName`, in the order they were parked, each through the whole open path
    /// (a URL that no longer routes goes to the unmatched handler; one deferred again is parked again, after
    /// the others), and returns what each came to. Each replay is waited for before the next.
    @discardableResult
    public func resume(_ guardName: String) -> [ReplayedOpen] {
        var replayed: [ReplayedOpen] = []
        replay(guardName) { parked, result in
            replayed.append(ReplayedOpen(parked: parked, result: Result { try Router.opened(result, parked.url) }))
        }
        return replayed
    }

    /// `resume`, with each outcome as the open path gives it, told to `each` as soon as it is known, before the
    /// next replay (for the C ABI, whose callback reports each open as it completes). Returns how many.
    @discardableResult
    package func replay(_ guardName: String, each: (ParkedOpen, OpenResult) -> Void) -> Int {
        let entries = takeParked(guardName)
        snapshot().dispatch.log(.info, "resume \(guardName): replaying \(entries.count) parked open(s)")
        for parked in entries {
            snapshot().dispatch.log(.info, "replay \(parked.url) from \(guardName)")
            var request = parked.request
            request.isReplay = true
            each(parked, openResult(request))
        }
        return entries.count
    }

    private func takeParked(_ guardName: String) -> [ParkedOpen] {
        parked.withLock { queues in queues.removeValue(forKey: guardName) ?? [] }
    }

    /// The opens parked by `guardName`, in order.
    public func pending(_ guardName: String) -> [ParkedOpen] {
        parked.withLock { $0[guardName] ?? [] }
    }

    /// Discards the opens parked by `guardName` and returns them.
    @discardableResult
    public func dropPending(_ guardName: String) -> [ParkedOpen] {
        let dropped = takeParked(guardName)
        if !dropped.isEmpty { snapshot().dispatch.log(.info, "dropped \(dropped.count) parked open(s) from \(guardName)") }
        return dropped
    }
}

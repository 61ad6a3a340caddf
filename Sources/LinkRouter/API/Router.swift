import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A URL router: a table of route patterns and an ordered list of rewrite rules.
///
/// ```swift
/// let router = Router()
/// try router.add("app://user/:id", target: "UserPage")
/// if let match = try router.resolve("app://user/42?tab=posts") {
///     print(match.target, match.params["id"]!, match.params["tab"]!)   // UserPage 42 posts
/// }
/// ```
///
/// Thread safety: every method may be called from any number of threads at once, changes included. A change
/// builds a new snapshot while lookups go on reading the old one, then publishes it with one atomic swap;
/// a lookup never waits for a change and sees the table before or after it, never a mix.
public final class Router: Sendable {
    private static let nextID = Atomic<UInt64>(1)

    /// Identifies this router in the threads' snapshot caches (never reused, unlike an address).
    let id: UInt64
    /// The current snapshot and its generation, swapped under the lock; the lock is held only for the swap.
    private let published: Locked<(state: RouterState, generation: UInt64)>
    /// A copy of the current generation, read without the lock by every lookup.
    private let generation = Atomic<UInt64>(0)
    /// Owns the snapshots threads have cached of this router, so that they go when the router goes.
    package let snapshotHolder = SnapshotHolder()
    /// Serializes changes: each one reads the current snapshot, builds the next and publishes it. (It counts
    /// the changes, which nothing reads: a `Locked<Void>` trips a ThreadSanitizer false positive.)
    private let writer = Locked<Int>(0)
    /// The per-thread slot's key, read once here rather than from its static (a `swift_once` call) per lookup.
    private let threadKey = ThreadState.slotKey
    /// Opens deferred by guards, by guard name, in the order they were parked (see Dispatch/Router+Open.swift).
    let parked = Locked<[String: [ParkedOpen]]>([:])

    /// A router with no routes. A limit out of its range (`setLimits` throws for one) is brought to the nearest
    /// end of it: every size a lookup computes relies on those ranges.
    public init(limits: Limits = .default) {
        id = Router.nextID.add(1, ordering: .relaxed).newValue
        published = Locked((RouterState(table: .empty, rewrites: .empty, limits: limits.clamped()), 0))
    }

    deinit {
        snapshotHolder.close()  // every thread's cached snapshot goes now, not when the thread ends
    }

    // MARK: Snapshots

    /// Runs `body` on the current snapshot: from this thread's cache while the generation is unchanged.
    /// The cached case is written inline (a closure for `ThreadState.with` cost every lookup two calls and a
    /// thunk); the rest is `withStateUncached`.
    @inline(__always)
    package func withState<R>(_ body: (RouterState) -> R) -> R {
        if let (state, _) = cachedState() { return state._withUnsafeGuaranteedRef(body) }
        return withStateUncached(body)
    }

    /// `withState` that also hands `body` this thread's state, found once for both.
    @inline(__always)
    package func withState<R>(_ body: (RouterState, ThreadState) -> R) -> R {
        if let (state, thread) = cachedState() {
            return state._withUnsafeGuaranteedRef { s in thread._withUnsafeGuaranteedRef { body(s, $0) } }
        }
        return withStateUncached(body)
    }

    /// The current snapshot from this thread's cache and this thread's state, unretained (the thread's cache
    /// holds the snapshot while the router lives), or nil when this thread has not cached the current generation.
    @inline(__always)
    private func cachedState() -> (Unmanaged<RouterState>, Unmanaged<ThreadState>)? {
        guard let key = threadKey, let p = pthread_getspecific(key) else { return nil }
        let generation = generation.load(ordering: .acquiring)
        let thread = Unmanaged<ThreadState>.fromOpaque(p)
        return thread._withUnsafeGuaranteedRef { $0.cached(router: id, generation: generation) }.map { ($0, thread) }
    }

    /// `withState` when the current snapshot is not in this thread's cache: it is cached now (or, with no
    /// per-thread slot to be had, used uncached).
    @inline(never)
    private func withStateUncached<R>(_ body: (RouterState) -> R) -> R {
        withStateUncached { state, _ in body(state) }
    }

    @inline(never)
    private func withStateUncached<R>(_ body: (RouterState, ThreadState) -> R) -> R {
        let generation = generation.load(ordering: .acquiring)
        return ThreadState.with(key: threadKey) { thread in
            if let state = thread.cached(router: id, generation: generation) {
                return state._withUnsafeGuaranteedRef { body($0, thread) }
            }
            let (state, current) = published.withLock { ($0.state, $0.generation) }
            thread.store(router: id, generation: current, state: state, holder: snapshotHolder)
            return body(state, thread)
        }
    }

    /// Like `withState`, for a body that throws.
    @inline(__always)
    package func withState<R>(_ body: (RouterState) throws(RouterError) -> R) throws(RouterError) -> R {
        try withState { state -> Result<R, RouterError> in
            do throws(RouterError) { return .success(try body(state)) } catch { return .failure(error) }
        }.get()
    }

    /// Publishes `change(current)`; when `change` throws, nothing changes (all or none).
    /// The snapshot replaced is let go after the locks: when it is the last to hold a callback, its C release
    /// function runs then, and may call back into the router (`lr_router_add` from a release would otherwise
    /// wait for the lock its own thread holds).
    package func update(_ change: (RouterState) throws(RouterError) -> RouterState) throws(RouterError) {
        let replaced = try writer.withLock { changes throws(RouterError) -> RouterState in
            changes &+= 1
            let current = published.withLock { $0.state }
            let next = try change(current)
            let generation = published.withLock { slot -> UInt64 in
                slot = (next, slot.generation &+ 1)
                return slot.generation
            }
            self.generation.store(generation, ordering: .releasing)
            return current
        }
        withExtendedLifetime(replaced) {}
    }

    // MARK: Routes

    /// Adds a route. Throws `.pattern` (with the byte offset) for a malformed pattern and `.conflict`, naming
    /// the existing route, for a pattern that matches exactly the URLs of one already added.
    public func add(_ pattern: String, target: String, name: String? = nil, requires: [String] = [],
                    meta: [String: String] = [:]) throws(RouterError) {
        try add([(spec: RouteSpec(pattern, target: target, name: name, requires: requires, meta: meta), handler: nil)], single: true)
    }

    /// Adds routes all at once: when one is refused, none is added and the error names it. A conflict with an
    /// earlier route of the same batch names that one by its place ("route 1 of this batch ('...')").
    public func add(_ routes: [RouteSpec]) throws(RouterError) {
        try add(routes.map { (spec: $0, handler: nil) })
    }

    /// Adds routes, each with its handler when given, all at once (all or none). A refused route's error names it
    /// ("route <i>: ...", `index`), in a batch of one too; `single`: one route added by itself, whose error is
    /// its own.
    package func add(_ routes: [(spec: RouteSpec, handler: Handler?)], single: Bool = false) throws(RouterError) {
        try update { state throws(RouterError) in
            var handlers: [(Int, Handler)] = []
            let table = try state.table.updating { store throws(RouterError) in
                // Route i of the batch gets sequence first + i (a refused one ends the batch).
                let first = store.nextSequence
                for (i, route) in routes.enumerated() {
                    do throws(RouterError) {
                        let id = store.nextSequence
                        try Limits.checkStorable(route.spec)
                        try store.insert(route.spec, Pattern.parse(route.spec.pattern, limits: state.limits)) { sequence in
                            sequence >= first ? "route \(sequence - first) of this batch" : nil
                        }
                        if let handler = route.handler { handlers.append((id, handler)) }
                    } catch {
                        throw single ? error
                            : RouterError(error.code, "route \(i): \(error.message)", offset: error.offset, index: i)
                    }
                }
            }
            let dispatch = handlers.isEmpty ? nil : state.dispatch.with { for (id, h) in handlers { $0.byRoute[id] = h } }
            return state.with(table: table, dispatch: dispatch)
        }
    }

    /// Removes the route that `pattern` would conflict with; `.notFound` when there is none.
    public func remove(_ pattern: String) throws(RouterError) {
        try update { state throws(RouterError) in
            // A route added before `maxSegments` was lowered stays removable: the pattern may have as many
            // segments as the deepest route. One with more matches no route's URLs.
            var limits = state.limits
            limits.maxSegments = max(limits.maxSegments, state.table.maxDepth &+ 2)
            let parsed: Pattern
            var tooDeep = false
            do throws(RouterError) {
                parsed = try Pattern.parse(pattern, limits: limits, tooDeep: &tooDeep)
            } catch where tooDeep {
                throw .notFound("no route matches the URLs of pattern '\(excerpt(pattern))': it has more segments than any route")
            }
            var removed = -1
            let table = try state.table.updating { store throws(RouterError) in removed = try store.remove(parsed) }
            // The route's own handler goes with it.
            let dispatch = state.dispatch.byRoute[removed] == nil ? nil : state.dispatch.with { $0.byRoute[removed] = nil }
            return state.with(table: table, dispatch: dispatch)
        }
    }

    /// Removes every route and the routes' own handlers (rewrite rules, target handlers and guards stay).
    public func removeAll() {
        try? update { $0.with(table: $0.table.cleared, dispatch: $0.dispatch.with { $0.byRoute = [:] }) }
    }

    /// The routes, in the order they were added.
    public var routes: [RouteSpec] {
        withState { state in state.table.blobs.map(\.spec) }
    }

    /// The number of routes.
    public var count: Int { withState { $0.table.count } }

    /// Bytes held by the current table's storage.
    public var tableMemoryBytes: Int { withState { $0.table.memoryBytes } }

    // MARK: Limits

    public var limits: Limits { withState { $0.limits } }

    /// Replaces the limits; they apply to later calls. Throws `.misuse` for a value out of range.
    public func setLimits(_ limits: Limits) throws(RouterError) {
        try updateLimits { $0 = limits }
    }

    /// Changes the limits in place, atomically with respect to other changes (two threads setting different
    /// limits both keep their change). Throws `.misuse` for a value out of range, changing nothing.
    /// `change` runs with no lock held, so it may call this router (it ran under the writer's lock, and a change
    /// from inside it waited for that lock for good); when another change of the limits lands meanwhile, it runs
    /// again on the newer limits, so it may run more than once.
    public func updateLimits(_ change: (inout Limits) throws(RouterError) -> Void) throws(RouterError) {
        while true {
            let base = limits
            var next = base
            try change(&next)
            try next.checkRanges()
            var applied = false
            try update { state throws(RouterError) in
                guard state.limits == base else { return state }  // changed meanwhile: run `change` again
                applied = true
                return state.with(limits: next)
            }
            if applied { return }
        }
    }

    // MARK: Lookups

    /// Whether `url` (after rewriting) matches a route. Throws `.invalidURL` or `.limit` for bad input.
    public func canRoute(_ url: String) throws(RouterError) -> Bool {
        try url.withSpan { span throws(RouterError) in try canRoute(bytes: span) }
    }

    /// The match for `url` (after rewriting), or nil. `extra` parameters outrank path parameters, which
    /// outrank query parameters. Throws `.invalidURL` or `.limit` for bad input.
    public func resolve(_ url: String, extra: [String: String] = [:]) throws(RouterError) -> Match? {
        try url.withSpan { span throws(RouterError) in
            try resolve(bytes: span, extra: extra.isEmpty ? [] : extra.sorted { $0.key < $1.key })
        }
    }

    /// `resolve` on UTF-8 bytes (validated here), with extras in the order given.
    package func resolve(bytes url: ByteSpan, extra: [(key: String, value: String)]) throws(RouterError) -> Match? {
        // Without extras (the common call) there are no spans to make and no dictionary to keep: straight to the
        // record (40 ns of the GitHub set's 390 through the general path).
        if extra.isEmpty {
            return try withState { state throws(RouterError) in
                try MatchStorage.make(state, url, extras: UnsafeBufferPointer(start: nil, count: 0)).map { Match($0) }
            }
        }
        return try withExtraSpans(extra) { extras throws(RouterError) in
            try withState { state throws(RouterError) in
                try MatchStorage.make(state, url, extras: extras).map {
                    Match($0, extra: Dictionary(extra.map { ($0.key, $0.value as any Sendable) }, uniquingKeysWith: { $1 }))
                }
            }
        }
    }

    /// `canRoute` on UTF-8 bytes (validated here).
    package func canRoute(bytes url: ByteSpan) throws(RouterError) -> Bool {
        try withState { state throws(RouterError) in
            try state.withResolution(url, query: false) { $0 != nil }
        }
    }

    /// Resolves `url` (UTF-8 bytes, validated here) into a match record, with `extras` in the order given: the
    /// C ABI's `lr_match`, freed with `freeCMatchBlock`. nil for no match. The block is this
    /// thread's spare one when it is big enough (see `ThreadState`), else malloc's.
    /// `quick: false` when the caller has tried `quickRecord` already.
    package func resolveRecord(bytes url: ByteSpan, extras: UnsafeBufferPointer<QueryPair>,
                               quick: Bool = true) throws(RouterError) -> UnsafeMutableRawPointer? {
        // The quick lane first, whose outcome is a plain value; the general path (a Result through the closure)
        // for the rest, on the snapshot current then.
        if quick {
            switch quickRecord(start: url.start, count: url.count, extras: extras) {
            case .matched(let m): return m
            case .noMatch: return nil
            case .general: break
            }
        }
        return try withState { state, thread -> Result<UnsafeMutableRawPointer?, RouterError> in
            do throws(RouterError) {
                return .success(try state.cMatchRecord(url, extras: extras, thread: thread))
            } catch {
                return .failure(error)
            }
        }.get()
    }

    /// The quick lane of `resolveRecord` (`RouterState.quickCMatchRecord`) on the URL's `count` bytes at `start`;
    /// `.general` sends the caller to `resolveRecord(quick: false)`. A pointer and a count, not a `ByteSpan`:
    /// the C ABI calls it, and a `package` initializer is a call of its own from another module.
    package func quickRecord(start: UnsafePointer<UInt8>?, count: Int, extras: UnsafeBufferPointer<QueryPair>) -> QuickRecord {
        let url = ByteSpan(start: start, count: count)
        return withState { state, thread in state.quickCMatchRecord(url, extras: extras, thread: thread) }
    }

    /// Resolves `url` without allocating and calls `body` with a view of the match; nil when nothing matches
    /// (`body` is not called). The view must not escape `body`: it borrows the URL and stack memory.
    ///
    /// ```swift
    /// let id = try router.withMatch("app://user/42?tab=a") { $0["id"] }   // "42"
    /// ```
    @inlinable
    public func withMatch<R>(_ url: String, _ body: (MatchView) -> R) throws(RouterError) -> R? {
        // Generic only here, inlined into the caller; the work is in a non-generic function, so a caller in
        // another module runs specialized code.
        var result: R?
        try _withMatch(url) { result = body($0) }
        return result
    }

    @usableFromInline
    func _withMatch(_ url: String, _ body: (MatchView) -> Void) throws(RouterError) {
        // A native string's bytes are borrowed as they are; a bridged one is copied once.
        if let result = url.utf8.withContiguousStorageIfAvailable({ match(ByteSpan(start: $0.baseAddress, count: $0.count), body) }) {
            return try result.get()
        }
        var copy = url
        try copy.withUTF8 { match(ByteSpan(start: $0.baseAddress, count: $0.count), body) }.get()
    }

    /// `withMatch` on UTF-8 bytes (validated here; the length is checked before anything is sized from it).
    package func withMatch(bytes url: ByteSpan, _ body: (MatchView) -> Void) throws(RouterError) {
        try match(url, body).get()
    }

    private func match(_ span: ByteSpan, _ body: (MatchView) -> Void) -> Result<Void, RouterError> {
        withState { state -> Result<Void, RouterError> in
            // The view reads the snapshot, which this thread's cache holds only until its next store: a body that
            // calls the router after a change would let it go under the view. Held for the body, then.
            let held = Unmanaged.passRetained(state)
            defer { held.release() }
            do throws(RouterError) {
                try state.checkLength(span)  // before anything is sized from the length
                // Room for 32 parameters and a URL of 120 bytes stays on the stack (1 KiB each); more comes from
                // malloc, sized by what the first try asked for.
                var scratchSize = 8 * span.count + 64, capacity = 32
                for _ in 0..<ResolveAttempt<Void>.tries {
                    let attempt: ResolveAttempt<Void> = withTemporary(UInt8.self, capacity: scratchSize) { scratch in
                        withTemporary(QueryPair.self, capacity: capacity) { pairs -> ResolveAttempt<Void> in
                            var writer = ByteWriter(base: scratch, capacity: scratchSize)
                            var found = FlatMatch()
                            // The quick lane first; what it hands back starts again, in fresh scratch.
                            switch state.quickFlat(span, scratch: &writer, params: pairs, capacity: capacity, into: &found) {
                            case .matched(let blob):
                                body(MatchView(blob: blob, routed: found.routed,
                                               pairs: UnsafeBufferPointer(start: pairs, count: found.count),
                                               pathCount: found.pathCount))
                                return .done(())
                            case .noMatch:
                                return .done(())
                            case .general:
                                writer = ByteWriter(base: scratch, capacity: scratchSize)
                            }
                            switch state.resolveFlat(span, scratch: &writer, params: pairs, capacity: capacity, into: &found) {
                            case .failed(let error):
                                return .failed(error)
                            case .noMatch:
                                return .done(())
                            case let .needsMemory(needed, params):
                                return .retry(scratch: needed, values: 0, pairs: params)
                            case .matched(let blob):
                                body(MatchView(blob: blob, routed: found.routed,
                                               pairs: UnsafeBufferPointer(start: pairs, count: found.count),
                                               pathCount: found.pathCount))
                                return .done(())
                            }
                        } ?? .noMemory
                    } ?? .noMemory
                    switch attempt {
                    case .done: return .success(())
                    case .failed(let error): throw error
                    case .noMemory:
                        throw RouterError(.noMemory, "out of memory: \(scratchSize) bytes of scratch, \(capacity) parameters")
                    case let .retry(needed, _, params):
                        scratchSize = max(needed, scratchSize)
                        capacity = max(params, capacity)
                    }
                }
                throw ResolveAttempt<Void>.exhausted(span)
            } catch {
                return .failure(error)
            }
        }
    }

    /// The zero-allocation lookup (`RouterState.resolveFlat`) on the current snapshot. Non-generic, so that
    /// callers in other modules (the C ABI) run specialized code. The spans into the table stay valid while
    /// this thread's snapshot cache holds the snapshot: until its next call on any router.
    package func resolveFlat(_ url: ByteSpan, scratch: inout ByteWriter, params: UnsafeMutablePointer<QueryPair>?,
                             capacity: Int, into found: inout FlatMatch) -> FlatOutcome {
        withState { state in state.resolveFlat(url, scratch: &scratch, params: params, capacity: capacity, into: &found) }
    }

    /// The quick lane of `resolveFlat` (`RouterState.quickFlat`) on the current snapshot; `.general` sends the
    /// caller to `resolveFlat`. Its outcome holds no error, so it leaves the snapshot closure as a plain value.
    /// Raw arguments, and `found` written only when matched: from the C ABI's module every initializer of the
    /// core's types is a call, so the spans and the writer are made here.
    package func quickFlat(_ url: UnsafeRawPointer, _ count: Int, scratch: UnsafeMutableRawPointer?, scratchCapacity: Int,
                           params: UnsafeMutablePointer<QueryPair>?, capacity: Int,
                           into found: UnsafeMutablePointer<FlatMatch>) -> QuickMatch {
        let span = ByteSpan(start: url.assumingMemoryBound(to: UInt8.self), count: count)
        var writer = ByteWriter(base: scratch?.assumingMemoryBound(to: UInt8.self), capacity: scratchCapacity)
        return withState { state in
            state.quickFlat(span, scratch: &writer, params: params, capacity: capacity, into: found)
        }
    }

    /// The packed lookup (`RouterState.resolvePacked`) on the current snapshot.
    package func resolvePacked(_ url: ByteSpan, into out: inout ByteWriter) throws(RouterError) -> Bool {
        try withState { state throws(RouterError) in try state.resolvePacked(url, into: &out) }
    }

    // MARK: Rewrite rules

    /// Adds a rewrite rule (SPEC §5): `match` is a PCRE2 regex, `target` a template. A rule whose `match`
    /// exists already gets the new target in place. Throws `.regex` or `.pattern`, and `.limit` for a `match` or
    /// `target` longer than `Limits.maxRouteText`.
    public func addRewrite(_ match: String, target: String) throws(RouterError) {
        try update { state throws(RouterError) in
            state.with(rewrites: try state.rewrites.adding([(match: match, target: target)], limits: state.limits, single: true))
        }
    }

    /// Adds rewrite rules in order, all or none. A refused rule's error names it ("rewrite rule <i>: ...",
    /// `index`), in a batch of one too.
    public func addRewrites(_ rules: [(match: String, target: String)]) throws(RouterError) {
        try update { state throws(RouterError) in
            state.with(rewrites: try state.rewrites.adding(rules, limits: state.limits))
        }
    }

    /// Removes the rule whose regex is `match`; `.notFound` when there is none.
    public func removeRewrite(_ match: String) throws(RouterError) {
        try update { state throws(RouterError) in state.with(rewrites: try state.rewrites.removing(match)) }
    }

    /// Removes every rewrite rule.
    public func removeAllRewrites() {
        try? update { $0.with(rewrites: .empty) }
    }

    /// The rewrite rules in the order they are tried.
    public var rewriteRules: [(match: String, target: String)] { withState { $0.rewrites.rules } }

    /// `url` rewritten by the first matching rule, or nil when no rule matches.
    public func rewrite(_ url: String) throws(RouterError) -> String? {
        try url.withSpan { span throws(RouterError) in try rewrite(bytes: span) }
    }

    /// `rewrite` on UTF-8 bytes (validated here).
    package func rewrite(bytes url: ByteSpan) throws(RouterError) -> String? {
        try withState { state throws(RouterError) in
            try state.validate(url)
            return try state.withRewritten(url) { routed, fired in fired ? routed.string : nil }
        }
    }
}

/// The snapshots of one router that threads' caches point at (see `ThreadState`), owned here rather than by
/// the caches, so that freeing the router frees them.
///
/// A lookup reads its thread's cached snapshot with no lock and no reference counting; the cache therefore
/// needs something to keep that snapshot alive. When the caches owned their snapshots, a router the host had
/// freed stayed in memory, whole, in every thread that had used it — until the thread ended or used four other
/// routers: a long-lived thread pool that once touched a 100,000-route table kept it forever. Here each thread's
/// snapshot is held under the router's `SnapshotHolder`, keyed by the thread, and `close` (the router's deinit)
/// releases them all. The caches keep a reference to the holder alone, a few dozen bytes.
///
/// Who changes what: a thread replaces its own snapshot (`hold`) during a call on the router, and drops it when
/// its cache evicts the router or the thread ends (`drop`); the router's deinit closes the holder, which the
/// header's contract places after every call on the router has returned. All under one lock, off the lookup's
/// fast path (a thread takes it once per new snapshot it sees).
package final class SnapshotHolder: Sendable {
    private let held = Locked<(snapshots: [UInt64: RouterState], open: Bool)>(([:], true))

    package init() {}

    /// Holds `state` for thread `thread` in place of what it held before, which is handed back owned (+1), not
    /// released: the caller lets it go once its cache is consistent again, since releasing a snapshot may run a C
    /// release function that calls the library on this thread. `kept` is false once the router is gone (no call
    /// can then reach here; the caller then keeps nothing cached).
    func hold(_ state: RouterState, for thread: UInt64) -> (kept: Bool, replaced: Unmanaged<RouterState>?) {
        held.withLock { h -> (Bool, Unmanaged<RouterState>?) in
            guard h.open else { return (false, nil) }
            return (true, h.snapshots.updateValue(state, forKey: thread).map { .passRetained($0) })
        }
    }

    /// What thread `thread` held, no longer held: handed back owned (+1) for the caller to let go, as `hold`'s.
    /// Its cache no longer points at this router.
    func drop(thread: UInt64) -> Unmanaged<RouterState>? {
        held.withLock { $0.snapshots.removeValue(forKey: thread).map { .passRetained($0) } }
    }

    /// The router is gone: every thread's snapshot of it is released, now, on this thread.
    func close() {
        let all = held.withLock { h -> [UInt64: RouterState] in
            h.open = false
            defer { h.snapshots = [:] }
            return h.snapshots
        }
        withExtendedLifetime(all) {}
    }

    /// How many threads hold a snapshot (for tests).
    package var holders: Int { held.withLock { $0.snapshots.count } }
}

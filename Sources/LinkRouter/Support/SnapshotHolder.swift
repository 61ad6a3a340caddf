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

    /// Holds `state` for thread `thread` in place of what it held before. False once the router is gone (no
    /// call can then reach here; the caller then keeps nothing cached).
    func hold(_ state: RouterState, for thread: UInt64) -> Bool {
        let (kept, replaced) = held.withLock { h -> (Bool, RouterState?) in
            guard h.open else { return (false, nil) }
            return (true, h.snapshots.updateValue(state, forKey: thread))
        }
        withExtendedLifetime(replaced) {}  // the old snapshot is freed here, outside the lock
        return kept
    }

    /// Releases what thread `thread` held: its cache no longer points at this router.
    func drop(thread: UInt64) {
        let dropped = held.withLock { $0.snapshots.removeValue(forKey: thread) }
        withExtendedLifetime(dropped) {}
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

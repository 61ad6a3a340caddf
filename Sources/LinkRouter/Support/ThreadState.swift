import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What each thread keeps for itself: the snapshots it last read, the text of its last error, and its PCRE2
/// matching memory. One pthread key serves them all; its destructor frees them when the thread ends.
///
/// A lookup must not pay for a lock or for reference counting on the router's shared snapshot, so each thread
/// caches a pointer to the snapshot it last used, tagged with the router's generation. A lookup checks the
/// generation (one atomic load) and, while it is unchanged, reads the snapshot with no lock and no retain.
/// The cache keeps a few routers, so a thread alternating between two routers does not thrash. It does not own
/// the snapshots: each router's `SnapshotHolder` does, so that a freed router's memory is returned at once,
/// whatever threads have used it (the cache holds only the small holder).
package final class ThreadState {
    private struct Entry {
        var router: UInt64 = 0
        var generation: UInt64 = 0
        /// Kept alive by `holder` for as long as this entry names it.
        var state: Unmanaged<RouterState>?
        /// Retained while the entry is in use.
        var holder: Unmanaged<SnapshotHolder>?
    }

    private static let slots = 4
    private static let nextSerial = Atomic<UInt64>(1)
    /// This thread's key in the routers' holders (never reused).
    private let serial: UInt64
    /// Raw storage, not a `var` array: lookups then pay no dynamic exclusivity check.
    private let entries: UnsafeMutablePointer<Entry>
    private var nextVictim = 0
    /// Slots whose entry `store` is settling (a bit each; see `store`).
    private var pinned = 0
    private var error: UnsafeMutablePointer<CChar>
    private var errorCapacity = 256
    /// The byte offset the last error is about, in the pattern, template, regex or table text it quotes; -1: none.
    private var errorOffset = -1
    /// The thread's PCRE2 matching memory, which Regex.swift makes and uses (typed, so that taking it costs no
    /// dynamic cast on every rewrite).
    @exclusivity(unchecked) var regexScratch: RegexScratch?
    /// The last C match this thread freed, kept for its next one: a resolve and free in a loop then costs no
    /// malloc. Small blocks only (`spareMatchLimit`), one per thread.
    private var spareMatch: UnsafeMutableRawPointer?
    private var spareMatchCapacity = 0
    package static let spareMatchLimit = 4096
    /// The same for the Swift match of an open whose handler ran here (`MatchStorage.recycle`).
    private var spareStorage: MatchStorage?
    /// Held by this thread's slot, so alive until the thread ends (a state made without a slot is not): a
    /// caller on this thread may keep it unretained past the closure that gave it.
    private(set) var isSlotted = false

    private init() {
        serial = ThreadState.nextSerial.add(1, ordering: .relaxed).newValue
        entries = .allocate(capacity: ThreadState.slots)
        entries.initialize(repeating: Entry(), count: ThreadState.slots)
        error = .allocate(capacity: errorCapacity)
        error[0] = 0
    }

    deinit {
        for i in 0..<ThreadState.slots { take(i).letGo() }
        entries.deallocate()
        error.deallocate()
        free(spareMatch)
    }

    /// `takeMatchBlock`, its capacity stored at `capacity`: the allocator `cMatchRecord` and `quickCMatchRecord`
    /// pass on.
    @inline(__always)
    package func takeMatchBlock(_ size: Int, capacity: UnsafeMutablePointer<Int>) -> UnsafeMutableRawPointer? {
        guard let (block, bytes) = takeMatchBlock(size) else { return nil }
        capacity.pointee = bytes
        return block
    }

    /// A block of at least `size` bytes for a C match and its capacity: this state's spare when it is big
    /// enough, else malloc's (nil when malloc fails).
    @inline(__always)
    package func takeMatchBlock(_ size: Int) -> (block: UnsafeMutableRawPointer, capacity: Int)? {
        if let spare = spareMatch, spareMatchCapacity >= size {
            spareMatch = nil
            return (spare, spareMatchCapacity)
        }
        // At least 1 KiB, so that the spare this block becomes fits most matches after it.
        let capacity = max(size, 1024)
        return malloc(capacity).map { ($0, capacity) }
    }

    /// Keeps a freed C match's block as this thread's spare when there is room, else frees it.
    @inline(__always)
    package static func recycleMatchBlock(_ block: UnsafeMutableRawPointer, capacity: Int) {
        if withExisting({ $0.recycleMatchBlock(block, capacity: capacity) }) == nil { free(block) }
    }

    /// `recycleMatchBlock` into this state, which the caller has at hand (this thread's).
    @inline(__always)
    package func recycleMatchBlock(_ block: UnsafeMutableRawPointer, capacity: Int) {
        if !(capacity <= ThreadState.spareMatchLimit && keep(block, capacity: capacity)) { free(block) }
    }

    /// Keeps `block` as the spare unless the spare is at least as big: the bigger of the two is kept.
    @inline(__always)
    private func keep(_ block: UnsafeMutableRawPointer, capacity: Int) -> Bool {
        if let spare = spareMatch {
            if spareMatchCapacity >= capacity { return false }
            free(spare)
        }
        spareMatch = block
        spareMatchCapacity = capacity
        return true
    }

    /// This thread's spare match storage when it holds at least `size` bytes (it is this thread's no more).
    @inline(__always)
    static func takeSpareStorage(_ size: Int) -> MatchStorage? {
        withExisting { state -> MatchStorage? in
            guard let spare = state.spareStorage, spare.tailCapacity >= size else { return nil }
            state.spareStorage = nil
            return spare
        } ?? nil
    }

    /// Keeps `storage` (empty, and referenced from nowhere else) as this thread's spare.
    @inline(__always)
    static func keepSpareStorage(_ storage: MatchStorage) {
        withExisting { $0.spareStorage = storage }
    }

    /// Empties entry `i` and hands back what it held, owned, for the caller to let go (`letGo`): a snapshot and
    /// the router's holder.
    private func take(_ i: Int) -> Displaced {
        var taken = Displaced()
        if let holder = entries[i].holder {
            taken.snapshot = holder.takeUnretainedValue().drop(thread: serial)
            taken.holder = holder
        }
        entries[i] = Entry()
        return taken
    }

    /// What a cache change displaced, owned (+1 each): let go by `letGo`, once the cache is consistent.
    private struct Displaced {
        var snapshot: Unmanaged<RouterState>?
        var holder: Unmanaged<SnapshotHolder>?
        func letGo() {
            snapshot?.release()
            holder?.release()
        }
    }

    /// The snapshot cached for (router, generation), unretained; its router's holder keeps it until replaced.
    @inline(__always) func cached(router: UInt64, generation: UInt64) -> Unmanaged<RouterState>? {
        var i = 0
        while i < ThreadState.slots {
            if entries[i].router == router {
                return entries[i].generation == generation ? entries[i].state : nil
            }
            i &+= 1
        }
        return nil
    }

    /// Caches `state` as (router, generation), held by `holder`; the snapshot this thread held of that router
    /// before is let go, and so is a router evicted to make room. Letting a snapshot go may run C release
    /// functions, which may call the library on this thread, this cache included: so they run only once the entry
    /// is written, with its slot pinned, and a nested `store` neither evicts nor changes a pinned slot (it leaves
    /// its snapshot uncached instead; its caller holds it for the call). Otherwise a nested store could evict the
    /// entry being written, or leave it naming a snapshot that no holder keeps (use after free once another
    /// thread changed the router).
    func store(router: UInt64, generation: UInt64, state: RouterState, holder: SnapshotHolder) {
        var slot = -1
        for i in 0..<ThreadState.slots where entries[i].router == router { slot = i }
        if slot >= 0 && pinned & (1 &<< slot) != 0 { return }  // an outer store is settling this router's entry
        var evicted = Displaced()
        if slot < 0 {
            var looked = 0
            while pinned & (1 &<< nextVictim) != 0 {
                looked += 1
                if looked == ThreadState.slots { return }  // every slot is being settled: nothing cached
                nextVictim = (nextVictim + 1) % ThreadState.slots
            }
            slot = nextVictim
            nextVictim = (nextVictim + 1) % ThreadState.slots
            evicted = take(slot)
        }
        let (kept, replaced) = holder.hold(state, for: serial)
        var dropped = Displaced()
        if kept {
            if entries[slot].holder == nil { entries[slot].holder = .passRetained(holder) }
            entries[slot].router = router
            entries[slot].generation = generation
            entries[slot].state = .passUnretained(state)
        } else {
            dropped = take(slot)
        }
        // The entry is settled: now what it displaced may go.
        pinned |= 1 &<< slot
        Displaced(snapshot: replaced, holder: nil).letGo()
        evicted.letGo()
        dropped.letGo()
        pinned &= ~(1 &<< slot)
    }

    /// This thread's last error message (never NULL); valid until this thread's next failing call.
    package static var lastError: UnsafePointer<CChar> {
        guard key != nil else { return noThreadStorage.utf8Start.withMemoryRebound(to: CChar.self, capacity: 1) { $0 } }
        return with { UnsafePointer($0.error) }
    }

    /// The byte offset this thread's last error is about (`RouterError.offset`), -1 when it has none; it goes
    /// with `lastError`.
    package static var lastErrorOffset: Int {
        guard key != nil else { return -1 }
        return with { $0.errorOffset }
    }

    private static let noThreadStorage: StaticString = "error details unavailable: no thread-specific key left"

    /// Records this thread's last error: its message and, when it has one, the offset it is about. A NUL in the
    /// message is written as the six characters `\u0000`, as JSON writes it, so that a C reader gets the whole
    /// message, not the part before it. Input quoted through `excerpt` has its NULs written so already; this
    /// catches the rest (a table problem's JSON pointer naming a meta key that holds one, say).
    package func setError(_ message: String, offset: Int? = nil) {
        errorOffset = offset ?? -1
        let bytes = message.utf8
        var size = 1
        for b in bytes { size += b == 0 ? 6 : 1 }
        if size > errorCapacity {
            error.deallocate()
            errorCapacity = size
            error = .allocate(capacity: errorCapacity)
        }
        var i = 0
        for b in bytes {
            if b == 0 {
                for e in "\\u0000".utf8 {
                    error[i] = CChar(bitPattern: e)
                    i += 1
                }
            } else {
                error[i] = CChar(bitPattern: b)
                i += 1
            }
        }
        error[i] = 0
    }

    // MARK: Per-thread storage

    /// Key of the per-thread slot; its destructor releases the thread's state when the thread ends.
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key) { p in
            if let p { Unmanaged<ThreadState>.fromOpaque(p).release() }
        }
        guard rc == 0 else { return nil }
        madeSlotKey = key
        return key
    }()

    /// `key` once made, for `withExisting` (nil before that, or when no key could be made: there is then no
    /// state to find). A stored global with a constant initial value needs no lazy initialization, where each
    /// read of `key` is a `swift_once` call: this is read on every `lr_match_free`. Written once, inside `key`'s
    /// initializer, before any state or match block exists, so every reader is ordered after the write.
    nonisolated(unsafe) private static var madeSlotKey: pthread_key_t? = nil

    /// `body` with this thread's state if it has one (nil: none made yet, or no key), without making it: a spare
    /// block is only worth keeping for a thread that already has a state to keep it in. Borrowed, not retained:
    /// the thread's slot holds it for as long as the thread runs.
    @inline(__always)
    private static func withExisting<R>(_ body: (ThreadState) -> R) -> R? {
        guard let key = madeSlotKey, let p = pthread_getspecific(key) else { return nil }
        return Unmanaged<ThreadState>.fromOpaque(p)._withUnsafeGuaranteedRef(body)
    }

    /// The key of the per-thread slot (nil: none could be made), for callers that keep it (`Router.threadKey`):
    /// reading the static costs a `swift_once` call on every use.
    package static var slotKey: pthread_key_t? { key }

    /// Runs `body` with this thread's state, creating it on first use.
    @inline(__always)
    package static func with<R>(_ body: (ThreadState) -> R) -> R {
        with(key: key, body)
    }

    /// `with`, given the slot's key (`slotKey`).
    @inline(__always)
    package static func with<R>(key: pthread_key_t?, _ body: (ThreadState) -> R) -> R {
        guard let key else { return body(ThreadState()) }  // no key left: work uncached, nothing kept
        if let p = pthread_getspecific(key) {
            return Unmanaged<ThreadState>.fromOpaque(p)._withUnsafeGuaranteedRef(body)
        }
        let state = ThreadState()
        let unmanaged = Unmanaged.passRetained(state)
        if pthread_setspecific(key, unmanaged.toOpaque()) != 0 {
            unmanaged.release()
        } else {
            state.isSlotted = true
        }
        return body(state)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What each thread keeps for itself: the snapshots it last read, the text of its last error, and its PCRE2
/// matching memory. One pthread key serves them all; its destructor frees them when the thread ends.
///
/// A lookup must not pay for a lock or for reference counting on the router's shared snapshot, so each thread
/// holds a strong reference to the snapshot it last used, tagged with the router's generation. A lookup checks
/// the generation (one atomic load) and, while it is unchanged, reads the snapshot with no lock and no retain.
/// The cache keeps a few routers, so a thread alternating between two routers does not thrash.
package final class ThreadState {
    private struct Entry {
        var router: UInt64 = 0
        var generation: UInt64 = 0
        var state: Unmanaged<RouterState>?
    }

    private static let slots = 4
    /// Raw storage, not a `var` array: lookups then pay no dynamic exclusivity check.
    private let entries: UnsafeMutablePointer<Entry>
    private var nextVictim = 0
    private var error: UnsafeMutablePointer<CChar>
    private var errorCapacity = 256
    /// The thread's PCRE2 matching memory (a `RegexScratch`, which Regex.swift makes and uses).
    @exclusivity(unchecked) var regexScratch: AnyObject?

    private init() {
        entries = .allocate(capacity: ThreadState.slots)
        entries.initialize(repeating: Entry(), count: ThreadState.slots)
        error = .allocate(capacity: errorCapacity)
        error[0] = 0
    }

    deinit {
        for i in 0..<ThreadState.slots { entries[i].state?.release() }
        entries.deallocate()
        error.deallocate()
    }

    /// The snapshot cached for (router, generation), unretained; the cache holds it until replaced.
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

    func store(router: UInt64, generation: UInt64, state: RouterState) {
        var slot = -1
        for i in 0..<ThreadState.slots where entries[i].router == router { slot = i }
        if slot < 0 {
            slot = nextVictim
            nextVictim = (nextVictim + 1) % ThreadState.slots
        }
        let old = entries[slot].state
        entries[slot] = Entry(router: router, generation: generation, state: .passRetained(state))
        old?.release()
    }

    /// This thread's last error message (never NULL); valid until this thread's next failing call.
    package static var lastError: UnsafePointer<CChar> {
        guard key != nil else { return noThreadStorage.utf8Start.withMemoryRebound(to: CChar.self, capacity: 1) { $0 } }
        return with { UnsafePointer($0.error) }
    }

    private static let noThreadStorage: StaticString = "error details unavailable: no thread-specific key left"

    package func setError(_ message: String) {
        let bytes = message.utf8
        if bytes.count + 1 > errorCapacity {
            error.deallocate()
            errorCapacity = bytes.count + 1
            error = .allocate(capacity: errorCapacity)
        }
        var i = 0
        for b in bytes {
            error[i] = CChar(bitPattern: b)
            i += 1
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
        return rc == 0 ? key : nil
    }()

    /// Runs `body` with this thread's state, creating it on first use.
    @inline(__always)
    package static func with<R>(_ body: (ThreadState) -> R) -> R {
        guard let key else { return body(ThreadState()) }  // no key left: work uncached, nothing kept
        if let p = pthread_getspecific(key) {
            return Unmanaged<ThreadState>.fromOpaque(p)._withUnsafeGuaranteedRef(body)
        }
        let state = ThreadState()
        let unmanaged = Unmanaged.passRetained(state)
        if pthread_setspecific(key, unmanaged.toOpaque()) != 0 { unmanaged.release() }
        return body(state)
    }
}

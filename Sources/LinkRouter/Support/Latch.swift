#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value set once by one thread and awaited by another: a blocking `open` waits on one for its result.
/// pthread primitives, so ThreadSanitizer sees the hand-off.
final class Latch<Value: Sendable>: @unchecked Sendable {
    // SAFETY: `slot` and `isSet` are only touched between pthread_mutex_lock and pthread_mutex_unlock of `mutex`;
    // the pthread objects and the slot live at fixed heap addresses for the object's lifetime.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let cond: UnsafeMutablePointer<pthread_cond_t>
    /// The value, initialized once `isSet`. (A flag and a slot rather than an Optional: an enum's nil test may
    /// read payload bytes a set value never wrote, which memcheck reports although the branch does not use them.)
    private let slot: UnsafeMutablePointer<Value>
    private var isSet = false

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        cond = .allocate(capacity: 1)
        cond.initialize(to: pthread_cond_t())
        pthread_cond_init(cond, nil)
        slot = .allocate(capacity: 1)
    }

    deinit {
        if isSet { slot.deinitialize(count: 1) }
        slot.deallocate()
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    /// Sets the value (the first set wins) and wakes the waiter.
    func set(_ v: Value) {
        pthread_mutex_lock(mutex)
        if !isSet {
            slot.initialize(to: v)
            isSet = true
        }
        pthread_cond_broadcast(cond)
        pthread_mutex_unlock(mutex)
    }

    /// Waits until the value is set.
    func wait() -> Value {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !isSet { pthread_cond_wait(cond, mutex) }
        return slot.pointee
    }
}

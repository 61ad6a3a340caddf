#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value guarded by a pthread mutex.
///
/// Synchronization's `Mutex` would do, but ThreadSanitizer cannot see its futex-based hand-off and reports
/// false races; pthread mutexes are intercepted by every sanitizer, so the TSan jobs stay meaningful.
package final class Locked<Value>: @unchecked Sendable {
    // SAFETY: `value` is only touched between pthread_mutex_lock and pthread_mutex_unlock of `mutex`,
    // which lives at a fixed heap address for the object's lifetime.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always)
    package func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

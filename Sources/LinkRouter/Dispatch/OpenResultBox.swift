import Synchronization

/// Where a blocking `open` waits for its outcome. Most opens end before `start` returns (the handler ran on the
/// calling thread and replied at once): the outcome is then read back with one atomic load, no lock and no
/// latch. Only an open still pending when the caller starts waiting makes a `Latch` and sleeps on it.
final class OpenResultBox: @unchecked Sendable {
    // SAFETY: `result` is written once, by `set`, before `state` is released as `isSet`; it is read only after
    // `state` was acquired as `isSet`. `latch` is written by `wait` before it releases `state` as `waiting`, and
    // read by `set` only after acquiring that.
    private static let empty = 0, isSet = 1, waiting = 2
    private let state = Atomic<Int>(OpenResultBox.empty)
    // Both unchecked: the atomic orders every access (SAFETY above), and a dynamic exclusivity check costs more
    // than the rest of the box.
    /// A placeholder until set (an enum case, not an Optional: see Latch on memcheck and optionals).
    @exclusivity(unchecked) private var result: OpenResult = .unmatched
    @exclusivity(unchecked) private var latch: Latch<Bool>?

    /// Stores the outcome (once: `start` calls its `done` exactly once) and wakes a waiter, if any.
    func set(_ outcome: OpenResult) {
        result = outcome
        if state.exchange(OpenResultBox.isSet, ordering: .acquiringAndReleasing) == OpenResultBox.waiting {
            latch?.set(true)
        }
    }

    /// The outcome, waited for when it is not there yet.
    func wait() -> OpenResult {
        if state.load(ordering: .acquiring) == OpenResultBox.isSet { return result }
        let latch = Latch<Bool>()
        self.latch = latch
        if state.compareExchange(expected: OpenResultBox.empty, desired: OpenResultBox.waiting,
                                 ordering: .acquiringAndReleasing).exchanged {
            _ = latch.wait()
        }
        return result
    }
}

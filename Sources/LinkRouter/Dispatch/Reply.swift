import Synchronization

/// The answer a handler owes its `open`: completed exactly once, from any thread.
///
/// A second completion is refused (`.alreadyReplied`); a completion after the open stopped waiting is refused
/// too (`.timedOut`), and its value is dropped. The reply keeps the match alive until it is completed.
public final class Reply: Sendable {
    /// What became of a completion.
    public enum Status: Sendable, Equatable {
        /// The value or error reached the caller of `open`.
        case delivered
        /// The reply was completed before: this completion is refused.
        case alreadyReplied
        /// The open gave up waiting (its timeout passed): this completion is refused.
        case timedOut
    }

    // The state moves once, from pending to done or expired; whoever moves it calls `deliver`. An atomic, not a
    // lock: every open makes a reply, and most are completed at once on the thread that made them.
    private static let pending: UInt8 = 0, done: UInt8 = 1, expired: UInt8 = 2

    /// The match the handler was given (nil for the unmatched handler's).
    public let match: Match?
    private let state = Atomic<UInt8>(Reply.pending)
    // What `deliver` needs, held here rather than captured by a closure: one allocation less per open.
    private let url: String
    private let log: LogSink
    /// Told the outcome once, by whoever moves the state off pending.
    private let done: @Sendable (OpenResult) -> Void
    /// Run once if the reply expires (`whenExpired`): the C ABI's table of replies then lets go of it.
    private let onExpire = Locked<(@Sendable () -> Void)?>(nil)

    init(_ match: Match?, url: String, log: LogSink, done: @escaping @Sendable (OpenResult) -> Void) {
        self.match = match
        self.url = url
        self.log = log
        self.done = done
    }

    private func deliver(_ result: Result<(any Sendable)?, any Error>) {
        switch result {
        case .success(let value): done(Reply.handled(value, url: url, log: log))
        case .failure(let error): done(Reply.failed(error, url: url, log: log))
        }
    }

    /// What a handler's value makes of its open, logged.
    static func handled(_ value: (any Sendable)?, url: @autoclosure () -> String, log: LogSink) -> OpenResult {
        log(.debug, "open \(url()): handled")
        return .opened(.value(value))
    }

    /// What a handler's error makes of its open, logged.
    static func failed(_ error: any Error, url: @autoclosure () -> String, log: LogSink) -> OpenResult {
        log(.error, "open \(url()): the handler failed: \(error)")
        return .failed(error)
    }

    /// A reply dropped without an answer ends its open at once, instead of at the timeout.
    deinit {
        if state.load(ordering: .acquiring) == Reply.pending {
            complete(.failure(RouterError(.handler, "the handler dropped its reply without answering")))
        }
    }

    /// Completes the open with `value`.
    @discardableResult public func send(_ value: (any Sendable)?) -> Status { complete(.success(value)) }

    /// Completes the open with `error`, which reaches the caller of `open` unchanged.
    @discardableResult public func fail(_ error: any Error) -> Status { complete(.failure(error)) }

    /// Whether the reply was completed (or expired).
    public var isDone: Bool { state.load(ordering: .acquiring) != Reply.pending }

    /// Whether the open stopped waiting (its timeout passed) before the reply was completed.
    package var hasExpired: Bool { state.load(ordering: .acquiring) == Reply.expired }

    @discardableResult package func complete(_ result: Result<(any Sendable)?, any Error>) -> Status {
        let (moved, was) = state.compareExchange(expected: Reply.pending, desired: Reply.done, ordering: .acquiringAndReleasing)
        guard moved else { return was == Reply.done ? .alreadyReplied : .timedOut }
        deliver(result)  // no lock held: the caller may open again from here
        return .delivered
    }

    /// Gives up waiting: the open fails with `error`, logged as a warning, unless the reply came first. True
    /// when it expired now.
    @discardableResult func expire(_ error: RouterError) -> Bool {
        guard state.compareExchange(expected: Reply.pending, desired: Reply.expired, ordering: .acquiringAndReleasing).exchanged else {
            return false
        }
        // Taken after the state moved, under the lock `whenExpired` checks the state under: the hook runs once,
        // here or there.
        let hook = onExpire.withLock { hook in
            defer { hook = nil }
            return hook
        }
        // Logged as itself (a warning), not as a failed handler (`deliver` would), and before the open learns
        // of it, so that its caller finds the line logged.
        log(.warning, error.message)
        done(.failed(error))
        hook?()
        return true
    }

    /// Calls `body` once if the reply expires: later, or now when it has expired already; never when it is
    /// completed. (One body: a second call replaces the first.)
    package func whenExpired(_ body: @escaping @Sendable () -> Void) {
        let expired = onExpire.withLock { hook -> Bool in
            if state.load(ordering: .acquiring) == Reply.expired { return true }
            hook = body
            return false
        }
        if expired { body() }
    }
}

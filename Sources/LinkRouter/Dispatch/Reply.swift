#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

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

    private enum State { case pending, done, expired }
    typealias Deliver = @Sendable (Result<(any Sendable)?, any Error>) -> Void

    /// The match the handler was given (nil for the unmatched handler's).
    public let match: Match?
    /// The state, and whom to tell while pending.
    private let slot: Locked<(state: State, deliver: Deliver?)>

    init(_ match: Match?, deliver: @escaping Deliver) {
        self.match = match
        slot = Locked((.pending, deliver))
    }

    /// A reply dropped without an answer ends its open at once, instead of at the timeout.
    deinit {
        complete(.failure(RouterError(.handler, "the handler dropped its reply without answering")))
    }

    /// Completes the open with `value`.
    @discardableResult public func send(_ value: (any Sendable)?) -> Status { complete(.success(value)) }

    /// Completes the open with `error`, which reaches the caller of `open` unchanged.
    @discardableResult public func fail(_ error: any Error) -> Status { complete(.failure(error)) }

    /// Whether the reply was completed (or expired).
    public var isDone: Bool { slot.withLock { $0.state != .pending } }

    @discardableResult package func complete(_ result: Result<(any Sendable)?, any Error>) -> Status {
        let (status, deliver) = slot.withLock { slot -> (Status, Deliver?) in
            switch slot.state {
            case .pending:
                let deliver = slot.deliver
                slot = (.done, nil)
                return (.delivered, deliver)
            case .done: return (.alreadyReplied, nil)
            case .expired: return (.timedOut, nil)
            }
        }
        deliver?(result)  // outside the lock: the caller may open again from here
        return status
    }

    /// Gives up waiting: the open fails with `error` unless the reply came first. True when it expired now.
    @discardableResult func expire(_ error: RouterError) -> Bool {
        let deliver = slot.withLock { slot -> Deliver? in
            guard slot.state == .pending else { return nil }
            let deliver = slot.deliver
            slot = (.expired, nil)
            return deliver
        }
        deliver?(.failure(error))
        return deliver != nil
    }
}

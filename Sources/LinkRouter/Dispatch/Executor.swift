import Dispatch

/// Where a handler runs. `open` calls `execute` with the handler's work and waits for its reply, wherever the
/// work runs; without an executor the handler runs on the thread that called `open`.
///
/// A `DispatchQueue` is one (URLMediator's "the queue the caller chooses"). Blocking `open` on a serial queue
/// from a closure already running on that queue would wait for itself until the timeout: use `await open`
/// or another queue there.
public protocol Executor: Sendable {
    func execute(_ work: @escaping @Sendable () -> Void)
}

extension DispatchQueue: Executor {
    public func execute(_ work: @escaping @Sendable () -> Void) {
        async(execute: work)
    }
}

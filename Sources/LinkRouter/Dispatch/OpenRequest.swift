/// Everything an `open` was asked, kept whole so that a deferred open is replayed as it came.
public struct OpenRequest: Sendable {
    /// The URL as given.
    public var url: String {
        get { borrowedURL?.string ?? ownedURL }
        set {
            ownedURL = newValue
            borrowedURL = nil
        }
    }
    private var ownedURL: String
    /// A C caller's URL bytes, borrowed for the blocking call that made this request (`lr_router_open`): its
    /// String is made only if something needs one (a log line, the unmatched handler, an error), so a plain
    /// open makes none. Whatever outlives the call takes `owned` (a parked open).
    nonisolated(unsafe) package var borrowedURL: ByteSpan?
    /// Extra parameters (any values; those that are strings also take part in `Match.params`).
    public var extra: [String: any Sendable]
    /// The caller's context, handed to guards and the handler as it is.
    public var context: (any Sendable)?
    /// Where the handler runs; nil: on the thread that opens.
    public var executor: (any Executor)?
    /// How long to wait for the handler's reply; nil: the router's `Limits.replyTimeoutMilliseconds`.
    public var timeout: Duration?
    /// The C caller's context pointer, beside `context` (which holds it boxed for Swift code): C callbacks read
    /// it back from here without a cast.
    nonisolated(unsafe) package var rawContext: UnsafeMutableRawPointer?

    /// This request with a URL of its own: what may outlive the call that made it.
    package var owned: OpenRequest {
        guard let borrowed = borrowedURL else { return self }
        var copy = self
        copy.ownedURL = borrowed.string
        copy.borrowedURL = nil
        return copy
    }

    /// `body` over the URL's UTF-8 bytes, without making a String.
    package func withURLBytes<R>(_ body: (ByteSpan) throws(RouterError) -> R) throws(RouterError) -> R {
        if let borrowed = borrowedURL { return try body(borrowed) }
        return try ownedURL.withSpan(body)
    }

    /// Whether an executor was given, without copying it out.
    var hasExecutor: Bool {
        if case .none = executor { return false }
        return true
    }

    public init(_ url: String, extra: [String: any Sendable] = [:], context: (any Sendable)? = nil,
                executor: (any Executor)? = nil, timeout: Duration? = nil) {
        self.ownedURL = url
        self.extra = extra
        self.context = context
        self.executor = executor
        self.timeout = timeout
    }
}

/// What an open came to, when it did not fail.
public enum Opened: Sendable {
    /// The handler's value (or the unmatched handler's): nil for a handler that returns nothing.
    case value((any Sendable)?)
    /// A guard deferred the URL: it waits in that guard's queue for `Router.resume(_:)`.
    case deferred(guard: String)

    /// The value, nil when deferred.
    public var value: (any Sendable)? {
        if case .value(let v) = self { return v }
        return nil
    }

    public var isDeferred: Bool {
        if case .deferred = self { return true }
        return false
    }
}

/// An open parked by a guard, as `Router.pending(_:)` lists it.
public struct ParkedOpen: Sendable {
    public let request: OpenRequest
    /// The guard that deferred it.
    public let guardName: String
    public var url: String { request.url }
    public var extra: [String: any Sendable] { request.extra }
    public var context: (any Sendable)? { request.context }
}

/// One replayed open of `Router.resume(_:)`: the parked open and what it came to this time.
public struct ReplayedOpen: Sendable {
    public let parked: ParkedOpen
    public let result: Result<Opened, any Error>
}

/// How the one open path ends, for every front end (Swift, C, Python through C).
package enum OpenResult: Sendable {
    case opened(Opened)
    /// No route, and no unmatched handler.
    case unmatched
    case failed(any Error)
}

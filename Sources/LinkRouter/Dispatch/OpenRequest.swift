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
    /// Extra parameters (any values; those that are strings also take part in `Match.params`, in the order of
    /// their names: a dictionary has no order of its own).
    public var extra: [String: any Sendable] {
        get { options?.fields.extra ?? [:] }
        set {
            change {
                $0.extra = newValue
                $0.extraOrder = []
            }
        }
    }
    /// The extras' names in the order the caller gave them (the C ABI's arrays, which Python's dicts fill), each
    /// once; empty for a dictionary. They take part in the parameters in this order, as `lr_router_resolve_with`
    /// gives them.
    package var extraOrder: [String] { options?.fields.extraOrder ?? [] }

    /// Sets the extras from `pairs`, in order: a repeated name keeps its first place and takes its last value.
    package mutating func setExtra(inOrder pairs: [(name: String, value: String)]) {
        change { f in
            var extra: [String: any Sendable] = [:], order: [String] = []
            for (name, value) in pairs where extra.updateValue(value, forKey: name) == nil { order.append(name) }
            f.extra = extra
            f.extraOrder = order
        }
    }
    /// The caller's context, handed to guards and the handler as it is.
    public var context: (any Sendable)? {
        get { options?.fields.context }
        set { change { $0.context = newValue } }
    }
    /// Where the handler runs; nil: on the thread that opens.
    public var executor: (any Executor)? {
        get { options?.fields.executor }
        set { change { $0.executor = newValue } }
    }
    /// How long to wait for the handler's reply; nil: the router's `Limits.replyTimeoutMilliseconds`.
    public var timeout: Duration? {
        get { options?.fields.timeout }
        set { change { $0.timeout = newValue } }
    }

    private struct Fields {
        var extra: [String: any Sendable] = [:]
        var extraOrder: [String] = []
        var context: (any Sendable)?
        var executor: (any Executor)?
        var timeout: Duration?

        var isEmpty: Bool { extra.isEmpty && context == nil && executor == nil && timeout == nil }
    }

    /// Extras, context, executor and timeout, in one box that a plain open (C's `lr_router_open` without
    /// options, Swift's `open(url)`) leaves nil: such an open then copies and checks one word for them instead
    /// of four existential values. Immutable, so a copied request never sees another's change.
    private final class Options: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }
    private var options: Options?

    /// Sets `options` from `fields`: nil when they hold nothing.
    private mutating func set(_ fields: Fields) {
        options = fields.isEmpty ? nil : Options(fields)
    }

    private mutating func change(_ body: (inout Fields) -> Void) {
        var f = options?.fields ?? Fields()
        body(&f)
        set(f)
    }

    /// A parked open being replayed by `resume`: deferred again, it is parked again even in a full queue (it was
    /// admitted once, and nothing already parked is lost).
    package var isReplay = false

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
        guard let options, case .some = options.fields.executor else { return false }
        return true
    }

    /// Whether the request has extras or a Swift context (a plain open has neither).
    var hasOptions: Bool { options != nil }

    /// A request for a C caller's URL bytes, borrowed (see `borrowedURL`), with nothing else yet.
    package init(borrowing url: ByteSpan) {
        ownedURL = ""
        borrowedURL = url
    }

    public init(_ url: String, extra: [String: any Sendable] = [:], context: (any Sendable)? = nil,
                executor: (any Executor)? = nil, timeout: Duration? = nil) {
        self.ownedURL = url
        set(Fields(extra: extra, context: context, executor: executor, timeout: timeout))
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
    /// A C handler's result, as it came (for Swift, `.opened(.value(CPointer))`): the C skin reads it back
    /// without a cast.
    case pointer(CPointer)
    /// No route, and no unmatched handler.
    case unmatched
    case failed(any Error)
}

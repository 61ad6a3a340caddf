/// What runs when a URL is opened: bound to a route (`Router.handle(_:)`) or to a target
/// (`Router.handle(target:)`), it receives the `Match` and gives the value `open` returns.
///
/// Three kinds, as FFRouter has them:
/// - `.sync`: returns a value (or nothing: "fire and forget" is a sync handler returning nil) or throws;
/// - `.callback`: completes its `Reply` exactly once, now or later, from any thread (FFRouter's
///   `targetCallback`); a reply that never comes ends the open with a timeout;
/// - `.task`: an `async` function, run in a new task.
/// (A fourth, `.c`, is the C ABI's synchronous handler, called without boxing its answer.)
/// An error a handler throws reaches the caller of `open` unchanged.
public struct Handler: Sendable {
    enum Body: Sendable {
        case sync(@Sendable (Match) throws -> (any Sendable)?)
        case callback(@Sendable (Match, Reply) -> Void)
        case task(@Sendable (Match) async throws -> (any Sendable)?)
        /// A C function (`lr_handler.call`): synchronous, answering a pointer or a status.
        case c(CFunctionHandler)
    }

    let body: Body

    public static func sync(_ body: @escaping @Sendable (Match) throws -> (any Sendable)?) -> Handler {
        Handler(body: .sync(body))
    }

    public static func callback(_ body: @escaping @Sendable (Match, Reply) -> Void) -> Handler {
        Handler(body: .callback(body))
    }

    public static func task(_ body: @escaping @Sendable (Match) async throws -> (any Sendable)?) -> Handler {
        Handler(body: .task(body))
    }

    /// A synchronous C handler (the C ABI's `lr_handler.call`).
    package static func c(_ function: CFunctionHandler) -> Handler {
        Handler(body: .c(function))
    }

    /// Starts the handler for `match`; it completes `reply` (at once for `.sync`).
    func run(_ match: Match, _ reply: Reply) {
        switch body {
        case .sync(let f):
            do {
                reply.complete(.success(try f(match)))
            } catch {
                reply.complete(.failure(error))
            }
        case .c(let f):
            switch f.call(match.recordBase, match.rawContext) {
            case .success(let value): reply.complete(.success(value))
            case .failure(let error): reply.complete(.failure(error))
            }
        case .callback(let f):
            f(match, reply)
        case .task(let f):
            Task {
                do {
                    reply.complete(.success(try await f(match)))
                } catch {
                    reply.complete(.failure(error))
                }
            }
        }
    }
}

/// The handler `open` calls for a URL that no route matches (FFRouter's unregistered-URL handler). Per-scheme
/// fallbacks ("every https URL goes to the web page") are ordinary `https://*` routes instead.
public struct UnmatchedHandler: Sendable {
    let body: @Sendable (UnmatchedURL) throws -> (any Sendable)?

    public init(_ body: @escaping @Sendable (UnmatchedURL) throws -> (any Sendable)?) {
        self.body = body
    }
}

/// A URL no route matched, as the unmatched handler receives it.
public struct UnmatchedURL: Sendable {
    /// The URL as given to `open`.
    public let url: String
    public let extra: [String: any Sendable]
    public let context: (any Sendable)?
    /// The C caller's context pointer (see `OpenRequest.rawContext`).
    nonisolated(unsafe) package let rawContext: UnsafeMutableRawPointer?

    init(_ request: OpenRequest) {
        url = request.url
        extra = request.extra
        context = request.context
        rawContext = request.rawContext
    }
}

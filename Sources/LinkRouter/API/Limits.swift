/// The bounds every call respects, so that hostile input costs bounded time and memory.
///
/// A URL or pattern that exceeds one is refused with `RouterError.Code.limit` and a message naming the limit.
public struct Limits: Sendable, Equatable {
    /// Longest URL accepted, in bytes (also bounds a rewritten URL).
    public var maxURLLength: Int = 65_536
    /// Most path segments (host included) in a URL or a pattern.
    public var maxSegments: Int = 1_024
    /// Most query pairs in a URL.
    public var maxParams: Int = 1_024
    /// Deepest bracket nesting in a query key (`a[b][c]` is 2); deeper keys stay flat, as written.
    public var maxNestingDepth: Int = 32
    /// PCRE2 match limit for a rewrite regex (backtracking steps per URL and rule).
    public var regexMatchLimit: Int = 10_000
    /// PCRE2 depth limit for a rewrite regex (nested backtracking). PCRE2's JIT does not apply it: JIT-compiled
    /// regexes are bounded by a 1 MiB JIT stack per thread instead.
    public var regexDepthLimit: Int = 1_000
    /// A rewrite regex is tried at start offsets up to this byte only (PCRE2's offset limit): the match limit
    /// bounds the work at one start offset, this bounds the number of offsets, so a search costs at most
    /// `regexStartLimit × regexMatchLimit` steps (about 40 ms here for an adversarial URL and regex).
    public var regexStartLimit: Int = 1_024
    /// Most opens one guard's queue holds (deferred opens waiting for `Router.resume`). An open deferred when
    /// its guard's queue is full fails with `.limit` (and a warning in the log): nothing already parked is lost.
    public var maxPending: Int = 64
    /// How long `open` waits for a handler's reply when the caller sets no timeout, in milliseconds.
    public var replyTimeoutMilliseconds: Int = 10_000

    public init() {}

    public static let `default` = Limits()
}

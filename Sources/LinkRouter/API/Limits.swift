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
    /// Deepest bracket nesting in a query key (`a[b][c]` is 2); deeper keys stay flat, as written. At most 256.
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

    // MARK: Ranges

    /// The values each limit may be set to. Every size a lookup computes is bounded by these maxima (a URL of at
    /// most 1 GiB, 2^20 segments, 2^24 query pairs), and every recursion by `maxNestingDepth`'s.
    package static var ranges: [(name: String, path: WritableKeyPath<Limits, Int>, range: ClosedRange<Int>)] { [
        ("maxURLLength", \.maxURLLength, 1...(1 << 30)),
        ("maxSegments", \.maxSegments, 1...(1 << 20)),
        ("maxParams", \.maxParams, 1...maxParamsCeiling),
        ("maxNestingDepth", \.maxNestingDepth, 0...maxNestingCeiling),
        ("regexMatchLimit", \.regexMatchLimit, 1...Int(UInt32.max)),
        ("regexDepthLimit", \.regexDepthLimit, 1...Int(UInt32.max)),
        ("regexStartLimit", \.regexStartLimit, 0...(1 << 30)),
        ("maxPending", \.maxPending, 0...(1 << 20)),
        ("replyTimeoutMilliseconds", \.replyTimeoutMilliseconds, 1...Int(Int32.max)),
    ] }

    /// The largest value `maxNestingDepth` may be set to. The query tree is built, read, written as JSON and freed
    /// with loops, but the `ParamValue` it produces is a nested enum whose copy, comparison and destruction recurse,
    /// a few frames per level: 256 levels stay far inside a secondary thread's 512 KiB stack, even in a debug build
    /// under ASan (they fit in 128 KiB there; ExtremesTests and Tests/C/test_extremes.c check on such a thread).
    package static var maxNestingCeiling: Int { 256 }

    /// The largest value `maxParams` may be set to: no lookup returns more query pairs.
    package static var maxParamsCeiling: Int { 1 << 24 }

    /// These limits with each one brought into its range (`Router(limits:)`, which cannot throw, takes them so).
    package func clamped() -> Limits {
        var out = self
        for (_, path, range) in Limits.ranges { out[keyPath: path] = min(max(out[keyPath: path], range.lowerBound), range.upperBound) }
        return out
    }

    /// Throws `.misuse` naming the first limit out of its range.
    package func checkRanges() throws(RouterError) {
        for (name, path, range) in Limits.ranges where !range.contains(self[keyPath: path]) {
            throw .misuse("limit \(name) = \(self[keyPath: path]) is out of range \(range.lowerBound)...\(range.upperBound)")
        }
    }

    // MARK: What a route may store

    /// Longest pattern, target, name or metadata a route may have, in bytes (64 MiB). Fixed, not a setting: it
    /// keeps every length and offset of a stored route far inside 32 bits.
    public static let maxRouteText = 1 << 26
    /// Most parameters (`:name` and `*name`) in one pattern. Fixed: the table stores the count in 16 bits.
    public static let maxRouteParams = 65_535

    /// Throws `.limit` when one of the route's strings is longer than `maxRouteText`. Called before the route
    /// is parsed or stored, so nothing is sized from a string that is refused.
    package static func checkStorable(_ route: RouteSpec) throws(RouterError) {
        func check(_ what: String, _ text: String?) throws(RouterError) {
            guard let count = text?.utf8.count, count > maxRouteText else { return }
            throw .limit("route \(what) of \(count) bytes is longer than maxRouteText (\(maxRouteText) bytes)")
        }
        try check("pattern", route.pattern)
        try check("target", route.target)
        try check("name", route.name)
        for guardName in route.requires { try check("guard name", guardName) }
        for (key, value) in route.meta {
            try check("meta key", key)
            try check("meta value", value)
        }
    }

    /// Throws `.limit` when a rewrite rule's regex or target is longer than `maxRouteText`, as a route's strings
    /// are bounded (the template stores its offsets in 32 bits). Called before the rule is compiled or parsed.
    package static func checkStorableRewrite(match: String, target: String) throws(RouterError) {
        for (what, text) in [("match", match), ("target", target)] {
            if text.utf8.count > maxRouteText {
                throw .limit("rewrite \(what) of \(text.utf8.count) bytes is longer than maxRouteText (\(maxRouteText) bytes)")
            }
            try RouteSpec.refuseNUL(text, "rewrite \(what) '\(excerpt(text))'")
        }
    }
}

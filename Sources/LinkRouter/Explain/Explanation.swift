/// Why a URL routes where it does, or nowhere: what `Router.explain` returns, for a developer asking "why
/// didn't my link open". `json` and `text` render it.
///
/// It is computed by `ExplainWalker`, a slow matcher of its own (each route checked against the URL's match
/// sequence, the best by precedence), not by the lookup path; a test holds the two to the same answers.
public struct Explanation: Sendable, Equatable {
    public enum Result: String, Sendable {
        case matched, nomatch, error
    }

    /// One rewrite rule, in the order rules are tried.
    public struct Rule: Sendable, Equatable {
        public enum Outcome: String, Sendable {
            /// Its regex was found in the URL: it rewrote the URL.
            case fired
            /// Its regex was not found in the URL.
            case noMatch = "no_match"
            /// Not tried: an earlier rule fired.
            case notTried = "not_tried"
            /// Not run: the rule index left it out for this URL (`indexed` is false: the URL lacks a literal every
            /// match of the regex contains), so it cannot match; the lookup does not run it either.
            case skipped
            /// Its regex failed (a PCRE2 match or depth limit): the lookup fails the same way (`error`). It is the
            /// last rule listed; the rules after it were not tried.
            case error
        }

        public let index: Int
        public let match: String
        public let target: String
        public let outcome: Outcome
        /// Whether the rule index picks the rule for this URL (when false, the lookup never runs its regex: the
        /// URL lacks a literal every match of it contains).
        public let indexed: Bool
    }

    /// One route whose scheme fits the URL, and its verdict.
    public struct Candidate: Sendable, Equatable {
        public let route: RouteSpec
        public let matched: Bool
        /// Why it matched or not: "matched", "matches, but ... comes first (...)", or the first difference.
        public let reason: String
        /// How many elements of the match sequence it accepted before its verdict.
        public let elementsMatched: Int
    }

    /// The URL as given.
    public let url: String
    public let result: Result
    /// Why the URL was refused (`result == .error`): not absolute, too long, a regex limit...
    public let error: RouterError?
    /// The rewrite rules in order, each with its outcome: all of them, unless one failed (`.error`, the last
    /// listed) or the URL was refused before the rules were tried (none listed).
    public let rules: [Rule]
    /// The URL that was matched: rewritten by the rule that fired, else `url`.
    public let routed: String
    /// The match sequence: the host (when the URL has one) and the non-empty path segments, decoded.
    public let sequence: [String]
    /// Routes whose scheme fits, most relevant first: the winner, other routes that match (outranked), then the
    /// rest by how far they got. At most the `limit` given to `explain`.
    public let candidates: [Candidate]
    /// Candidates left out of `candidates` by the limit.
    public let candidatesOmitted: Int
    /// Routes not considered because their scheme is another one.
    public let otherSchemeRoutes: Int
    /// The winning route.
    public let route: RouteSpec?
    /// The merged parameters of the match (extra > path > query), in the order `Match.orderedParams` gives.
    public let params: [Match.Param]
    /// The guards the winning route requires, in order.
    public var requires: [String] { route?.requires ?? [] }
}

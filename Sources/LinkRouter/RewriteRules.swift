/// An immutable, ordered set of rewrite rules: one router snapshot's worth (SPEC §5).
///
/// STUB: the interface the router relies on. The PCRE2-backed implementation replaces the bodies.
package final class RewriteRules: @unchecked Sendable {
    package static let empty = RewriteRules()

    /// The rules in the order they are tried.
    package let rules: [(match: String, target: String)]

    private init(rules: [(match: String, target: String)] = []) { self.rules = rules }

    package var isEmpty: Bool { rules.isEmpty }

    /// A new set with `rules` added in order; a rule whose `match` already exists replaces that rule's target
    /// in place. All or none: the first invalid rule throws (`.regex`, `.pattern`) and nothing is added.
    package func adding(_ rules: [(match: String, target: String)], limits: Limits) throws(RouterError) -> RewriteRules {
        throw RouterError(.regex, "rewrite rules are not implemented yet")
    }

    /// A new set without the rule whose regex is `match`; `.notFound` when there is none.
    package func removing(_ match: String) throws(RouterError) -> RewriteRules {
        throw RouterError.notFound("no rewrite rule '\(match)'")
    }

    /// Rewrites `url` with the first rule whose regex is found in it: writes the whole new URL to `out` and
    /// returns true. Returns false, writing nothing, when no rule matches. A PCRE2 match or depth limit
    /// throws `.limit`.
    package func rewrite(_ url: ByteSpan, into out: inout ByteWriter, limits: Limits) throws(RouterError) -> Bool {
        false
    }
}

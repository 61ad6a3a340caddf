/// One rewrite rule: its compiled regex, its parsed template and what every match contains (for the index).
final class RewriteRule: Sendable {
    let match: String
    let regex: Regex
    let template: RewriteTemplate
    let needs: [RequiredLiterals.Need]
    /// Every gram key in `needs`, once each.
    let keys: [UInt64]

    /// Compiles `match` (or reuses `regex`, compiled from the same text) and parses `target` against it.
    /// Throws `.limit` first for a `match` or `target` longer than `Limits.maxRouteText`.
    init(match: String, target: String, regex: Regex? = nil, needs: [RequiredLiterals.Need]? = nil) throws(RouterError) {
        try Limits.checkStorableRewrite(match: match, target: target)
        let compiled: Regex
        if let regex { compiled = regex } else { compiled = try Regex(match) }
        self.match = match
        self.regex = compiled
        self.template = try RewriteTemplate(target, regex: compiled)
        let needs = needs ?? RequiredLiterals.needs(match)
        self.needs = needs
        self.keys = RequiredLiterals.keys(needs)
    }

    /// Refuses a regex that fails at match time even on a trivial URL (`(?R)` recursing forever, say): it would
    /// make every lookup fail with `.limit`, so one bad rule pushed from a server would stop all routing. The
    /// default limits judge the rule (a router may have lowered its own on purpose).
    func probe() throws(RouterError) {
        let sample: StaticString = "app://a/b?c=d"
        let span = ByteSpan(start: sample.utf8Start, count: sample.utf8CodeUnitCount)
        do throws(RouterError) {
            // The cause says "it": this message names the regex already.
            _ = try RegexScratch.with { scratch throws(RouterError) in
                try regex.firstMatch(in: span, groups: template.groupsNeeded, scratch: scratch, limits: .default, named: false)
            }
        } catch {
            throw RouterError(.regex, "rewrite regex '\(excerpt(match))' fails at match time even on '\(sample)': "
                              + error.message)
        }
    }

    /// Whether the regex is found in `url`; its captures are then in `scratch`.
    @inline(__always)
    func matches(_ url: ByteSpan, _ scratch: RegexScratch, _ limits: Limits) throws(RouterError) -> Bool {
        try regex.firstMatch(in: url, groups: template.groupsNeeded, scratch: scratch, limits: limits)
    }
}

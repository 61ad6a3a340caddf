extension Explanation {
    /// The explanation as one JSON object:
    /// `{"url", "result", ["error": {"code", "message"},] "rewrite": {"rules": [...], "fired"}, "routed",
    /// "sequence", "candidates": [...], "candidates_omitted", "other_scheme_routes", "route", "params",
    /// "requires"}`. `route` is null without a match; `params` is flat (raw keys), in match order. A rule's
    /// "outcome" is the raw value of `Rule.Outcome`: "fired", "no_match", "not_tried", "skipped" or "error".
    public var json: String {
        var w = JSONWriter()
        w.beginObject()
        w.key("url")
        w.string(url)
        w.key("result")
        w.string(result.rawValue)
        if let error {
            w.key("error")
            w.beginObject()
            w.key("code")
            w.raw(String(error.code.rawValue))
            w.key("message")
            w.string(error.message)
            w.endObject()
        }
        w.key("rewrite")
        w.beginObject()
        w.key("rules")
        w.beginArray()
        for rule in rules {
            w.beginObject()
            w.key("index")
            w.raw(String(rule.index))
            w.key("match")
            w.string(rule.match)
            w.key("target")
            w.string(rule.target)
            w.key("outcome")
            w.string(rule.outcome.rawValue)
            w.key("indexed")
            w.raw(rule.indexed ? "true" : "false")
            w.endObject()
        }
        w.endArray()
        w.key("fired")
        w.raw(firedRule.map(String.init) ?? "null")
        w.endObject()
        w.key("routed")
        w.string(routed)
        w.key("sequence")
        w.beginArray()
        for element in sequence { w.string(element) }
        w.endArray()
        w.key("candidates")
        w.beginArray()
        for c in candidates {
            w.beginObject()
            w.key("pattern")
            w.string(c.route.pattern)
            w.key("target")
            w.string(c.route.target)
            if let name = c.route.name {
                w.key("name")
                w.string(name)
            }
            w.key("matched")
            w.raw(c.matched ? "true" : "false")
            w.key("reason")
            w.string(c.reason)
            w.key("elements_matched")
            w.raw(String(c.elementsMatched))
            w.endObject()
        }
        w.endArray()
        w.key("candidates_omitted")
        w.raw(String(candidatesOmitted))
        w.key("other_scheme_routes")
        w.raw(String(otherSchemeRoutes))
        w.key("route")
        if let route {
            Explanation.write(route, &w)
        } else {
            w.raw("null")
        }
        w.key("params")
        w.beginObject()
        for p in params {
            w.key(p.name)
            w.string(p.value)
        }
        w.endObject()
        w.key("requires")
        w.beginArray()
        for r in requires { w.string(r) }
        w.endArray()
        w.endObject()
        return w.text
    }

    /// The index of the rule that fired, if one did.
    public var firedRule: Int? { rules.first { $0.outcome == .fired }?.index }

    private static func write(_ route: RouteSpec, _ w: inout JSONWriter) {
        w.beginObject()
        w.key("pattern")
        w.string(route.pattern)
        w.key("target")
        w.string(route.target)
        if let name = route.name {
            w.key("name")
            w.string(name)
        }
        w.key("requires")
        w.beginArray()
        for r in route.requires { w.string(r) }
        w.endArray()
        w.key("meta")
        w.beginObject()
        for (k, v) in route.meta.sorted(by: { $0.key < $1.key }) {
            w.key(k)
            w.string(v)
        }
        w.endObject()
        w.endObject()
    }

    /// The explanation for people, one fact per line:
    ///
    /// ```
    /// url         shop://product/42?ref=mail
    /// rewrite     no rule fired (3 rules)
    /// sequence    product / 42
    /// result      matched shop://product/:id -> ProductPage (name product)
    /// candidates  2 routes with this URL's scheme (5 with another scheme)
    ///   match     shop://product/:id
    ///   no        shop://product/:id/reviews: the URL ends after 2 elements; the pattern needs 3
    /// params      id=42 ref=mail
    /// requires    login
    /// ```
    ///
    /// `rewrite` is "no rules", "not tried (N rules): the URL was refused first", "no rule fired (N rules)", "rule I fired: 'regex' -> 'target' (N rules)" ("1 rule" for one) followed
    /// by a `routed` line, or "rule I failed: 'regex' -> 'target' (rules after it not tried)" when its regex hit a
    /// PCRE2 limit (the `result` line gives the error); ", K skipped by the rule index" is added inside the
    /// parentheses when the index left rules out.
    public var text: String {
        var lines: [String] = []
        // Values escaped (`oneLine`): a URL, a decoded parameter or a target may hold a newline or a NUL, which
        // would otherwise forge the next line or cut the C string short.
        func line(_ label: String, _ value: String) {
            lines.append(label.padding(12) + oneLine(value))
        }
        line("url", url)
        let skipped = rules.filter { $0.outcome == .skipped }.count
        let skippedNote = skipped == 0 ? "" : ", \(skipped) skipped by the rule index"
        if rules.isEmpty {
            line("rewrite", "no rules")
        } else if rules.allSatisfy({ $0.outcome == .notTried }) {
            line("rewrite", "not tried (\(counted(rules.count, "rule"))): the URL was refused first")
        } else if let failed = rules.last, failed.outcome == .error {
            line("rewrite", "rule \(failed.index) failed: '\(failed.match)' -> '\(failed.target)' (rules after it not tried"
                 + "\(skippedNote))")
        } else if let fired = firedRule {
            let rule = rules[fired]
            line("rewrite", "rule \(fired) fired: '\(rule.match)' -> '\(rule.target)' (\(counted(rules.count, "rule"))\(skippedNote))")
            // Without a routed URL when the target could not be expanded (the result line says why).
            if result != .error || routed != url { line("routed", routed) }
        } else {
            line("rewrite", "no rule fired (\(counted(rules.count, "rule"))\(skippedNote))")
        }
        if result == .error, let error {
            line("result", "error \(error.code.rawValue): \(error.message)")
            return lines.joined(separator: "\n") + "\n"
        }
        line("sequence", sequence.isEmpty ? "(empty)" : sequence.joined(separator: " / "))
        if let route {
            line("result", "matched \(route.pattern) -> \(route.target)" + (route.name.map { " (name \($0))" } ?? ""))
        } else {
            line("result", "no match")
        }
        let total = candidates.count + candidatesOmitted
        var summary = total == 0 ? "no route has this URL's scheme" : "\(counted(total, "route")) with this URL's scheme"
        if otherSchemeRoutes > 0 { summary += " (\(otherSchemeRoutes) with another scheme)" }
        line("candidates", summary)
        for c in candidates {
            line(c.matched ? "  match" : "  no", c.matched ? c.route.pattern : "\(c.route.pattern): \(c.reason)")
        }
        if candidatesOmitted > 0 { line("", "... \(candidatesOmitted) more") }
        if route != nil {
            line("params", params.isEmpty ? "(none)" : params.map { "\($0.name)=\($0.value)" }.joined(separator: " "))
            line("requires", requires.isEmpty ? "(none)" : requires.joined(separator: " "))
            if let meta = route?.meta, !meta.isEmpty {
                line("meta", meta.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// "1 rule", "2 rules": a count and its noun, singular only for 1.
private func counted(_ n: Int, _ noun: String) -> String {
    "\(n) \(noun)\(n == 1 ? "" : "s")"
}

extension String {
    /// The string followed by spaces up to `width` characters (at least one space).
    fileprivate func padding(_ width: Int) -> String {
        let n = count
        return self + String(repeating: " ", count: n < width ? width - n : 1)
    }
}

import XCTest
@testable import LinkRouter

/// Explain: matched, unmatched and rewritten URLs as tables of expected traces, and agreement with the real
/// matcher (TrieWalk) on the semantics table and the GitHub routes: same route, same parameters.
final class ExplainTests: XCTestCase {
    func testExplainMatchedUnmatchedRewrittenAndRefused() throws {
        let router = try Router(tableFile: TableFileTests.shopPath)

        let product = router.explain("shop://product/42?ref=mail", extra: ["from": "push"])
        XCTAssertEqual(product.result, .matched)
        XCTAssertEqual(product.route?.name, "product")
        XCTAssertEqual(product.sequence, ["product", "42"])
        XCTAssertEqual(product.params.map { "\($0.name)=\($0.value)" }, ["id=42", "ref=mail", "from=push"])
        XCTAssertEqual(product.rules.map(\.outcome), [.noMatch, .noMatch, .noMatch, .noMatch])
        XCTAssertEqual(product.candidates.first?.matched, true)
        XCTAssertEqual(product.candidates[1].reason, "the URL ends after 2 elements; the pattern needs 3")
        XCTAssertEqual(product.otherSchemeRoutes, 4)

        let cart = router.explain("shop://cart")
        XCTAssertEqual(cart.requires, ["login"])

        let nothing = router.explain("shop://product")
        XCTAssertEqual(nothing.result, .nomatch)
        XCTAssertNil(nothing.route)
        XCTAssertEqual(nothing.candidates.prefix(2).map(\.reason), [
            "the URL ends after 1 element; the pattern needs 2", "the URL ends after 1 element; the pattern needs 3",
        ])

        let legacy = router.explain("http://oldshop.example.com/item.php?id=7")
        XCTAssertEqual(legacy.rules.map(\.outcome), [.fired, .notTried, .notTried, .notTried])
        XCTAssertEqual(legacy.firedRule, 0)
        XCTAssertEqual(legacy.routed, "shop://product/7?from=legacy")
        XCTAssertEqual(legacy.route?.pattern, "shop://product/:id")
        XCTAssertEqual(legacy.params.map { "\($0.name)=\($0.value)" }, ["id=7", "from=legacy"])

        let refused = router.explain("not a url")
        XCTAssertEqual(refused.result, .error)
        XCTAssertEqual(refused.error?.code, .invalidURL)
        // A URL over maxURLLength is refused before anything is tried, and quoted, not echoed (found by the limits
        // review: a 20 MB URL of control bytes made a 240 MB explanation).
        let long = "app://x/" + String(repeating: "\u{1}", count: 70_000)
        let tooLong = router.explain(long)
        XCTAssertEqual(tooLong.result, .error)
        XCTAssertEqual(tooLong.error?.code, .limit)
        XCTAssertEqual(tooLong.error?.message, "URL of 70008 bytes is longer than maxURLLength (LR_LIMIT_URL_LENGTH, 65536)")
        XCTAssertEqual(tooLong.url, excerpt(long))
        XCTAssertEqual(tooLong.routed, excerpt(long))
        XCTAssertLessThan(tooLong.json.utf8.count, 3_000)  // the excerpt twice and the 4 rules: not the URL
        // Refused before the rules: each is listed as not tried (they were left out, as if there were none).
        XCTAssertEqual(tooLong.rules.map(\.outcome), [.notTried, .notTried, .notTried, .notTried])
        XCTAssertEqual(tooLong.text.split(separator: "\n")[1], "rewrite     not tried (4 rules): the URL was refused first")
        XCTAssertEqual(Router().explain(long).text.split(separator: "\n")[1], "rewrite     no rules")

        let unknownScheme = router.explain("ftp://x/y")
        XCTAssertEqual(unknownScheme.candidates.count, 0)
        XCTAssertEqual(unknownScheme.otherSchemeRoutes, 16)
        XCTAssertEqual(unknownScheme.text, """
            url         ftp://x/y
            rewrite     no rule fired (4 rules)
            sequence    x / y
            result      no match
            candidates  no route has this URL's scheme (16 with another scheme)

            """)

        // Precedence reasons for routes that match but lose.
        let r = Router()
        try r.add([RouteSpec("app://user/:id", target: "User"), RouteSpec("app://user/me", target: "Me"),
                   RouteSpec("*://user/*rest", target: "Any"), RouteSpec("app://user/*rest", target: "Rest")])
        let me = r.explain("app://user/me")
        XCTAssertEqual(me.candidates.map(\.route.target), ["Me", "User", "Rest", "Any"])
        XCTAssertEqual(me.candidates.map(\.matched), [true, false, false, false])
        XCTAssertEqual(me.candidates[1].reason, "matches, but 'app://user/me' comes first (at segment 1, a literal beats a :param)")
        XCTAssertEqual(me.candidates[2].reason, "matches, but 'app://user/me' comes first (at segment 1, a literal beats a catch-all)")
        XCTAssertEqual(me.candidates[3].reason, "matches, but 'app://user/me' comes first (a scheme beats '*://')")
        XCTAssertEqual(r.explain("app://user").candidates.first?.route.target, "Rest")
    }

    func testExplainJSONAndText() throws {
        let r = Router()
        try r.add("app://user/:id", target: "User", name: "user", requires: ["login"], meta: ["t": "push"])
        try r.addRewrite("^old://u/(\\d+)", target: "app://user/$1")
        let e = r.explain("old://u/5")
        XCTAssertEqual(e.json, #"{"url":"old://u/5","result":"matched","rewrite":{"rules":[{"index":0,"match":"^old://u/(\\d+)","target":"app://user/$1","outcome":"fired","indexed":true}],"fired":0},"routed":"app://user/5","sequence":["user","5"],"candidates":[{"pattern":"app://user/:id","target":"User","name":"user","matched":true,"reason":"matched","elements_matched":2}],"candidates_omitted":0,"other_scheme_routes":0,"route":{"pattern":"app://user/:id","target":"User","name":"user","requires":["login"],"meta":{"t":"push"}},"params":{"id":"5"},"requires":["login"]}"#)
        XCTAssertEqual(e.text, """
            url         old://u/5
            rewrite     rule 0 fired: '^old://u/(\\d+)' -> 'app://user/$1' (1 rule)
            routed      app://user/5
            sequence    user / 5
            result      matched app://user/:id -> User (name user)
            candidates  1 route with this URL's scheme
              match     app://user/:id
            params      id=5
            requires    login
            meta        t=push

            """)
        XCTAssertEqual(r.explain("nope").json, #"{"url":"nope","result":"error","error":{"code":-2,"message":"'nope' is not an absolute URL: it needs a scheme, as in 'app://...'"},"rewrite":{"rules":[{"index":0,"match":"^old://u/(\\d+)","target":"app://user/$1","outcome":"no_match","indexed":true}],"fired":null},"routed":"nope","sequence":[],"candidates":[],"candidates_omitted":0,"other_scheme_routes":0,"route":null,"params":{},"requires":[]}"#)
        // Text for people keeps each fact on its line: a decoded newline or NUL (here from the URL, in the sequence
        // and a parameter) is escaped, where it forged a "result" line and cut lr_router_explain_text's C string.
        let forged = r.explain("app://user/x%0Aresult%20%20%20%20%20%20matched%00")
        XCTAssertEqual(forged.params.map(\.value), ["x\nresult      matched\u{0}"])
        XCTAssertEqual(forged.text.split(separator: "\n", omittingEmptySubsequences: false).filter { $0.hasPrefix("result") },
                       ["result      matched app://user/:id -> User (name user)"])
        XCTAssertEqual(forged.text, #"""
            url         app://user/x%0Aresult%20%20%20%20%20%20matched%00
            rewrite     no rule fired (1 rule)
            sequence    user / x\nresult      matched\u0000
            result      matched app://user/:id -> User (name user)
            candidates  1 route with this URL's scheme
              match     app://user/:id
            params      id=x\nresult      matched\u0000
            requires    login
            meta        t=push

            """#)
        XCTAssertFalse(forged.text.utf8.contains(0), forged.text)
        XCTAssertEqual(r.explain("app://user/1", limit: 0).candidatesOmitted, 1)
    }

    /// Explain is its own matcher: it must pick the route the lookup picks, with the same path parameters,
    /// for every URL of the semantics table (routes added in order) and of the GitHub set.
    func testExplainAgreesWithTheMatcher() throws {
        let semantics = try SemanticsTable.shared.get()
        XCTAssertGreaterThan(semantics.match.count, 40)
        let router = Router()
        try router.add(semantics.routes.map { RouteSpec($0.pattern, target: $0.target) })
        var urls = semantics.match.map(\.url)
        let github = try loadTSV("github-routes.tsv")
        XCTAssertGreaterThan(github.count, 200)
        let gh = Router()
        try gh.add(github.map { RouteSpec($0.pattern, target: $0.id) })
        urls += ["app://user/%2F", "wildcard://Host:99/a//b/", "https://www.example.com:8080/p/1", "https://www.example.com:9/p/1",
                 "app:///User/42", "APP://USER/me/posts", "app://files", "app://files/a//b/"]
        for (r, list) in [(router, urls), (gh, github.map(\.url) + github.map { $0.url + "/extra" })] {
            for url in list {
                let e = r.explain(url)
                let m = try? r.resolve(url)
                XCTAssertEqual(e.route?.pattern, m?.pattern, url)
                XCTAssertEqual(e.params.map(\.name), m?.orderedParams.map(\.name) ?? [], url)
                XCTAssertEqual(e.params.map(\.value), m?.orderedParams.map(\.value) ?? [], url)
                XCTAssertEqual(e.result == .error, (try? r.resolve(url)) == nil && m == nil && e.result != .nomatch, url)
            }
        }
    }

    // MARK: Rewrite rules as the lookup tries them (B39), and the rule that failed (B40)

    static let fiveRules = ["^one://", "^two://", "^three://", "^four://", "(a+)+bcde"]
    /// 40 a's then "e": (a+)+ backtracks exponentially before it gives up, so the regex hits PCRE2's match limit.
    static let catastrophic = String(repeating: "a", count: 40) + "e"

    /// (rules, url, outcomes explain lists, the result): explain's result is resolve's on every row. Five rules
    /// or more turn the rule index on; a rule it leaves out is "skipped", its regex not run (the lookup does not
    /// run it: run anyway, "(a+)+bcde" hit the match limit and explain said -6 where resolve said X).
    static let indexRows: [(rules: [String], url: String, outcomes: [Explanation.Rule.Outcome], expected: String, line: UInt)] = [
        (fiveRules, "x://" + catastrophic, [.skipped, .skipped, .skipped, .skipped, .skipped], "X", #line),
        (fiveRules, "two://q", [.skipped, .fired, .notTried, .notTried, .notTried], "App", #line),
        (fiveRules, "x://aaabcde", [.skipped, .skipped, .skipped, .skipped, .fired], "App", #line),
        (fiveRules, "x://q", [.skipped, .skipped, .skipped, .skipped, .skipped], "X", #line),
        // The URL has "abcde" (after the a's), so the index picks the rule and its regex fails in both.
        (fiveRules, "x://" + catastrophic + "/abcde", [.skipped, .skipped, .skipped, .skipped, .error], "error -6", #line),
        // Under five rules there is no index: every rule is run, by the lookup as by explain.
        (["^one://", "(a+)+bcde"], "x://" + catastrophic, [.noMatch, .error], "error -6", #line),
        (["^one://", "(a+)+bcde"], "one://q", [.fired, .notTried], "App", #line),
        (["(a+)+bcde", "^one://"], "x://" + catastrophic, [.error], "error -6", #line),
    ]

    func testExplainTriesTheRulesTheLookupTries() throws {
        for row in Self.indexRows {
            let r = Router()
            try r.add("x://*rest", target: "X")
            try r.add("app://*rest", target: "App")
            for rule in row.rules { try r.addRewrite(rule, target: "app://rewritten") }
            let what = "\(row.rules.count) rules, \(row.url)"
            let resolved: String
            do throws(RouterError) {
                resolved = try r.resolve(row.url)?.target ?? "nomatch"
            } catch {
                resolved = "error \(error.code.rawValue)"
                let e = r.explain(row.url)
                XCTAssertEqual(e.error, error, what, line: row.line)
            }
            XCTAssertEqual(resolved, row.expected, what, line: row.line)
            let e = r.explain(row.url)
            let explained = switch e.result {
            case .matched: e.route?.target ?? "?"
            case .nomatch: "nomatch"
            case .error: "error \(e.error?.code.rawValue ?? 0)"
            }
            XCTAssertEqual(explained, resolved, what, line: row.line)
            XCTAssertEqual(e.rules.map(\.outcome), row.outcomes, what, line: row.line)
            XCTAssertEqual(e.rules.map(\.index), Array(row.outcomes.indices), what, line: row.line)
            // "skipped" is exactly a rule the index leaves out, before any rule fired.
            for rule in e.rules where rule.outcome == .skipped { XCTAssertFalse(rule.indexed, what, line: row.line) }
        }
        let r = Router()
        try r.add("x://*rest", target: "X")
        try r.addRewrites(Self.fiveRules.map { (match: $0, target: "app://rewritten") })
        XCTAssertEqual(r.explain("x://q").text.split(separator: "\n")[1], "rewrite     no rule fired (5 rules, 5 skipped by the rule index)")
        XCTAssertEqual(r.explain("two://q").text.split(separator: "\n")[1],
                       "rewrite     rule 1 fired: '^two://' -> 'app://rewritten' (5 rules, 1 skipped by the rule index)")
        let skipped = Self.fiveRules.enumerated().map { #"{"index":\#($0.offset),"match":"\#($0.element)","target":"app://rewritten","outcome":"skipped","indexed":false}"# }
        XCTAssertEqual(r.explain("x://q").json, #"{"url":"x://q","result":"matched","rewrite":{"rules":["# + skipped.joined(separator: ",")
                       + #"],"fired":null},"routed":"x://q","sequence":["q"],"candidates":[{"pattern":"x://*rest","target":"X","matched":true,"reason":"matched","elements_matched":0}],"candidates_omitted":0,"other_scheme_routes":0,"route":{"pattern":"x://*rest","target":"X","requires":[],"meta":{}},"params":{"rest":"q"},"requires":[]}"#)
    }

    /// A rule whose regex fails: the rules up to and including it are kept and shown (they were lost: "rules": []
    /// and "rewrite     no rules" beside an error naming a rule).
    func testExplainKeepsTheRulesUpToTheOneThatFailed() throws {
        let url = "x://" + String(repeating: "a", count: 40) + "c"
        let r = Router()
        try r.add("x://*rest", target: "X")
        try r.addRewrites([(match: "^x://(a+)+bc", target: "app://rewritten"), (match: "^x://", target: "app://other")])
        XCTAssertThrowsError(try r.resolve(url))
        let e = r.explain(url)
        let message = "rewrite regex '^x://(a+)+bc' hit the PCRE2 match limit (regexMatchLimit 10000) on a URL of 45 bytes"
        XCTAssertEqual(e.error, RouterError(.limit, message))
        XCTAssertEqual(e.json, #"{"url":"\#(url)","result":"error","error":{"code":-6,"message":"\#(message)"},"rewrite":{"rules":[{"index":0,"match":"^x://(a+)+bc","target":"app://rewritten","outcome":"error","indexed":true}],"fired":null},"routed":"\#(url)","sequence":[],"candidates":[],"candidates_omitted":0,"other_scheme_routes":0,"route":null,"params":{},"requires":[]}"#)
        XCTAssertEqual(e.text, """
            url         \(url)
            rewrite     rule 0 failed: '^x://(a+)+bc' -> 'app://rewritten' (rules after it not tried)
            result      error -6: \(message)

            """)

        // With the index on, the rules it left out before the failing one are counted.
        let indexed = Router()
        try indexed.add("x://*rest", target: "X")
        try indexed.addRewrites(Self.fiveRules.map { (match: $0, target: "app://rewritten") })
        let failing = indexed.explain("x://" + Self.catastrophic + "/abcde")
        XCTAssertEqual(failing.text.split(separator: "\n")[1],
                       "rewrite     rule 4 failed: '(a+)+bcde' -> 'app://rewritten' (rules after it not tried, 4 skipped by the rule index)")

        // The rule fired but its target could not be expanded: the rules are kept, no "routed" line.
        var limits = Limits.default
        limits.maxURLLength = 64
        let long = Router(limits: limits)
        try long.add("app://*rest", target: "App")
        try long.addRewrite("^y://(.*)", target: "app://$1$1$1")
        let tooLong = "y://" + String(repeating: "b", count: 30)
        let grown = long.explain(tooLong)
        XCTAssertEqual(grown.result, .error)
        XCTAssertEqual(grown.error?.code, .limit)
        XCTAssertEqual(grown.rules.map(\.outcome), [.fired])
        XCTAssertEqual(grown.text, """
            url         \(tooLong)
            rewrite     rule 0 fired: '^y://(.*)' -> 'app://$1$1$1' (1 rule)
            result      error -6: rewritten URL would be longer than maxURLLength (LR_LIMIT_URL_LENGTH, 64 bytes); rule target 'app://$1$1$1'

            """)
    }
}

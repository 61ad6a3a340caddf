import LinkRouter

#if canImport(Glibc)
import Glibc
#endif

/// `linkrouter bench rewrite [--rules N]`: the rewrite engine's figures, as JSON metric lines for the benchmark
/// suite (bench/runners/linkrouter-rewrite.sh): regexes evaluated per URL with N rules (the index at work),
/// and the cost of a fired and of a non-fired rewrite. The CLI can see the engine's evaluation counter
/// because it is part of the package; nothing here is in the library's API.
enum RewriteBench {
    /// N rules in FFRouter's style: web links of N sites rewritten to app links, a third of them with a
    /// percent-encoded capture.
    static func rules(_ n: Int) -> [(match: String, target: String)] {
        (0..<n).map { k in
            switch k % 3 {
            case 0: return ("(?:https://)?www.shop\(k).com/search/(.*)", "app://search?shop=\(k)&q=$$1")
            case 1: return ("^https?://m\\.site\(k)\\.com/item/(\\d+)", "app://item/$1?site=\(k)")
            default: return ("^https://www\\.news\(k)\\.org/(?<year>\\d{4})/(?<slug>[\\w-]+)", "app://news/${year}/$#{slug}")
            }
        }
    }

    /// For each rule, a URL it rewrites and one no rule rewrites.
    static func urls(_ n: Int) -> (fired: [String], unfired: [String]) {
        let fired = (0..<n).map { k -> String in
            switch k % 3 {
            case 0: return "https://www.shop\(k).com/search/red shoes"
            case 1: return "http://m.site\(k).com/item/\(1000 + k)?ref=mail"
            default: return "https://www.news\(k).org/2026/launch-day"
            }
        }
        let unfired = (0..<n).map { "https://www.other\($0).net/path/to/page?x=\($0)" }
        return (fired, unfired)
    }

    static func metric(_ name: String, _ value: Double, _ unit: String, _ detail: String) {
        var w = JSONWriter()
        w.beginObject()
        w.key("metric"); w.string(name)
        w.key("router"); w.string("linkrouter")
        w.key("lang"); w.string("swift")
        w.key("value"); w.raw(String((value * 100).rounded() / 100))
        w.key("unit"); w.string(unit)
        w.key("detail"); w.string(detail)
        w.endObject()
        print(w.text)
    }

    static func cpuNs() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Median ns per call of `body` over `urls`, over 7 runs of about 100 ms.
    static func time(_ urls: [String], _ body: (String) -> Int) -> Double {
        var sink = 0
        for u in urls { sink &+= body(u) }
        let t0 = cpuNs()
        for u in urls { sink &+= body(u) }
        let one = max(Double(cpuNs() - t0), 1)
        let reps = max(1, Int(100e6 / one))
        var runs: [Double] = []
        for _ in 0..<7 {
            let t = cpuNs()
            for _ in 0..<reps { for u in urls { sink &+= body(u) } }
            runs.append(Double(cpuNs() - t) / Double(reps * urls.count))
        }
        if sink == 42 { print("") }
        return runs.sorted()[runs.count / 2]
    }

    /// Median ns of the rewrite engine alone on `urls` (index, regex, template into a buffer; no allocation).
    static func engine(_ router: Router, _ urls: [String]) -> Double {
        let limits = router.limits
        return router.withRewriteRules { rules in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { buf in
                time(urls) { url in
                    var url = url
                    return url.withUTF8 { bytes in
                        var out = ByteWriter(base: buf.baseAddress, capacity: buf.count)
                        let span = ByteSpan(start: bytes.baseAddress, count: bytes.count)
                        return (try? rules.rewrite(span, into: &out, limits: limits)) == true ? out.count : 0
                    }
                }
            }
        }
    }

    static func run(rules count: Int) -> Int32 {
        let router = Router()
        do {
            try router.addRewrites(rules(count))
        } catch {
            Output.error("linkrouter bench: \(error.message)\n")
            return 2
        }
        let (fired, unfired) = urls(count)
        // Every fired URL must be rewritten by its own rule, every other URL by none: checked before timing.
        for (k, url) in fired.enumerated() {
            guard let out = try? router.rewrite(url), out.contains(k % 3 == 0 ? "shop=\(k)&" : k % 3 == 1 ? "site=\(k)" : "/2026/") else {
                Output.error("linkrouter bench: \(url) was not rewritten by rule \(k)\n")
                return 1
            }
        }
        for url in unfired where (try? router.rewrite(url)) != nil {
            Output.error("linkrouter bench: \(url) was rewritten\n")
            return 1
        }
        let evaluated = router.withRewriteRules { rules in
            (fired + unfired).reduce(0) { $0 + ((try? rules.rewriteCounting($1))?.evaluated ?? 0) }
        }
        metric("rewrite_evaluations_per_url", Double(evaluated) / Double(fired.count + unfired.count), "regexes",
               "regexes evaluated per URL with \(count) rules, half the URLs rewritten, half not")
        metric("rewrite_fired_ns", engine(router, fired), "ns",
               "a fired rewrite with \(count) rules: the index, the regex and the template into a buffer, no allocation")
        // One rule (FFRouter's example): the regex and the template alone, with nothing for the index to skip.
        let one = Router()
        guard (try? one.addRewrite("(?:https://)?www.amazon.com/search/(.*)",
                                   target: "protocol://page/routerDetails?product=$1")) != nil,
              (try? one.rewrite("https://www.amazon.com/search/x")) == "protocol://page/routerDetails?product=x" else {
            Output.error("linkrouter bench: the one-rule table does not rewrite")
            return 1
        }
        metric("rewrite_one_rule_fired_ns", engine(one, ["https://www.amazon.com/search/Atomic_bomb?ref=nav_1"]), "ns",
               "a fired rewrite with 1 rule (FFRouter's amazon example), into a buffer")
        metric("rewrite_one_rule_unfired_ns", engine(one, ["https://www.nowhere.example/some/path/that/matches/nothing?x=1"]),
               "ns", "a rewrite with 1 rule that does not fire")
        metric("rewrite_fired_string_ns", time(fired) { (try? router.rewrite(bytes: $0))?.utf8.count ?? 0 }, "ns",
               "Router.rewrite of a URL a rule rewrites, with \(count) rules, the result returned as a new String")
        metric("rewrite_unfired_ns", time(unfired) { (try? router.rewrite(bytes: $0)) == nil ? 1 : 0 }, "ns",
               "Router.rewrite of a URL no rule rewrites, with \(count) rules")
        return 0
    }
}

extension Router {
    /// The current rule set, for the benchmark's evaluation counter.
    func withRewriteRules<R>(_ body: (RewriteRules) -> R) -> R {
        withState { body($0.rewrites) }
    }

    /// `rewrite` on a String through the byte path, as the C ABI calls it.
    func rewrite(bytes url: String) throws(RouterError) -> String? {
        try url.withSpan { span throws(RouterError) in try rewrite(bytes: span) }
    }
}

import Foundation
import XCTest

@testable import LinkRouter

/// Rewrite rules (SPEC §5): tables of (rules, url, expected) rows run through one function each.
final class RewriteTests: XCTestCase {
    typealias Rule = (match: String, target: String)

    /// A row: rules added in order, a URL, and the rewritten URL (nil: no rule matches).
    struct Row {
        let name: String
        let rules: [Rule]
        let url: String
        let expected: String?
        init(_ name: String, _ rules: [Rule], _ url: String, _ expected: String?) {
            self.name = name
            self.rules = rules
            self.url = url
            self.expected = expected
        }
        init(_ name: String, _ match: String, _ target: String, _ url: String, _ expected: String?) {
            self.init(name, [(match, target)], url, expected)
        }
    }

    /// Rules that match no URL of the tables: appended to a row's rules, they push the set past
    /// `RewriteIndex.linearThreshold`, so that the row also runs through the gram index.
    static let fillers: [Rule] = (0..<8).map { ("zqxfiller\($0)/(\\d+)", "never") }

    /// Runs each row through `RewriteRules` (linear, and through the index with filler rules after the row's
    /// rules) and through `Router.rewrite`.
    func check(_ rows: [Row], file: StaticString = #filePath, line: UInt = #line) {
        for row in rows {
            do {
                let set = try RewriteRules.empty.adding(row.rules, limits: .default)
                XCTAssertEqual(try set.rewrite(row.url), row.expected, "row '\(row.name)'", file: file, line: line)
                XCTAssertEqual(try set.rewriteLinear(row.url), row.expected, "row '\(row.name)': linear", file: file, line: line)
                let indexed = try RewriteRules.empty.adding(row.rules + Self.fillers, limits: .default)
                XCTAssertEqual(try indexed.rewrite(row.url), row.expected, "row '\(row.name)': index", file: file, line: line)
                let router = Router()
                try router.addRewrites(row.rules)
                XCTAssertEqual(try router.rewrite(row.url), row.expected, "row '\(row.name)': Router", file: file, line: line)
            } catch {
                XCTFail("row '\(row.name)': unexpected error \(error)", file: file, line: line)
            }
        }
    }

    // MARK: FFRouter's documented examples

    func testFFRouterExamples() {
        let amazon = ("(?:https://)?www.amazon.com/search/(.*)", "protocol://page/routerDetails?product=$1")
        let taobao = ("(?:https://)?www.taobao.com/search/(.*)", "protocol://page/routerDetails?product=$$1")
        let jd = ("(?:https://)?www.jd.com/search/(.*)", "protocol://page/routerDetails?product=$#1")
        let baidu = ("(?:https://)?www.baidu.com/wd/(\\d+)", "protocol://page/routerDetails?id=$1")
        let all = [amazon, taobao, jd, baidu]
        check([
            Row("amazon", [amazon], "https://www.amazon.com/search/Atomic_bomb", "protocol://page/routerDetails?product=Atomic_bomb"),
            Row("amazon without scheme", [amazon], "www.amazon.com/search/Atomic_bomb", "protocol://page/routerDetails?product=Atomic_bomb"),
            Row("taobao $$1", [taobao], "https://www.taobao.com/search/原子弹",
                "protocol://page/routerDetails?product=%E5%8E%9F%E5%AD%90%E5%BC%B9"),
            Row("jd $#1", [jd], "https://www.jd.com/search/%E5%8E%9F%E5%AD%90%E5%BC%B9", "protocol://page/routerDetails?product=原子弹"),
            Row("jd $#1 lower-case hex", [jd], "https://www.jd.com/search/%e5%8e%9f%e5%ad%90%e5%bc%b9",
                "protocol://page/routerDetails?product=原子弹"),
            Row("baidu digits", [baidu], "https://www.baidu.com/wd/66666", "protocol://page/routerDetails?id=66666"),
            Row("baidu no digits", [baidu], "https://www.baidu.com/wd/abc", nil),
            Row("demo set: taobao", all, "https://www.taobao.com/search/原子弹", "protocol://page/routerDetails?product=%E5%8E%9F%E5%AD%90%E5%BC%B9"),
            Row("demo set: baidu", all, "https://www.baidu.com/wd/66666", "protocol://page/routerDetails?id=66666"),
            Row("demo set: none", all, "https://www.example.com/search/x", nil),
        ])
    }

    // MARK: Template forms

    func testTemplateForms() {
        let twelve = String(repeating: "(.)", count: 12)  // groups 1...12
        check([
            Row("$0 whole match", "b+", "[$0]", "app://abbbc", "[bbb]"),
            Row("$1", "/u/(\\d+)", "app://user/$1", "https://x.com/u/42", "app://user/42"),
            Row("$12 two digits", twelve, "$12", "abcdefghijkl", "l"),
            Row("$123 is group 12 then 3", twelve, "$123", "abcdefghijkl", "l3"),
            Row("${1}2 is group 1 then 2", twelve, "${1}2", "abcdefghijkl", "a2"),
            Row("${0000001} is group 1 (leading zeros)", twelve, "${0000001}", "abcdefghijkl", "a"),
            Row("${000} is group 0", "b+", "[${000}]", "app://abbbc", "[bbb]"),
            Row("$1 then letter", "(\\d+)", "$1a", "x7", "7a"),
            Row("${name}", "/u/(?<id>\\d+)", "app://user/${id}", "https://x.com/u/42", "app://user/42"),
            Row("$${name} encodes", "q=(?<q>[^&]*)", "app://s?q=$${q}", "https://x.com/?q=a b", "app://s?q=a%20b"),
            Row("$#{name} decodes", "q=(?<q>[^&]*)", "app://s?q=$#{q}", "https://x.com/?q=%E4%B8%AD", "app://s?q=中"),
            Row("duplicate names: the set one", "(?J)(?:a(?<v>\\d)|b(?<v>\\d))", "${v}", "b7", "7"),
            Row("unset group is empty", "a(x)?b", "[$1]", "ab", "[]"),
            Row("unset named group is empty", "a(?<x>x)?b", "[${x}]", "ab", "[]"),
            Row("group of empty text", "a(x*)b", "[$1]", "ab", "[]"),
            Row("$scheme", "x", "$scheme", "HTTPS://h/x", "HTTPS"),
            Row("$host drops userinfo and port", "x", "$host", "https://user:pw@Example.COM:8080/x?q#f", "Example.COM"),
            Row("$port digits only", "x", "$port", "https://h:8080/x", "8080"),
            Row("$port absent", "x", "[$port]", "https://h/x", "[]"),
            Row("$path with slash", "x", "$path", "https://h/a/x?q=1#f", "/a/x"),
            Row("$query without ?", "x", "$query", "https://h/x?a=1&b=2#f", "a=1&b=2"),
            Row("$fragment without #", "x", "$fragment", "https://h/x?a=1#frag", "frag"),
            Row("$url whole", "x", "$url", "https://h/x?a=1#frag", "https://h/x?a=1#frag"),
            Row("parts of scheme-less URL", "x", "[$scheme][$host][$path][$query]", "www.amazon.com/x?k=v",
                "[][][www.amazon.com/x][k=v]"),
            Row("$$host", "x", "$$host", "https://h-1.example.com/x", "h-1.example.com"),
            Row("$$query encodes", "x", "app://?u=$$query", "https://h/x?a=1&b=2", "app://?u=a%3D1%26b%3D2"),
            Row("$#query decodes", "x", "$#query", "https://h/x?n=%E5%8E%9F", "n=原"),
            Row("$$url", "x", "app://open?url=$$url", "https://h/x?a=1",
                "app://open?url=https%3A%2F%2Fh%2Fx%3Fa%3D1"),
            Row("$#path", "x", "$#path", "https://h/%7Euser/x", "/~user/x"),
            Row("\\$ is a dollar", "(x)", "\\$1=$1", "x", "$1=x"),
            Row("\\\\ is a backslash", "(x)", "a\\\\b", "x", "a\\b"),
            Row("\\\\ then $1", "(x)", "\\\\$1", "x", "\\x"),
            Row("other backslash kept", "(x)", "\\n\\q", "x", "\\n\\q"),
            Row("trailing backslash kept", "(x)", "a\\", "x", "a\\"),
            Row("# alone is literal", "(x)", "app://p#$1", "x", "app://p#x"),
            Row("substituted text not rescanned", "v=([^&]*)", "[$1]", "app://?v=$2$host", "[$2$host]"),
            Row("encode everything reserved", "v=(.*)", "$$1", "v=a&b=c/d?e:f#g h~_.-", "a%26b%3Dc%2Fd%3Fe%3Af%23g%20h~_.-"),
            Row("encode percent", "v=(.*)", "$$1", "v=%41", "%2541"),
            Row("decode keeps malformed %", "v=(.*)", "$#1", "v=100%&n=%E5%8E%9F%zz%4", "100%&n=原%zz%4"),
            Row("decode keeps non-UTF-8 run", "v=(.*)", "$#1", "v=%FF%41-%41", "%FF%41-A"),
            // A NUL would cut the rewritten URL short in C (found by review: x://42%00/evil became app://user/42).
            Row("decode keeps %00", "v=(.*)", "$#1", "v=%41%00%42-%00", "A%00B-%00"),
            Row("decode keeps overlong", "v=(.*)", "$#1", "v=%C0%AF", "%C0%AF"),
            Row("decode keeps truncated char", "v=(.*)", "$#1", "v=%E5%8E", "%E5%8E"),
            Row("decode leaves + alone", "v=(.*)", "$#1", "v=a+b%20c", "a+b c"),
            Row("decode of plain text", "v=(.*)", "$#1", "v=plain", "plain"),
            Row("unicode capture raw", "s/(.+)", "$1", "s/原子弹", "原子弹"),
            Row("empty target", "x", "", "x", ""),
            Row("literal target", "x", "app://home", "ax", "app://home"),
            Row("several pieces", "/(\\w+)/(\\d+)", "app://$1/$2?from=$$host&raw=$url", "https://h.com/item/9",
                "app://item/9?from=h.com&raw=https://h.com/item/9"),
        ])
    }

    /// B36: with `(?J)` a name may have many groups, and a target may name it many times. The template stored
    /// every group number of the name once per reference (references × groups: 2,000 groups and 200,000
    /// references took 11 s and 3 GB to add) and walked them all per reference at each expansion. Now each
    /// distinct name's groups are stored once and resolved once per match. Rows: (groups per name, references,
    /// names) → stored group numbers; then expansions with duplicate names that are set in different places.
    func testDuplicateNamesAreStoredOncePerName() throws {
        let rows: [(groups: Int, references: Int, names: [String], stored: Int, distinct: Int)] = [
            (1, 1, ["a"], 1, 1),
            (1, 500, ["a"], 1, 1),
            (300, 1, ["a"], 300, 1),
            (300, 1_000, ["a"], 300, 1),  // was 300,000
            (100, 400, ["a", "b"], 200, 2),  // was 40,000
            (50, 3, ["a", "b", "c"], 150, 3),
        ]
        for row in rows {
            // (?J)(?:(?<a>x)|(?<a>x)|…)(?:(?<b>x)|…): `groups` groups per name.
            let regex = "(?J)" + row.names.map { name in
                "(?:" + (0..<row.groups).map { _ in "(?<\(name)>x)" }.joined(separator: "|") + ")?"
            }.joined()
            let target = "app://t/" + (0..<row.references).map { "${\(row.names[$0 % row.names.count])}" }.joined()
            let rule = try RewriteRule(match: regex, target: target)
            XCTAssertEqual(rule.template.storedGroupNumbers, row.stored, "row \(row.groups)×\(row.references) \(row.names)")
            XCTAssertEqual(rule.template.distinctNames, row.distinct, "row \(row.groups)×\(row.references) \(row.names)")
        }
        // Expansion: the first group of each name that is set, however often and in whatever mode it is named.
        let dup = "(?J)^(?:x(?<a>\\d)|y(?<a>[a-z])|z(?<a>.)?)-(?:(?<b>\\d+)|(?<b>\\w+))"
        check([
            Row("first alternative", dup, "${a}${b}${a}[$${a}][$#{b}]", "x1-22", "1221[1][22]"),
            Row("second alternative", dup, "${a}${b}${a}[$${a}][$#{b}]", "yq-ww", "qwwq[q][ww]"),
            Row("third alternative, set", dup, "${a}${b}${a}[$${a}]", "z -7", " 7 [%20]"),
            Row("third alternative, unset", dup, "[${a}]${b}[${a}]", "z-7", "[]7[]"),
            Row("numbers and names mixed", dup, "$1$2$3:${a}:$4$5:${b}", "yq-ab", "q:q:ab:ab"),
        ])
    }

    // MARK: Ordering, replacement, removal

    func testOrdering() {
        check([
            Row("first in order wins", [("a", "first"), ("ab", "second")], "xab", "first"),
            Row("order, not length", [("ab", "long"), ("a", "short")], "xab", "long"),
            Row("later rule when earlier misses", [("zz", "z"), ("b", "b")], "xab", "b"),
            Row("search is unanchored", [("b/c", "hit")], "app://a/b/c/d", "hit"),
            Row("anchored regex", [("^b", "hit")], "ab", nil),
            Row("no rule matches", [("q", "x")], "app://a", nil),
            Row("same match replaces target", [("a", "one"), ("b", "two"), ("a", "three")], "ab", "three"),
            Row("replacement keeps position", [("a", "one"), ("b", "two"), ("a", "three")], "b a", "three"),
        ])
    }

    func testReplaceRemoveAndAllOrNone() throws {
        var set = try RewriteRules.empty.adding([("a", "1"), ("b", "2"), ("c", "3")], limits: .default)
        set = try set.adding([("b", "22")], limits: .default)
        XCTAssertEqual(set.rules.map(\.match), ["a", "b", "c"], "in-place replacement keeps the order")
        XCTAssertEqual(set.rules.map(\.target), ["1", "22", "3"])
        set = try set.removing("a")
        XCTAssertEqual(set.rules.map(\.match), ["b", "c"])
        XCTAssertEqual(try set.rewrite("abc"), "22")

        XCTAssertThrowsError(try set.removing("a")) { error in
            XCTAssertEqual((error as? RouterError)?.code, .notFound, "removing a missing rule")
        }
        // All or none: the third rule is invalid, so neither valid one is added.
        XCTAssertThrowsError(try set.adding([("x", "X"), ("y", "Y"), ("(", "bad")], limits: .default)) { error in
            XCTAssertEqual((error as? RouterError)?.code, .regex)
            XCTAssertEqual((error as? RouterError)?.message,
                           "rewrite rule 2: invalid rewrite regex '(' at byte 1: missing closing parenthesis (PCRE2 error 114)")
        }
        XCTAssertEqual(set.rules.map(\.match), ["b", "c"], "a failed batch adds nothing")

        let router = Router()
        try router.addRewrites([("a", "1"), ("b", "2")])
        XCTAssertThrowsError(try router.addRewrites([("c", "3"), ("d", "$9")]))
        XCTAssertEqual(router.rewriteRules.map(\.match), ["a", "b"], "router: a failed batch adds nothing")
        try router.addRewrite("a", target: "11")
        XCTAssertEqual(router.rewriteRules.map(\.target), ["11", "2"])
        try router.removeRewrite("a")
        XCTAssertEqual(try router.rewrite("a"), nil)
        XCTAssertThrowsError(try router.removeRewrite("a")) { XCTAssertEqual(($0 as? RouterError)?.code, .notFound) }
        router.removeAllRewrites()
        XCTAssertEqual(try router.rewrite("b"), nil)
        XCTAssertTrue(router.rewriteRules.isEmpty)
    }

    // MARK: FFRouter faults we do not copy

    /// FFRouter encodes `$$` with URLQueryAllowedCharacterSet, which leaves `& = / ? :` as they are, so an
    /// encoded value breaks out of its query parameter.
    func testFFRouterFault_EncodingLeavesReservedCharactersUnescaped() {
        check([
            Row("& = / ? : are encoded", "s=(.*)", "app://p?q=$$1", "https://h/?s=a&b=c/d?e:f",
                "app://p?q=a%26b%3Dc%2Fd%3Fe%3Af"),
            Row("$$url is one parameter", "^https://", "app://web?u=$$url", "https://h/a?x=1&y=2",
                "app://web?u=https%3A%2F%2Fh%2Fa%3Fx%3D1%26y%3D2"),
        ])
    }

    /// FFRouter collects only the groups that matched text, so after an unset group `$2` means group 3.
    func testFFRouterFault_CaptureNumberingSkipsUnsetGroups() {
        check([
            Row("unset group 1 keeps numbering", "(x)?(a)(b)", "1=$1 2=$2 3=$3", "ab", "1= 2=a 3=b"),
            Row("empty group keeps numbering", "a(x*)(b)", "1=$1 2=$2", "ab", "1= 2=b"),
        ])
    }

    /// FFRouter runs its `$word` substitution on the URL even when no rule matched, so a URL holding `$host`
    /// comes back changed.
    func testFFRouterFault_ExpandsWordsInUnmatchedURLs() {
        check([
            Row("unmatched URL with $host", [("nomatch", "x")], "app://p?v=$host&w=$1", nil),
            Row("unmatched URL with $$url", [("nomatch", "x")], "app://p?v=$$url", nil),
        ])
    }

    // MARK: Errors at add time

    func testTemplateErrors() {
        // (name, match, target, offset, the reason after "malformed rewrite target '<target>' at byte <offset>: ")
        let words = "(expected a group number, ${name}, $scheme, $host, $port, $path, $query, $fragment or $url; write \\$ for a literal dollar)"
        let followed = "'$' must be followed by a group number, {name} or a URL part (write \\$ for a literal dollar)"
        let rows: [(name: String, match: String, target: String, offset: Int, reason: String)] = [
            ("unknown word", "(x)", "app://$hots", 6, "unknown word '$hots' \(words)"),
            ("word runs over name bytes", "(x)", "$hostname", 0, "unknown word '$hostname' \(words)"),
            ("$ at the end", "(x)", "app://x$", 7, "'$' at the end of the target (write \\$ for a literal dollar)"),
            ("$$ at the end", "(x)", "app$$", 3, "'$$' at the end of the target (write \\$ for a literal dollar)"),
            ("$# at the end", "(x)", "app$#", 3, "'$#' at the end of the target (write \\$ for a literal dollar)"),
            ("$ then punctuation", "(x)", "a$-b", 1, followed),
            ("$ then space", "(x)", "a$ b", 1, followed),
            ("$$$", "(x)", "$$$1", 0, followed),
            ("unclosed ${", "(?<n>x)", "a${n", 1, "'${' is not closed by '}'"),
            ("empty ${}", "(x)", "a${}", 1, "'${}' names no group"),
            ("group beyond count", "(x)", "$1$2", 2, "group 2 does not exist: the regex has 1 capture group"),
            ("two-digit group beyond count", "(x)", "$10", 0, "group 10 does not exist: the regex has 1 capture group"),
            ("no groups at all", "x", "$1", 0, "group 1 does not exist: the regex has 0 capture groups"),
            ("${N} beyond count", "(x)", "${7}", 0, "group 7 does not exist: the regex has 1 capture group"),
            ("${N} beyond count, leading zeros", "(x)", "${0000002}", 0, "group 2 does not exist: the regex has 1 capture group"),
            ("huge ${N}", "(x)", "${99999999999999999999}", 0, "group 99999999999999999999 does not exist: the regex has 1 capture group"),
            ("huge ${N}, no groups", "x", "${99999999999999999999}", 0,
             "group 99999999999999999999 does not exist: the regex has 0 capture groups"),
            ("unknown name", "(?<id>x)", "app://${ID}", 6, "the regex has no group named 'ID'"),
            ("encoded unknown word", "(x)", "$$nope", 0, "unknown word '$nope' \(words)"),
            ("decoded unknown word", "(x)", "ab$#nope", 2, "unknown word '$nope' \(words)"),
        ]
        for row in rows {
            XCTAssertThrowsError(try RewriteRules.empty.adding([(row.match, row.target)], limits: .default), "row '\(row.name)'") { error in
                guard let e = error as? RouterError else { return XCTFail("row '\(row.name)': \(error)") }
                XCTAssertEqual(e.code, .pattern, "row '\(row.name)'")
                XCTAssertEqual(e.offset, row.offset, "row '\(row.name)': \(e.message)")
                // A batch of one: the rule is rule 0.
                XCTAssertEqual(e.message, "rewrite rule 0: malformed rewrite target '\(row.target)' at byte \(row.offset): \(row.reason)",
                               "row '\(row.name)'")
            }
        }
    }

    func testRegexErrors() {
        // PCRE2's own texts (pcre2_get_error_message), error numbers and offsets.
        let rows: [(name: String, match: String, offset: Int, reason: String)] = [
            ("unclosed group", "(abc", 4, "missing closing parenthesis (PCRE2 error 114)"),
            ("unmatched )", "abc)", 3, "unmatched closing parenthesis (PCRE2 error 122)"),
            ("nothing to repeat", "*a", 0, "quantifier does not follow a repeatable item (PCRE2 error 109)"),
            ("unclosed class", "[a-", 3, "missing terminating ] for character class (PCRE2 error 106)"),
            ("bad range", "[z-a]", 3, "range out of order in character class (PCRE2 error 108)"),
            ("trailing backslash", "ab\\", 3, "\\ at end of pattern (PCRE2 error 101)"),
            ("\\C is refused", "a\\Cb", 3, "using \\C is disabled by the application (PCRE2 error 183)"),
            ("bad escape", "a\\i", 2, "unrecognized character follows \\ (PCRE2 error 103)"),
            ("unknown group name", "\\k<nope>", 3, "reference to non-existent subpattern (PCRE2 error 115)"),
        ]
        for row in rows {
            XCTAssertThrowsError(try RewriteRules.empty.adding([(row.match, "x")], limits: .default), "row '\(row.name)'") { error in
                guard let e = error as? RouterError else { return XCTFail("row '\(row.name)': \(error)") }
                XCTAssertEqual(e.code, .regex, "row '\(row.name)'")
                XCTAssertEqual(e.offset, row.offset, "row '\(row.name)': \(e.message)")
                XCTAssertEqual(e.message, "rewrite rule 0: invalid rewrite regex '\(row.match)' at byte \(row.offset): \(row.reason)",
                               "row '\(row.name)'")
            }
        }
        // Through the router too.
        XCTAssertThrowsError(try Router().addRewrite("(abc", target: "x")) { error in
            XCTAssertEqual((error as? RouterError)?.code, .regex)
        }
    }

    // MARK: Limits

    /// Catastrophic and quadratic regexes end by counts, not by a clock: PCRE2's match limit per start offset and
    /// LR_LIMIT_REGEX_START's bound on start offsets. Each row's outcome, with the JIT and interpreted, is exact.
    func testReDoSEndsInLimit() throws {
        let long = String(repeating: "a", count: 5_000) + "b"
        let longer = String(repeating: "a", count: 60_000) + "=yx"
        enum Outcome: Equatable { case limit, noMatch }
        let rows: [(name: String, match: String, url: String, jit: Outcome, interpreted: Outcome)] = [
            ("(a+)+$", "(a+)+$", long, .limit, .limit),
            ("(a|a)*$", "(a|a)*$", long, .limit, .limit),
            ("(a|aa)+$", "^(a|aa)+$", long, .limit, .limit),
            ("(a*)*c", "(a*)*c", long + "c", .limit, .limit),
            ("(a*)*$", "(a*)*$", long, .limit, .limit),
            ("(\\w+\\s?)*$", "^(\\w+\\s?)*$", long + "!", .limit, .limit),
            ("(.*a){20}$", "(.*a){20}$", long, .limit, .limit),
            ("((?:a|b)+)+$", "^((?:a|b)+)+$", String(repeating: "ab", count: 2_500) + "c", .limit, .limit),
            ("URL-like", "^https://h/(([a-z])+.)+[A-Z]([a-z])+$", "https://h/" + String(repeating: "a", count: 3_000) + "!",
             .limit, .limit),
            // Quadratic (the match limit restarts at each start position): the start offsets stop at 1,024 under
            // the JIT; the interpreter refuses a subject this long outright.
            ("a+=x on 60 KB", "a+=x", longer, .noMatch, .limit),
            ("([a-z]+)\\d on 60 KB", "([a-z]+)\\d", longer, .noMatch, .limit),
        ]
        for jit in [true, false] {
            for row in rows {
                let regex = try Regex(row.match, jit: jit)
                let outcome: Outcome
                do {
                    let matched = try row.url.withSpan { span throws(RouterError) in
                        try RegexScratch.with { scratch throws(RouterError) in
                            try regex.firstMatch(in: span, groups: 1, scratch: scratch, limits: .default)
                        }
                    }
                    XCTAssertFalse(matched, "row '\(row.name)' jit \(jit)")
                    outcome = .noMatch
                } catch {
                    XCTAssertEqual(error.code, .limit, "row '\(row.name)' jit \(jit): \(error)")
                    outcome = .limit
                }
                XCTAssertEqual(outcome, jit ? row.jit : row.interpreted, "row '\(row.name)' jit \(jit)")
            }
        }
        // Through the router: .limit, and the router keeps working.
        let router = Router()
        try router.addRewrite("(a+)+$", target: "x")
        XCTAssertThrowsError(try router.rewrite(long)) { XCTAssertEqual(($0 as? RouterError)?.code, .limit) }
        XCTAssertThrowsError(try router.resolve(long)) { XCTAssertEqual(($0 as? RouterError)?.code, .limit) }
        XCTAssertEqual(try router.rewrite("aaa"), "x")
    }

    func testLimitsComeFromTheRouter() throws {
        let router = Router()
        try router.addRewrite("^(a+)+$", target: "hit")
        let url = "aaaaaaaaab"  // a few hundred steps to find there is no match
        XCTAssertEqual(try router.rewrite(url), nil)
        var limits = Limits()
        limits.regexMatchLimit = 5
        try router.setLimits(limits)
        XCTAssertThrowsError(try router.rewrite(url)) { XCTAssertEqual(($0 as? RouterError)?.code, .limit) }
        XCTAssertEqual(try router.rewrite("aaa"), "hit")
        limits.regexMatchLimit = 10_000
        try router.setLimits(limits)
        XCTAssertEqual(try router.rewrite(url), nil)
    }

    /// A group repeated once per character: deep backtracking. The JIT (with its per-thread heap stack) gets
    /// through thousands of repeats; past its stack it falls back to the interpreter, whose depth limit and
    /// subject limit end it in .limit.
    func testDeepSubjectsAndTheJITStack() throws {
        let pattern = "^(?:(a)|b)*c"
        let rows: [(name: String, a: Int, jit: Bool, limits: Limits, matches: Bool)] = [
            ("JIT, 4,000 repeats", 4_000, true, .default, true),
            ("JIT stack full, then the interpreter refuses 60 KB", 60_000, true, .default, false),
            ("interpreter, depth limit", 4_000, false, .default, false),
            ("interpreter, generous limits", 4_000, false,
             { var l = Limits(); l.regexDepthLimit = 100_000; l.regexMatchLimit = 1_000_000; return l }(), true),
            ("interpreter, longer than its subject limit", Regex.interpretedSubjectLimit, false,
             { var l = Limits(); l.regexDepthLimit = 1_000_000; return l }(), false),
        ]
        for row in rows {
            let regex = try Regex(pattern, jit: row.jit)
            let url = String(repeating: "a", count: row.a) + "c"
            do {
                let groups = try Self.groups(regex, url, limits: row.limits)
                XCTAssertTrue(row.matches, "row '\(row.name)': matched")
                XCTAssertEqual(groups?[1], "a", "row '\(row.name)'")
            } catch {
                XCTAssertFalse(row.matches, "row '\(row.name)': \(error)")
                XCTAssertEqual((error as? RouterError)?.code, .limit, "row '\(row.name)': \(error)")
            }
        }
    }

    func testLongURLsStayWithinLimits() {
        let long = String(repeating: "x", count: 60_000)
        check([
            Row("amazon on a 60 KB query", "(?:https://)?www.amazon.com/search/(.*)", "app://p?q=$$1",
                "https://www.amazon.com/search/a?" + long, "app://p?q=a%3F" + long),
            Row("miss on a 60 KB URL", "(?:https://)?www.amazon.com/search/(.*)", "x", "https://h/?" + long, nil),
            Row("path segments", "^https://h/((?:[^/]+/)*)end", "$1", "https://h/" + String(repeating: "ab/", count: 300) + "end",
                String(repeating: "ab/", count: 300)),
        ])
    }

    func testResultLongerThanMaxURLLengthIsLimit() throws {
        var limits = Limits()
        limits.maxURLLength = 100
        let router = Router(limits: limits)
        try router.addRewrite("(.*)", target: "$$1$$1$$1")
        XCTAssertEqual(try router.rewrite("abc"), "abcabcabc")
        XCTAssertThrowsError(try router.rewrite(String(repeating: "/", count: 40))) { error in
            XCTAssertEqual((error as? RouterError)?.code, .limit, "\(error)")
        }
    }

    // MARK: Router integration

    func testResolveRewritesFirst() throws {
        let router = Router()
        try router.add("protocol://page/routerDetails", target: "Details")
        try router.addRewrites([
            ("(?:https://)?www.amazon.com/search/(.*)", "protocol://page/routerDetails?product=$1"),
            ("(?:https://)?www.taobao.com/search/(.*)", "protocol://page/routerDetails?product=$$1"),
        ])
        let rows: [(url: String, rewritten: String?, product: String?)] = [
            ("https://www.amazon.com/search/Atomic_bomb", "protocol://page/routerDetails?product=Atomic_bomb", "Atomic_bomb"),
            ("https://www.taobao.com/search/原子弹", "protocol://page/routerDetails?product=%E5%8E%9F%E5%AD%90%E5%BC%B9", "原子弹"),
            ("protocol://page/routerDetails?product=direct", "protocol://page/routerDetails?product=direct", "direct"),
            ("https://www.example.com/", nil, nil),
        ]
        for row in rows {
            let match = try router.resolve(row.url)
            XCTAssertEqual(match?.url, row.rewritten == nil ? nil : row.url, "row \(row.url)")
            XCTAssertEqual(match?.rewritten, row.rewritten, "row \(row.url)")
            XCTAssertEqual(match?.params["product"], row.product, "row \(row.url)")
        }
    }

    // MARK: The required-literal scanner

    func testRequiredLiterals() {
        // What every match contains: runs of three bytes or more, "(a|b)" for one of several; "" for nothing.
        let rows: [(pattern: String, needs: String)] = [
            ("abc", "abc"),
            ("ABC", "abc"),
            ("ab", ""),
            ("(?:https://)?www.amazon.com/search/(.*)", "www amazon com/search/"),
            ("^https://h\\.com/p/(\\d+)$", "https://h.com/p/"),
            ("xyzab?cdef", "xyza cdef"),
            ("xyzab*cdef", "xyza cdef"),
            ("xyzab+cdef", "xyzab cdef"),
            ("xyzab{0,2}cdef", "xyza cdef"),
            ("xyzab{2}cdef", "xyzab cdef"),
            ("xyzab{,2}cdef", "xyza cdef"),
            ("xyzab{ 1 }cdef", "xyza cdef"),
            ("xyzab{x}cdef", "xyzab x}cdef"),
            ("xyzab??cdef", "xyza cdef"),
            ("xyzab*+cdef", "xyza cdef"),
            ("原子?弹", "原 弹"),
            ("abc|def", "(abc|def)"),
            ("abc|d", ""),
            ("abc(x|y)def", "abc def"),
            ("abc(xyz|uvw)def", "abc (xyz|uvw) def"),
            ("abc(xyz|uvw)?def", "abc def"),
            ("abc(xyz|uvw)*def", "abc def"),
            ("abc(xyz|uvw){0,3}def", "abc def"),
            ("abc(xyz|uvw)+def", "abc (xyz|uvw) def"),
            ("abc(?:xyz)def", "abc xyz def"),
            ("^(?:alt19|other19)://", "(alt19|other19) ://"),
            ("abc[|)(]def", "abc def"),
            ("abc[]|]def", "abc def"),
            ("abc[^]|]def", "abc def"),
            ("abc[[:alpha:]|]def", "abc def"),
            ("abc[[:a]|]def", ""),
            ("xyz[\\]|]uvw", "xyz uvw"),
            ("\\.com\\/", ".com/"),
            ("abc\\dxyz", "abc xyz"),
            ("abc\\d{3}xyz", "abc xyz"),
            ("abc\\b{wb}xyz", "abc"),
            ("(?i)abc", "abc"),
            ("(?i)^HTTPS://CASE9\\.", "http ://ca e9."),
            ("(?i)Kelvin", "elv"),
            ("(?i)éabcd", "abcd"),
            ("abc(?i)def", ""),
            ("abc(?i:xyz)def", "abc xyz def"),
            ("abc(?i:xkz)def", "abc def"),
            ("abc(?x) d e f", ""),
            ("abc(?-i)def", ""),
            ("(*UTF)abc", ""),
            ("abc(*ACCEPT)def", ""),
            ("abc(?:x(*ACCEPT))def", ""),
            ("\\Qa|b\\Eabcd", "abcd"),
            ("abcd\\E?", "abc"),
            ("abcd\\E", "abcd"),
            ("abcd\\Q\\E?", "abc"),
            ("abcd\\E\\Q\\E*", "abc"),
            ("abc\\.\\E?", "abc"),
            ("(?:abcd)\\E?", ""),
            ("xyz(?:abcd)\\Q\\E+", "xyz abcd"),
            ("ab\\Q\\Ecd", "abcd"),
            ("xyz\\Qab\\E?", "xyz"),
            ("abcd+\\E?", "abcd"),
            ("xyz\\c|uvw", "xyz uvw"),
            ("abc\\x41bcd", "abc"),
            ("abc\\x{41}bcd", "abc"),
            ("abc\\N{U+41}bcd", "abc"),
            ("abc\\p{L}bcd", "abc"),
            ("(?<n>x)abc\\k<n>bcd", "abc"),
            ("abc\\ébcd", "abc"),
            ("(abc)\\1xyz", "abc"),
            ("abc\\x41(xyz)", "abc xyz"),
            ("abc(?#c|d)xyz", ""),
            ("(a)bc(?(1)b|c)", ""),
            ("abc(?R)?", ""),
            ("abc(?=x|y)def", "abc def"),
            ("abc(?=xyz)def", "abc def"),
            ("abc(?!xyz)def", "abc def"),
            ("abc(?<=xyz)def", "abc def"),
            ("abc(?<!xyz)def", "abc def"),
            ("abc(?<n>xyz|uvw)def", "abc (xyz|uvw) def"),
            ("abc(?P<n>xyz)def", "abc xyz def"),
            ("abc(?'n'xyz)def", "abc xyz def"),
            ("abc(?|(xyz)|(uvw))def", "abc (xyz|uvw) def"),
            ("abc(?>x|y)def", "abc def"),
            ("abc(?>xyz)def", "abc xyz def"),
            ("abc.def", "abc def"),
            ("^abc$", "abc"),
            ("", ""),
        ]
        for row in rows {
            let needs = RequiredLiterals.needs(row.pattern).map(\.description).joined(separator: " ")
            XCTAssertEqual(needs, row.needs, "row '\(row.pattern)'")
            XCTAssertNoThrow(try Regex(row.pattern), "row '\(row.pattern)' compiles")
        }
    }

    /// B35: PCRE2 ignores `\E` outside `\Q…\E` and an empty `\Q\E`, so a quantifier after them applies to the
    /// atom before them. The scan read them as the end of the run, kept "abcd" of `abcd\E?` as required, and the
    /// index left the rule out for "x://abc": a later rule fired. Each row: a pattern, a URL, and whether the
    /// pattern alone matches it; the rule sits among five others (the index in use) before a catch-all `^x://`.
    func testIgnoredBackslashEKeepsTheQuantifierOnItsAtom() throws {
        let rows: [(pattern: String, url: String, matches: Bool)] = [
            ("^x://[0-9]+/[i]tems\\E?", "x://42/item", true),
            ("^x://[0-9]+/[i]tems\\E?", "x://42/items", true),
            ("abcd\\E?", "x://abc", true),
            ("abcd\\Q\\E?", "x://abc", true),
            ("abcd\\Q\\E*", "x://abc", true),
            ("abcd\\Q\\E{0}", "x://abc", true),
            ("abcd\\E\\Q\\E\\E?", "x://abc", true),
            ("abc\\.\\E?", "x://abc", true),
            ("(?:abcd)\\E?", "x://", true),
            ("(?:abcd)\\Q\\E{0,1}", "x://", true),
            ("(abcd)\\E\\E*", "x://", true),
            ("(?i)abcd\\Q\\E?", "x://ABC", true),
            ("\\Qab\\E?cdef", "x://acdef", true),  // the quantifier applies to "b" only
            ("\\Qab\\E?cdef", "x://bcdef", false),
            ("xyz\\Qab\\E?", "x://xyza", true),
            ("ab\\Q\\Ecd", "x://abcd", true),  // an empty \Q\E inside a run
            ("ab\\Q\\Ecd", "x://ab", false),
            ("abcd\\E", "x://abcd", true),
            ("abcd\\E", "x://abc", false),
            ("abcd+\\E?", "x://abcd", true),  // "+\E?" is a lazy "+": "d" is still required
            ("abcd+\\E?", "x://abc", false),
            ("abcd\\E?", "x://ab", false),
        ]
        let fillers: [Rule] = (0..<5).map { ("^zqx\($0)://qqfill", "app://filler\($0)") }
        for row in rows {
            XCTAssertEqual(try Self.groups(Regex(row.pattern), row.url) != nil, row.matches, "row '\(row.pattern)' on '\(row.url)' alone")
            let rules = fillers + [(row.pattern, "app://wanted"), ("^x://", "app://other")]
            let set = try RewriteRules.empty.adding(rules, limits: .default)
            let expected = row.matches ? "app://wanted" : "app://other"
            XCTAssertEqual(try set.rewriteLinear(row.url), expected, "row '\(row.pattern)' on '\(row.url)': linear")
            XCTAssertEqual(try set.rewrite(row.url), expected, "row '\(row.pattern)' on '\(row.url)': index")
            let router = Router()
            try router.addRewrites(rules)
            XCTAssertEqual(try router.rewrite(row.url), expected, "row '\(row.pattern)' on '\(row.url)': Router")
        }
    }

    /// The index's selectivity with 999 FFRouter-style rules (those of `linkrouter bench rewrite`): each family's
    /// literal runs are 5 to 25 bytes, and every 4-gram of them is kept, so each rule is filed under a gram of its
    /// own. A cap of 16 grams per run (B38's first fix) cut the runs of 20 bytes and more, and the regexes run
    /// went from 1,831 to 3,528 for these 1,998 URLs. Counted, exact.
    func testFFRouterStyleRulesRunAboutOneRegexPerURL() throws {
        let n = 999
        let router = Router()
        try router.addRewrites((0..<n).map { k -> (String, String) in
            switch k % 3 {
            case 0: return ("(?:https://)?www.shop\(k).com/search/(.*)", "app://search?shop=\(k)&q=$$1")
            case 1: return ("^https?://m\\.site\(k)\\.com/item/(\\d+)", "app://item/$1?site=\(k)")
            default: return ("^https://www\\.news\(k)\\.org/(?<year>\\d{4})/(?<slug>[\\w-]+)", "app://news/${year}/$#{slug}")
            }
        })
        let set = router.withState { $0.rewrites }
        var fired = 0, unfired = 0
        for k in 0..<n {
            let url: String
            switch k % 3 {
            case 0: url = "https://www.shop\(k).com/search/red shoes"
            case 1: url = "http://m.site\(k).com/item/\(1000 + k)?ref=mail"
            default: url = "https://www.news\(k).org/2026/launch-day"
            }
            let (rewritten, evaluated) = try set.rewriteCounting(url)
            XCTAssertNotNil(rewritten, url)
            fired += evaluated
            unfired += try set.rewriteCounting("https://www.other\(k).net/path/to/page?x=\(k)").evaluated
        }
        XCTAssertEqual([fired, unfired], [1_231, 600])
    }

    /// B38: the index kept every 4-gram of every literal run and is rebuilt over all keys at each change, so 100
    /// rules of 20 KB literals took 9.7 s to add one by one. A run now keeps at most `maxGramsPerRun` grams,
    /// spread across it (any one suffices); runs up to 67 bytes keep them all. Rows: run length → keys kept
    /// (random letters: all grams distinct).
    func testLongLiteralRunsKeepABoundedSampleOfGrams() throws {
        XCTAssertEqual(RequiredLiterals.maxGramsPerRun, 64)
        var g = SplitMix(seed: 38)
        func letters(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(0x61 + g.next(26)) } }
        // (The 20,000-byte run's 64 sampled grams hold one repeat: 63 distinct keys.)
        let rows: [(length: Int, keys: Int)] = [(2, 0), (3, 1), (4, 1), (10, 7), (19, 16), (20, 17), (64, 61), (67, 64),
                                                 (68, 64), (20_000, 63)]
        for row in rows {
            var keys = Set<UInt64>()
            RequiredLiterals.need(forRun: letters(row.length))?.collectKeys(into: &keys)
            XCTAssertEqual(keys.count, row.keys, "run of \(row.length) bytes")
        }
        // The first and the last gram are kept; a 256-byte run's 64 grams cover every byte.
        let run = Array(String(repeating: "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ.-", count: 4).utf8)
            .map(ASCII.lowercased).enumerated().map { $0.offset < 64 ? $0.element : UInt8(0x61 + g.next(26)) }
        if case .grams(let keys, _)? = RequiredLiterals.need(forRun: run) {
            let starts = (0...(run.count - 4)).filter { at in
                keys.contains(RequiredLiterals.key4(run[at..<(at + 4)].reduce(0) { $0 << 8 | UInt32($1) }))
            }
            XCTAssertEqual(starts.first, 0)
            XCTAssertEqual(starts.last, run.count - 4)
            XCTAssertTrue(zip(starts, starts.dropFirst()).allSatisfy { $1 - $0 <= 4 }, "gaps \(starts)")
        } else {
            XCTFail("a 256-byte run gives grams")
        }
        // 100 rules of 20 KB literals, added one by one: at most 64 keys each, and each rule still found.
        let router = Router()
        var literals: [String] = []
        for i in 0..<100 {
            let literal = String(decoding: letters(20_000), as: UTF8.self)
            literals.append(literal)
            try router.addRewrite(literal, target: "app://r\(i)")
        }
        let set = router.withState { $0.rewrites }
        XCTAssertEqual(set.entries.count, 100)
        XCTAssertEqual(set.entries.map(\.keys.count).max(), 64)
        for (i, literal) in literals.enumerated() {
            XCTAssertEqual(try router.rewrite("x://" + literal + "/y"), "app://r\(i)", "rule \(i)")
            XCTAssertTrue(set.candidates(for: "x://" + literal).contains(i), "rule \(i) is a candidate")
        }
        // A URL with one of the literals cut in the middle: no rule matches, the index agrees with the scan.
        let cut = "x://" + literals[7].prefix(10_000) + "/" + literals[7].dropFirst(10_001)
        XCTAssertNil(try set.rewrite(cut))
        XCTAssertNil(try set.rewriteLinear(cut))
    }

    // MARK: The index against the linear scan

    /// 1,000 generated rules with overlapping literals and some always-candidates; a few thousand URLs give
    /// exactly the linear scan's answer, and the index evaluates about one regex per URL.
    func testIndexMatchesLinearScanWith1000Rules() throws {
        var generator = SplitMix(seed: 42)
        let (rules, urls) = Self.generated(rules: 1_000, urls: 4_000, &generator)
        let set = try RewriteRules.empty.adding(rules, limits: .default)
        XCTAssertEqual(set.rules.count, rules.count)
        let always = (0..<rules.count).filter(set.isAlwaysCandidate)
        XCTAssertEqual(always.count, 4, "the table's always-candidates: \(always.map { rules[$0].match })")
        // The same table without its always-candidates: what the index itself leaves to evaluate.
        let indexable = try RewriteRules.empty.adding(rules.enumerated().filter { !always.contains($0.offset) }.map(\.element),
                                                      limits: .default)
        var evaluations = 0, indexableEvaluations = 0, fired = 0
        for url in urls {
            let indexed = try set.rewriteCounting(url)
            let linear = try set.rewriteCounting(url, linear: true)
            XCTAssertEqual(indexed.rewritten, linear.rewritten, "url '\(url)'")
            evaluations += indexed.evaluated
            indexableEvaluations += try indexable.rewriteCounting(url).evaluated
            if indexed.rewritten != nil { fired += 1 }
        }
        let average = Double(evaluations) / Double(urls.count)
        let indexableAverage = Double(indexableEvaluations) / Double(urls.count)
        print("RewriteTests: 1,000 rules, \(urls.count) URLs, \(fired) fired: \(String(format: "%.3f", average)) regex "
              + "evaluations per URL (\(always.count) always-candidates included), "
              + "\(String(format: "%.3f", indexableAverage)) without them")
        XCTAssertLessThanOrEqual(indexableAverage, 2.0, "average regex evaluations per URL, always-candidates aside")
        XCTAssertLessThanOrEqual(average, 2.0 + Double(always.count), "average regex evaluations per URL")
        XCTAssertGreaterThan(fired, urls.count / 2)
        XCTAssertLessThan(fired, urls.count)
    }

    /// Random small patterns built from risky pieces (classes, groups, quantifiers, escapes, case options)
    /// against random URLs: the index never drops a rule that matches.
    func testIndexNeverDropsAMatchingRule() throws {
        var g = SplitMix(seed: 7)
        let pieces = ["ab", "bc", "abc", "abcd", "cdab", "Abc", "a?", "b*", "c+", "d{0,1}", "e{2}", "(ab|cd)", "[ab]",
                      "[^x]", ".", "\\d", "\\.", "/", "x?y", "(?:abc)?", "(?=ab)", "(?i)", "ABCD", "é", "éa",
                      "\\w+", "(a)", "$", "^", "{", "}", "ab{1,}", "|", "dcba", "b{,2}", "(?i:kss)", "(?i:abcd)",
                      "\\x41", "\\x{61}", "\\Qab|\\E", "[[:alpha:]]", "(?<n>ab)", "(?:ab|cd)+", "\\bab", "(?!ab)",
                      "\\K", "kss", "SKS", "(?|(ab)|(cd))", "\\p{L}", "\\N", "\\d{2}", "ab{2,3}", ".*", "(?>ab|a)",
                      "\\/", "ß", "\\c|", "(?:)", "a{1}b", "abc{0}d"]
        let alphabet = Array("abcdABCDxy/.é0kKsS=|{}ſ\u{212A}ß")
        var rules: [Rule] = []
        var seen = Set<String>()
        while rules.count < 300 {
            var p = g.next(8) == 0 ? "(?i)" : ""
            for _ in 0..<(1 + g.next(4)) { p += pieces[g.next(pieces.count)] }
            guard !seen.contains(p), (try? Regex(p)) != nil else { continue }
            seen.insert(p)
            rules.append((p, "r\(rules.count)"))
        }
        let set = try RewriteRules.empty.adding(rules, limits: .default)
        let alone = try rules.map { try Regex($0.match) }
        let words = ["ab", "cd", "abc", "abcd", "dcba", "cdab", "ABCD", "kss", "KSS", "ſs", "\u{212A}ss", "é", "éa", "a", "b",
                     "/", ".", "x", "y", "0", "12", "=", "{", "}", "|", "ß", "A"]
        var indexedMatches = 0
        for _ in 0..<2_000 {
            var url = ""
            for _ in 0..<(1 + g.next(6)) {
                if g.next(4) == 0 { url.append(alphabet[g.next(alphabet.count)]) } else { url += words[g.next(words.count)] }
            }
            XCTAssertEqual(try set.rewrite(url), try set.rewriteLinear(url), "url '\(url)'")
            // Stronger: each rule on its own.
            let candidates = Set(set.candidates(for: url))
            for (i, rule) in rules.enumerated() {
                let matches = try Self.groups(alone[i], url) != nil
                if matches && !set.isAlwaysCandidate(i) { indexedMatches += 1 }
                XCTAssertTrue(!matches || candidates.contains(i), "rule '\(rule.match)' matches '\(url)' but the index dropped it")
            }
        }
        let indexed = (0..<rules.count).filter { !set.isAlwaysCandidate($0) }.count
        XCTAssertGreaterThan(indexed, rules.count / 4, "many random rules have a literal the index uses")
        XCTAssertGreaterThan(indexedMatches, 1_000, "indexed rules do match the random URLs (the check is not vacuous)")
    }

    // MARK: Concurrency

    /// Threads rewrite while another thread adds, replaces and removes rules: every answer is one that some
    /// published rule set gives. Filler rules keep the sets past the linear threshold, so the index is used.
    func testConcurrentRewritesDuringRuleChanges() throws {
        let router = Router()
        let base: [Rule] = [("^app://a/(\\d+)", "A$1"), ("^app://b/", "B"), ("shop", "S:$host")] + Self.fillers
        try router.addRewrites(base)
        let urls = ["app://a/1", "app://b/x", "https://shop.com/p", "app://c/7", "app://a/x", "https://h/c/7"]
        // The states the writer moves through, in a cycle.
        let states: [[Rule]] = [
            base,
            base + [("/c/(\\d+)", "C$1")],
            base.map { $0.match == "^app://b/" ? ($0.match, "B2") : $0 } + [("/c/(\\d+)", "C$1")],
            base.map { $0.match == "^app://b/" ? ($0.match, "B2") : $0 },
        ]
        var allowed: [String: Set<String>] = [:]
        for state in states {
            let set = try RewriteRules.empty.adding(state, limits: .default)
            for url in urls { allowed[url, default: []].insert(try set.rewriteLinear(url) ?? "nil") }
        }
        let allowedAnswers = allowed
        let stop = Locked(false)
        let failures = Locked<[String]>([])
        let answered = Locked(0)
        let done = DispatchSemaphore(value: 0)
        let readers = 3
        for r in 0..<readers {
            Thread {
                var i = r
                while !stop.value {
                    let url = urls[i % urls.count]
                    i += 1
                    do {
                        let answer = try router.rewrite(url) ?? "nil"
                        if allowedAnswers[url]?.contains(answer) != true {
                            failures.update { $0.append("\(url) -> \(answer)") }
                        }
                    } catch {
                        failures.update { $0.append("\(url) threw \(error)") }
                    }
                }
                answered.update { $0 += i - r }
                done.signal()
            }.start()
        }
        for round in 0..<400 {
            switch round % 4 {
            case 0: try router.addRewrite("/c/(\\d+)", target: "C$1")
            case 1: try router.addRewrite("^app://b/", target: "B2")
            case 2: try router.removeRewrite("/c/(\\d+)")
            default: try router.addRewrite("^app://b/", target: "B")
            }
            if round % 50 == 0 { Thread.sleep(forTimeInterval: 0.001) }  // let the readers run between changes
        }
        stop.value = true
        for _ in 0..<readers { done.wait() }
        XCTAssertEqual(failures.value, [], "answers outside every published state")
        XCTAssertGreaterThan(answered.value, 100, "the readers ran while the rules changed")
        XCTAssertEqual(router.rewriteRules.map(\.target), base.map(\.target))
    }

    /// Threads share one 1,000-rule set (each with its own PCRE2 match data): every answer is the linear scan's.
    func testConcurrentRewritesShareOneRuleSet() throws {
        var g = SplitMix(seed: 9)
        let (rules, urls) = Self.generated(rules: 1_000, urls: 300, &g)
        let set = try RewriteRules.empty.adding(rules, limits: .default)
        let expected = try urls.map { try set.rewriteLinear($0) }
        let failures = Locked<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let threads = 4
        for t in 0..<threads {
            Thread {
                for k in 0..<(urls.count * 3) {
                    let i = (k * 7 + t * 13) % urls.count
                    let answer = try? set.rewrite(urls[i])
                    if answer != expected[i] { failures.update { $0.append("\(urls[i]) -> \(String(describing: answer))") } }
                }
                done.signal()
            }.start()
        }
        for _ in 0..<threads { done.wait() }
        XCTAssertEqual(failures.value, [], "answers that differ from the linear scan")
    }

    /// Regression (reliability bug B4): `(*NO_JIT)` made pcre2_jit_compile succeed with no machine code, and
    /// pcre2_jit_match then failed ("bad JIT option") on every URL, breaking every lookup.
    func testNoJITVerbFallsBackToTheInterpreter() throws {
        let r = Router()
        try r.add("app://user/:id", target: "User")
        try r.addRewrite("(*NO_JIT)^old://(\\w+)", target: "app://user/$1")
        XCTAssertEqual(try r.rewrite("old://7"), "app://user/7")
        XCTAssertNil(try r.rewrite("app://user/1"))
        XCTAssertEqual(try r.resolve("app://user/1")?.target, "User")
        XCTAssertEqual(try r.resolve("old://9")?.params["id"], "9")
    }

    /// Regression (reliability bug B7): a refused rule of a bulk add says which one it was.
    func testBulkAddReportsTheRefusedIndex() {
        let r = Router()
        XCTAssertThrowsError(try r.addRewrites([("^a", "x://a"), ("^b", "x://b"), ("(bad", "x://c")])) { error in
            XCTAssertEqual((error as? RouterError)?.index, 2)
            XCTAssertEqual((error as? RouterError)?.code, .regex)
        }
        XCTAssertTrue(r.rewriteRules.isEmpty)
    }

    func testJITAndInterpreterAgree() throws {
        let patterns = ["(?:https://)?www.amazon.com/search/(.*)", "^app://(\\w+)/(\\d+)?", "(?<k>[a-z]+)=(?<v>[^&]*)", "é+(.)"]
        let urls = ["https://www.amazon.com/search/x", "app://user/42", "app://user/", "a=1&b=2", "ééx", "nothing"]
        for p in patterns {
            let jit = try Regex(p, jit: true), interpreted = try Regex(p, jit: false)
            XCTAssertFalse(interpreted.usesJIT)
            for url in urls {
                let a = try Self.groups(jit, url), b = try Self.groups(interpreted, url)
                XCTAssertEqual(a, b, "pattern '\(p)' url '\(url)'")
            }
        }
    }

    // MARK: Helpers

    static func groups(_ regex: Regex, _ url: String, limits: Limits = .default) throws -> [String?]? {
        try url.withSpan { span throws(RouterError) -> [String?]? in
            try RegexScratch.with { scratch throws(RouterError) -> [String?]? in
                guard try regex.firstMatch(in: span, groups: regex.captureCount + 1, scratch: scratch, limits: limits) else { return nil }
                return (0...regex.captureCount).map { scratch.group($0)?.string }
            }
        }
    }

    /// Rules for hosts `shopN.example.com` (rarest literal per rule), rules that share long literals, rules
    /// with short or no literal (always-candidates), and URLs that hit and miss them.
    static func generated(rules count: Int, urls urlCount: Int, _ g: inout SplitMix) -> ([Rule], [String]) {
        var rules: [Rule] = []
        for i in 0..<count {
            if i % 250 == 249 {
                // Always-candidates: nothing the index can use.
                rules.append(("^(?:x|y)\\d{\(3 + i % 7)}$", "app://always/\(i)"))
                continue
            }
            switch i % 10 {
            case 0...5:
                rules.append(("^https://shop\(i)\\.example\\.com/item/(\\d+)", "app://shop/\(i)/item/$1"))
            case 6:
                rules.append(("/promo/\(i)/(\\w+)", "app://promo/\(i)/$1?src=$$host"))
            case 7:
                rules.append(("[?&]campaign=c\(i)(?:&|$)", "app://campaign/\(i)?u=$$url"))
            case 8:
                // Shared literal "/shared/": told apart by "/v<i>", or not at all for short i.
                rules.append(("/shared/(\\d+)/v\(i)$", "app://shared/$1/\(i)"))
            default:
                switch (i / 10) % 3 {
                case 0: rules.append(("(?i)^HTTPS://CASE\(i)\\.", "app://case/\(i)"))  // case-insensitive
                case 1: rules.append(("^(?:alt\(i)|other\(i))://", "app://alt/\(i)"))  // one of two
                default: rules.append(("^x\(i)z\\d", "app://short/\(i)"))  // short literal
                }
            }
        }
        var urls: [String] = []
        for _ in 0..<urlCount {
            // Mostly the ordinal of a rule of the URL's kind; beyond the table (a miss) one time in eleven.
            let decade = g.next(count / 10 + count / 100)
            let n = g.next(1_000_000)
            func i(_ offset: Int) -> Int { decade * 10 + offset }
            switch g.next(10) {
            case 0, 1: urls.append("https://shop\(i(g.next(6))).example.com/item/\(n)?ref=home")
            case 2: urls.append("https://www.example.com/promo/\(i(6))/deal_\(n)")
            case 3: urls.append("https://www.example.com/landing?x=1&campaign=c\(i(7))&y=2")
            case 4: urls.append("https://cdn.example.com/shared/\(n)/v\(i(8))")
            case 5: urls.append("https://CASE\(i(9)).example.com/")
            case 6: urls.append("alt\(i(9))://x")
            case 7: urls.append("x\(i(9))z\(n % 10)")
            case 8: urls.append("https://www.nowhere.example/some/path/\(n)")
            default: urls.append("https://SHOP\(i(g.next(6))).Example.com/item/\(n)")
            }
        }
        return (rules, urls)
    }

    // MARK: Test helpers

    /// A tiny deterministic generator for the generated tables.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            return Int(z % UInt64(max(bound, 1)))
        }
    }

    /// A value shared between test threads under a lock.
    final class Locked<T>: @unchecked Sendable {
        // SAFETY: every access to `stored` holds `lock`.
        private let lock = NSLock()
        private var stored: T
        init(_ value: T) { stored = value }
        var value: T {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
        func update(_ body: (inout T) -> Void) { lock.withLock { body(&stored) } }
    }
}

/// Regression (reliability bug B4, second part): a rule that fails at match time on any URL, such as `(?R)`
/// recursing forever, is refused when added instead of making every lookup fail.
final class RewriteProbeTests: XCTestCase {
    func testRulesThatFailOnEveryURLAreRefused() throws {
        let r = Router()
        try r.add("app://user/:id", target: "User")
        for bad in ["(?R)p:", "(?R)"] {
            XCTAssertThrowsError(try r.addRewrite(bad, target: "app://x")) { error in
                XCTAssertEqual((error as? RouterError)?.code, .regex, bad)
                // (the regex is named once: the match's cause says "it")
                XCTAssertEqual((error as? RouterError)?.message, "rewrite regex '\(bad)' fails at match time even on 'app://a/b?c=d': "
                               + "it hit the PCRE2 match limit (regexMatchLimit 10000) on a URL of 13 bytes", bad)
            }
        }
        XCTAssertTrue(r.rewriteRules.isEmpty)
        XCTAssertEqual(try r.resolve("app://user/1")?.target, "User")
    }
}

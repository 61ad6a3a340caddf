import XCTest
@testable import LinkRouter

#if canImport(Glibc)
import Glibc
#endif

/// Hostile input through the Swift API, as tables (the C ABI's are in Tests/C/test_badinput.c): every row gets its
/// exact outcome — an error code, no match, or a route's target — and a refused change leaves the router as it was.
/// Work is bounded by counts (the limits), not measured against a clock.
final class BadInputTests: XCTestCase {
    static let baseRoutes: [(String, String)] = [
        ("app://user/:id", "User"),
        ("app://files/*path", "Files"),
        ("*://share/:id", "Share"),
        ("app://search", "Search"),
    ]

    static let probes: [(String, String)] = [
        ("app://user/42", "User"), ("app://files/a/b", "Files"), ("x://share/1", "Share"), ("app://search", "Search"),
        ("old://user/7", "User"),
    ]

    func makeRouter() throws -> Router {
        let r = Router()
        for (p, t) in Self.baseRoutes { try r.add(p, target: t) }
        try r.addRewrite("^old://(.*)$", target: "app://$1")
        return r
    }

    /// The router holds exactly the base routes and rule, and answers as before.
    func assertUnchanged(_ r: Router, _ after: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(r.count, Self.baseRoutes.count, "routes after \(after)", file: file, line: line)
        XCTAssertEqual(r.rewriteRules.count, 1, "rules after \(after)", file: file, line: line)
        for (url, target) in Self.probes {
            XCTAssertEqual((try? r.resolve(url))??.target, target, "\(url) after \(after)", file: file, line: line)
        }
    }

    /// The code a throwing call fails with, or nil when it succeeds.
    func code(_ body: () throws -> Void) -> RouterError.Code? {
        do {
            try body()
            return nil
        } catch let error as RouterError {
            XCTAssertFalse(error.message.isEmpty, "an error without a message")
            return error.code
        } catch {
            XCTFail("not a RouterError: \(error)")
            return nil
        }
    }

    // MARK: Status texts

    /// lr_errstr's texts live with the codes, in the core: every code has its own, and any other status one text.
    /// Found by the review of the Swift API (session 11): names that differ in bytes but are one `String`.
    func testCanonicallyEquivalentNamesKeepPrecedence() throws {
        let r = Router()
        try r.add("app://item/:userKey", target: "Item")
        // U+212A KELVIN SIGN: "user\u{212A}ey" == "userKey" as Strings, not as bytes.
        let m = try XCTUnwrap(try r.resolve("app://item/alice?user%E2%84%AAey=mallory"))
        XCTAssertEqual(m.params["userKey"], "alice")
        XCTAssertEqual(m.params.dictionary["userKey"], "alice", "a query key never replaces a path parameter")
        let e = try XCTUnwrap(try r.resolve("app://item/alice?user%E2%84%AAey=mallory", extra: ["user\u{212A}ey": "extra"]))
        XCTAssertEqual(e.params.dictionary["userKey"], "extra", "an extra replaces either")
        // Guards listed twice in two spellings are one guard, as guards are found and as a table file has them.
        try r.add("app://g/:id", target: "G", requires: ["\u{E9}", "e\u{301}"])
        XCTAssertEqual(r.routes.last?.requires.count, 1)
        XCTAssertEqual(try Router(json: r.tableJSON).tableJSON, r.tableJSON, "the export loads back")
        // The nested view (Match.nestedParams, lr_match_to_json's params, explain) keeps names apart by bytes too,
        // as the flat parameters do: two spellings of "café" are two keys, the Kelvin key does not touch userKey.
        try r.add("app://q", target: "Q")
        let q = try XCTUnwrap(try r.resolve("app://q?caf%C3%A9=1&cafe%CC%81=2"))
        XCTAssertEqual(q.params.count, 2)
        XCTAssertEqual(q.nestedParams, .object([(key: "caf\u{E9}", value: .string("1")), (key: "cafe\u{301}", value: .string("2"))]))
        XCTAssertEqual(q.nestedParams["cafe\u{301}"], .string("2"))
        XCTAssertEqual(r.explain("app://q?caf%C3%A9=1&cafe%CC%81=2").params.count, 2)
        XCTAssertEqual(m.nestedParams, .object([(key: "userKey", value: .string("alice")), (key: "user\u{212A}ey", value: .string("mallory"))]))
    }

    /// A NUL in a pattern, a rewrite's regex or template, or a table file's path: refused, as a table file or C
    /// string cannot carry it (found by the review of the Swift API, session 11: the export did not load back, and
    /// a path was cut at the NUL, loading another file).
    func testNULIsRefusedWhereNoCStringCouldCarryIt() throws {
        let r = Router()
        // Each message quotes the text, its NUL written \u0000 as lr_last_error writes it.
        let nul = "contains U+0000 (NUL), which C strings cannot carry"
        let cases: [(String, () throws -> Void, RouterError.Code, String)] = [
            ("pattern", { try r.add("app://a\u{0}b/:id", target: "T") }, .invalidURL, #"pattern 'app://a\u0000b/:id' "# + nul),
            ("regex", { try r.addRewrite("^x://a\u{0}", target: "app://y") }, .invalidURL, #"rewrite match '^x://a\u0000' "# + nul),
            ("template", { try r.addRewrite("^x://(a)", target: "https://good.com\u{0}.evil.com/$1") }, .invalidURL,
             #"rewrite target 'https://good.com\u0000.evil.com/$1' "# + nul),
            ("file path", { try r.load(file: "examples/tables/shop.json\u{0}.not-this-file") }, .io,
             #"cannot open table file 'examples/tables/shop.json\u0000.not-this-file': the path contains U+0000 (NUL)"#),
            // The message of test_badinput's NUL row, byte for byte.
            ("URL", { _ = try r.resolve("ap\u{0}p://user/1") }, .invalidURL,
             #"'ap\u0000p://user/1' is not an absolute URL: it needs a scheme, as in 'app://...'"#),
        ]
        for (what, call, code, message) in cases {
            XCTAssertThrowsError(try call(), what) {
                XCTAssertEqual(($0 as? RouterError)?.code, code, what)
                XCTAssertEqual(($0 as? RouterError)?.message, message, what)
            }
        }
        XCTAssertEqual(r.count, 0)
        XCTAssertEqual(r.tableJSON, Router().tableJSON)
    }

    /// A table text with a NUL byte is refused before it is read, with the code, message and offset of
    /// `lr_router_load_json` (it was `.table`, a JSON syntax error, in Swift alone); a file holding one is a
    /// syntax error in both, as its content is a document.
    func testTableTextWithNULIsRefusedAsTheCABIRefusesIt() throws {
        let r = Router()
        try r.add("app://kept", target: "Kept")
        let cases: [(String, Int)] = [
            ("{\"version\": 1}\u{0}", 14),
            ("\u{0}{\"version\": 1}", 0),
            ("{\"version\": 1, \"routes\": [{\"pattern\": \"app://a\u{0}\", \"target\": \"A\"}]}", 46),
        ]
        for (text, offset) in cases {
            let message = "the table text has a NUL byte at offset \(offset)"
            XCTAssertThrowsError(try r.load(json: text), text) {
                XCTAssertEqual(($0 as? RouterError)?.code, .invalidURL, text)
                XCTAssertEqual(($0 as? RouterError)?.message, message, text)
                XCTAssertEqual(($0 as? RouterError)?.offset, offset, text)
            }
            XCTAssertThrowsError(try Router(json: text), text) { XCTAssertEqual(($0 as? RouterError)?.code, .invalidURL, text) }
            let report = r.check(json: text)
            XCTAssertEqual(report.problems.map(\.code), [.invalidURL], text)
            XCTAssertEqual(report.problems.map(\.reason), [message], text)
            XCTAssertEqual(report.offset, offset, text)
        }
        XCTAssertEqual(r.count, 1)
        XCTAssertEqual(try r.resolve("app://kept")?.target, "Kept")
    }

    func testEveryStatusHasItsText() {
        let texts: [(Int32, String)] = [
            (0, "ok"), (1, "no match"),
            (-1, "misuse (NULL handle or argument, or an argument out of range)"),
            (-2, "invalid URL or text (not an absolute URL, or not UTF-8)"), (-3, "malformed pattern or template"),
            (-4, "conflicting route"), (-5, "invalid regex"), (-6, "limit exceeded"), (-7, "not found"),
            (-8, "malformed route table"), (-9, "I/O error"), (-10, "out of memory"),
            (2, "deferred by a guard"), (-11, "denied by a guard"), (-12, "timed out waiting for the handler's reply"),
            (-13, "reply already completed or unknown"), (-14, "handler failed"),
            (-15, "unknown status code"), (3, "unknown status code"), (Int32.min, "unknown status code"),
        ]
        for (status, text) in texts {
            XCTAssertEqual(RouterError.Code.text(ofStatus: status).description, text, "status \(status)")
        }
        XCTAssertEqual(RouterError.Code.allCases.count, 14)
        for code in RouterError.Code.allCases {
            XCTAssertEqual(RouterError.Code.text(ofStatus: code.rawValue).description, code.text.description)
        }
    }

    // MARK: Invalid UTF-8 (only reachable through bytes: a Swift String is always valid)

    static let invalidUTF8: [(String, [UInt8])] = [
        ("lone continuation", [0x80]),
        ("overlong '/' (2 bytes)", [0xC0, 0xAF]),
        ("overlong C1", [0xC1, 0xBF]),
        ("overlong (3 bytes)", [0xE0, 0x80, 0xAF]),
        ("overlong (4 bytes)", [0xF0, 0x80, 0x80, 0xAF]),
        ("surrogate D800", [0xED, 0xA0, 0x80]),
        ("surrogate DFFF", [0xED, 0xBF, 0xBF]),
        ("truncated 2-byte", [0xC3]),
        ("truncated 3-byte", [0xE4, 0xBD]),
        ("truncated 4-byte", [0xF0, 0x9F, 0x98]),
        ("U+110000", [0xF4, 0x90, 0x80, 0x80]),
        ("F5", [0xF5, 0x80, 0x80, 0x80]),
        ("5-byte form", [0xF8, 0x88, 0x80, 0x80, 0x80]),
        ("FE", [0xFE]),
        ("FF", [0xFF]),
    ]

    func testInvalidUTF8IsRefusedEverywhere() throws {
        let r = try makeRouter()
        let places: [(String, String)] = [("app://user/", ""), ("app://", "/1"), ("app://user/1?", "=v"),
                                          ("app://user/1?k=", ""), ("app://user/1#", ""), ("old://user/", "")]
        for (label, bad) in Self.invalidUTF8 {
            for (head, tail) in places {
                let bytes = Array(head.utf8) + bad + Array(tail.utf8)
                bytes.withUnsafeBufferPointer { buf in
                    let span = ByteSpan(start: buf.baseAddress, count: buf.count)
                    XCTAssertEqual(code { _ = try r.resolve(bytes: span, extra: []) }, .invalidURL, "\(label) in \(head)…\(tail)")
                    XCTAssertEqual(code { _ = try r.canRoute(bytes: span) }, .invalidURL, "can_route: \(label)")
                    XCTAssertEqual(code { _ = try r.rewrite(bytes: span) }, .invalidURL, "rewrite: \(label)")
                }
            }
        }
        // Valid edges are accepted.
        for edge: [UInt8] in [[0xF4, 0x8F, 0xBF, 0xBF], [0xEF, 0xBF, 0xBF], [0xC2, 0x80], [0xE4, 0xBD, 0x93]] {
            let bytes = Array("app://user/".utf8) + edge
            let target = try bytes.withUnsafeBufferPointer { buf in
                try r.resolve(bytes: ByteSpan(start: buf.baseAddress, count: buf.count), extra: [])?.target
            }
            XCTAssertEqual(target, "User")
        }
        assertUnchanged(r, "invalid UTF-8")
    }

    // MARK: URLs

    enum Outcome: Equatable {
        case target(String)
        case noMatch
        case error(RouterError.Code)
    }

    static let urls: [(String, String, Outcome)] = [
        ("empty", "", .error(.invalidURL)),
        ("no scheme", "nourl", .error(.invalidURL)),
        ("path only", "/just/a/path", .error(.invalidURL)),
        ("empty scheme", "://x", .error(.invalidURL)),
        ("digit scheme", "1a://x", .error(.invalidURL)),
        ("scheme only", "app:", .noMatch),  // an empty match sequence: no route of the base table takes it
        ("slashes only", "app://////", .noMatch),
        ("lone %", "app://user/%", .target("User")),
        ("% and one digit", "app://user/%4", .target("User")),
        ("%zz", "app://user/%zz", .target("User")),
        ("escaped FF", "app://user/%FF", .target("User")),
        ("escaped surrogate", "app://user/%ED%A0%80", .target("User")),
        ("escaped NUL", "app://user/%00", .target("User")),
        ("malformed query", "app://user/1?%=%&%%=%4&a%zz=b%", .target("User")),
        ("many @", "app://a@b@c@user/1", .target("User")),
        ("unclosed [", "app://[::1/x", .noMatch),  // host "[::1": see testOddAuthorities
        ("huge port", "app://user:99999999999999999999999/1", .target("User")),
        ("CR LF", "app://user/1\r\nX-Injected: 1", .target("User")),
        ("NUL character", "app://user/4\u{0}2", .target("User")),
        ("raw UTF-8 and spaces", "app://user/中 国?nation=中国", .target("User")),
        ("emoji", "app://user/🦀?q=👍🏽", .target("User")),
        ("1 MiB", "app://user/" + String(repeating: "x", count: 1 << 20), .error(.limit)),
        ("64 KiB exactly", "app://user/" + String(repeating: "y", count: 65536 - 11), .target("User")),
        ("64 KiB + 1", "app://user/" + String(repeating: "y", count: 65536 - 10), .error(.limit)),
        ("100,000 segments", "app://files" + String(repeating: "/a", count: 100_000), .error(.limit)),
        ("2,000 segments", "app://files" + String(repeating: "/a", count: 2000), .error(.limit)),
        ("100,000 query pairs", "app://user/1?" + String(repeating: "a=1&", count: 100_000), .error(.limit)),
        ("2,000 query pairs", "app://user/1?" + String(repeating: "a=1&", count: 2000), .error(.limit)),
        ("brackets 10,000 deep", "app://user/1?a" + String(repeating: "[b]", count: 10_000) + "=1", .target("User")),
        ("10,000 open brackets", "app://user/1?a" + String(repeating: "[", count: 10_000) + "=1", .target("User")),
        ("10,000 list levels", "app://user/1?a" + String(repeating: "[]", count: 10_000) + "=1", .target("User")),
        ("10,000 malformed escapes", "app://user/" + String(repeating: "%", count: 10_000), .target("User")),
    ]

    func testURLTable() throws {
        let r = try makeRouter()
        var rows = 0
        for (label, url, expected) in Self.urls {
            let got: Outcome
            do throws(RouterError) {
                if let m = try r.resolve(url) {
                    XCTAssertFalse(m.json.isEmpty)
                    _ = m.nestedParams
                    got = .target(m.target)
                } else {
                    got = .noMatch
                }
            } catch {
                XCTAssertFalse(error.message.isEmpty, label)
                XCTAssertLessThan(error.message.utf8.count, 2048, "\(label): a short message")
                got = .error(error.code)
            }
            XCTAssertEqual(got, expected, label)
            rows += 1
        }
        XCTAssertEqual(rows, 32)
        assertUnchanged(r, "the URL table")
    }

    /// The scheme byte class is a bit test (ASCII.isSchemeByte); every one of the 256 bytes against RFC 3986's
    /// ALPHA / DIGIT / "+" / "-" / ".", written out as comparisons.
    func testSchemeByteClassOverEveryByte() {
        var accepted = 0
        for b in 0...255 {
            let byte = UInt8(b)
            let rfc = (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || (0x30...0x39).contains(b)
                || byte == 0x2B || byte == 0x2D || byte == 0x2E
            XCTAssertEqual(ASCII.isSchemeByte(byte), rfc, "byte \(b)")
            if rfc { accepted += 1 }
        }
        XCTAssertEqual(accepted, 26 + 26 + 10 + 3)
    }

    /// What odd authorities parse to, seen through a catch-all: (URL, host, path, the catch-all's value).
    static let oddAuthorities: [(String, String, String, String)] = [
        ("app:", "", "", ""),
        ("app://////", "", "////", ""),
        ("app://[::1/x", "[::1", "/x", "[::1/x"),  // an unclosed "[" is part of the host, up to the "/"
        ("app://::1]/x", "::1]", "/x", "::1]/x"),  // ":1]" is no port (not all digits): host
        ("app://:80/x", "", "/x", "x"),  // no host: the first path segment takes its place
        ("app://u:p@/x", "", "/x", "x"),
        ("app://us%er/1", "us%er", "/1", "us%er/1"),  // a malformed escape stays as written
        // The last ":" starts an empty port (all digits, trivially); the 999 before it are host.
        ("app://user" + String(repeating: ":", count: 1000) + "/1", "user" + String(repeating: ":", count: 999), "/1",
         "user" + String(repeating: ":", count: 999) + "/1"),
    ]

    func testOddAuthorities() throws {
        let r = Router()
        try r.add("app://*rest", target: "AnyApp")
        for (url, host, path, rest) in Self.oddAuthorities {
            let m = try XCTUnwrap(try r.resolve(url), url)
            XCTAssertEqual([m.target, m.host, m.path, m.params["rest"]], ["AnyApp", host, path, rest], url)
        }
    }

    /// Nesting 10,000 deep stays flat beyond the limit: the key is kept as written.
    func testDeepBracketsStayFlat() throws {
        let r = try makeRouter()
        let url = "app://user/1?k" + String(repeating: "[x]", count: 10_000) + "=v"
        let m = try XCTUnwrap(try r.resolve(url))
        let key = "k" + String(repeating: "[x]", count: 10_000)
        XCTAssertEqual(m.json, #"{"target":"User","pattern":"app://user/:id","url":"\#(url)","rewritten":"\#(url)","scheme":"app","host":"user","port":"","path":"/1","fragment":"","params":{"id":"1","\#(key)":"v"},"query":[["\#(key)","v"]]}"#,
                       "kept flat, as written")
        XCTAssertEqual(m.params[key], "v")
    }

    // MARK: Patterns

    /// (pattern, code, offset, message)
    static let patterns: [(String, RouterError.Code, Int?, String)] = [
        ("", .pattern, 0, "malformed pattern '' at byte 0: empty pattern"),
        ("app", .pattern, 3, "malformed pattern 'app' at byte 3: expected '://' after the scheme"),
        ("app:x", .pattern, 3, "malformed pattern 'app:x' at byte 3: expected '://' after the scheme"),
        ("1app://x", .pattern, 0, "malformed pattern '1app://x' at byte 0: a scheme starts with a letter, or is '*'"),
        ("app://a//b", .pattern, 8, "malformed pattern 'app://a//b' at byte 8: empty segment ('//' in a pattern)"),
        ("app://:", .pattern, 7, "malformed pattern 'app://:' at byte 7: ':' needs a parameter name"),
        ("app://:a-b", .pattern, 8, "malformed pattern 'app://:a-b' at byte 8: a parameter name has only letters, digits and '_'"),
        ("app://*rest/x", .pattern, 12, "malformed pattern 'app://*rest/x' at byte 12: '*' must be the last segment"),
        ("app://:id/:id", .pattern, 10, "malformed pattern 'app://:id/:id' at byte 10: parameter name 'id' is used twice"),
        ("app://a?x", .pattern, 7,
         "malformed pattern 'app://a?x' at byte 7: '?' in a pattern (patterns match paths, not queries or fragments)"),
        ("app://a#b", .pattern, 7,
         "malformed pattern 'app://a#b' at byte 7: '#' in a pattern (patterns match paths, not queries or fragments)"),
        ("app:/x", .pattern, 3, "malformed pattern 'app:/x' at byte 3: expected '://' after the scheme"),
        ("://x", .pattern, 0, "malformed pattern '://x' at byte 0: a scheme starts with a letter, or is '*'"),
        ("a pp://x", .pattern, 1, "malformed pattern 'a pp://x' at byte 1: expected '://' after the scheme"),
        ("app://a/*/b", .pattern, 10, "malformed pattern 'app://a/*/b' at byte 10: '*' must be the last segment"),
        ("app://a/:é", .pattern, 9, "malformed pattern 'app://a/:é' at byte 9: a parameter name has only letters, digits and '_'"),
        ("app:///a", .pattern, 6, "malformed pattern 'app:///a' at byte 6: empty segment ('//' in a pattern)"),
        ("app://user/:uid", .conflict, nil,
         "pattern 'app://user/:uid' conflicts with existing route 'app://user/:id': both match exactly the same URLs"),
        ("APP://USER/:x/", .conflict, nil,
         "pattern 'APP://USER/:x/' conflicts with existing route 'app://user/:id': both match exactly the same URLs"),
        ("app://files/*", .conflict, nil,
         "pattern 'app://files/*' conflicts with existing route 'app://files/*path': both match exactly the same URLs"),
        ("*://share/:other", .conflict, nil,
         "pattern '*://share/:other' conflicts with existing route '*://share/:id': both match exactly the same URLs"),
        ("app://us%65r/:x", .conflict, nil,
         "pattern 'app://us%65r/:x' conflicts with existing route 'app://user/:id': both match exactly the same URLs"),
        // A long pattern is quoted by its first 100 bytes and its size.
        ("app://a" + String(repeating: "/b", count: 2000), .limit, nil,
         "pattern 'app://a" + String(repeating: "/b", count: 46) + "/... (4007 bytes)' has more than 1024 segments "
            + "(limit maxSegments, LR_LIMIT_SEGMENTS)"),
        ("app://a" + String(repeating: "/", count: 100_000), .pattern, 8,
         "malformed pattern 'app://a" + String(repeating: "/", count: 93) + "... (100007 bytes)' at byte 8: empty segment "
            + "('//' in a pattern)"),
    ]

    func testPatternTable() throws {
        let r = try makeRouter()
        for (pattern, expected, offset, message) in Self.patterns {
            let label = pattern.count > 40 ? String(pattern.prefix(40)) + "…" : pattern
            do throws(RouterError) {
                try r.add(pattern, target: "Bad")
                XCTFail("'\(label)' was accepted")
            } catch {
                XCTAssertEqual(error.code, expected, label)
                if let offset { XCTAssertEqual(error.offset, offset, "offset of '\(label)': \(error.message)") }
                XCTAssertEqual(error.message, message, label)
            }
            if expected == .pattern { XCTAssertEqual(code { try r.remove(pattern) }, .pattern) }
            assertUnchanged(r, label)
        }
    }

    // MARK: Rewrite rules

    static let rules: [(String, String, RouterError.Code)] = [
        ("(unclosed", "app://x", .regex), ("[a-", "app://x", .regex), ("*a", "app://x", .regex),
        ("a{2,1}", "app://x", .regex), ("\\", "app://x", .regex), ("(?<n>a)(?<n>b)", "app://x", .regex),
        ("(?<=a+)b", "app://x", .regex), ("\\C", "app://x", .regex), ("\\x{110000}", "app://x", .regex),
        ("(*FOO)a", "app://x", .regex),
        ("^a(b)", "$", .pattern), ("^a(b)", "${", .pattern), ("^a(b)", "${}", .pattern),
        ("^a(b)", "$nosuchword", .pattern), ("^a(b)", "$2", .pattern), ("^a(b)", "${nosuch}", .pattern),
        ("^a(b)", "$$", .pattern), ("^a(b)", "$#", .pattern), ("^a(b)", "$ ", .pattern),
    ]

    func testRuleTable() throws {
        let r = try makeRouter()
        for (match, target, expected) in Self.rules {
            XCTAssertEqual(code { try r.addRewrite(match, target: target) }, expected, "'\(match)' -> '\(target)'")
            XCTAssertEqual(code { try r.addRewrites([("^ok://", "app://ok"), (match, target)]) }, expected,
                           "bulk: '\(match)' -> '\(target)'")
            assertUnchanged(r, match)
        }
    }

    /// Regexes that backtrack without end on some subjects, each with what `rewrite` and then `resolve` give on
    /// the four subjects below: the rewritten URL or "nil", the target or "nil", or the error's code. Exact, as
    /// PCRE2 (10.42, Debian's, with JIT) decides them: a limit, a match, or a quick failure its start-up
    /// optimizations find (a required "b" absent). The subjects are not absolute URLs but the second, so
    /// `resolve` refuses them (`invalidURL`) unless a rule rewrites them; `makeRouter`'s app://user/:id takes
    /// the rewritten URL.
    static let catastrophic: [(regex: String, outcomes: [String])] = [
        ("(a+)+$", ["limit limit", "limit limit", "app://user/caught User", "nil invalidURL"]),
        ("(a|a)*b", ["nil invalidURL", "nil nil", "nil invalidURL", "nil invalidURL"]),
        ("(x+x+)+y", ["nil invalidURL", "nil nil", "nil invalidURL", "nil invalidURL"]),
        ("(a*)*b", ["nil invalidURL", "nil nil", "nil invalidURL", "nil invalidURL"]),
        ("(a|aa)+$", ["limit limit", "limit limit", "limit limit", "nil invalidURL"]),
        ("((a+)+)+b", ["nil invalidURL", "nil nil", "nil invalidURL", "nil invalidURL"]),
        ("(.*a){20}", ["limit limit", "limit limit", "limit limit", "limit limit"]),
        ("^(\\w+\\s?)*$", ["limit limit", "nil nil", "app://user/caught User", "limit limit"]),
        ("(a|a?)+b", ["nil invalidURL", "nil nil", "nil invalidURL", "nil invalidURL"]),
        ("(\\w|\\d)+$", ["nil invalidURL", "nil nil", "limit limit", "nil invalidURL"]),
        ("(a+)+(?=b)", ["limit limit", "limit limit", "limit limit", "nil invalidURL"]),
        ("(*LIMIT_MATCH=4000000000)(a+)+$", ["limit limit", "limit limit", "app://user/caught User", "nil invalidURL"]),
    ]

    func testCatastrophicRegexesAreBounded() throws {
        let subjects = [String(repeating: "a", count: 30) + "!", "app://x/" + String(repeating: "a", count: 10_000) + "!",
                        String(repeating: "a", count: 65_000), String(repeating: "a ", count: 10_000) + "!"]
        func outcome(_ call: () throws(RouterError) -> String?) -> String {
            do throws(RouterError) { return try call() ?? "nil" } catch { return "\(error.code)" }
        }
        for (regex, expected) in Self.catastrophic {
            let r = try makeRouter()
            try r.addRewrite(regex, target: "app://user/caught")
            let got = subjects.map { subject in
                outcome { () throws(RouterError) in try r.rewrite(subject) } + " "
                    + outcome { () throws(RouterError) in try r.resolve(subject)?.target }
            }
            XCTAssertEqual(got, expected, regex)
        }
    }

    /// A regex whose recursion comes back to the same position (found by fuzz_rewrite): PCRE2 stops it at match
    /// time, and that is a limit (LR_ELIMIT), like its depth limit, not an undocumented regex error.
    func testRecursionLoopingInPlaceIsALimit() throws {
        let r = try makeRouter()
        try r.addRewrite("(*NO_JIT)(?R)*LI{/10", target: "app://user/caught")
        let url = "https://www.example.com/search/%E5%8E%9F%E5%AD%90?q=1"
        for call in ["rewrite", "resolve"] {
            do throws(RouterError) {
                if call == "rewrite" { _ = try r.rewrite(url) } else { _ = try r.resolve(url) }
                XCTFail("\(call): no error")
            } catch {
                XCTAssertEqual(error.code, .limit, call)
                XCTAssertEqual(error.message, "rewrite regex '(*NO_JIT)(?R)*LI{/10' hit PCRE2's stop for a recursion looping "
                               + "at one position on a URL of 53 bytes")
            }
        }
    }

    // MARK: Bulk adds

    func testOneBadRouteAmongFiveThousand() throws {
        let r = try makeRouter()
        var specs = (0..<5000).map { RouteSpec("bulk://item/\($0)/:id", target: "Bulk") }
        // (pattern, code, message): the message names the route's place in the batch. A conflict with a route of
        // the batch (bulk://item/7/:id) names that route's place too; one with the router's names an existing route.
        let bad: [(String, RouterError.Code, String)] = [
            ("bulk://a//b", .pattern, "route 2500: malformed pattern 'bulk://a//b' at byte 9: empty segment ('//' in a pattern)"),
            ("bulk://item/7/:other", .conflict, "route 2500: pattern 'bulk://item/7/:other' conflicts with route 7 of this "
                + "batch ('bulk://item/7/:id'): both match exactly the same URLs"),
            ("app://user/:uid", .conflict, "route 2500: pattern 'app://user/:uid' conflicts with existing route "
                + "'app://user/:id': both match exactly the same URLs"),
            ("", .pattern, "route 2500: malformed pattern '' at byte 0: empty pattern"),
            ("bulk://deep" + String(repeating: "/x", count: 2000), .limit, "route 2500: pattern 'bulk://deep"
                + String(repeating: "/x", count: 44) + "/... (4011 bytes)' has more than 1024 segments (limit maxSegments, "
                + "LR_LIMIT_SEGMENTS)"),
        ]
        for (pattern, expected, message) in bad {
            let saved = specs[2500]
            specs[2500] = RouteSpec(pattern, target: "Bad")
            do throws(RouterError) {
                try r.add(specs)
                XCTFail("accepted")
            } catch {
                XCTAssertEqual(error.code, expected)
                XCTAssertEqual(error.index, 2500)
                XCTAssertEqual(error.message, message)
            }
            assertUnchanged(r, "a refused bulk add")
            XCTAssertNil(try r.resolve("bulk://item/1/x"))
            specs[2500] = saved
        }
        try r.add(specs)
        XCTAssertEqual(r.count, Self.baseRoutes.count + 5000)
    }

    // MARK: Limits

    func testLimitDefaultsAndSettingEach() throws {
        let r = try makeRouter()
        let d = r.limits
        XCTAssertEqual(d.maxURLLength, 65_536)
        XCTAssertEqual(d.maxSegments, 1_024)
        XCTAssertEqual(d.maxParams, 1_024)
        XCTAssertEqual(d.maxNestingDepth, 32)
        XCTAssertEqual(d.regexMatchLimit, 10_000)
        XCTAssertEqual(d.regexDepthLimit, 1_000)
        XCTAssertEqual(d.regexStartLimit, 1_024)

        var l = d
        l.maxURLLength = 20
        try r.setLimits(l)
        XCTAssertEqual(code { _ = try r.resolve("app://user/" + String(repeating: "x", count: 9)) }, nil)
        XCTAssertEqual(code { _ = try r.resolve("app://user/" + String(repeating: "x", count: 10)) }, .limit)

        l = d
        l.maxSegments = 3
        try r.setLimits(l)
        XCTAssertEqual(code { _ = try r.resolve("app:///files/a/b") }, nil)
        XCTAssertEqual(code { _ = try r.resolve("app:///files/a/b/c") }, .limit)
        XCTAssertEqual(code { try r.add("seg://a/b/c/d", target: "S") }, .limit)

        l = d
        l.maxParams = 2
        try r.setLimits(l)
        XCTAssertEqual(code { _ = try r.resolve("app://user/1?a=1&b=2") }, nil)
        XCTAssertEqual(code { _ = try r.resolve("app://user/1?a=1&b=2&c=3") }, .limit)

        l = d
        l.maxNestingDepth = 1
        try r.setLimits(l)
        XCTAssertEqual(try XCTUnwrap(try r.resolve("app://user/1?a[b]=1&c[d][e]=2")).json,
                       #"{"target":"User","pattern":"app://user/:id","url":"app://user/1?a[b]=1&c[d][e]=2","rewritten":"app://user/1?a[b]=1&c[d][e]=2","scheme":"app","host":"user","port":"","path":"/1","fragment":"","params":{"id":"1","a":{"b":"1"},"c[d][e]":"2"},"query":[["a[b]","1"],["c[d][e]","2"]]}"#)

        l = d
        l.regexMatchLimit = 1
        try r.setLimits(l)
        try r.addRewrite("^(a+)+$", target: "app://user/x")
        XCTAssertEqual(code { _ = try r.rewrite("aaaa") }, .limit)
        l.regexMatchLimit = 10_000
        try r.setLimits(l)
        XCTAssertEqual(try r.rewrite("aaaa"), "app://user/x")
        XCTAssertEqual(code { _ = try r.rewrite(String(repeating: "a", count: 40) + "!") }, .limit)

        l = d
        l.regexStartLimit = 4
        try r.setLimits(l)
        try r.addRewrite("needle", target: "app://user/found")
        XCTAssertEqual(try r.rewrite("x://needle"), "app://user/found")
        XCTAssertNil(try r.rewrite("x://hhhhhhh/needle"))
        try r.removeRewrite("needle")

        // Out of range values are refused and change nothing.
        for bad in [Limits.default.with(\.maxURLLength, 0), Limits.default.with(\.maxSegments, -1),
                    Limits.default.with(\.maxParams, Int.max), Limits.default.with(\.regexMatchLimit, 0),
                    Limits.default.with(\.regexDepthLimit, Int.max)] {
            XCTAssertEqual(code { try r.setLimits(bad) }, .misuse)
        }
        XCTAssertEqual(r.limits.regexMatchLimit, 10_000)
    }
}

private extension Limits {
    func with(_ path: WritableKeyPath<Limits, Int>, _ value: Int) -> Limits {
        var copy = self
        copy[keyPath: path] = value
        return copy
    }
}

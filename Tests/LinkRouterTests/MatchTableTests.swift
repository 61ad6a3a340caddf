import XCTest
@testable import LinkRouter

/// SPEC §2–4 as tables: (routes, url) → (target, params). Every row runs twice, with the routes added in the
/// given order and in reverse, because precedence must not depend on registration order.
final class MatchTableTests: XCTestCase {
    /// FFRouter's, JLRoutes' and matchit's cases in one table.
    static let routes: [(String, String)] = [
        ("protocol://page/routerDetails/:id", "Details"),
        ("protocol://page/routerObjectDetails", "ObjectDetails"),
        ("wildcard://*", "Wildcard"),
        ("app://user/:id", "User"),
        ("app://user/:id/posts", "UserPosts"),
        ("app://user/me", "Me"),
        ("app://:object/:id", "Object"),
        ("app://secret/:id/path", "Secret"),
        ("app://files/*path", "Files"),
        ("app://search", "Search"),
        ("*://share/:id", "AnyShare"),
        ("https://www.example.com/p/:id", "Product"),
        ("https://www.example.com:8080/p/:id", "ProductOn8080"),
        ("xksquare://com.dynamic", "Dynamic"),
        ("app://caf%C3%A9/:id", "Cafe"),
    ]

    struct Row {
        let url: String
        let target: String?
        let params: [String: String]
        var extra: [String: String] = [:]
        var fragment: String? = nil
        let line: UInt

        init(_ url: String, _ target: String?, _ params: [String: String] = [:], extra: [String: String] = [:],
             fragment: String? = nil, line: UInt = #line) {
            self.url = url
            self.target = target
            self.params = params
            self.extra = extra
            self.fragment = fragment
            self.line = line
        }
    }

    static let rows: [Row] = [
        // Literals, params, precedence (literal > :param > *), independent of order.
        Row("app://user/42", "User", ["id": "42"]),
        Row("app://user/me", "Me"),
        Row("app://user/42/posts", "UserPosts", ["id": "42"]),
        Row("app://user/me/posts", "UserPosts", ["id": "me"]),
        Row("app://user", nil),
        Row("app://user/42/posts/more", nil),
        // Case: scheme and host fold, path does not.
        Row("APP://User/42", "User", ["id": "42"]),
        Row("App://USER/me", "Me"),
        Row("app://user/42/POSTS", nil),
        Row("app://user/ME", "User", ["id": "ME"]),
        // Empty segments are dropped, trailing slashes ignored; with no host the path comes first.
        Row("app:///user//42/", "User", ["id": "42"]),
        Row("app://user//42//", "User", ["id": "42"]),
        Row("app:///User/42", "Object", ["object": "User", "id": "42"]),
        // Backtracking: app://secret/:id/path does not match two segments, app://:object/:id does.
        Row("app://secret/978", "Object", ["object": "secret", "id": "978"]),
        Row("app://secret/978/path", "Secret", ["id": "978"]),
        Row("app://other/1", "Object", ["object": "other", "id": "1"]),
        // Decoding after splitting: %2F stays inside its segment; malformed or non-UTF-8 escapes stay as written.
        Row("app://user/a%2Fb", "User", ["id": "a/b"]),
        Row("app://user/%E4%BD%93", "User", ["id": "体"]),
        Row("app://user/体", "User", ["id": "体"]),
        Row("app://user/a b", "User", ["id": "a b"]),
        Row("app://user/%ZZ", "User", ["id": "%ZZ"]),
        Row("app://user/%FF", "User", ["id": "%FF"]),
        Row("app://user/%4", "User", ["id": "%4"]),
        Row("app://us%65r/42", "User", ["id": "42"]),
        Row("app://%75ser/me", "Me"),
        Row("app://user/m%65", "Me"),
        Row("app://caf%C3%A9/1", "Cafe", ["id": "1"]),
        Row("app://café/1", "Cafe", ["id": "1"]),
        // Path beats query; the last repeated key wins; bare keys; empty pieces; + stays +.
        Row("app://user/42?id=7", "User", ["id": "42"]),
        Row("app://user/42?tab=a&tab=b", "User", ["id": "42", "tab": "b"]),
        Row("app://user/42?flag", "User", ["id": "42", "flag": ""]),
        Row("app://user/42?flag=", "User", ["id": "42", "flag": ""]),
        Row("app://user/42?a=1&&b=2&", "User", ["id": "42", "a": "1", "b": "2"]),
        Row("app://user/42?q=a+b", "User", ["id": "42", "q": "a+b"]),
        Row("app://user/42?q=a%20b", "User", ["id": "42", "q": "a b"]),
        Row("app://user/42?q=x=y", "User", ["id": "42", "q": "x=y"]),
        Row("app://user/42?nation=中国", "User", ["id": "42", "nation": "中国"]),
        Row("app://user/42?nation=%E4%B8%AD%E5%9B%BD", "User", ["id": "42", "nation": "中国"]),
        Row("app://user/42?%6B=v", "User", ["id": "42", "k": "v"]),
        Row("app://user/42?bad=%G0", "User", ["id": "42", "bad": "%G0"]),
        Row("app://user/42?info[nickname]=x", "User", ["id": "42", "info[nickname]": "x"]),
        // Extras outrank path and query.
        Row("app://user/42?from=q&id=7", "User", ["id": "99", "from": "push"], extra: ["id": "99", "from": "push"]),
        Row("app://user/42", "User", ["id": "42", "img": "<image>"], extra: ["img": "<image>"]),
        // The fragment is never routed, and reported as written.
        Row("app://user/42#top", "User", ["id": "42"], fragment: "top"),
        Row("app://user/42?x=1#frag?y=2", "User", ["id": "42", "x": "1"], fragment: "frag?y=2"),
        Row("app://user/me#", "Me", fragment: ""),
        Row("app://user/42?a#b=c", "User", ["id": "42", "a": ""], fragment: "b=c"),
        // Catch-all: zero or more segments, undecoded, joined with "/".
        Row("app://files", "Files", ["path": ""]),
        Row("app://files/", "Files", ["path": ""]),
        Row("app://files/a", "Files", ["path": "a"]),
        Row("app://files/a/b/c.txt", "Files", ["path": "a/b/c.txt"]),
        Row("app://files/a//b/", "Files", ["path": "a/b"]),
        Row("app://files/a%2Fb/c", "Files", ["path": "a%2Fb/c"]),
        Row("app://files/x?path=q", "Files", ["path": "x"]),
        Row("wildcard://anything/at/all", "Wildcard", ["*": "anything/at/all"]),
        Row("wildcard://", "Wildcard", ["*": ""]),
        Row("wildcard:///a//b", "Wildcard", ["*": "a/b"]),
        Row("wildcard://Host:99/a", "Wildcard", ["*": "Host/a"]),
        // A scheme beats *://, *:// takes the rest.
        Row("http://share/9", "AnyShare", ["id": "9"]),
        Row("myapp://share/9", "AnyShare", ["id": "9"]),
        Row("app://share/9", "Object", ["object": "share", "id": "9"]),
        Row("unknown://x", nil),
        // Web links: host folds, port ignored unless the pattern names one, userinfo ignored.
        Row("https://www.example.com/p/7", "Product", ["id": "7"]),
        Row("https://WWW.Example.COM/p/7", "Product", ["id": "7"]),
        Row("https://www.example.com:8080/p/7", "ProductOn8080", ["id": "7"]),
        Row("https://www.example.com:9090/p/7", "Product", ["id": "7"]),
        Row("https://user:pw@www.example.com/p/7?ref=mail", "Product", ["id": "7", "ref": "mail"]),
        Row("http://www.example.com/p/7", nil),
        Row("https://www.example.com/P/7", nil),
        // FFRouter's and XKRouter's own links.
        Row("protocol://page/routerDetails/666?nickname=imlifengfeng", "Details", ["id": "666", "nickname": "imlifengfeng"]),
        Row("protocol://page/routerObjectDetails", "ObjectDetails"),
        Row("xksquare://com.dynamic?targetclass=RouterTestViewController&name=%E4%BD%93%E8%B4%B4&num=2", "Dynamic",
            ["targetclass": "RouterTestViewController", "name": "体贴", "num": "2"]),
        Row("app://search?q=x", "Search", ["q": "x"]),
        Row("app://search/", "Search"),
        Row("app://search?", "Search"),
    ]

    func router(reversed: Bool) throws -> Router { try Self.router(reversed: reversed) }

    static func router(reversed: Bool) throws -> Router {
        let r = Router()
        for (p, t) in reversed ? routes.reversed() : routes { try r.add(p, target: t) }
        return r
    }

    func testMatchTable() throws {
        XCTAssertGreaterThanOrEqual(Self.rows.count, 70)
        for reversed in [false, true] {
            let r = try router(reversed: reversed)
            for row in Self.rows {
                let what = "\(row.url) (routes \(reversed ? "reversed" : "in order"))"
                let m = try r.resolve(row.url, extra: row.extra)
                XCTAssertEqual(m?.target, row.target, what, line: row.line)
                guard let m else { continue }
                XCTAssertEqual(m.params, row.params, what, line: row.line)
                XCTAssertEqual(try r.canRoute(row.url), true, what, line: row.line)
                XCTAssertEqual(m.url, row.url, what, line: row.line)
                XCTAssertEqual(m.rewritten, row.url, what, line: row.line)
                if let f = row.fragment { XCTAssertEqual(m.fragment, f, what, line: row.line) }
            }
        }
    }

    /// Every route of the GitHub API set resolves to itself with exactly the parameters listed.
    func testGitHubRouteSet() throws {
        let rows = try loadTSV("github-routes.tsv")
        XCTAssertEqual(rows.count, 203)
        for reversed in [false, true] {
            let r = Router()
            try r.add((reversed ? rows.reversed() : rows).map { RouteSpec($0.pattern, target: $0.id) })
            XCTAssertEqual(r.count, 203)
            for row in rows {
                let m = try XCTUnwrap(try r.resolve(row.url), row.url)
                XCTAssertEqual(m.pattern, row.pattern, row.url)
                XCTAssertEqual(m.target, row.id, row.url)
                XCTAssertEqual(m.params, row.params, row.url)
            }
        }
    }

    /// The static table (one probe for a canonically written URL) and the trie walk (every other spelling)
    /// must agree: each URL is resolved as written and in spellings that force the walk.
    func testStaticAndTrieAgree() throws {
        let rows = try loadTSV("github-routes.tsv")
        let r = Router()
        try r.add(rows.map { RouteSpec($0.pattern, target: $0.id) })
        let spellings: [(String, (String) -> String)] = [
            ("trailing slash", { $0 + "/" }),
            ("double slash", { $0.replacingFirst("/", after: "gh://", with: "//") }),
            ("upper-case host", { "gh://" + String($0.dropFirst(5)).uppercasedHost }),
            ("encoded letter", { $0.replacingLast("e", with: "%65") }),
            ("empty host", { $0.replacingFirst("gh://", after: "", with: "gh:///") }),
        ]
        for row in rows {
            let plain = try XCTUnwrap(try r.resolve(row.url), row.url)
            for (name, spell) in spellings {
                let url = spell(row.url)
                let m = try r.resolve(url)
                XCTAssertEqual(m?.target, plain.target, "\(name): \(url)")
                if name != "encoded letter" { XCTAssertEqual(m?.params, plain.params, "\(name): \(url)") }
            }
        }
    }

    /// Resolve against 1,000 routes, with single adds (one snapshot per add).
    func testScaleSetSingleAdds() throws {
        let rows = try loadTSV("scale-1000.tsv")
        let r = Router()
        for row in rows { try r.add(row.pattern, target: row.id) }
        for row in rows {
            let m = try XCTUnwrap(try r.resolve(row.url), row.url)
            XCTAssertEqual(m.target, row.id, row.url)
            XCTAssertEqual(m.params, row.params, row.url)
        }
    }

    func testMatchReportsParts() throws {
        let r = Router()
        try r.add("https://www.example.com/p/:id", target: "Product", name: "product", metadata: #"{"auth":true}"#)
        let m = try XCTUnwrap(try r.resolve("HTTPS://u@WWW.Example.com:8443/p/7?x=%41#Frag"))
        XCTAssertEqual(m.scheme, "https")
        XCTAssertEqual(m.host, "www.example.com")
        XCTAssertEqual(m.port, "8443")
        XCTAssertEqual(m.path, "/p/7")
        XCTAssertEqual(m.fragment, "Frag")
        XCTAssertEqual(m.name, "product")
        XCTAssertEqual(m.metadata, #"{"auth":true}"#)
        XCTAssertEqual(m.query, [Match.Param(name: "x", value: "A")])
        XCTAssertEqual(m.pathParams, [Match.Param(name: "id", value: "7")])
    }

    func testOrderedParamsAndQueryList() throws {
        let r = Router()
        try r.add("app://u/:id/:tab", target: "T")
        let m = try XCTUnwrap(try r.resolve("app://u/1/t?z=1&id=x&a=2&z=3", extra: ["e": "9", "a": "8"]))
        XCTAssertEqual(m.orderedParams.map(\.name), ["id", "tab", "z", "a", "e"])
        XCTAssertEqual(m.orderedParams.map(\.value), ["1", "t", "3", "8", "9"])
        XCTAssertEqual(m.query.map(\.name), ["z", "id", "a", "z"])
        XCTAssertEqual(m.query.map(\.value), ["1", "x", "2", "3"])
    }
}

struct TSVRow {
    let id: String
    let pattern: String
    let url: String
    let params: [String: String]
}

/// Reads a route set from Tests/Data (columns: id, pattern, url, params `name=value;...`).
func loadTSV(_ name: String) throws -> [TSVRow] {
    let path = String(#filePath.dropLast("LinkRouterTests/MatchTableTests.swift".count)) + "Data/" + name
    let text = try String(contentsOfFile: path, encoding: .utf8)
    return text.split(separator: "\n").compactMap { line in
        guard !line.hasPrefix("#") else { return nil }
        let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard cols.count >= 3 else { return nil }
        var params: [String: String] = [:]
        if cols.count > 3 {
            for pair in cols[3].split(separator: ";") {
                let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                params[kv[0]] = kv.count > 1 ? kv[1] : ""
            }
        }
        return TSVRow(id: cols[0], pattern: cols[1], url: cols[2], params: params)
    }
}

extension String {
    /// `self` with the first `target` found after the prefix `after` replaced.
    func replacingFirst(_ target: String, after: String, with replacement: String) -> String {
        guard let start = range(of: after)?.upperBound, let r = range(of: target, range: start..<endIndex) else { return self }
        return replacingCharacters(in: r, with: replacement)
    }

    /// `self` with the last `target` replaced.
    func replacingLast(_ target: String, with replacement: String) -> String {
        guard let r = range(of: target, options: .backwards) else { return self }
        return replacingCharacters(in: r, with: replacement)
    }

    /// The host part (up to the first "/") upper-cased.
    var uppercasedHost: String {
        guard let slash = firstIndex(of: "/") else { return uppercased() }
        return self[..<slash].uppercased() + self[slash...]
    }
}

/// `Router.withMatch`, the zero-allocation Swift path, agrees with `resolve` on the whole match table.
final class MatchViewTests: XCTestCase {
    func testViewAgreesWithResolve() throws {
        let r = try MatchTableTests.router(reversed: false)
        for row in MatchTableTests.rows where row.extra.isEmpty {
            let full = try r.resolve(row.url)
            let view = try r.withMatch(row.url) { v -> (String, [String: String]) in
                var params: [String: String] = [:]
                for i in 0..<v.parameterCount {
                    if let p = v.parameter(at: i), let value = v[p.name] { params[p.name] = value }
                }
                return (v.target, params)
            }
            XCTAssertEqual(view?.0, full?.target, row.url, line: row.line)
            XCTAssertEqual(view?.1, full?.params, row.url, line: row.line)
        }
    }

    func testManyParamsAndLongURLs() throws {
        let r = Router()
        try r.add("app://x/*rest", target: "X")
        let query = (0..<300).map { "k\($0)=v\($0)" }.joined(separator: "&")
        let url = "app://x/" + String(repeating: "seg/", count: 400) + "?" + query + "&k7=last"
        XCTAssertEqual(try r.withMatch(url) { $0["k7"] }, "last")
        XCTAssertEqual(try r.withMatch(url) { $0.parameterCount }, 302)
        XCTAssertNil(try r.withMatch("app://y") { _ in 1 })
        XCTAssertThrowsError(try r.withMatch("nourl") { _ in 1 })
    }
}

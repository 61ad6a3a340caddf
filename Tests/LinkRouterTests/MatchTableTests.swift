import XCTest
@testable import LinkRouter

/// SPEC §2–4 as tables: (routes, url) → (target, params). Every row runs twice, with the routes added in the
/// given order and in reverse, because precedence must not depend on registration order.
final class MatchTableTests: XCTestCase {
    /// FFRouter's, JLRoutes' and matchit's cases in one table: Tests/Data/semantics.json (shared with Python).
    static func rows() throws -> [SemanticsTable.MatchRow] { try SemanticsTable.shared.get().match }

    func router(reversed: Bool) throws -> Router { try Self.router(reversed: reversed) }

    static func router(reversed: Bool) throws -> Router {
        let routes = try SemanticsTable.shared.get().routes
        let r = Router()
        for (p, t) in reversed ? routes.reversed() : routes { try r.add(p, target: t) }
        XCTAssertEqual(r.count, try SemanticsTable.shared.get().counts["routes"])
        return r
    }

    func testMatchTable() throws {
        var executed = 0
        for reversed in [false, true] {
            let r = try router(reversed: reversed)
            for row in try Self.rows() {
                executed += 1
                let what = "\(row.url) (routes \(reversed ? "reversed" : "in order")) [\(row.group)]"
                let m = try r.resolve(row.url, extra: row.extra)
                XCTAssertEqual(m?.target, row.target, what)
                XCTAssertEqual(try r.canRoute(row.url), row.target != nil, what)
                guard let m else { continue }
                XCTAssertEqual(m.params.dictionary, row.params, what)
                XCTAssertEqual(m.url, row.url, what)
                XCTAssertEqual(m.rewritten, row.url, what)
                if let f = row.fragment { XCTAssertEqual(m.fragment, f, what) }
            }
        }
        XCTAssertEqual(executed, 2 * (try SemanticsTable.shared.get().counts["match"] ?? -1), "rows run")
    }

    /// A match of path parameters alone keeps one list for its merged and its path parameters (the record's
    /// `mergedArePathFlag`); with a query or extras the two lists differ. Both read the same through the API.
    func testMergedAndPathParameterLists() throws {
        let r = Router()
        try r.add("app://user/:id/posts/:post", target: "post")
        try r.add("app://files/*rest", target: "file")
        typealias P = Match.Param
        let rows: [(url: String, extra: [String: String], path: [P], merged: [P], query: [P])] = [
            ("app://user/42/posts/7", [:], [P(name: "id", value: "42"), P(name: "post", value: "7")],
             [P(name: "id", value: "42"), P(name: "post", value: "7")], []),
            ("app://user/42/posts/7#top", [:], [P(name: "id", value: "42"), P(name: "post", value: "7")],
             [P(name: "id", value: "42"), P(name: "post", value: "7")], []),
            ("app://user/4%2F2/posts/7", [:], [P(name: "id", value: "4/2"), P(name: "post", value: "7")],
             [P(name: "id", value: "4/2"), P(name: "post", value: "7")], []),
            ("app://files/a/b/c", [:], [P(name: "rest", value: "a/b/c")], [P(name: "rest", value: "a/b/c")], []),
            ("app://user/42/posts/7?id=9&x=1", [:], [P(name: "id", value: "42"), P(name: "post", value: "7")],
             [P(name: "id", value: "42"), P(name: "post", value: "7"), P(name: "x", value: "1")],
             [P(name: "id", value: "9"), P(name: "x", value: "1")]),
            ("app://user/42/posts/7", ["post": "8", "y": "2"], [P(name: "id", value: "42"), P(name: "post", value: "7")],
             [P(name: "id", value: "42"), P(name: "post", value: "8"), P(name: "y", value: "2")], []),
        ]
        for row in rows {
            let m = try XCTUnwrap(try r.resolve(row.url, extra: row.extra), row.url)
            XCTAssertEqual(m.pathParams, row.path, row.url)
            XCTAssertEqual(Array(m.params), row.merged, row.url)
            XCTAssertEqual(m.query, row.query, row.url)
        }
    }

    /// The quick lane writes its records itself (`MatchRecord.buildPathOnly`); a router with a rewrite rule
    /// (one that never fires) takes the general path, whose `write` makes the same record. Both must read the
    /// same, field by field, and every string must end with a NUL (the C getters hand out the bytes as they are).
    func testQuickAndGeneralRecordsAgree() throws {
        let rows = try loadTSV("github-routes.tsv")
        let extraRoutes = ["app://user/:id", "app://files/*rest", "app://img/{name}.png", "app://x/:a/:b", "*://any/:thing",
                           "app://host:8080/port"]
        let quick = Router(), general = Router()
        for r in [quick, general] {
            try r.add(rows.map { RouteSpec($0.pattern, target: $0.id) })
            for p in extraRoutes { try r.add(p, target: p) }
        }
        try general.addRewrite("^never-used://(.*)$", target: "app://$1")
        // (URL, the route it reaches): upper case, a fragment, a percent-encoded value, a catch-all, a value in
        // part of a segment, a port, user info, a URL with no authority.
        let cases: [(url: String, target: String?)] = rows.map { ($0.url, $0.id) } + [
            ("app://user/42", "app://user/:id"), ("APP://USER/42", "app://user/:id"), ("app://user/42#top", "app://user/:id"),
            ("app://user/%34%32", "app://user/:id"), ("app://me@user/7", "app://user/:id"),
            ("app://files/a/b/c", "app://files/*rest"), ("app://img/cat.png", "app://img/{name}.png"),
            ("app://x/1/2", "app://x/:a/:b"), ("https://any/thing", "*://any/:thing"),
            ("app://host:8080/port", "app://host:8080/port"), ("APP://HoSt:8080/port#f", "app://host:8080/port"),
            ("mailto:someone@example.com", nil),
            // With a query (the lane parses up to 16 pairs; more take the general path in both routers): a key a
            // path parameter takes, a repeated key, encoded pairs, a key alone, empty pieces, a fragment after.
            ("app://user/42?tab=a&x=1", "app://user/:id"), ("app://user/42?id=7&tab=a&tab=b", "app://user/:id"),
            ("app://user/42?q=a%20b&k%3D=%26v#frag", "app://user/:id"), ("app://user/42?flag&&=&e=", "app://user/:id"),
            ("app://x/1/2?a=3&b=4&c[d]=5", "app://x/:a/:b"), ("APP://USER/42?T=1", "app://user/:id"),
            ("app://user/42?" + (0..<16).map { "k\($0)=\($0)" }.joined(separator: "&"), "app://user/:id"),
            ("app://user/42?" + (0..<17).map { "k\($0)=\($0)" }.joined(separator: "&"), "app://user/:id"),
            ("app://nowhere/42?tab=a", nil),
        ]
        for (url, target) in cases {
            let a = try quick.resolve(url), b = try general.resolve(url)
            XCTAssertEqual(a?.target, target, url)
            XCTAssertEqual(b?.target, target, url)
            guard let a, let b else { continue }
            XCTAssertFalse(b.wasRewritten, url)
            XCTAssertEqual(a.json, b.json, url)
            XCTAssertEqual(a.orderedParams, b.orderedParams, url)
            XCTAssertEqual(a.pathParams, b.pathParams, url)
            for m in [a, b] {
                let r = m.record
                for f in MatchRecord.Field.allCases {
                    let s = r.field(f)
                    XCTAssertEqual(s.start?[s.count], 0, "\(url) \(f)")
                }
                for i in 0..<r.paramCount {
                    let p = r.param(i)
                    XCTAssertEqual(p.name.start?[p.name.count], 0, "\(url) name \(i)")
                    XCTAssertEqual(p.value.start?[p.value.count], 0, "\(url) value \(i)")
                }
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
                XCTAssertEqual(m.params.dictionary, row.params, row.url)
            }
        }
    }

    /// The static table (one probe for a canonically written URL) and the trie walk (every other spelling)
    /// must agree: each URL is resolved as written and in spellings that force the walk.
    func testStaticAndTrieAgree() throws {
        let rows = try loadTSV("github-routes.tsv")
        XCTAssertEqual(rows.count, 203)
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
                if name != "encoded letter" { XCTAssertEqual(m?.params.dictionary, plain.params.dictionary, "\(name): \(url)") }
            }
        }
    }

    /// Resolve against 1,000 routes, with single adds (one snapshot per add).
    func testScaleSetSingleAdds() throws {
        let rows = try loadTSV("scale-1000.tsv")
        XCTAssertEqual(rows.count, 1_000)
        let r = Router()
        for row in rows { try r.add(row.pattern, target: row.id) }
        for row in rows {
            let m = try XCTUnwrap(try r.resolve(row.url), row.url)
            XCTAssertEqual(m.target, row.id, row.url)
            XCTAssertEqual(m.params.dictionary, row.params, row.url)
        }
    }

    /// The host a match reports is the one the routes compared: decoded, lower-cased; as written (lower-cased) when
    /// its decoding is malformed, not UTF-8 or holds a NUL. Quick lane (no query) and general path (query) alike.
    func testMatchReportsTheHostTheRoutesCompared() throws {
        let r = Router()
        try r.add("https://ads.example.net/:page", target: "Ads")
        try r.add("https://*rest", target: "Any")
        let rows: [(url: String, target: String, host: String, line: UInt)] = [
            ("https://ads.example.net/landing", "Ads", "ads.example.net", #line),
            ("https://%61ds.example.net/landing", "Ads", "ads.example.net", #line),
            ("https://ADS%2Eexample.net/landing", "Ads", "ads.example.net", #line),
            ("https://%41ds.example.net/landing?x=1", "Ads", "ads.example.net", #line),
            ("https://u@%61ds.Example.net:8443/landing#f", "Ads", "ads.example.net", #line),
            ("https://good.com%00.evil.com/x", "Any", "good.com%00.evil.com", #line),
            ("https://good.com%00.evil.com/x?q=1", "Any", "good.com%00.evil.com", #line),
            ("https://%ZZ.com/x", "Any", "%zz.com", #line),
            ("https://%FF.com/x", "Any", "%ff.com", #line),
            ("https://%C3%A9T%C3%A9.fr/x", "Any", "été.fr", #line),
            ("https://%c3%a9t%c3%a9.fr/x?q=1", "Any", "été.fr", #line),
        ]
        for row in rows {
            let m = try XCTUnwrap(try r.resolve(row.url), row.url, line: row.line)
            XCTAssertEqual([m.target, m.host], [row.target, row.host], row.url, line: row.line)
        }
    }

    func testMatchReportsParts() throws {
        let r = Router()
        try r.add("https://www.example.com/p/:id", target: "Product", name: "product", meta: ["auth": "true", "a": "b"])
        let m = try XCTUnwrap(try r.resolve("HTTPS://u@WWW.Example.com:8443/p/7?x=%41#Frag"))
        XCTAssertEqual(m.scheme, "https")
        XCTAssertEqual(m.host, "www.example.com")
        XCTAssertEqual(m.port, "8443")
        XCTAssertEqual(m.path, "/p/7")
        XCTAssertEqual(m.fragment, "Frag")
        XCTAssertEqual(m.name, "product")
        XCTAssertEqual(m.metadata, #"{"a":"b","auth":"true"}"#)
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

/// Reads a route set from Tests/Data (columns: id, pattern, url, params `name=value;...`). A missing file throws;
/// so does a line that is not a comment and has fewer than three columns (it is not skipped).
func loadTSV(_ name: String) throws -> [TSVRow] {
    let path = String(#filePath.dropLast("LinkRouterTests/MatchTableTests.swift".count)) + "Data/" + name
    let text = try String(contentsOfFile: path, encoding: .utf8)
    return try text.split(separator: "\n").enumerated().compactMap { number, line in
        guard !line.hasPrefix("#") else { return nil }
        let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard cols.count >= 3 else {
            throw SemanticsTable.Malformed(description: "\(path):\(number + 1): \(cols.count) columns, expected 3 or 4")
        }
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
        var executed = 0
        for row in try MatchTableTests.rows() where row.extra.isEmpty {
            executed += 1
            let full = try r.resolve(row.url)
            let view = try r.withMatch(row.url) { v -> (String, [String: String]) in
                var params: [String: String] = [:]
                for i in 0..<v.parameterCount {
                    if let p = v.parameter(at: i), let value = v[p.name] { params[p.name] = value }
                }
                return (v.target, params)
            }
            XCTAssertEqual(view?.0, full?.target, row.url)
            XCTAssertEqual(view?.1, full?.params.dictionary, row.url)
        }
        XCTAssertEqual(executed, try MatchTableTests.rows().filter(\.extra.isEmpty).count)
        XCTAssertGreaterThan(executed, 0)
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

    /// The walk's first step compares the URL's scheme with the table's first four schemes of up to eight bytes
    /// (SchemeIndex) and hashes it otherwise: both ways must find the same route, before and after the table
    /// outgrows the index (a fifth scheme, a nine-byte one).
    func testSchemesInAndBeyondTheIndex() throws {
        let schemes = ["a", "app", "abcdefgh", "x-y.z+1", "abcdefghi", "b", "c"]
        // (url, expected target, or nil) after the first `n` schemes are added.
        func rows(_ n: Int) -> [(String, String?)] {
            var out: [(String, String?)] = []
            for (i, s) in schemes.enumerated() {
                let added = i < n
                out.append(("\(s)://h/1", added ? "\(s) 1" : "any"))
                out.append(("\(s.uppercased())://h/1", added ? "\(s) 1" : "any"))
                out.append(("\(s)://h/2", added ? "\(s) param" : "any"))
                out.append(("\(s)x://h/1", "any"))
                out.append(("\(s)://k", nil))
            }
            out.append(("abcdefg://h/1", "any"))
            out.append(("q://h/1", "any"))
            return out
        }
        for n in 0...schemes.count {
            let r = Router()
            try r.add("*://h/:n", target: "any")
            for s in schemes.prefix(n) {
                try r.add("\(s)://h/1", target: "\(s) 1")
                try r.add("\(s)://h/:id", target: "\(s) param")
            }
            for (url, target) in rows(n) {
                XCTAssertEqual(try r.resolve(url)?.target, target, "\(url) with \(n) schemes")
            }
        }
    }
}

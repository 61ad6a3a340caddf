import XCTest
@testable import LinkRouter

/// Typed and in-segment parameters beyond the shared semantics rows: precedence among rules at one place in
/// every registration order, removal, URL building, and the trie's fast path agreeing with the full search.
final class PatternRulesTests: XCTestCase {
    /// Rules at one place, each pair both fitting some value: the precedence order decides, whatever the order
    /// of registration.
    func testPrecedenceAmongRulesIsIndependentOfOrder() throws {
        let routes = [
            ("p://x/:v", "Plain"), ("p://x/:v<uint>", "Uint"), ("p://x/:v<int>", "Int"), ("p://x/:v<float>", "Float"),
            ("p://x/:v<uuid>", "UUID"), ("p://x/:v<slug>", "Slug"), ("p://x/:v<[a-f0-9-]+>", "Class"),
            ("p://x/{v}.png", "Png"), ("p://x/a{v}b", "AB"), ("p://x/{v}ab", "Ab"),
        ]
        let rows: [(String, String, String)] = [
            ("p://x/5", "Uint", "5"), ("p://x/-5", "Int", "-5"), ("p://x/1.5", "Float", "1.5"),
            ("p://x/123e4567-e89b-12d3-a456-426614174000", "UUID", "123e4567-e89b-12d3-a456-426614174000"),
            ("p://x/abc", "Slug", "abc"), ("p://x/z.z", "Plain", "z.z"), ("p://x/a.b", "AB", "."), ("p://x/x.png", "Png", "x"),
            // Two literal bytes each: prefix bytes decide ("" before "a"), so `{v}ab` is first.
            ("p://x/aab", "Ab", "a"), ("p://x/axb", "AB", "x"),
        ]
        // Every rotation of the list, forwards and backwards.
        for shift in 0..<routes.count {
            for reversed in [false, true] {
                var order = Array(routes[shift...] + routes[..<shift])
                if reversed { order.reverse() }
                let r = Router()
                for (p, t) in order { try r.add(p, target: t) }
                for (url, target, value) in rows {
                    let m = try r.resolve(url)
                    XCTAssertEqual(m?.target, target, "\(url) with \(order.map(\.1))")
                    XCTAssertEqual(m?.params["v"], value, url)
                }
            }
        }
    }

    /// A typed branch that dead-ends gives its capture back; the next rule, then the catch-all, get their turn.
    func testBacktrackingThroughRules() throws {
        let r = Router()
        try r.add("b://u/:id<int>/a/b", target: "IntAB")
        try r.add("b://u/{name}.x/a/c", target: "SuffixAC")
        try r.add("b://u/:any/a/d", target: "AnyAD")
        try r.add("b://u/*rest", target: "Rest")
        let rows: [(String, String, [String: String])] = [
            ("b://u/1/a/b", "IntAB", ["id": "1"]),
            ("b://u/1.x/a/c", "SuffixAC", ["name": "1"]),
            ("b://u/1/a/d", "AnyAD", ["any": "1"]),
            ("b://u/1.x/a/d", "AnyAD", ["any": "1.x"]),
            ("b://u/1/a/c", "Rest", ["rest": "1/a/c"]),
            ("b://u/%31/a/b", "IntAB", ["id": "1"]),
        ]
        for (url, target, params) in rows {
            let m = try r.resolve(url)
            XCTAssertEqual(m?.target, target, url)
            XCTAssertEqual(m?.params.dictionary, params, url)
        }
    }

    func testRemoveTakesTheRuleNotTheName() throws {
        let r = Router()
        try r.add("t://u/:id<int>", target: "Int")
        try r.add("t://u/:name", target: "Any")
        try r.add("t://u/{f}.png", target: "Png")
        try r.remove("t://u/:n<int>")
        XCTAssertEqual(try r.resolve("t://u/42")?.target, "Any")
        XCTAssertThrowsError(try r.remove("t://u/:n<uint>"))
        try r.remove("t://u/{g}.png")
        XCTAssertEqual(try r.resolve("t://u/a.png")?.target, "Any")
        try r.remove("t://u/{x}")
        XCTAssertNil(try r.resolve("t://u/a.png"))
        XCTAssertEqual(r.count, 0)
    }

    func testBuildURLsChecksTypes() throws {
        let r = Router()
        try r.add("t://u/:id<int>", target: "Int", name: "int")
        try r.add("img://a/{name}.png", target: "Png", name: "png")
        try r.add("api://x/v{version<uint>}/:res", target: "Api", name: "api")
        try r.add("https://{sub}.example.org/p/:id", target: "Sub", name: "sub")
        let rows: [(String, [String: String], String?)] = [
            ("int", ["id": "42"], "t://u/42"),
            ("int", ["id": "x"], nil),
            ("png", ["name": "a b"], "img://a/a%20b.png"),
            ("api", ["version": "2", "res": "users"], "api://x/v2/users"),
            ("api", ["version": "two", "res": "users"], nil),
            ("sub", ["sub": "shop", "id": "1"], "https://shop.example.org/p/1"),
        ]
        for (name, params, expected) in rows {
            if let expected {
                let url = try r.url(name: name, params: params)
                XCTAssertEqual(url, expected)
                // The URL comes back to the same route with the same values.
                let m = try r.resolve(url)
                XCTAssertEqual(m?.name, name, url)
                XCTAssertEqual(m?.params.dictionary, params, url)
            } else {
                XCTAssertThrowsError(try r.url(name: name, params: params), "\(name) \(params)") { e in
                    XCTAssertEqual((e as? RouterError)?.code, .invalidURL)
                }
            }
        }
    }

    /// A table whose only parameters are plain keeps the one-child form (no special list), so its lookups do
    /// exactly the work they did before typed parameters existed.
    func testPlainTablesHaveNoSpecialEdges() throws {
        let r = Router()
        for p in ["a://u/:id", "a://u/:id/x", "a://:o/:id", "a://f/*p"] { try r.add(p, target: p) }
        r.withState { XCTAssertEqual($0.table.store.specials.count, 0) }
        try r.add("a://u/:id<int>", target: "typed")
        r.withState { XCTAssertEqual($0.table.store.specials.count, 2) }  // the plain child moved into the list
        XCTAssertEqual(try r.resolve("a://u/7")?.target, "typed")
        XCTAssertEqual(try r.resolve("a://u/z/x")?.target, "a://u/:id/x")
        XCTAssertEqual(try r.resolve("a://u/7/x")?.target, "a://u/:id/x")
    }

    /// The walk's inline check of unaffixed `<int>` and `<uint>` edges decides as the general rule does, or
    /// leaves it to it: every byte at every place of values of 1 to 20 bytes, with and without a leading "-".
    func testInlineNumberCheckAgreesWithTheRule() {
        var checked = 0
        for n in 1...20 {
            for at in 0..<n {
                for byte in 0...255 {
                    for minus in [false, true] {
                        var v = (0..<n).map { UInt8(0x30 + ($0 * 7) % 10) }
                        if minus { v[0] = ASCII.minus }
                        if !(minus && at == 0) { v[at] = UInt8(byte) }
                        v.withUnsafeBufferPointer { b in
                            guard let p = b.baseAddress else { return XCTFail("no storage") }
                            for kind in [ParamRule.Kind.int, .uint] {
                                let rule = ParamRule.fits(p, n, kind: kind, set: nil, min: 1, max: .max)
                                switch ParamRule.fitsLane(p, n, signed: kind == .int) {
                                case .yes: XCTAssertTrue(rule, "\(kind) \(v)")
                                case .no: XCTAssertFalse(rule, "\(kind) \(v)")
                                case .unknown: XCTAssertGreaterThan(n, 16)
                                }
                                checked += 1
                            }
                        }
                    }
                }
            }
        }
        XCTAssertEqual(checked, 210 * 256 * 2 * 2)
    }

    /// Typed edges checked inline, in the trie's fast path and in the full search (the `/b` rows backtrack out of
    /// `<int>` and `<uint>` into the plain parameter), at the lengths where the check changes its words.
    func testInlineNumberEdgesInBothSearches() throws {
        let r = Router()
        try r.add("n://i/:v<int>/a", target: "Int")
        try r.add("n://i/:v/b", target: "PlainI")
        try r.add("n://u/:v<uint>/a", target: "Uint")
        try r.add("n://u/:v/b", target: "PlainU")
        r.withState { XCTAssertEqual($0.table.specials.shift, SpecialEdge.chunkShift) }  // the walk's constant
        let numbers = ["0", "12", "123", "1234", "1234567", "12345678", "123456789012345", "1234567890123456",
                       "12345678901234567", "123456789012345678", "1234567890123456789", "18446744073709551615",
                       "18446744073709551616", "9223372036854775807", "9223372036854775808"]
        for s in numbers {
            XCTAssertEqual(try r.resolve("n://i/\(s)/a")?.target, Int64(s) == nil ? nil : "Int", s)
            XCTAssertEqual(try r.resolve("n://i/-\(s)/a")?.target, Int64("-" + s) == nil ? nil : "Int", "-" + s)
            XCTAssertEqual(try r.resolve("n://u/\(s)/a")?.target, UInt64(s) == nil ? nil : "Uint", s)
            XCTAssertNil(try r.resolve("n://u/-\(s)/a"), "-" + s)
            for (host, plain) in [("i", "PlainI"), ("u", "PlainU")] {
                let m = try r.resolve("n://\(host)/\(s)/b")
                XCTAssertEqual(m?.target, plain, s)
                XCTAssertEqual(m?.params["v"], s, s)
            }
        }
        for s in ["-", "--1", "1-", "12a4567", "1234567a", "a2345678", "123456789x123456", "1.5", "+1", "%31%32"] {
            let value = s.removingPercentEncoding ?? s
            let int = Int64(value) != nil && !value.hasPrefix("+"), uint = UInt64(value) != nil && !value.hasPrefix("+")
            XCTAssertEqual(try r.resolve("n://i/\(s)/a")?.target, int ? "Int" : nil, s)
            XCTAssertEqual(try r.resolve("n://u/\(s)/a")?.target, uint ? "Uint" : nil, s)
            XCTAssertEqual(try r.resolve("n://i/\(s)/b")?.params["v"], value, s)
        }
    }

    /// JLRoutes', URLNavigator's and matchit's documented pattern examples, each library's on a router of its own,
    /// written as LinkRouter patterns (docs/SEMANTICS.md §7 lists them): the same URLs match, with the same values.
    /// Path-only routers (matchit) get a host, `web://site`. nil target: the library's example does not match.
    func testOtherRoutersDocumentedExamples() throws {
        typealias Row = (url: String, target: String?, params: [String: String])
        let libraries: [(name: String, routes: [(String, String)], rows: [Row])] = [
            ("JLRoutes", [("jl://user/view/:userID", "UserView"), ("jl://:object/:action/:primaryKey", "ObjectAction"),
                          ("jl://wildcard/*", "Wildcard"), ("jl://the(/foo/:a)(/bar/:b)", "Optional")], [
                ("jl://user/view/joeldev", "UserView", ["userID": "joeldev"]),
                ("jl://post/edit/123?debug=true&foo=bar", "ObjectAction",
                 ["object": "post", "action": "edit", "primaryKey": "123", "debug": "true", "foo": "bar"]),
                ("jl://wildcard/joker/batman", "Wildcard", ["*": "joker/batman"]),
                ("jl://the/foo/1/bar/2", "Optional", ["a": "1", "b": "2"]),
                ("jl://the/foo/1", "Optional", ["a": "1"]),
                ("jl://the/bar/2", "Optional", ["b": "2"]),
                ("jl://the", "Optional", [:]),
            ]),
            ("URLNavigator", [("myapp://user/:id<int>", "User"), ("myapp://post/:title", "Post"), ("myapp://alert", "Alert"),
                              ("http://*_", "Web"), ("https://*_", "Web")], [
                ("myapp://user/123", "User", ["id": "123"]),
                ("myapp://user/abc", nil, [:]),
                ("myapp://post/54321", "Post", ["title": "54321"]),
                ("myapp://alert?title=Hello&message=World", "Alert", ["title": "Hello", "message": "World"]),
                ("https://github.com/devxoul/URLNavigator", "Web", ["_": "github.com/devxoul/URLNavigator"]),
            ]),
            ("matchit", [("web://site/home", "Welcome"), ("web://site/users/{id}", "User"),
                         ("web://site/images/img-{id}.png", "Image"), ("web://site/static/*rest", "Static"),
                         ("web://site", "Root"), ("web://site/about", "About"), ("web://site/files/*filepath", "Files")], [
                ("web://site/home", "Welcome", [:]),
                ("web://site/users/978", "User", ["id": "978"]),
                ("web://site/users", nil, [:]),
                ("web://site/images/img-1.png", "Image", ["id": "1"]),
                ("web://site/images/img-1.jpg", nil, [:]),
                ("web://site/static/foo.js", "Static", ["rest": "foo.js"]),
                ("web://site/static/c/bar.css", "Static", ["rest": "c/bar.css"]),
                ("web://site/about", "About", [:]),
                ("web://site", "Root", [:]),
            ]),
        ]
        for library in libraries {
            let r = Router()
            for (p, t) in library.routes { try r.add(p, target: t) }
            for row in library.rows {
                let m = try r.resolve(row.url)
                XCTAssertEqual(m?.target, row.target, "\(library.name): \(row.url)")
                if let m { XCTAssertEqual(m.params.dictionary, row.params, "\(library.name): \(row.url)") }
            }
        }
    }

    /// Overlaps as a table: (routes, [(kind, winner, other, example)]); each example resolves to its winner, and
    /// `warnings()` reports the same pairs, pointing at the route that loses them.
    func testOverlapReports() throws {
        typealias Overlap = (RouteOverlap.Kind, String, String, String)
        let rows: [([String], [Overlap])] = [
            (["a://u/:id", "a://u/me", "a://f/*p"], []),  // literal against parameter: the everyday case
            (["t://user/:name", "t://user/:id<int>", "t://user/:uid<uuid>"],
             [(.typed, "t://user/:id<int>", "t://user/:name", "t://user/1"),
              (.typed, "t://user/:uid<uuid>", "t://user/:name", "t://user/00000000-0000-0000-0000-000000000000")]),
            (["t://n/:n<int>", "t://n/:n<uint>", "t://n/:x<uuid>"], [(.typed, "t://n/:n<uint>", "t://n/:n<int>", "t://n/1")]),
            (["api://x/:other/:res", "api://x/v{version<uint>}/:res"],
             [(.typed, "api://x/v{version<uint>}/:res", "api://x/:other/:res", "api://x/v1/1")]),
            (["*://share/:id", "app://:object/:id", "web://other"],
             [(.anyScheme, "app://:object/:id", "*://share/:id", "app://share/1")]),
            (["app://u/:id<[a-z]+>", "app://u/:id<[0-9]+>"], []),  // no value fits both classes
        ]
        for (routes, expected) in rows {
            let r = Router()
            for p in routes { try r.add(p, target: p) }
            let got = r.overlaps()
            XCTAssertEqual(got.map { "\($0.kind) \($0.winner) \($0.other) \($0.example)" },
                           expected.map { "\($0.0) \($0.1) \($0.2) \($0.3)" }, "\(routes)")
            for o in got {
                XCTAssertEqual(try r.resolve(o.example)?.pattern, o.winner)
                XCTAssertEqual(routes[o.winnerIndex], o.winner)
                XCTAssertEqual(routes[o.otherIndex], o.other)
            }
            let warned = r.warnings().filter { $0.kind == .overlap }.map(\.pointer)
            XCTAssertEqual(warned, got.map { "/routes/\($0.otherIndex)" }, "\(routes)")
        }
    }

    /// One route, several entries: counted, listed, named, exported and removed once; a variant alone is not a
    /// route to remove; URL building writes the groups whose parameters are given; churn compacts them away.
    func testOptionalGroupsAreOneRoute() throws {
        let r = Router()
        try r.add("app://user/:id(/:tab)", target: "User", name: "user")
        try r.add("app://the(/foo/:a)(/bar/:b)", target: "The", name: "the")
        XCTAssertEqual(r.count, 2)
        XCTAssertEqual(r.routes.map(\.pattern), ["app://user/:id(/:tab)", "app://the(/foo/:a)(/bar/:b)"])
        XCTAssertEqual(r.tableJSON, """
            {
              "version": 1,
              "routes": [
                {
                  "pattern": "app://user/:id(/:tab)",
                  "target": "User",
                  "name": "user"
                },
                {
                  "pattern": "app://the(/foo/:a)(/bar/:b)",
                  "target": "The",
                  "name": "the"
                }
              ],
              "rewrites": []
            }

            """)
        XCTAssertEqual(try r.resolve("app://user/1")?.routeID, try r.resolve("app://user/1/x")?.routeID)
        let urls: [(String, [String: String], String)] = [
            ("user", ["id": "4"], "app://user/4"), ("user", ["id": "4", "tab": "x"], "app://user/4/x"),
            ("the", [:], "app://the"), ("the", ["b": "2"], "app://the/bar/2"), ("the", ["a": "1", "b": "2"], "app://the/foo/1/bar/2"),
        ]
        for (name, params, url) in urls {
            XCTAssertEqual(try r.url(name: name, params: params), url)
            XCTAssertEqual(try r.resolve(url)?.params.dictionary, params, url)
        }
        XCTAssertThrowsError(try r.remove("app://user/:id")) { XCTAssertEqual(($0 as? RouterError)?.code, .notFound) }
        // A pattern covering some of a route's forms removes nothing, whichever forms it covers (B52: it used to
        // remove those and leave the rest matching, under the route's freed name).
        let partial = Router()
        try partial.add("app://x(/:a)", target: "T", name: "nm")
        try partial.add("app://y(/:a)(/:b)", target: "Y")
        let rows: [(String, String)] = [
            ("app://x/:b", "pattern 'app://x/:b' covers 1 of the 2 forms of route 'app://x(/:a)' (its optional groups): remove the route by its own pattern"),
            ("app://x", "no route matches the URLs of pattern 'app://x'"),
            ("app://y/:c(/:d)", "pattern 'app://y/:c(/:d)' covers 2 of the 3 forms of route 'app://y(/:a)(/:b)' (its optional groups): remove the route by its own pattern"),
        ]
        for (pattern, message) in rows {
            XCTAssertThrowsError(try partial.remove(pattern), pattern) {
                XCTAssertEqual(($0 as? RouterError)?.code, .notFound, pattern)
                XCTAssertEqual(($0 as? RouterError)?.message, message, pattern)
            }
            XCTAssertEqual(partial.count, 2, pattern)
            XCTAssertEqual(try partial.resolve("app://x")?.name, "nm", pattern)
            XCTAssertEqual(try partial.resolve("app://x/1")?.target, "T", pattern)
            XCTAssertEqual(try partial.resolve("app://y")?.target, "Y", pattern)
            XCTAssertEqual(try partial.resolve("app://y/1/2")?.target, "Y", pattern)
        }
        XCTAssertThrowsError(try partial.add("app://x", target: "NEW")) { XCTAssertEqual(($0 as? RouterError)?.code, .conflict) }
        try partial.remove("app://x(/:b)")  // every form, whatever the names
        XCTAssertNil(try partial.resolve("app://x"))
        XCTAssertNil(try partial.resolve("app://x/1"))
        try partial.add("app://x", target: "NEW", name: "nm")
        XCTAssertEqual(try partial.resolve("app://x")?.target, "NEW")
        try r.remove("app://user/:x(/:y)")
        XCTAssertNil(try r.resolve("app://user/1"))
        XCTAssertNil(try r.resolve("app://user/1/x"))
        XCTAssertEqual(r.count, 1)
        try r.add("app://user/:id", target: "Plain")  // its place is free again
        // Churn past the compaction threshold: the groups' entries come back whole.
        for k in 0..<300 {
            try r.add("app://c\(k)/:id(/:tab)", target: "C")
            try r.remove("app://c\(k)/:id(/:tab)")
        }
        XCTAssertEqual(try r.resolve("app://the/foo/1")?.params.dictionary, ["a": "1"])
        XCTAssertEqual(try r.resolve("app://user/1")?.target, "Plain")
        XCTAssertEqual(r.count, 2)
    }
}


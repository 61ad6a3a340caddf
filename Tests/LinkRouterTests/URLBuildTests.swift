import XCTest
@testable import LinkRouter

/// Reverse routing: `Router.url(name:params:query:)` as a table of (route, params, URL or error), then the
/// property that a built URL resolves back to the same route and values, over random values with reserved
/// characters and non-ASCII text.
final class URLBuildTests: XCTestCase {
    static let routes = [
        RouteSpec("shop://product/:id", target: "Product", name: "product"),
        RouteSpec("shop://:section/:id/edit", target: "Edit", name: "edit"),
        RouteSpec("files://open/*path", target: "Files", name: "files"),
        RouteSpec("app://*", target: "Anything", name: "anything"),
        RouteSpec("https://www.example.com:8080/p/:id/", target: "Port", name: "port"),
        RouteSpec("app://caf%C3%A9/x", target: "Cafe", name: "cafe"),
        RouteSpec("*://share/:id", target: "Share", name: "share"),
        RouteSpec("app://x/:code<[a-z]{2,3}>", target: "Code", name: "code"),
        RouteSpec("img://a/{name<[a-z]{2}>}.png", target: "Png", name: "png"),
        RouteSpec("img://a/img-{id}@2x.jpg", target: "Retina", name: "retina"),
        RouteSpec("img://a/.{ext}", target: "Dot", name: "dot"),
        RouteSpec("app://h/x(/:a)(/:b)", target: "Groups", name: "groups"),
        RouteSpec("app://h/y(/:a/:b)", target: "Pair", name: "pair"),
        RouteSpec("app://h/z(/:a)(/:b<int>)", target: "Typed", name: "typed"),
        RouteSpec("app://h:{port<uint>}/x", target: "HostPort", name: "hostport"),
        RouteSpec("app://{user}@example.com/x", target: "HostAt", name: "hostat"),
        RouteSpec("app://a@b/x", target: "LiteralAt", name: "literalat"),
        RouteSpec("app://h:/x", target: "EmptyPort", name: "emptyport"),
    ]

    /// (route name, params, the URL or "error <code>: <message>"), compared exactly; each URL built must also
    /// resolve back to that route with those values (a catch-all's comes back encoded, so it is decoded first).
    static func check(_ router: Router, _ rows: [(String, [(String, String)], String)], resolver: Router? = nil,
                      file: StaticString = #filePath, line: UInt = #line) throws {
        let resolver = resolver ?? router
        for (name, params, expected) in rows {
            let url: String
            do {
                url = try router.url(name: name, orderedParams: params.map { (name: $0.0, value: $0.1) })
            } catch {
                XCTAssertEqual("error \(error.code.rawValue): \(error.message)", expected, "\(name) \(params)", file: file, line: line)
                continue
            }
            XCTAssertEqual(url, expected, "\(name) \(params)", file: file, line: line)
            guard let m = try resolver.resolve(url) else {
                XCTFail("\(url) (\(name) \(params)) resolves to nothing", file: file, line: line)
                continue
            }
            XCTAssertEqual(m.name, name, url, file: file, line: line)
            let pattern = try Pattern.parse(m.pattern)
            let catchAll = pattern.hasCatchAll ? pattern.paramNames.last : nil
            let path = params.filter { !$0.0.hasPrefix("?") }
            XCTAssertEqual(m.pathParams.map(\.name).sorted(), path.map(\.0).sorted(), url, file: file, line: line)
            for (k, v) in params {
                let key = k.hasPrefix("?") ? String(k.dropFirst()) : k
                let got = m.params[key]
                XCTAssertEqual(k == catchAll ? got?.removingPercentEncoding : got, v, "\(url): \(k)", file: file, line: line)
            }
        }
    }

    func testBuildTable() throws {
        let router = Router()
        try router.add(URLBuildTests.routes)
        let e = "error -2: cannot build the URL of route"
        try URLBuildTests.check(router, [
            ("product", [("id", "42")], "shop://product/42"),
            ("product", [("id", "a b/c?d#e%f")], "shop://product/a%20b%2Fc%3Fd%23e%25f"),
            ("product", [("id", "体")], "shop://product/%E4%BD%93"),
            ("product", [("id", "!$&'()*+,;=:@")], "shop://product/!$&'()*+,;=%3A%40"),
            ("product", [("id", "..")], "shop://product/%2E%2E"),
            ("product", [("id", "7"), ("?tab", "a&b=c+d #1"), ("?x", "/?:@")], "shop://product/7?tab=a%26b%3Dc%2Bd%20%231&x=/?:@"),
            ("edit", [("section", "Users:1@h"), ("id", "9")], "shop://Users%3A1%40h/9/edit"),
            ("files", [("path", "docs/a b.pdf")], "files://open/docs/a%20b.pdf"),
            ("files", [("path", "")], "files://open"),
            ("anything", [("*", "host/x")], "app://host/x"),
            ("port", [("id", "1")], "https://www.example.com:8080/p/1"),
            ("cafe", [], "app://caf%C3%A9/x"),
            ("product", [], "\(e) 'product' ('shop://product/:id'): parameter 'id' is missing"),
            ("product", [("id", "")], "\(e) 'product' ('shop://product/:id'): parameter 'id' is empty (':id' matches one non-empty segment)"),
            ("product", [("id", "1"), ("idx", "2")],
             "\(e) 'product' ('shop://product/:id'): no parameter 'idx' (it has 'id'; write '?idx' for a query parameter)"),
            ("product", [("id", "1"), ("?id", "2")],
             "\(e) 'product' ('shop://product/:id'): query parameter '?id' has the name of a path parameter, which would win over it"),
            ("product", [("id", "1"), ("?", "2")], "\(e) 'product' ('shop://product/:id'): a query parameter needs a name after '?'"),
            ("product", [("id", "1"), ("id", "2")], "\(e) 'product' ('shop://product/:id'): parameter 'id' is given twice"),
            ("files", [("path", "a//b")], "\(e) 'files' ('files://open/*path'): catch-all 'path' has an empty segment in 'a//b' "
                + "(leading, trailing or doubled '/'), which the URL would lose"),
            ("files", [("path", "/a")], "\(e) 'files' ('files://open/*path'): catch-all 'path' has an empty segment in '/a' "
                + "(leading, trailing or doubled '/'), which the URL would lose"),
            ("share", [("id", "1")], "\(e) 'share' ('*://share/:id'): it matches any scheme ('*://'), so it has no one URL to build"),
            ("nobody", [], "error -7: no route is named 'nobody'"),
            // D: names and affixes come from the parsed pattern, not from the braces of a class quantifier.
            ("code", [("code", "ab")], "app://x/ab"),
            ("code", [("2", "ab")],
             "\(e) 'code' ('app://x/:code<[a-z]{2,3}>'): no parameter '2' (it has 'code'; write '?2' for a query parameter)"),
            ("code", [("code", "abcd")], "\(e) 'code' ('app://x/:code<[a-z]{2,3}>'): parameter 'code' = 'abcd' does not fit ':code<[a-z]{2,3}>'"),
            ("png", [("name", "ab")], "img://a/ab.png"),
            ("retina", [("id", "7")], "img://a/img-7@2x.jpg"),
            ("dot", [("ext", ".")], "img://a/%2E%2E"),  // the whole segment "..", which URL libraries would remove
            // E: a group is written with the groups before it that share its place; errors quote the route's pattern.
            ("groups", [("a", "aa"), ("b", "bb")], "app://h/x/aa/bb"),
            ("groups", [("a", "aa")], "app://h/x/aa"),
            ("groups", [], "app://h/x"),
            ("groups", [("b", "bb")], "\(e) 'groups' ('app://h/x(/:a)(/:b)'): optional group '(/:b)' without '(/:a)' "
                + "has the place of '(/:a)', which comes first: the URL would give 'a', not 'b'; give 'a' too"),
            ("pair", [("a", "aa")], "\(e) 'pair' ('app://h/y(/:a/:b)'): parameter 'b' is missing "
                + "(optional group '(/:a/:b)' is written with all its parameters or none)"),
            ("pair", [("a", "aa"), ("b", "bb")], "app://h/y/aa/bb"),
            ("typed", [("a", "z")], "app://h/z/z"),
            ("typed", [("b", "5")], "app://h/z/5"),
            ("typed", [("a", "5")], "\(e) 'typed' ('app://h/z(/:a)(/:b<int>)'): the URL 'app://h/z/5' would give 'b' = '5', "
                + "not 'a' = '5' (another combination of its optional groups comes first)"),
            // I: the host cannot carry ':' or '@' raw (a port, a user); encoded, the route still matches.
            ("hostport", [("port", "80")], "app://h%3A80/x"),
            ("hostat", [("user", "bob")], "app://bob%40example.com/x"),
            ("literalat", [], "app://a%40b/x"),
            ("emptyport", [], "app://h%3A/x"),
        ])
        XCTAssertEqual(try router.url(name: "product", params: ["id": "1"], query: [("b", "2"), ("a", "1")]), "shop://product/1?b=2&a=1")
        var limits = router.limits
        limits.maxURLLength = 40
        try router.setLimits(limits)
        XCTAssertThrowsError(try router.url(name: "product", params: ["id": String(repeating: "x", count: 40)])) {
            XCTAssertEqual(($0 as? RouterError)?.code, .limit)
        }
    }

    /// J: a maxSegments set lower after the routes were added does not drop their types from URL building (the
    /// values are still checked against them; the URLs themselves now pass the limit, so they are refused).
    func testLimitsSetAfterAddingKeepTheTypes() throws {
        let routes = [RouteSpec("app://h/a/v{n<uint>}.json", target: "V", name: "v"), RouteSpec("app://h/b/c/:id<int>", target: "I", name: "i")]
        let router = Router(), resolver = Router()
        try router.add(routes)
        try resolver.add(routes)
        try router.updateLimits { $0.maxSegments = 2 }
        let e = "error -2: cannot build the URL of route"
        try URLBuildTests.check(router, [
            // Built URLs that this router would now refuse are refused with the limit (the limits review).
            ("v", [("n", "3")], "error -6: cannot build the URL of route 'v' ('app://h/a/v{n<uint>}.json'): it would have 3 segments "
                + "(host included), more than maxSegments (LR_LIMIT_SEGMENTS, 2)"),
            ("v", [("n", "x/y")], "\(e) 'v' ('app://h/a/v{n<uint>}.json'): parameter 'n' = 'x/y' does not fit 'v{n<uint>}.json'"),
            ("i", [("id", "12")], "error -6: cannot build the URL of route 'i' ('app://h/b/c/:id<int>'): it would have 4 segments "
                + "(host included), more than maxSegments (LR_LIMIT_SEGMENTS, 2)"),
            ("i", [("id", "abc")], "\(e) 'i' ('app://h/b/c/:id<int>'): parameter 'id' = 'abc' does not fit ':id<int>'"),
        ], resolver: resolver)
    }

    /// A built URL stays within what a lookup takes: segments and query pairs too, not only the length (found by
    /// the limits review: a catch-all of 1,101 pieces or 1,100 query pairs built URLs that resolve refuses). A
    /// value that alone passes the length is refused before anything is built.
    func testBuiltURLsStayWithinTheLookupLimits() throws {
        let router = Router()
        try router.add([RouteSpec("files://open/*path", target: "F", name: "f"), RouteSpec("app://u/:id", target: "U", name: "u")])
        func pieces(_ n: Int) -> String { (0..<n).map { _ in "p" }.joined(separator: "/") }
        func query(_ n: Int) -> [(name: String, value: String)] { (0..<n).map { (name: "k\($0)", value: "v") } }
        let e = "cannot build the URL of route"
        let refused: [(String, () throws(RouterError) -> String, String)] = [
            ("1,024 pieces", { () throws(RouterError) in try router.url(name: "f", params: ["path": pieces(1_024)]) },
             "\(e) 'f' ('files://open/*path'): it would have 1025 segments (host included), more than maxSegments (LR_LIMIT_SEGMENTS, 1024)"),
            ("1,025 query pairs", { () throws(RouterError) in try router.url(name: "u", params: ["id": "1"], query: query(1_025)) },
             "\(e) 'u' ('app://u/:id'): it would have 1025 query pairs, more than maxParams (LR_LIMIT_PARAMS, 1024)"),
            ("70,000-byte value", { () throws(RouterError) in try router.url(name: "u", params: ["id": String(repeating: " ", count: 70_000)]) },
             "\(e) 'u' ('app://u/:id'): it would be at least 70006 bytes, more than maxURLLength (LR_LIMIT_URL_LENGTH, 65536)"),
        ]
        for (what, build, message) in refused {
            XCTAssertThrowsError(try build(), what) {
                XCTAssertEqual(($0 as? RouterError)?.code, .limit, what)
                XCTAssertEqual(($0 as? RouterError)?.message, message, what)
            }
        }
        // At the limits: built, and resolved back.
        let deepest = try router.url(name: "f", params: ["path": pieces(1_023)])  // the host and 1,023 pieces
        XCTAssertEqual(try router.resolve(deepest)?.params["path"], pieces(1_023))
        let widest = try router.url(name: "u", params: ["id": "1"], query: query(1_024))
        XCTAssertEqual(try router.resolve(widest)?.params["k1023"], "v")
    }

    /// The property: for random values (reserved characters, `%`, spaces, non-ASCII), the built URL resolves
    /// to the same route with the same values: `:params` and query values decoded exactly; a catch-all comes
    /// back as built (undecoded), and decoding it gives the value.
    func testBuiltURLsResolveBack() throws {
        let router = Router()
        try router.add([
            RouteSpec("shop://product/:id", target: "Product", name: "product"),
            RouteSpec("shop://p/:a/x/:b", target: "Two", name: "two"),
            RouteSpec("host://:h/page", target: "Host", name: "host"),
            RouteSpec("files://open/*path", target: "Files", name: "files"),
        ])
        let pool: [String] = ["a", "Z", "0", "-", ".", "_", "~", " ", "/", "?", "#", "%", "&", "=", "+", ":", "@", "[", "]",
                              "!", "$", "'", "(", ")", "*", ",", ";", "\"", "<", ">", "\\", "^", "`", "{", "|", "}",
                              "é", "体", "😀", "%41", "%zz", "\t"]
        var seed: UInt64 = 42
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        func value(_ minLength: Int = 1) -> String {
            (0..<(minLength + next(6))).map { _ in pool[next(pool.count)] }.joined()
        }
        for i in 0..<3_000 {
            let q = value(), tab = value(0)
            switch i % 4 {
            case 0:
                let id = value()
                let url = try router.url(name: "product", params: ["id": id], query: [("q", q), ("t a b", tab)])
                let m = try XCTUnwrap(try router.resolve(url), url)
                XCTAssertEqual(m.target, "Product", url)
                XCTAssertEqual(m.params.dictionary, ["id": id, "q": q, "t a b": tab], url)
            case 1:
                let a = value(), b = value()
                let url = try router.url(name: "two", params: ["a": a, "b": b])
                let m = try XCTUnwrap(try router.resolve(url), url)
                XCTAssertEqual(m.target, "Two", url)
                XCTAssertEqual(m.params.dictionary, ["a": a, "b": b], url)
            case 2:
                let h = value()
                let url = try router.url(name: "host", params: ["h": h])
                let m = try XCTUnwrap(try router.resolve(url), url)
                XCTAssertEqual(m.target, "Host", url)
                XCTAssertEqual(m.params.dictionary, ["h": h], url)
            default:
                let pieces = (0..<(1 + next(3))).map { _ in value().replacingOccurrences(of: "/", with: "-") }
                let path = pieces.joined(separator: "/")
                let url = try router.url(name: "files", params: ["path": path])
                let m = try XCTUnwrap(try router.resolve(url), url)
                XCTAssertEqual(m.target, "Files", url)
                let built = String(url.dropFirst("files://open/".count))
                XCTAssertEqual(m.params["path"], built, url)
                XCTAssertEqual(built.removingPercentEncoding, path, url)
            }
        }
    }
}

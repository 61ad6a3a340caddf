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
    ]

    func testBuildTable() throws {
        let router = Router()
        try router.add(URLBuildTests.routes)
        let rows: [(String, [(String, String)], String)] = [
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
            ("product", [], "error -2: parameter 'id' is missing"),
            ("product", [("id", "")], "error -2: parameter 'id' is empty"),
            ("product", [("id", "1"), ("idx", "2")], "error -2: no parameter 'idx' (it has 'id'; write '?idx' for a query parameter)"),
            ("product", [("id", "1"), ("?id", "2")], "error -2: query parameter '?id' has the name of a path parameter"),
            ("product", [("id", "1"), ("?", "2")], "error -2: a query parameter needs a name after '?'"),
            ("files", [("path", "a//b")], "error -2: catch-all 'path' has an empty segment"),
            ("files", [("path", "/a")], "error -2: catch-all 'path' has an empty segment"),
            ("share", [("id", "1")], "error -2: it matches any scheme"),
            ("nobody", [], "error -7: no route is named 'nobody'"),
        ]
        for (name, params, expected) in rows {
            do {
                let url = try router.url(name: name, orderedParams: params.map { (name: $0.0, value: $0.1) })
                XCTAssertEqual(url, expected, "\(name) \(params)")
            } catch {
                XCTAssertTrue(expected.hasPrefix("error \(error.code.rawValue): "), "\(name) \(params): \(error.message)")
                XCTAssertTrue(error.message.contains(expected.dropFirst("error -2: ".count)), "\(name): \(error.message)")
            }
        }
        XCTAssertEqual(try router.url(name: "product", params: ["id": "1"], query: [("b", "2"), ("a", "1")]), "shop://product/1?b=2&a=1")
        var limits = router.limits
        limits.maxURLLength = 40
        try router.setLimits(limits)
        XCTAssertThrowsError(try router.url(name: "product", params: ["id": String(repeating: "x", count: 40)])) {
            XCTAssertEqual(($0 as? RouterError)?.code, .limit)
        }
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

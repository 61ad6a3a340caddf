import XCTest
@testable import LinkRouter

/// Typed and in-segment parameters in the host position, and rules that accept the same values (fuzz/README
/// B53-B55): the host compares case-insensitively for a rule as for a literal, a host rule that names a port
/// matches that port, and classes that accept the same values are one rule.
final class HostRulesTests: XCTestCase {
    /// `resolve`, `explain` and (where named) URL building on one table: target and parameters, exactly.
    private func check(_ r: Router, _ rows: [(String, String?, [String: String])], file: StaticString = #filePath,
                       line: UInt = #line) throws {
        for (url, target, params) in rows {
            let m = try r.resolve(url)
            XCTAssertEqual(m?.target, target, url, file: file, line: line)
            if target != nil { XCTAssertEqual(m?.params.dictionary, params, url, file: file, line: line) }
            // The explain walker decides each step on its own: it must agree with the trie walk.
            let e = r.explain(url)
            XCTAssertEqual(e.route?.target, target, "explain \(url)", file: file, line: line)
            if target != nil {
                XCTAssertEqual(Dictionary(e.params.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }), params,
                               "explain \(url)", file: file, line: line)
            }
        }
    }

    /// B53: a class in the host position sees the host case-insensitively (as the host's literals do); the
    /// value keeps the case it is written with (docs/SEMANTICS.md §2), for a plain `:h` too.
    func testHostRulesIgnoreTheHostsCase() throws {
        let r = Router()
        try r.add("https://{sub<[a-z]+>}.example.org/p/:id", target: "Sub", name: "sub")
        try r.add("app://:h<[a-z]+>/x", target: "H", name: "h")
        try r.add("cls://:h<[A-Z]+>/x", target: "Upper")
        try r.add("neg://:h<[^a-z]+>/x", target: "Neg")
        try r.add("plain://:h/x", target: "Plain")
        try r.add("lit://user/x", target: "Literal")
        try check(r, [
            ("https://shop.example.org/p/1", "Sub", ["sub": "shop", "id": "1"]),
            ("https://SHOP.example.org/p/1", "Sub", ["sub": "SHOP", "id": "1"]),
            ("https://Shop.Example.ORG/p/1", "Sub", ["sub": "Shop", "id": "1"]),
            ("https://SH%4FP.example.org/p/1", "Sub", ["sub": "SHOP", "id": "1"]),
            ("https://sh0p.example.org/p/1", nil, [:]),
            ("app://user/x", "H", ["h": "user"]),
            ("app://User/x", "H", ["h": "User"]),
            ("APP://USER/x", "H", ["h": "USER"]),
            ("app://us3r/x", nil, [:]),
            ("cls://User/x", "Upper", ["h": "User"]),
            ("cls://user/x", "Upper", ["h": "user"]),
            ("neg://123/x", "Neg", ["h": "123"]),
            ("neg://ABC/x", nil, [:]),
            ("plain://User/x", "Plain", ["h": "User"]),
            ("lit://USER/x", "Literal", [:]),
            // No host: the first path segment takes the host's place and keeps its case, compared as written
            // (as `lit://user/x` does not match `lit:///USER/x`); a host class is lower-case.
            ("app:///user/x", "H", ["h": "user"]),
            ("app:///User/x", nil, [:]),
            ("cls:///user/x", "Upper", ["h": "user"]),
            ("cls:///USER/x", nil, [:]),
            ("lit:///USER/x", nil, [:]),
        ])
        // URL building takes a value the host rule accepts in any case, and the URL comes back to it.
        for (name, params, url) in [("h", ["h": "User"], "app://User/x"), ("sub", ["sub": "SHOP", "id": "1"], "https://SHOP.example.org/p/1")] {
            XCTAssertEqual(try r.url(name: name, params: params), url)
            XCTAssertEqual(try r.resolve(url)?.params.dictionary, params, url)
        }
        XCTAssertThrowsError(try r.url(name: "h", params: ["h": "us3r"]))
    }
}

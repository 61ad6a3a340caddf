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

    /// B54: a host rule that names a port (a `:` in its prefix or suffix) is tried on `host:port`, after the
    /// `host:port` literal and before the host alone, as a literal naming a port is (docs/SEMANTICS.md §1).
    func testHostRulesNamingAPortMatchThatPort() throws {
        let r = Router()
        try r.add("https://{sub}.example.com:8080/x", target: "Port", name: "port")
        try r.add("https://{sub}.example.com/x", target: "NoPort")
        try r.add("https://example.com:8080/z", target: "Literal")
        try r.add("app://h:{port<uint>}/y", target: "HostPort", name: "hp")
        try r.add("bt://{a}.h:1/p", target: "PortP")
        try r.add("bt://:x/q", target: "PlainQ")
        try r.add("pre://{a}.h:1/p", target: "PortRule")
        try r.add("pre://z.h/p", target: "HostLiteral")
        try check(r, [
            ("https://a.example.com:8080/x", "Port", ["sub": "a"]),
            ("https://A.Example.COM:8080/x", "Port", ["sub": "A"]),
            ("https://u@a.b.example.com:8080/x", "Port", ["sub": "a.b"]),
            ("https://a%2Eb.example.com:8080/x", "Port", ["sub": "a.b"]),
            ("https://a.example.com%3A8080/x", "Port", ["sub": "a"]),  // as before: the host written with ':'
            ("https://a.example.com:9090/x", "NoPort", ["sub": "a"]),  // another port: the host alone
            ("https://a.example.com/x", "NoPort", ["sub": "a"]),
            ("https://example.com:8080/z", "Literal", [:]),
            ("app://h:80/y", "HostPort", ["port": "80"]),
            ("app://H:80/y", "HostPort", ["port": "80"]),
            ("app://h%3A80/y", "HostPort", ["port": "80"]),
            ("app://h/y", nil, [:]),
            ("app://h:x/y", nil, [:]),  // a port that is not digits is part of the host: "h:x" is not a <uint> port
            // The host:port branch dead-ends on "q": its capture is given back and the host alone gets its turn.
            ("bt://z.h:1/q", "PlainQ", ["x": "z.h"]),
            ("bt://z.h:1/p", "PortP", ["a": "z"]),
            // host:port before host: the rule naming the port beats the host's literal.
            ("pre://z.h:1/p", "PortRule", ["a": "z"]),
            ("pre://z.h/p", "HostLiteral", [:]),
            ("pre://z.h:2/p", "HostLiteral", [:]),
        ])
        // URL building writes the ':' of a host as %3A (B30); the URL still comes back to the route.
        for (name, params, url) in [("port", ["sub": "a"], "https://a.example.com%3A8080/x"), ("hp", ["port": "80"], "app://h%3A80/y")] {
            XCTAssertEqual(try r.url(name: name, params: params), url)
            XCTAssertEqual(try r.resolve(url)?.name, name, url)
            XCTAssertEqual(try r.resolve(url)?.params.dictionary, params, url)
        }
    }

    /// B55: character classes that accept the same values are one rule, however written: a second route with
    /// it is LR_ECONFLICT (add, and a table file's check); different classes order by what they accept.
    func testEqualClassesConflict() throws {
        let rows: [(String, String, RouterError.Code?)] = [
            ("app://u/:x<[a-z]>", "app://u/:y<[a-z]{1}>", .conflict),
            ("app://u/:x<[ab]+>", "app://u/:y<[ba]+>", .conflict),
            ("app://u/:x<[a-z]+>", "app://u/:y<[a-z]{1,}>", .conflict),
            ("app://u/:x<[a]>", "app://u/:y<[a-a]>", .conflict),
            ("app://u/v{x<[a-c]{2,3}>}.png", "app://u/v{y<[abc]{2,3}>}.png", .conflict),
            ("app://:h<[a-z]+>/x", "app://:h<[A-Za-z]+>/x", .conflict),  // the host: case folded, so the same
            ("app://u/:x<[a-z]>", "app://u/:y<[a-z]{2}>", nil),
            ("app://u/:x<[a-z]+>", "app://u/:y<[a-y]+>", nil),
            ("app://u/:x<[a-z]+>", "app://u/:y<[A-Za-z]+>", nil),  // a path segment: case matters
            ("app://u/:x<[a-z]+>", "app://u/{y<[a-z]+>}.png", nil),
        ]
        for (first, second, expected) in rows {
            let r = Router()
            try r.add(first, target: "A")
            do {
                try r.add(second, target: "B")
                XCTAssertNil(expected, "\(first) then \(second): added")
            } catch {
                XCTAssertEqual(error.code, expected, "\(first) then \(second): \(error)")
            }
            XCTAssertEqual(r.count, expected == nil ? 2 : 1, "\(first) then \(second)")
            let json = #"{"version": 1, "routes": [{"pattern": "\#(first)", "target": "A"}, {"pattern": "\#(second)", "target": "B"}]}"#
            XCTAssertEqual(r.check(json: json).problems.map(\.code), expected.map { [$0] } ?? [], "check \(first), \(second)")
        }
        // Different classes at one place: the narrower first (fewer members), whatever the order added or written.
        for order in [["[0-9a-f]+", "[0-9]+"], ["[0-9]+", "[0-9a-f]+"], ["[a-f0-9]+", "[9876543210]+"]] {
            let r = Router()
            for t in order { try r.add("c://u/:v<\(t)>", target: t) }
            let narrow = order.first { !$0.contains("f") }!, wide = order.first { $0.contains("f") }!
            XCTAssertEqual(try r.resolve("c://u/5")?.target, narrow, "\(order)")
            XCTAssertEqual(try r.resolve("c://u/5f")?.target, wide, "\(order)")
            XCTAssertEqual(r.explain("c://u/5").route?.target, narrow, "\(order)")
        }
    }
}

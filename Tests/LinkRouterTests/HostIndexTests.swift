import XCTest
@testable import LinkRouter

/// A scheme's hosts as words (`HostIndex`, in `SchemeIndex`): at most four literal children of at most seven
/// bytes each; else the index is incomplete and the walk hashes the host. Every outcome must be the hashed one's.
final class HostIndexTests: XCTestCase {
    private static let letters = Array("abcdefghijklmnopqrstuvwxyz")

    private func host(_ n: Int, _ c: Int = 0) -> String { String(Self.letters[c ..< c + n]) }

    /// What the index says for a scheme node and a URL host (nil: it cannot tell).
    private func indexed(_ store: TableStore, _ scheme: String, _ h: String) -> Int32? {
        let node = store.findLiteral(0, Array(scheme.utf8))
        let bytes = Array(h.utf8)
        guard bytes.count <= 7 else { return store.schemes.hostChild(node, 0) }
        var head: UInt64 = 0
        for (i, b) in bytes.enumerated() { head |= UInt64(b) << UInt64(8 * i) }
        return store.schemes.hostChild(node, HostIndex.key(lowercasedWord(head), bytes.count))
    }

    /// Which stores the index covers: (hosts of a scheme) → complete or not, and each host's node.
    func testIndexCoversFewShortHosts() throws {
        let rows: [(hosts: [String], complete: Bool)] = [
            ([host(1)], true), ([host(7)], true), ([host(8)], false), ([host(3), host(7, 1)], true),
            ([host(2), host(3, 1), host(4, 2), host(5, 3)], true), ([host(2), host(3, 1), host(4, 2), host(5, 3), host(1, 9)], false),
            (["h:8080"], true), (["hhh:8080"], false), (["a", "b"], true),
        ]
        for row in rows {
            var store = TableStore()
            for h in row.hosts { try store.insert(RouteSpec("app://\(h)/:p", target: h), Pattern.parse("app://\(h)/:p")) }
            let what = "\(row.hosts)"
            for h in row.hosts {
                let node = store.findLiteral(store.findLiteral(0, Array("app".utf8)), Array(h.lowercased().utf8))
                XCTAssertGreaterThanOrEqual(node, 0, what)
                if row.complete {
                    if h.contains(":") {
                        XCTAssertEqual(indexed(store, "app", h), node, what)  // the key as stored
                    } else {
                        XCTAssertEqual(indexed(store, "app", h), node, what)
                        XCTAssertEqual(indexed(store, "app", h.uppercased()), node, what)
                    }
                    XCTAssertEqual(indexed(store, "app", "zz"), -1, what)
                    XCTAssertEqual(indexed(store, "app", host(8)), -1, what)  // longer than any key
                } else {
                    XCTAssertNil(indexed(store, "app", h), what)
                }
            }
        }
    }

    /// Outcomes through the router: case, ports, escapes, hosts near the keys, a parameter host, catch-alls.
    func testOutcomes() throws {
        let r = Router()
        try r.add("gh://get/repos/:o/:r", target: "G")
        try r.add("gh://post/repos/:o", target: "P")
        try r.add("gh://put:8080/x", target: "PORT")
        try r.add("gh://:verb/any/:x", target: "V")
        try r.add("gh://delete/*rest", target: "D")
        let rows: [(url: String, target: String?, params: [String: String])] = [
            ("gh://get/repos/a/b", "G", ["o": "a", "r": "b"]),
            ("GH://GET/repos/a/b", "G", ["o": "a", "r": "b"]),
            ("gh://GeT/repos/a/b", "G", ["o": "a", "r": "b"]),
            ("gh://%67et/repos/a/b", "G", ["o": "a", "r": "b"]),  // escaped: the general step decodes it
            ("gh://get:443/repos/a/b", "G", ["o": "a", "r": "b"]),  // a port: the general step, then the bare host
            ("gh://post/repos/a", "P", ["o": "a"]),
            ("gh://posts/repos/a", nil, [:]),
            ("gh://pos/repos/a", nil, [:]),
            ("gh://put:8080/x", "PORT", [:]),
            ("gh://PUT:8080/x", "PORT", [:]),
            ("gh://put/x", nil, [:]),
            ("gh://gets/any/1", "V", ["verb": "gets", "x": "1"]),  // no literal host: the parameter takes it
            ("gh://get/any/1", "V", ["verb": "get", "x": "1"]),  // the literal dead-ends: the search backtracks
            ("gh://verylonghost/any/1", "V", ["verb": "verylonghost", "x": "1"]),
            ("gh://delete/a/b", "D", ["rest": "a/b"]),
            ("gh://DELETE", "D", ["rest": ""]),
        ]
        for row in rows {
            let m = try r.resolve(row.url)
            XCTAssertEqual(m?.target, row.target, row.url)
            if row.target != nil { XCTAssertEqual(m?.params.dictionary, row.params, row.url) }
        }
        // A fifth host makes the index incomplete: the same answers, hashed.
        try r.add("gh://patch/x", target: "X")
        for row in rows {
            XCTAssertEqual(try r.resolve(row.url)?.target, row.target, "incomplete: \(row.url)")
        }
        XCTAssertEqual(try r.resolve("gh://PATCH/x")?.target, "X")
        // Removal leaves the host's node and edge: the index still points there, and answers stay right.
        try r.remove("gh://post/repos/:o")
        XCTAssertNil(try r.resolve("gh://post/repos/a"))
        XCTAssertEqual(try r.resolve("gh://post/any/1")?.target, "V")
    }
}

import XCTest
@testable import LinkRouter

/// Nodes with one literal child (`TrieNode.literals` ≥ 0): the walk compares the element with that child's edge
/// directly instead of hashing it. Every row asserts the exact outcome, the same as a hashed lookup's.
final class SingleChildTests: XCTestCase {
    private static let letters = Array("abcdefghijklmnopqrstuvwxyz")

    private func key(_ n: Int, from offset: Int = 0) -> String { String(Self.letters[offset ..< offset + n]) }

    /// The store's view: the node a literal path leads to, from the scheme down.
    private func node(_ store: TableStore, _ path: [String]) -> Int32 {
        var n: Int32 = 0
        for k in path {
            n = store.findLiteral(n, Array(k.utf8))
            if n < 0 { return -1 }
        }
        return n
    }

    /// Path segments of 1 ... 20 bytes under a node that has only them: found exactly, and nothing near them.
    func testPathSegmentLengths() throws {
        for n in 1 ... 20 {
            let k = key(n)
            let r = Router()
            try r.add("app://h/\(k)/:id", target: "T\(n)")
            let what = "length \(n)"
            let m = try XCTUnwrap(try r.resolve("app://h/\(k)/7"), what)
            XCTAssertEqual(m.target, "T\(n)", what)
            XCTAssertEqual(m.params.dictionary, ["id": "7"], what)
            // The walk's other spellings of the same segment: doubled slashes, an escape, a trailing slash.
            XCTAssertEqual(try r.resolve("app://h//\(k)//7")?.target, "T\(n)", what)
            XCTAssertEqual(try r.resolve("app://h/%\(String(Int(k.utf8.first!), radix: 16))\(k.dropFirst())/7")?.target, "T\(n)", what)
            // Near misses: the last byte changed, one byte fewer, one more, upper case (paths are case-sensitive).
            XCTAssertNil(try r.resolve("app://h/\(k.dropLast())z/7"), what)
            XCTAssertNil(try r.resolve("app://h/\(k.dropLast())/7"), what)
            XCTAssertNil(try r.resolve("app://h/\(k)a/7"), what)
            XCTAssertNil(try r.resolve("app://h/\(k.uppercased())/7"), what)
            XCTAssertNil(try r.resolve("app://h/\(key(n, from: 1))/7"), what)
            XCTAssertNil(try r.resolve("app://h/7"), what)
        }
    }

    /// Hosts of 1 ... 20 bytes as the scheme's only child: compared case-insensitively, as a hashed lookup is.
    func testHostLengthsFold() throws {
        for n in 1 ... 20 {
            let host = key(n)
            let r = Router()
            try r.add("app://\(host)/:p", target: "H\(n)")
            let what = "host length \(n)"
            XCTAssertEqual(try r.resolve("app://\(host)/x")?.params.dictionary, ["p": "x"], what)
            XCTAssertEqual(try r.resolve("APP://\(host.uppercased())/x")?.target, "H\(n)", what)
            let mixed = String(host.enumerated().map { $0.offset % 2 == 0 ? Character($0.element.uppercased()) : $0.element })
            XCTAssertEqual(try r.resolve("app://\(mixed)/x")?.target, "H\(n)", what)
            XCTAssertNil(try r.resolve("app://\(host.dropLast())z/x"), what)
            XCTAssertNil(try r.resolve("app://\(host)a/x"), what)
            XCTAssertNil(try r.resolve("app://\(host.dropLast())/x"), what)
            if n > 1 { XCTAssertNil(try r.resolve("app://\(host.dropFirst())/x"), what) }
        }
        // A pattern's upper-case host is stored folded; the URL's case does not matter either.
        let r = Router()
        try r.add("app://Example.COM/:p", target: "E")
        XCTAssertEqual(try r.resolve("app://example.com/1")?.target, "E")
        XCTAssertEqual(try r.resolve("app://EXAMPLE.com/1")?.target, "E")
    }

    /// The store marks exactly the nodes with one literal child, with that child's edge slot, through growth
    /// of the edge table (slots move) and removals (nodes and edges stay).
    func testStoreMarksSingleChildren() throws {
        var store = TableStore()
        func add(_ p: String) throws { try store.insert(RouteSpec(p, target: p), Pattern.parse(p)) }
        for i in 0 ..< 300 { try add("app://h\(i)/seg\(i)/:id") }  // the edge table grows several times
        for i in 0 ..< 300 {
            let h = node(store, ["app", "h\(i)"])
            let slot = Int(store.nodes[Int(h)].literals)
            XCTAssertGreaterThanOrEqual(slot, 0, "h\(i)")
            XCTAssertEqual(store.edges[slot].child, node(store, ["app", "h\(i)", "seg\(i)"]), "h\(i)")
            XCTAssertEqual(store.edges[slot].tag >> 32, UInt64(h), "h\(i)")
        }
        XCTAssertEqual(store.nodes[Int(node(store, ["app"]))].literals, -2, "300 hosts")
        XCTAssertEqual(store.nodes[Int(node(store, ["app", "h0", "seg0"]))].literals, -1, "no literal child")
        try add("app://h0/other")
        XCTAssertEqual(store.nodes[Int(node(store, ["app", "h0"]))].literals, -2, "a second child")
        try store.remove(Pattern.parse("app://h0/other"))
        XCTAssertEqual(store.nodes[Int(node(store, ["app", "h0"]))].literals, -2, "removal keeps the edge")
    }

    /// Removal and re-adding, siblings appearing later, shared prefixes: outcomes through the router.
    func testRemovalAndSiblings() throws {
        let r = Router()
        try r.add("app://h/only/:id", target: "O")
        XCTAssertEqual(try r.resolve("app://h/only/1")?.target, "O")
        try r.remove("app://h/only/:id")
        XCTAssertNil(try r.resolve("app://h/only/1"))
        try r.add("app://h/only/:id", target: "O2")
        XCTAssertEqual(try r.resolve("app://h/only/1")?.target, "O2")
        try r.remove("app://h/only/:id")
        try r.add("app://h/other/:id", target: "X")  // the removed child's edge stays: now two
        XCTAssertNil(try r.resolve("app://h/only/1"))
        XCTAssertEqual(try r.resolve("app://h/other/1")?.target, "X")

        // Shared prefixes: keys that are prefixes of each other, added one at a time.
        let s = Router()
        let keys = ["abcdefgh", "abcdefghi", "abcdefghijklmnop", "abcdefghijklmnopq", "a"]
        for (i, k) in keys.enumerated() {
            try s.add("app://p/\(k)/:id", target: k)
            for (j, other) in keys.enumerated() {
                XCTAssertEqual(try s.resolve("app://p/\(other)/1")?.target, j <= i ? other : nil, "\(k) added, \(other)")
            }
            XCTAssertNil(try s.resolve("app://p/abcdefgz/1"))
            XCTAssertNil(try s.resolve("app://p/abcdefghijklmnoz/1"))
        }
        // A single child whose parameter sibling takes what the literal does not.
        let t = Router()
        try t.add("app://q/lit/x", target: "L")
        try t.add("app://q/:v/x", target: "V")
        XCTAssertEqual(try t.resolve("app://q/lit/x")?.target, "L")
        XCTAssertEqual(try t.resolve("app://q/lix/x")?.target, "V")
        XCTAssertEqual(try t.resolve("app://q/li/x")?.params.dictionary, ["v": "li"])
        XCTAssertEqual(try t.resolve("app://q//lit//x")?.target, "L")  // not canonical: the walk, not the static table
    }

    /// A snapshot taken before a change keeps answering as it did: single-child marks live in shared chunks.
    func testSnapshotsKeepTheirAnswers() throws {
        var store = TableStore()
        try store.insert(RouteSpec("app://h/a/:id", target: "A"), Pattern.parse("app://h/a/:id"))
        let before = RouteTable(store)
        try store.insert(RouteSpec("app://h/b/:id", target: "B"), Pattern.parse("app://h/b/:id"))
        for i in 0 ..< 40 { try store.insert(RouteSpec("app://g\(i)/s/:id", target: "G"), Pattern.parse("app://g\(i)/s/:id")) }
        let after = RouteTable(store)
        XCTAssertEqual(before.store.nodes[Int(node(before.store, ["app", "h"]))].literals >= 0, true)
        XCTAssertEqual(after.store.nodes[Int(node(after.store, ["app", "h"]))].literals, -2)
        XCTAssertEqual(before.store.edgeBits < after.store.edgeBits, true, "the edge table grew")
        XCTAssertEqual(match(before, "app://h/a/1"), "A")
        XCTAssertNil(match(before, "app://h/b/1"))
        XCTAssertEqual(match(after, "app://h/a/1"), "A")
        XCTAssertEqual(match(after, "app://h/b/1"), "B")
        XCTAssertEqual(match(after, "app://g39/s/1"), "G")
    }

    /// The route `table` itself matches for `url` (its target), read through the walk of that snapshot.
    private func match(_ table: RouteTable, _ url: String) -> String? {
        var bytes = Array(url.utf8)
        return bytes.withUnsafeMutableBufferPointer { u -> String? in
            let span = ByteSpan(start: UnsafePointer(u.baseAddress), count: u.count)
            var parts = URLParts()
            guard parts.scan(span, requireScheme: true) else { return nil }
            let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 8 * u.count + 64)
            let values = UnsafeMutablePointer<ByteSpan>.allocate(capacity: table.maxParams + 1)
            defer { scratch.deallocate(); values.deallocate() }
            var writer = ByteWriter(base: scratch, capacity: 8 * u.count + 64)
            guard let blob = try? table.match(span, &parts, scratch: &writer, values: values) else { return nil }
            return blob.spec.target
        }
    }
}

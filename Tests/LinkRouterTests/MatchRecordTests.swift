import XCTest
@_spi(CExports) @testable import LinkRouter

/// The one-allocation match: every field read back from the record, and the merge (SPEC §4) against a plain
/// reference implementation, in both the linear and the hashed mode of its name index.
final class MatchRecordTests: XCTestCase {
    /// (url, path, fragment, rewritten) for routes app://x/:id and a rewrite of old://.
    static let fields: [(String, String, String, String, UInt)] = [
        ("app://x/1", "/1", "", "app://x/1", #line),
        ("app://x/1?a=b", "/1", "", "app://x/1?a=b", #line),
        ("app://x/1#frag", "/1", "frag", "app://x/1#frag", #line),
        ("app://x/1?a=b#f%20g", "/1", "f%20g", "app://x/1?a=b#f%20g", #line),
        ("APP://X//1/#", "//1/", "", "APP://X//1/#", #line),
        ("old://1?q=2#z", "/1", "z", "app://x/1?q=2#z", #line),
    ]

    func testFields() throws {
        let r = Router()
        try r.add("app://x/:id", target: "X", name: "x", requires: ["login"], meta: ["k": "v"])
        try r.addRewrite("^old://(\\d+)(.*)$", target: "app://x/$1$2")
        for (url, path, fragment, rewritten, line) in Self.fields {
            let m = try XCTUnwrap(try r.resolve(url), url, line: line)
            XCTAssertEqual(m.url, url, line: line)
            XCTAssertEqual(m.rewritten, rewritten, line: line)
            XCTAssertEqual(m.wasRewritten, url != rewritten, line: line)
            XCTAssertEqual(m.path, path, line: line)
            XCTAssertEqual(m.fragment, fragment, line: line)
            XCTAssertEqual(m.scheme, "app", line: line)
            XCTAssertEqual(m.host, "x", line: line)
            XCTAssertEqual([m.target, m.pattern, m.name], ["X", "app://x/:id", "x"], line: line)
            XCTAssertEqual(m.requires, ["login"], line: line)
            XCTAssertEqual(m.meta, ["k": "v"], line: line)
            XCTAssertEqual(m.metadata, #"{"k":"v"}"#, line: line)
            XCTAssertEqual(m.params["id"], "1", line: line)
        }
    }

    /// SPEC §4 written plainly: path, then query keys by first appearance with their last value (never over a
    /// path name), then extras replacing in place or appended.
    static func reference(path: [(String, String)], query: [(String, String)], extras: [(String, String)]) -> [Match.Param] {
        var order: [String] = []
        var values: [String: String] = [:]
        for (k, v) in path { order.append(k); values[k] = v }
        let pathNames = Set(path.map(\.0))
        for (k, v) in query where !pathNames.contains(k) {
            if values[k] == nil { order.append(k) }
            values[k] = v
        }
        for (k, v) in extras {
            if values[k] == nil { order.append(k) }
            values[k] = v
        }
        return order.map { Match.Param(name: $0, value: values[$0] ?? "") }
    }

    func testMergeAgainstReference() throws {
        let r = Router()
        try r.add("app://m/:a/:b", target: "M")
        var rng = SystemRandomNumberGenerator()
        let keys = ["a", "b", "c", "d", "x[]", "é", "k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9"]
        for round in 0..<400 {
            // Up to 40 query pairs and 20 extras: both index modes (linear up to 16 names, hashed beyond).
            let query = (0..<Int.random(in: 0...40, using: &rng)).map { i in (keys.randomElement(using: &rng) ?? "a", "q\(i)") }
            let extras = (0..<Int.random(in: 0...20, using: &rng)).map { i in ((keys + ["e\(i)"]).randomElement(using: &rng) ?? "e", "E\(i)") }
            let url = "app://m/1/2" + (query.isEmpty ? "" : "?" + query.map { "\($0.0)=\($0.1)" }.joined(separator: "&"))
            let pairs = extras.map { (key: $0.0, value: $0.1) }
            let m = try XCTUnwrap(try url.withSpan { span throws(RouterError) in try r.resolve(bytes: span, extra: pairs) }, url)
            let expected = Self.reference(path: [("a", "1"), ("b", "2")], query: query, extras: extras)
            XCTAssertEqual(m.orderedParams, expected, "round \(round): \(url) extras \(extras)")
            XCTAssertEqual(m.query.map(\.name), query.map(\.0), url)
            for p in expected { XCTAssertEqual(m.params[p.name], p.value, url) }
        }
    }

    /// `MatchLayout` (the C getters' inlined reads) states the layout `MatchRecord` writes: its constants are
    /// the record's, and its reads give what the record's give.
    func testLayoutAgreesWithRecord() throws {
        XCTAssertEqual(MatchLayout.headerWords, MatchLayout.Word.allCases.count)
        XCTAssertEqual(MatchLayout.firstParamRef, MatchLayout.Field.allCases.count)
        let r = Router()
        try r.add("app://x/:id/:idx/:i", target: "X")
        let m = try XCTUnwrap(try r.resolve("app://x/1/two/3?id=q&k=v"))
        defer { withExtendedLifetime(m) {} }  // `base` points into m's storage: m must outlive its last use
        let base = m.recordBase
        XCTAssertEqual(MatchLayout.count(.params, in: base), 4)
        for f in MatchRecord.Field.allCases {
            let span = m.record.field(f)
            XCTAssertEqual(MatchLayout.refStart(f.rawValue, in: base), span.start, "\(f)")
            XCTAssertEqual(MatchLayout.refCount(f.rawValue, in: base), span.count, "\(f)")
        }
        // lr_match_get's lookup: whole names only, a prefix or a longer name is another name.
        let rows: [(String, String?, UInt)] = [
            ("id", "1", #line), ("idx", "two", #line), ("i", "3", #line), ("k", "v", #line),
            ("", nil, #line), ("ix", nil, #line), ("idxx", nil, #line), ("I", nil, #line),
        ]
        for (name, value, line) in rows {
            let found = name.withCString { MatchLayout.value(named: $0, in: .params, of: base).map { String(cString: $0) } }
            XCTAssertEqual(found, value, name, line: line)
        }
    }

    /// The lists (merged parameters, query pairs, requires, meta), as the C getters read them through
    /// `MatchLayout`, against `MatchRecord`'s reading: in both kinds of record (merged parameters apart, and
    /// merged parameters that are the path parameters).
    func testLayoutListsAgreeWithRecord() throws {
        let r = Router()
        try r.add("app://x/:id", target: "X", requires: ["login", "paid"], meta: ["k": "v", "a": "b"])
        for url in ["app://x/1?q=2&q=3&id=9", "app://x/1"] {
            let m = try XCTUnwrap(try r.resolve(url), url)
            defer { withExtendedLifetime(m) {} }  // as above
            let base = m.recordBase, record = m.record
            // Every item and one past the end (nil).
            func strings(_ l: MatchLayout.List, second: Bool = false) -> [String?] {
                (0...MatchLayout.count(l, in: base)).map { i in
                    MatchLayout.item(l, UInt(i), second: second, in: base).map { String(cString: $0) }
                }
            }
            XCTAssertEqual(strings(.params), (0..<record.paramCount).map { record.param($0).name.string } + [nil], url)
            XCTAssertEqual(strings(.params, second: true),
                           (0..<record.paramCount).map { record.param($0).value.string } + [nil], url)
            XCTAssertEqual(strings(.query), (0..<record.queryCount).map { record.query($0).name.string } + [nil], url)
            XCTAssertEqual(strings(.query, second: true),
                           (0..<record.queryCount).map { record.query($0).value.string } + [nil], url)
            XCTAssertEqual(strings(.requires), ["login", "paid", nil], url)
            XCTAssertEqual(strings(.meta), (0..<record.metaCount).map { record.meta($0).name.string } + [nil], url)
            XCTAssertEqual(strings(.meta, second: true),
                           (0..<record.metaCount).map { record.meta($0).value.string } + [nil], url)
            for (key, value) in [("k", "v"), ("a", "b"), ("x", nil), ("", nil), ("kk", nil)] as [(String, String?)] {
                let found = key.withCString { MatchLayout.value(named: $0, in: .meta, of: base) }
                XCTAssertEqual(found.map { String(cString: $0) }, value, "\(url) \(key)")
            }
        }
        let withQuery = try XCTUnwrap(try r.resolve("app://x/1?q=2&q=3&id=9"))
        XCTAssertEqual(withExtendedLifetime(withQuery) { withQuery.record.queryCount }, 3)  // the rows had a query
    }

    /// `copyBytes` (every string a record holds goes through it) copies exactly `n` bytes for every length of
    /// each of its ways (1–3, 4–7, 8–16, 17–32, 33–64, beyond), and writes nothing before or after them.
    func testCopyBytesCopiesExactlyTheBytes() {
        let source = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
        for n in 0...150 {
            for offset in [0, 3] {
                var destination = [UInt8](repeating: 0xAA, count: 220)
                source.withUnsafeBufferPointer { src in
                    destination.withUnsafeMutableBufferPointer { dst in
                        copyBytes(dst.baseAddress! + 8 + offset, src.baseAddress! + offset, n)
                    }
                }
                let expected = [UInt8](repeating: 0xAA, count: 8 + offset) + source[offset..<(offset + n)]
                    + [UInt8](repeating: 0xAA, count: 220 - 8 - offset - n)
                XCTAssertEqual(destination, expected, "n \(n), offset \(offset)")
            }
        }
    }
}

import XCTest
@testable import LinkRouter

/// Checking a table costs bounded work on small or valid inputs ("never hold on"): each test counts what the
/// check did on a generated table (`CheckWork`: samples built, route pairs examined, routes tested) and pins the
/// exact number, with the reported results.
final class CheckWorkTests: XCTestCase {
    private func overlaps(_ patterns: [String], limits: Limits = .default) throws -> ([RouteOverlap], CheckWork) {
        let r = Router(limits: limits)
        for p in patterns { try r.add(p, target: "T") }
        var work = CheckWork()
        let found = r.withState { TableOverlaps.find($0, work: &work) }
        return (found, work)
    }

    /// A character class with a huge minimum: no sample longer than maxURLLength is built (before: 94 samples of
    /// 999,999 bytes and their affixed copies, 932 MB for these two routes).
    func testSamplesStayShort() throws {
        var (found, work) = try overlaps(["app://h/:x<[!-~]{999999}>", "app://h/:y<[!-~]{999998,999999}>"])
        XCTAssertEqual(found, [])
        XCTAssertEqual([work.samples, work.sampleBytes], [0, 0])
        // Under the limit but of lengths no value of the other fits: nothing is built either.
        (found, work) = try overlaps(["app://h/:x<[!-~]{60000}>", "app://h/:y<[!-~]{1,59999}>"])
        XCTAssertEqual(found, [])
        XCTAssertEqual([work.samples, work.sampleBytes], [0, 0])
        // One sample of the class's minimum, not one per allowed byte (twice: the trie walk asks whether the two
        // parameters share a value, the example builds it again).
        (found, work) = try overlaps(["app://h/:x<[a-z]{2000}>", "app://h/:y"])
        XCTAssertEqual(found.map(\.example), ["app://h/" + String(repeating: "a", count: 2000)])
        XCTAssertEqual([work.samples, work.sampleBytes], [2, 4000])
        // The fixed values of fitting length come first: "1.5", "a-b" and "a.b" are refused, then "aaa".
        (found, work) = try overlaps(["app://h/:x<[a-z]{3}>", "app://h/:y"])
        XCTAssertEqual(found.map(\.example), ["app://h/aaa"])
        XCTAssertEqual([work.samples, work.sampleBytes], [8, 24])
        // A smaller maxURLLength: a class whose every value is longer is not sampled at all.
        var small = Limits()
        small.maxURLLength = 100
        (found, work) = try overlaps(["app://h/:x<[a-z]{2000}>", "app://h/:y"], limits: small)
        XCTAssertEqual(found, [])
        XCTAssertEqual([work.samples, work.sampleBytes], [0, 0])
    }

    /// Only routes that agree wherever both have a literal are paired (before: each typed route against every
    /// route, 2,000 × 1,999 pairs here, 4.5 s and 172 MB for typed2000.json).
    func testOverlapPairsFollowTheTrie() throws {
        var (found, work) = try overlaps((0..<2_000).map { "app://r\($0)/:id<int>" })
        XCTAssertEqual(found, [])
        // The scheme, each host against itself; no two parameters meet.
        XCTAssertEqual([work.overlapPairs, work.trieVisits, work.samples], [0, 2_001, 0])
        // Each host with an <int> and a :name route, and a *:// route on one host: one pair per host, two more
        // (the example of '*://r0/:x' and 'app://r0/:name' goes to the <int> route, so that pair is not reported).
        (found, work) = try overlaps((0..<1_000).flatMap { ["app://r\($0)/:id<int>", "app://r\($0)/:name"] } + ["*://r0/:x"])
        XCTAssertEqual(found.count, 1_001)
        XCTAssertEqual(found.filter { $0.kind == .typed }.count, 1_000)
        XCTAssertEqual(found[999], RouteOverlap(kind: .typed, winner: "app://r999/:id<int>", other: "app://r999/:name",
                                                winnerIndex: 1_998, otherIndex: 1_999, example: "app://r999/1"))
        XCTAssertEqual(found.last, RouteOverlap(kind: .anyScheme, winner: "app://r0/:id<int>", other: "*://r0/:x", winnerIndex: 0,
                                                otherIndex: 2_000, example: "app://r0/1"))
        XCTAssertEqual([work.overlapPairs, work.trieVisits], [1_002, 2_007])
        // 1,000 in-segment parameters at one place: only those whose prefixes can start one element ("p1{x}",
        // "p12{x}") are sampled and paired (1,890 pairs, each an overlap; 11 samples for the walk's question and
        // 11 for the example); "p1{x}" and "p2{x}" cost no sample.
        (found, work) = try overlaps((0..<1_000).map { "app://h/p\($0){x}" })
        XCTAssertEqual(found.count, 1_890)
        XCTAssertEqual([work.overlapPairs, work.trieVisits, work.samples], [1_890, 1_892, 1_890 * 22])
    }

    /// A rewrite target's known start is tested only against the routes of its scheme (or `*://`) whose first
    /// segment is that literal or no literal (before: every rule against every route; rw2000.json, 2,000 rules
    /// and 10,000 routes, took 7.8 s).
    func testRewriteTargetsTestTheRoutesTheyCanReach() throws {
        var routes = (0..<1_000).map { #"{"pattern": "app://r\#($0)/:id", "target": "T"}"# }
        routes.append(#"{"pattern": "*://any/:x", "target": "T"}"#)
        var rules = (0..<100).map { #"{"match": "^q\#($0)://(.*)", "target": "app://zz/$1"}"# }
        rules += [#"{"match": "^p://(.*)", "target": "app://r5/$1"}"#, #"{"match": "^s://(.*)", "target": "app://$1"}"#,
                  #"{"match": "^t://(.*)", "target": "app://any/x/$1"}"#, #"{"match": "^u://(.*)", "target": "web://r5/a/b/$1"}"#,
                  #"{"match": "^v://(.*)", "target": "app://r7/a/b/$1"}"#]
        let r = try Router(json: #"{"version": 1, "routes": ["# + routes.joined(separator: ",") + #"], "rewrites": ["#
                           + rules.joined(separator: ",") + "]}")
        var work = CheckWork()
        let warnings = r.withState { TableLint.warnings($0, knownGuards: nil, work: &work) }
        XCTAssertEqual(warnings.map(\.pointer), (0..<100).map { "/rewrites/\($0)/target" } + ["/rewrites/103/target", "/rewrites/104/target"])
        XCTAssertEqual(warnings.last?.reason, "'app://r7/a/b/$1' routes nowhere: no route starts like 'app://r7/a/b'")
        // app://zz and web://r5: no route to test; r5, any (the *:// route) and r7 one each; "app://$1" the first.
        XCTAssertEqual(work.rewriteRouteTests, 4)
    }

    /// A file with 100,000 problems keeps 1,000 (the ones listed) and counts the rest (before: every problem was
    /// kept, and the sort split each pointer again at every comparison; amp16.json took 12.3 s and 2.26 GB).
    func testProblemsBeyondTheListedOnesAreCounted() throws {
        let n = 100_000
        let text = #"{"version": 1, "routes": ["# + Array(repeating: "1", count: n).joined(separator: ",") + "]}"
        let document = Array(text.utf8).withUnsafeBufferPointer { TableDocument(json: ByteSpan(start: $0.baseAddress, count: $0.count)) }
        XCTAssertEqual([document.problems.count, document.problems.stored], [n, TableProblem.listed])
        // Values lie inline in their arrays: 24 bytes each (as an indirect enum each was an 8-byte reference to
        // a box of its own, about 56 bytes in all).
        XCTAssertEqual(MemoryLayout<JSONValue>.stride, 24)
        let report = Router().check(json: text)
        XCTAssertEqual(report.problems.count, TableProblem.listed + 1)
        XCTAssertEqual(report.problems[999].description, "/routes/999: expected an object, found a number")
        XCTAssertEqual(report.problems.last?.reason, "... and 99000 more problems (only the first 1000 are listed)")
        // Problems found later that come earlier in the file (a route's pattern, judged after every route's name)
        // take the place of later ones: the list is the first 1,000 in file order, as if all had been sorted.
        let routes = Array(repeating: #"{"pattern": "app://a//b", "target": "T", "name": ""}"#, count: 1_500)
        let mixed = Router().check(json: #"{"version": 1, "routes": ["# + routes.joined(separator: ",") + "]}")
        XCTAssertEqual(mixed.problems.count, 1_001)
        XCTAssertEqual(mixed.problems.prefix(4).map(\.pointer), ["/routes/0/name", "/routes/0/pattern", "/routes/1/name", "/routes/1/pattern"])
        XCTAssertEqual(mixed.problems[998].pointer, "/routes/499/name")
        XCTAssertEqual(mixed.problems[999].pointer, "/routes/499/pattern")
        XCTAssertEqual(mixed.problems.last?.reason, "... and 2000 more problems (only the first 1000 are listed)")
    }
}

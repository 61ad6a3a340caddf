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
        // One sample of the class's minimum, not one per allowed byte.
        (found, work) = try overlaps(["app://h/:x<[a-z]{2000}>", "app://h/:y"])
        XCTAssertEqual(found.map(\.example), ["app://h/" + String(repeating: "a", count: 2000)])
        XCTAssertEqual([work.samples, work.sampleBytes], [1, 2000])
        // The fixed values of fitting length come first: "1.5", "a-b" and "a.b" are refused, then "aaa".
        (found, work) = try overlaps(["app://h/:x<[a-z]{3}>", "app://h/:y"])
        XCTAssertEqual(found.map(\.example), ["app://h/aaa"])
        XCTAssertEqual([work.samples, work.sampleBytes], [4, 12])
        // A smaller maxURLLength: a class whose every value is longer is not sampled at all.
        var small = Limits()
        small.maxURLLength = 100
        (found, work) = try overlaps(["app://h/:x<[a-z]{2000}>", "app://h/:y"], limits: small)
        XCTAssertEqual(found, [])
        XCTAssertEqual([work.samples, work.sampleBytes], [0, 0])
    }
}

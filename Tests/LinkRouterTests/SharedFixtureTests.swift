import Foundation
import XCTest
@testable import LinkRouter

/// The same table, the same answers: every URL of Tests/Data/shop-urls.txt against examples/tables/shop.json gives
/// the line of Tests/Data/shop-urls.expected, byte for byte, as C (Tests/C/test_shop_urls.c), Python, Go and Java do.
final class SharedFixtureTests: XCTestCase {
    static let repo = String(#filePath.dropLast("Tests/LinkRouterTests/SharedFixtureTests.swift".count))

    /// The lines of a repository file, without the last "\n"; a missing file fails the test.
    func lines(_ path: String) throws -> [String] {
        let data = try XCTUnwrap(FileManager.default.contents(atPath: Self.repo + path), "test data missing: \(path)")
        var text = try XCTUnwrap(String(data: data, encoding: .utf8), path)
        if text.hasSuffix("\n") { text.removeLast() }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The line for a URL: the match's JSON, "nomatch <url>", or "error <code> <url>".
    func line(_ router: Router, _ url: String) -> String {
        do {
            guard let m = try router.resolve(url) else { return "nomatch \(url)" }
            return m.json
        } catch {
            return "error \(error.code.rawValue) \(url)"
        }
    }

    func testSharedFixtureGivesTheCLines() throws {
        let urls = try lines("Tests/Data/shop-urls.txt").filter { !$0.isEmpty && !$0.hasPrefix("#") }
        let expected = try lines("Tests/Data/shop-urls.expected")
        XCTAssertEqual(urls.count, expected.count)
        XCTAssertGreaterThanOrEqual(urls.count, 20)
        let router = try Router(tableFile: Self.repo + "examples/tables/shop.json")
        for (i, url) in urls.enumerated() where i < expected.count {
            XCTAssertEqual(line(router, url), expected[i], "line \(i + 1): \(url)")
        }
    }
}

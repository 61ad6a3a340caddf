import XCTest
@testable import LinkRouter

/// The static table's tail filter (`TableStore.staticFilter`): a URL is probed only when the bit of its key's
/// length and last eight bytes is set. It may let misses through, never refuse a static route.
final class StaticFilterTests: XCTestCase {
    private static let letters = Array("abcdefghijklmnopqrstuvwxyz")

    private func key(_ n: Int) -> String { String(Self.letters[0 ..< n]) }

    /// Every live static key's bit is set, through growth of the static table (the filter is rebuilt).
    func testEveryStaticKeyHasItsBit() throws {
        var store = TableStore()
        for i in 0 ..< 500 {
            let p = "app://h\(i % 7)/s\(i)" + (i % 3 == 0 ? "/x" : "")
            try store.insert(RouteSpec(p, target: p), Pattern.parse(p))
            if i % 50 == 49 {
                try store.remove(Pattern.parse("app://h\((i - 10) % 7)/s\(i - 10)" + ((i - 10) % 3 == 0 ? "/x" : "")))
            }
        }
        XCTAssertEqual(store.staticFilter.count, 1 << (store.staticBits - 3))
        var live = 0
        for k in 0 ..< (1 << store.staticBits) {
            let s = store.statics[k]
            guard let stored = s.key, s.route >= 0 else { continue }
            live += 1
            let bit = staticFilterBit(tailWord(stored, Int(s.length)), Int(s.length), bits: store.staticBits + 3)
            XCTAssertNotEqual(store.staticFilter[bit >> 6] & (1 << UInt64(bit & 63)), 0, "slot \(k)")
        }
        XCTAssertEqual(live, 490)
    }

    /// Static routes of 1 ... 20 byte hosts and paths found as written; same-length and same-tail misses not.
    func testLengthsAndNearMisses() throws {
        let r = Router()
        for n in 1 ... 20 {
            try r.add("app://\(key(n))", target: "H\(n)")
            try r.add("app://p/\(key(n))", target: "P\(n)")
        }
        for n in 1 ... 20 {
            XCTAssertEqual(try r.resolve("app://\(key(n))")?.target, "H\(n)", "host \(n)")
            XCTAssertEqual(try r.resolve("app://p/\(key(n))")?.target, "P\(n)", "path \(n)")
            XCTAssertEqual(try r.resolve("app://p/\(key(n))?q=1#f")?.target, "P\(n)", "path \(n) with query")
            XCTAssertEqual(try r.resolve("APP://P/\(key(n))")?.target, "P\(n)", "path \(n), upper-case host (the walk)")
            XCTAssertNil(try r.resolve("app://p/\(key(n).dropLast())z"), "path \(n), last byte")
            XCTAssertNil(try r.resolve("app://q/\(key(n))"), "path \(n), same tail and length, other host")
            XCTAssertNil(try r.resolve("app://p/\(key(n))/x"), "path \(n), longer")
        }
        try r.remove("app://p/\(key(9))")
        XCTAssertNil(try r.resolve("app://p/\(key(9))"))
        try r.add("app://p/\(key(9))", target: "again")
        XCTAssertEqual(try r.resolve("app://p/\(key(9))")?.target, "again")
    }
}

import XCTest
@testable import LinkRouter

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A thread's snapshot cache when letting a snapshot go runs code that calls the library again on the same thread
/// (a release function, a deinit of what a handler captured, a `withMatch` body). Found by the concurrency review.
final class CacheReentryTests: XCTestCase {
    /// Resolves on `router` when it is deinitialized: a handler that captures it calls the library from the
    /// release of the snapshot that held the handler.
    final class CallsOnRelease: @unchecked Sendable {
        let router: Router
        init(_ router: Router) { self.router = router }
        deinit { _ = try? router.resolve("app://b/1") }
    }

    /// B56: the store that replaced a thread's snapshot of router A released the old one before writing A's
    /// entry; a release that resolved on a router B the thread had not cached could evict that very slot, so A's
    /// entry ended up naming a snapshot that A's holder no longer kept for the thread (freed under the cached
    /// lookup once another thread changed A). For each number k of routers cached in between (which moves the
    /// victim slot), on a fresh thread: A's holder must keep this thread's snapshot, and lookups must answer.
    func testReleaseThatCallsAnotherRouterKeepsTheCacheConsistent() throws {
        for k in 0...5 {
            final class Outcome: @unchecked Sendable { var holders = -1, target: String?, error: String? }
            let outcome = Outcome()
            let thread = startThread(stackSize: 1 << 20) {
                do {
                    let a = Router(), b = Router()
                    try b.add("app://b/:id", target: "B")
                    try a.add("app://a/:id", target: "A")
                    try a.handle("app://gone/:id", .sync { [keep = CallsOnRelease(b)] _ in _ = keep; return nil })
                    let others = (0..<k).map { _ in Router() }
                    for o in others { try o.add("app://o/:id", target: "O") }
                    _ = try a.resolve("app://a/1")
                    for o in others { _ = try o.resolve("app://o/1") }
                    try a.remove("app://gone/:id")  // the old snapshot, with the handler, stays held by this thread
                    _ = try a.resolve("app://a/1")  // stores the new one; the old one goes, and its release resolves on b
                    outcome.holders = a.snapshotHolder.holders
                    try a.add("app://a2/:id", target: "A2")  // a change: the snapshot cached above is replaced
                    outcome.target = try a.resolve("app://a/2")?.target
                } catch {
                    outcome.error = "\(error)"
                }
            }
            pthread_join(thread, nil)
            XCTAssertNil(outcome.error, "k = \(k)")
            XCTAssertEqual(outcome.holders, 1, "k = \(k): router A's holder keeps this thread's snapshot")
            XCTAssertEqual(outcome.target, "A", "k = \(k)")
        }
    }

    /// B57: a `withMatch` body that calls the router after a change read the view's snapshot after this thread's
    /// cache had let it go. The body now holds it: the table the view reads is alive until the body returns.
    func testWithMatchBodyThatChangesTheRouterKeepsItsView() throws {
        let router = Router()
        try router.add("app://user/:id", target: "UserPage-a-target-long-enough")
        _ = try router.resolve("app://user/0")  // cached
        weak var table: RouteTable?
        var seen: (alive: Bool, target: String, id: String)?
        try router.withMatch("app://user/42") { view in
            table = router.withState { $0.table }
            router.removeAll()
            XCTAssertEqual(router.count, 0)  // a lookup: this thread's cache moves to the new snapshot
            seen = (table != nil, view.target, view["id"] ?? "")
        }
        XCTAssertEqual(seen?.alive, true, "the view's table was freed under the body")
        XCTAssertEqual(seen?.target, "UserPage-a-target-long-enough")
        XCTAssertEqual(seen?.id, "42")
        XCTAssertNil(table, "the old table goes once the body returns")
    }
}

final class UpdateLimitsReentryTests: XCTestCase {
    /// B58: `updateLimits` ran its closure under the writer's lock, so a closure that changed the router waited
    /// for that lock for good (on the old code this test never returns).
    func testClosureMayChangeTheRouter() throws {
        let router = Router()
        var runs = 0
        try router.updateLimits { limits throws(RouterError) in
            runs += 1
            if runs == 1 { try router.add("app://inside/:id", target: "Inside") }  // a route, not a limit: one run
            limits.maxParams = 7
        }
        XCTAssertEqual(runs, 1, "adding a route leaves the limits as they were: one run")
        XCTAssertEqual(router.limits.maxParams, 7)
        XCTAssertEqual(try router.resolve("app://inside/1")?.target, "Inside")
        // A limit changed meanwhile: the closure runs again on the newer limits, and both changes stay.
        runs = 0
        try router.updateLimits { limits throws(RouterError) in
            runs += 1
            if runs == 1 { try router.updateLimits { $0.maxSegments = 9 } }
            limits.maxNestingDepth = 3
        }
        XCTAssertEqual(runs, 2)
        XCTAssertEqual(router.limits.maxSegments, 9)
        XCTAssertEqual(router.limits.maxNestingDepth, 3)
        XCTAssertEqual(router.limits.maxParams, 7)
    }
}

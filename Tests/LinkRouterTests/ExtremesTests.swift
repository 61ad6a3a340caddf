import XCTest
@testable import LinkRouter

#if canImport(Glibc)
import Glibc
#endif

/// Issue 14, "never crash, never hold on", through the Swift API: lengths checked before anything is sized from
/// them, the deepest inputs the limits allow on a 512 KiB stack, and a freed router's memory returned although
/// threads that used it live on. (The C ABI's side is Tests/C/test_extremes.c and Tests/C/test_memory.c.)
final class ExtremesTests: XCTestCase {
    // MARK: Lengths

    /// A span claiming 2^31 ... 2^62 bytes over a 13-byte URL: refused by its length before anything is read,
    /// sized or allocated from it (8 × 2^60 + 256 trapped; 8 × 2^40 aborted on a failed allocation).
    func testHugeLengthsAreRefusedBeforeSizing() throws {
        let router = Router()
        try router.add("app://user/:id", target: "User")
        let url = Array("app://user/42".utf8)
        try url.withUnsafeBufferPointer { buf in
            for count in [1 << 31, 1 << 32, 1 << 40, 1 << 60, 1 << 62, Limits.default.maxURLLength + 1] {
                let span = ByteSpan(start: buf.baseAddress, count: count)
                let rows: [(String, () throws(RouterError) -> Void)] = [
                    ("resolve", { () throws(RouterError) in _ = try router.resolve(bytes: span, extra: []) }),
                    ("canRoute", { () throws(RouterError) in _ = try router.canRoute(bytes: span) }),
                    ("withMatch", { () throws(RouterError) in try router.withMatch(bytes: span) { _ in XCTFail("matched") } }),
                    ("rewrite", { () throws(RouterError) in _ = try router.rewrite(bytes: span) }),
                    ("packed", { () throws(RouterError) in
                        var out = ByteWriter(base: nil, capacity: 0)
                        _ = try router.resolvePacked(span, into: &out)
                    }),
                ]
                for (name, call) in rows {
                    XCTAssertEqual(code(call), .limit, "\(name) with a length of \(count)")
                }
            }
            // The real length still works, through every entry point.
            let span = ByteSpan(start: buf.baseAddress, count: buf.count)
            XCTAssertEqual(try router.resolve(bytes: span, extra: [])?.params["id"], "42")
            var id: String?
            try router.withMatch(bytes: span) { id = $0["id"] }
            XCTAssertEqual(id, "42")
        }
    }

    /// A route's strings and parameters are bounded before the table sees them (its lengths are 32 bits, its
    /// parameter count 16: 65,536 parameters trapped).
    func testStoredLengthsHaveLimits() throws {
        let router = Router()
        var limits = Limits()
        limits.maxSegments = Limits.ranges.first { $0.name == "maxSegments" }!.range.upperBound
        try router.setLimits(limits)
        let many = { (n: Int) in "app://p" + (0..<n).map { "/:p\($0)" }.joined() }
        XCTAssertNil(code { () throws(RouterError) in try router.add(many(Limits.maxRouteParams), target: "Many") })
        XCTAssertEqual(code { () throws(RouterError) in try router.add(many(Limits.maxRouteParams + 1), target: "TooMany") }, .limit)
        let long = String(repeating: "x", count: Limits.maxRouteText + 1)
        let rows: [(String, RouteSpec)] = [
            ("pattern", RouteSpec("app://" + long, target: "T")),
            ("target", RouteSpec("app://t", target: long)),
            ("name", RouteSpec("app://n", target: "T", name: long)),
            ("meta key", RouteSpec("app://m", target: "T", meta: [long: "v"])),
            ("meta value", RouteSpec("app://m", target: "T", meta: ["k": long])),
            ("guard name", RouteSpec("app://g", target: "T", requires: [long])),
        ]
        for (what, spec) in rows {
            XCTAssertEqual(code { () throws(RouterError) in try router.add([spec]) }, .limit, what)
        }
        XCTAssertEqual(router.count, 1)
        // A table file's routes are bounded the same way (found by review: a file's target over the limit loaded).
        let document = "{\"version\": 1, \"routes\": [{\"pattern\": \"app://t\", \"target\": \"\(long)\"}]}"
        XCTAssertThrowsError(try router.load(json: document, mode: .merge)) { error in
            XCTAssertEqual((error as? RouterError)?.problems.map { "\($0.pointer) \($0.code)" }, ["/routes/0 limit"])
        }
        XCTAssertEqual(router.count, 1)
    }

    /// B37: a rewrite rule's match and target are bounded as a route's strings are (they had no cap: a 64 MiB+
    /// target was added, and the template's 32-bit offsets would wrap at 2 GiB). Rows: the rules added (alone or
    /// in bulk) → the code, the message, and the rules left (the one rule added first, its target unchanged).
    func testRewriteLengthsHaveLimits() throws {
        let router = Router()
        try router.addRewrite("^x://", target: "app://x")
        let over = Limits.maxRouteText + 16
        let long = "app://" + String(repeating: "a", count: over - 6)
        let rows: [(what: String, rules: [(match: String, target: String)], message: String)] = [
            ("target", [("^y://", long)], "rewrite rule 0: rewrite target of \(over) bytes is longer than maxRouteText (67108864 bytes)"),
            ("match", [(long, "app://y")], "rewrite rule 0: rewrite match of \(over) bytes is longer than maxRouteText (67108864 bytes)"),
            ("target of a rule in place", [("^x://", long)],
             "rewrite rule 0: rewrite target of \(over) bytes is longer than maxRouteText (67108864 bytes)"),
            ("second of a bulk add", [("^y://", "app://y"), ("^z://", long)],
             "rewrite rule 1: rewrite target of \(over) bytes is longer than maxRouteText (67108864 bytes)"),
        ]
        for row in rows {
            XCTAssertThrowsError(try router.addRewrites(row.rules), row.what) { error in
                XCTAssertEqual((error as? RouterError)?.code, .limit, row.what)
                XCTAssertEqual((error as? RouterError)?.message, row.message, row.what)
            }
            XCTAssertEqual(router.rewriteRules.map { "\($0.match) \($0.target)" }, ["^x:// app://x"], row.what)
        }
        // A table file's rules are bounded the same way: a /rewrites/i problem, code limit, nothing loaded.
        let document = "{\"version\": 1, \"rewrites\": [{\"match\": \"^y://\", \"target\": \"app://y\"}, "
            + "{\"match\": \"^z://\", \"target\": \"\(long)\"}]}"
        XCTAssertThrowsError(try router.load(json: document, mode: .merge)) { error in
            XCTAssertEqual((error as? RouterError)?.problems.map { "\($0.pointer) \($0.code) \($0.reason)" },
                           ["/rewrites/1 limit rewrite target of \(over) bytes is longer than maxRouteText (67108864 bytes)"])
        }
        XCTAssertEqual(router.rewriteRules.map { "\($0.match) \($0.target)" }, ["^x:// app://x"])
    }

    // MARK: Stacks

    /// The deepest searches and nested views the limits allow, on a thread with a 512 KiB stack. The search
    /// took a call per segment, the nested view several per level (with maxNestingDepth up to 65,536).
    func testDeepestInputsOnASmallStack() throws {
        let router = Router()
        var limits = Limits()
        limits.maxSegments = 1 << 20
        limits.maxURLLength = 1 << 30
        limits.maxNestingDepth = Limits.maxNestingCeiling
        try router.setLimits(limits)
        let depth = 100_000  // far beyond what a call per segment fits in 512 KiB; a debug build is slow beyond
        let literal = "deep://h" + String(repeating: "/a", count: depth)
        try router.add(literal + "/end", target: "Deep")
        try router.add("deep://*rest", target: "Rest")
        let nested = "app://user/1?k" + String(repeating: "[x]", count: Limits.maxNestingCeiling) + "=v"
        try router.add("app://user/:id", target: "User")
        let outcome = onSmallStack { () -> [String?] in
            let down = try? router.resolve(literal + "/zzz")  // all the way down, back up to the catch-all
            let view = try? router.withMatch(literal + "/zzz") { $0.target }
            let match = try? router.resolve(nested)
            return [down?.target, view ?? nil, match?.target, (match?.json).map { String($0.prefix(1)) }]
        }
        XCTAssertEqual(outcome, ["Rest", "Rest", "User", "{"])
        limits.maxNestingDepth = Limits.maxNestingCeiling + 1
        XCTAssertEqual(code { () throws(RouterError) in try router.setLimits(limits) }, .misuse)
    }

    // MARK: Memory

    /// A router freed while threads that used it live on: its snapshots go at once. They stayed in each
    /// thread's cache until the thread ended (a thread pool kept a freed table forever).
    func testFreedRouterReleasesEveryThreadsSnapshot() throws {
        weak var table: RouteTable?
        weak var holder: SnapshotHolder?
        let gate = Gate()
        let threads = 4
        var router: Router? = Router()
        try router?.add((0..<1_000).map { RouteSpec("app://t/\($0)/:id", target: "T") })
        table = router?.withState { $0.table }
        holder = router?.snapshotHolder
        final class Shared: @unchecked Sendable { var router: Router? }  // read by the threads before the gate
        let shared = Shared()
        shared.router = router
        let pool = (0..<threads).map { i in
            startThread(stackSize: 512 * 1024) {
                do {
                    let target = (try? shared.router?.resolve("app://t/\(i)/x"))??.target
                    gate.arrive(ok: target == "T")
                }
                gate.waitForRelease()
            }
        }
        gate.waitForArrivals(threads)
        XCTAssertEqual(gate.failures, 0)
        XCTAssertEqual(holder?.holders, threads + 1, "each thread, and this one, holds the snapshot")
        shared.router = nil
        router = nil  // the threads are alive and parked
        XCTAssertNil(table, "the freed router's table is still alive")
        XCTAssertEqual(holder?.holders ?? 0, 0)
        gate.release()
        for t in pool { pthread_join(t, nil) }
    }

    // MARK: Helpers

    /// The code a throwing call fails with, or nil when it succeeds.
    func code(_ body: () throws(RouterError) -> Void) -> RouterError.Code? {
        do {
            try body()
            return nil
        } catch {
            XCTAssertFalse(error.message.isEmpty)
            return error.code
        }
    }
}

/// Runs `body` on a new thread with a 512 KiB stack and returns its result.
func onSmallStack<R>(_ body: @escaping () -> R) -> R {
    let box = ResultBox<R>()
    let t = startThread(stackSize: 512 * 1024) { box.result = body() }
    pthread_join(t, nil)
    return box.result!
}

final class ResultBox<R>: @unchecked Sendable { var result: R? }

/// A pthread with the given stack size running `body`.
func startThread(stackSize: Int, _ body: @escaping () -> Void) -> pthread_t {
    final class Box { let body: () -> Void; init(_ body: @escaping () -> Void) { self.body = body } }
    var attr = pthread_attr_t()
    pthread_attr_init(&attr)
    pthread_attr_setstacksize(&attr, stackSize)
    defer { pthread_attr_destroy(&attr) }
    var t = pthread_t()
    let rc = pthread_create(&t, &attr, { arg in
        guard let arg else { return nil }
        Unmanaged<Box>.fromOpaque(arg).takeRetainedValue().body()
        return nil
    }, Unmanaged.passRetained(Box(body)).toOpaque())
    precondition(rc == 0, "pthread_create failed")
    return t
}

/// Threads arrive, then wait until released (a pthread mutex and condition: visible to TSan).
final class Gate: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var arrived = 0, released = false
    private(set) var failures = 0

    init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    deinit {
        pthread_cond_destroy(&condition)
        pthread_mutex_destroy(&mutex)
    }

    private func locked<R>(_ body: () -> R) -> R {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }

    func arrive(ok: Bool) {
        locked {
            arrived += 1
            if !ok { failures += 1 }
            pthread_cond_broadcast(&condition)
        }
    }

    func waitForArrivals(_ n: Int) {
        locked { while arrived < n { pthread_cond_wait(&condition, &mutex) } }
    }

    func waitForRelease() {
        locked { while !released { pthread_cond_wait(&condition, &mutex) } }
    }

    func release() {
        locked {
            released = true
            pthread_cond_broadcast(&condition)
        }
    }
}

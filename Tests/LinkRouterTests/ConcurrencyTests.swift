import XCTest
@testable import LinkRouter

#if canImport(Glibc)
import Glibc
#endif

/// Runs `count` threads (real pthreads, so they overlap even on two cores) and waits for them.
func runThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    final class Box: @unchecked Sendable {
        let body: @Sendable (Int) -> Void
        let index: Int
        init(_ body: @escaping @Sendable (Int) -> Void, _ index: Int) { self.body = body; self.index = index }
    }
    var threads: [pthread_t] = []
    for i in 0..<count {
        var t = pthread_t()
        let box = Unmanaged.passRetained(Box(body, i)).toOpaque()
        let rc = pthread_create(&t, nil, { arg in
            guard let arg else { return nil }
            let box = Unmanaged<Box>.fromOpaque(arg).takeRetainedValue()
            box.body(box.index)
            return nil
        }, box)
        XCTAssertEqual(rc, 0)
        threads.append(t)
    }
    for t in threads { pthread_join(t, nil) }
}

final class ConcurrencyTests: XCTestCase {
    /// Readers resolve while writers add and remove: stable routes always answer right, churned routes answer
    /// right or not at all (never another route's target), and no registration is lost.
    func testResolveDuringChanges() throws {
        let r = Router()
        for i in 0..<200 { try r.add("app://stable/\(i)/:id", target: "stable\(i)") }
        let failures = Atomic(0)
        let writers = 2, readers = 3, rounds = 300
        runThreads(writers + readers) { t in
            if t < writers {
                for k in 0..<rounds {
                    let p = "app://churn/\(t)/\(k)/:x"
                    do {
                        try r.add(p, target: "churn\(t)-\(k)")
                        if k % 2 == 0 { try r.remove(p) }
                        try r.add("app://kept/\(t)/\(k)", target: "kept\(t)-\(k)")
                    } catch {
                        failures.add()
                    }
                }
            } else {
                for k in 0..<(rounds * 20) {
                    let i = k % 200
                    guard let m = try? r.resolve("app://stable/\(i)/v\(k)"), m.target == "stable\(i)",
                          m.params["id"] == "v\(k)" else {
                        failures.add()
                        continue
                    }
                    let w = k % writers, c = (k / 7) % rounds
                    do {
                        // Present or not, as the writers go; an error is a failure, not "not there".
                        if let m = try r.resolve("app://churn/\(w)/\(c)/y") {
                            if m.target != "churn\(w)-\(c)" || m.params["x"] != "y" { failures.add() }
                        }
                    } catch {
                        failures.add()
                    }
                }
            }
        }
        XCTAssertEqual(failures.value, 0)
        for t in 0..<writers {
            for k in 0..<rounds {
                XCTAssertEqual(try r.resolve("app://kept/\(t)/\(k)")?.target, "kept\(t)-\(k)")
                XCTAssertEqual(try r.resolve("app://churn/\(t)/\(k)/z")?.target, k % 2 == 0 ? nil : "churn\(t)-\(k)")
            }
        }
        XCTAssertEqual(r.count, 200 + writers * rounds + writers * rounds / 2)
    }

    /// A bulk add is seen whole or not at all.
    func testBulkAddIsAtomicForReaders() throws {
        let r = Router()
        let torn = Atomic(0)
        runThreads(3) { t in
            if t == 0 {
                for batch in 0..<100 {
                    let specs = (0..<20).map { RouteSpec("app://b/\(batch)/\($0)", target: "\(batch)") }
                    do { try r.add(specs) } catch { torn.add() }  // never refused: counted if it were
                }
            } else {
                for k in 0..<20_000 {
                    let batch = k % 100
                    do {
                        let first = try r.canRoute("app://b/\(batch)/0")
                        let last = try r.canRoute("app://b/\(batch)/19")
                        if first && !last { torn.add() }  // the first seen without the last: a torn batch
                    } catch {
                        torn.add()  // an error would hide a torn batch: counted as one
                    }
                }
            }
        }
        XCTAssertEqual(torn.value, 0)
        XCTAssertEqual(r.count, 2_000)
    }

    /// Regression (reliability bug B8): limits changed from several threads at once all keep their change
    /// (set_limit read the limits, changed one, and wrote them all back, losing concurrent changes).
    func testConcurrentLimitChangesAreNotLost() throws {
        let r = Router()
        runThreads(2) { t in
            for k in 0..<200 {
                try? r.updateLimits { limits in
                    if t == 0 { limits.maxNestingDepth = 40 + k % 20 } else { limits.regexMatchLimit = 20_000 + k }
                }
            }
        }
        XCTAssertEqual(r.limits.maxNestingDepth, 40 + 199 % 20)
        XCTAssertEqual(r.limits.regexMatchLimit, 20_000 + 199)
    }

    /// Threads that each use two routers alternately (the per-thread snapshot cache must not mix them up).
    func testManyRoutersManyThreads() throws {
        let routers = (0..<6).map { _ in Router() }
        for (i, r) in routers.enumerated() { try r.add("app://x/:id", target: "r\(i)") }
        let wrong = Atomic(0)
        runThreads(4) { t in
            for k in 0..<5_000 {
                let i = (k + t) % routers.count
                if (try? routers[i].resolve("app://x/1"))?.target != "r\(i)" { wrong.add() }
                if k % 500 == 0 {
                    do { try routers[i].add("app://y/\(t)/\(k)", target: "y") } catch { wrong.add() }
                }
            }
        }
        XCTAssertEqual(wrong.value, 0)
    }
}

/// A counter for tests (Synchronization's Atomic cannot be captured by escaping closures directly).
final class Atomic: @unchecked Sendable {
    private var count = 0
    private var lock = pthread_mutex_t()
    init(_ value: Int) { count = value; pthread_mutex_init(&lock, nil) }
    func add() { pthread_mutex_lock(&lock); count += 1; pthread_mutex_unlock(&lock) }
    var value: Int { pthread_mutex_lock(&lock); defer { pthread_mutex_unlock(&lock) }; return count }
}

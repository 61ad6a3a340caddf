import Dispatch
import Foundation
import XCTest
@testable import LinkRouter

/// Opening URLs: handler kinds, replies, guards, deferred opens, executors, logging, re-entrancy.
final class DispatchTests: XCTestCase {
    struct Failure: Error, Equatable { let why: String }

    /// A thread-safe list, for what handlers and logs record.
    final class Log<T: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [T] = []
        func add(_ item: T) { lock.lock(); items.append(item); lock.unlock() }
        var all: [T] { lock.lock(); defer { lock.unlock() }; return items }
    }

    /// The blocking open, from async code (where overload resolution picks the async one).
    static func blockingOpen(_ r: Router, _ url: String) throws -> Opened { try r.open(url) }

    func code(_ body: () throws -> Void) -> RouterError.Code? {
        do { try body() } catch let error as RouterError { return error.code } catch { return nil }
        return nil
    }

    // MARK: Handler kinds

    func testSyncHandlerReturnsItsValue() throws {
        let r = Router()
        try r.handle("protocol://page/routerDetails/:id") { m in "detail \(m.params["id"] ?? "?")" }
        try r.handle("wildcard://*", .sync { _ in nil })  // fire and forget
        XCTAssertEqual(try r.open("protocol://page/routerDetails/7").value as? String, "detail 7")
        let fired = try r.open("wildcard://anything/at/all")
        XCTAssertNil(fired.value)
        XCTAssertFalse(fired.isDeferred)
    }

    func testHandlerSeesParamsExtrasAndContext() throws {
        let r = Router()
        struct Image: Sendable, Equatable { let name: String }
        try r.handle("protocol://page/:id") { m in
            [m.params["id"], m.params["nickname"], m.params["from"], (m["img"] as? Image)?.name,
             m.context as? String, m["id"] as? String]
        }
        let v = try r.open("protocol://page/1?nickname=imlifengfeng&id=9", extra: ["img": Image(name: "router_test_img"), "from": "push"],
                           context: "ctx").value as? [String?]
        XCTAssertEqual(v, ["1", "imlifengfeng", "push", "router_test_img", "ctx", "1"])
    }

    func testCallbackHandlerRepliesLaterFromAnotherThread() throws {
        let r = Router()
        try r.handle("protocol://page/RouterCallbackDetails", .callback { m, reply in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) {
                reply.send("Any Object for \(m.params["nickname"] ?? "")")
            }
        })
        XCTAssertEqual(try r.open("protocol://page/RouterCallbackDetails?nickname=imlifengfeng").value as? String,
                       "Any Object for imlifengfeng")
    }

    func testTaskHandler() async throws {
        let r = Router()
        try r.handle("app://async/:n", .task { m in
            try await Task.sleep(nanoseconds: 1_000_000)
            return Int(m.params["n"] ?? "") ?? -1
        })
        let v = try await r.open("app://async/41").value as? Int
        XCTAssertEqual(v, 41)
        XCTAssertEqual(try Self.blockingOpen(r, "app://async/5").value as? Int, 5)  // blocking open waits for the task too
    }

    func testHandlerErrorsReachTheCallerUnchanged() throws {
        let r = Router()
        try r.handle("app://sync") { _ in throw Failure(why: "sync") }
        try r.handle("app://callback", .callback { _, reply in reply.fail(Failure(why: "callback")) })
        try r.handle("app://task", .task { _ in throw Failure(why: "task") })
        for name in ["sync", "callback", "task"] {
            XCTAssertThrowsError(try r.open("app://\(name)")) { XCTAssertEqual($0 as? Failure, Failure(why: name)) }
        }
        // The router keeps working after a handler failure.
        XCTAssertThrowsError(try r.open("app://sync"))
    }

    // MARK: Replies: exactly once, timeouts

    func testReplyIsCompletedExactlyOnce() throws {
        let r = Router()
        let statuses = Log<Reply.Status>()
        try r.handle("app://twice", .callback { _, reply in
            statuses.add(reply.send(1))
            statuses.add(reply.send(2))
            statuses.add(reply.fail(Failure(why: "late")))
        })
        XCTAssertEqual(try r.open("app://twice").value as? Int, 1)
        XCTAssertEqual(statuses.all, [.delivered, .alreadyReplied, .alreadyReplied])
    }

    func testReplyThatNeverComesTimesOut() throws {
        let r = Router()
        let held = Log<Reply>()
        try r.handle("app://silent", .callback { _, reply in held.add(reply) })
        let log = Log<String>()
        r.setLog(level: .debug) { level, message in log.add("\(level): \(message)") }
        XCTAssertEqual(code { try r.open("app://silent", timeout: .milliseconds(30)) }, .timeout)
        // The late reply is refused and says why.
        XCTAssertEqual(held.all.first?.send("late"), .timedOut)
        // A timeout is logged once, as a warning, not also as a failed handler (it was, at error level).
        XCTAssertEqual(log.all.filter { !$0.hasPrefix("info: ") && !$0.hasPrefix("debug: ") },
                       ["warning: 'app://silent': the handler did not reply within 0.03 seconds"])
    }

    func testDroppedReplyFailsTheOpenAtOnce() throws {
        let r = Router()
        try r.handle("app://drop", .callback { _, _ in })  // the reply is dropped unanswered
        XCTAssertEqual(code { try r.open("app://drop", timeout: .seconds(3600)) }, .handler)
    }

    func testTimeoutDefaultsToTheLimit() throws {
        let r = Router()
        try r.updateLimits { $0.replyTimeoutMilliseconds = 25 }
        let held = Log<Reply>()
        try r.handle("app://silent", .callback { _, reply in held.add(reply) })
        XCTAssertEqual(code { try r.open("app://silent") }, .timeout)
    }

    // MARK: Unmatched, no handler

    func testUnmatchedHandlerGetsTheURL() throws {
        let r = Router()
        XCTAssertEqual(code { try r.open("app://nowhere") }, .notFound)
        r.onUnmatched { u in "unmatched \(u.url) \(u.extra["k"] as? Int ?? 0) \(u.context as? String ?? "")" }
        XCTAssertEqual(try r.open("app://nowhere", extra: ["k": 3], context: "c").value as? String, "unmatched app://nowhere 3 c")
        XCTAssertFalse(try r.canRoute("app://nowhere"))  // can_route never calls it
        r.onUnmatched(nil)
        XCTAssertEqual(code { try r.open("app://nowhere") }, .notFound)
    }

    func testRouteWithoutHandlerAndTargetHandlers() throws {
        let r = Router()
        try r.add("app://user/:id", target: "UserPage")
        try r.add("https://www.example.com/u/:id", target: "UserPage")
        XCTAssertThrowsError(try r.open("app://user/1")) { error in
            XCTAssertEqual((error as? RouterError)?.code, .notFound)
            XCTAssertEqual((error as? RouterError)?.message, "route 'app://user/:id' (target 'UserPage') has no handler")
        }
        r.handle(target: "UserPage", .sync { m in "user \(m.params["id"] ?? "")" })
        XCTAssertEqual(try r.open("app://user/1").value as? String, "user 1")
        XCTAssertEqual(try r.open("https://www.example.com/u/2").value as? String, "user 2")
        // A route's own handler comes before its target's.
        try r.handle("app://user/me", target: "UserPage") { _ in "me" }
        XCTAssertEqual(try r.open("app://user/me").value as? String, "me")
        r.handle(target: "UserPage", nil)
        XCTAssertEqual(code { try r.open("app://user/1") }, .notFound)
    }

    /// Target handlers are found by the target's first eight bytes and length (up to eight bytes: the whole
    /// target) and, beyond, by its hash and bytes: targets of every length from 0 to 20, sharing prefixes, each
    /// reach their own handler, and a target that differs only past its eighth byte or by a NUL is another target.
    func testTargetHandlersByLengthAndPrefix() throws {
        let r = Router()
        let targets = (0...20).flatMap { n in ["", "x"].map { String(repeating: "T", count: n) + $0 } }
            + ["ViewController1", "ViewController2", "ViewControllerA", "T\u{1}", "T\u{1}\u{1}", "é", "éé"]
        for (i, t) in targets.enumerated() {
            try r.add("app://t/\(i)", target: t)
            r.handle(target: t, .sync { _ in t })
        }
        try r.add("app://t/none", target: "ViewController")
        for (i, t) in targets.enumerated() {
            XCTAssertEqual(try r.open("app://t/\(i)").value as? String, t, "target \(t.debugDescription)")
        }
        XCTAssertEqual(code { try r.open("app://t/none") }, .notFound)
        // Removing one leaves the others found.
        r.handle(target: "ViewController2", nil)
        XCTAssertEqual(code { try r.open("app://t/\(targets.firstIndex(of: "ViewController2")!)") }, .notFound)
        XCTAssertEqual(try r.open("app://t/\(targets.firstIndex(of: "ViewController1")!)").value as? String, "ViewController1")
        XCTAssertEqual(try r.open("app://t/\(targets.firstIndex(of: "T\u{1}")!)").value as? String, "T\u{1}")
        // A target with a NUL is refused: C strings (lr_match_target) and table files cannot carry it.
        XCTAssertEqual(code { try r.add("app://t/nul", target: "T\u{0}") }, .invalidURL)
    }

    /// The direct C open (`openPlain`, `lr_router_open`'s path) keeps `decide`'s precedence: a route's own Swift
    /// handler comes before its target's C handler; a route with none gets the C handler, called directly.
    func testDirectOpenKeepsTheRoutesOwnHandlerFirst() throws {
        let r = Router()
        let answer = UnsafeMutableRawPointer(bitPattern: 0x5eed)
        let function: CFunctionHandler.Function = { _, _, _, result, _ in
            result?.pointee = UnsafeMutableRawPointer(bitPattern: 0x5eed)
            return 0
        }
        r.handle(target: "T", .c(CFunctionHandler(function, userData: nil, owner: Log<Int>())))
        try r.add("app://c", target: "T")
        try r.handle("app://swift", target: "T") { _ in "swift" }
        func open(_ url: String) -> (direct: Bool, value: UnsafeMutableRawPointer?, other: OpenResult) {
            Array(url.utf8).withUnsafeBufferPointer { b in
                r.openPlain(ByteSpan(start: b.baseAddress, count: b.count), rawContext: nil, request: { OpenRequest(url) },
                            opened: { (true, $0, OpenResult.unmatched) }, otherwise: { (false, nil, $0) })
            }
        }
        let c = open("app://c")
        XCTAssertTrue(c.direct)
        XCTAssertEqual(c.value, answer)
        let swift = open("app://swift")
        XCTAssertFalse(swift.direct)
        guard case .opened(let opened) = swift.other else { return XCTFail("app://swift: \(swift.other)") }
        XCTAssertEqual(opened.value as? String, "swift")
        guard case .unmatched = open("app://none").other else { return XCTFail("app://none") }
    }

    func testRemovingARouteRemovesItsHandler() throws {
        let r = Router()
        try r.handle("app://a/:x") { _ in "first" }
        try r.remove("app://a/:y")
        try r.add("app://a/:z", target: "A")
        XCTAssertEqual(code { try r.open("app://a/1") }, .notFound)  // the new route has no handler
        try r.handle("app://b") { _ in "b" }
        r.removeAll()
        XCTAssertEqual(code { try r.open("app://b") }, .notFound)
    }

    // MARK: Guards

    func testGuardsRunGlobalFirstThenRequiredInOrder() throws {
        let r = Router()
        let ran = Log<String>()
        for name in ["g1", "g2"] { try r.addGuard(name, global: true) { _ in ran.add(name); return .allow } }
        for name in ["login", "adult", "unused"] { try r.addGuard(name) { _ in ran.add(name); return .allow } }
        try r.handle("app://x", requires: ["adult", "login", "g1"]) { _ in "ok" }
        try r.handle("app://free") { _ in "ok" }
        XCTAssertEqual(try r.open("app://x").value as? String, "ok")
        XCTAssertEqual(ran.all, ["g1", "g2", "adult", "login"])
        XCTAssertEqual(r.guardNames, ["g1", "g2", "adult", "login", "unused"])
        _ = try r.open("app://free")
        XCTAssertEqual(ran.all, ["g1", "g2", "adult", "login", "g1", "g2"])
    }

    /// Registering a guard again replaces it in place (docs/OPENING.md): a global one keeps its turn; one made
    /// global joins the end of the global order; one no longer global leaves it.
    func testAGuardRegisteredAgainKeepsItsPlace() throws {
        let r = Router()
        let ran = Log<String>()
        for name in ["g1", "g2", "g3"] { try r.addGuard(name, global: true) { _ in ran.add(name); return .allow } }
        try r.addGuard("login") { _ in ran.add("login"); return .allow }
        try r.handle("app://x") { _ in "ok" }
        try r.addGuard("g1", global: true) { _ in ran.add("g1 again"); return .allow }
        try r.addGuard("g2") { _ in ran.add("g2 not global"); return .allow }
        try r.addGuard("login", global: true) { _ in ran.add("login global"); return .allow }
        XCTAssertEqual(try r.open("app://x").value as? String, "ok")
        XCTAssertEqual(ran.all, ["g1 again", "g3", "login global"])
    }

    func testDenyStopsTheOpenWithTheGuardsMessage() throws {
        let r = Router()
        let called = Log<String>()
        try r.addGuard("veto", global: true) { m in m.host == "blocked" ? .deny("no blocked pages") : .allow }
        try r.handle("app://*rest") { m in called.add(m.url); return "opened" }
        XCTAssertEqual(try r.open("app://fine").value as? String, "opened")
        XCTAssertThrowsError(try r.open("app://blocked/x")) { error in
            XCTAssertEqual((error as? RouterError)?.code, .denied)
            XCTAssertEqual((error as? RouterError)?.message, "no blocked pages")
        }
        XCTAssertEqual(called.all, ["app://fine"])
    }

    func testARequiredGuardThatIsNotRegisteredDenies() throws {
        let r = Router()
        try r.handle("app://secret", requires: ["login"]) { _ in "secret" }
        XCTAssertEqual(code { try r.open("app://secret") }, .denied)
        try r.addGuard("login") { _ in .allow }
        XCTAssertEqual(try r.open("app://secret").value as? String, "secret")
        try r.removeGuard("login")
        XCTAssertEqual(code { try r.open("app://secret") }, .denied)
        XCTAssertEqual(code { try r.removeGuard("login") }, .notFound)
    }

    // MARK: Deferred opens

    final class Session: @unchecked Sendable {
        private let lock = NSLock()
        private var user: String?
        var loggedIn: Bool { lock.lock(); defer { lock.unlock() }; return user != nil }
        func logIn(_ name: String) { lock.lock(); user = name; lock.unlock() }
        func logOut() { lock.lock(); user = nil; lock.unlock() }
    }

    /// The xksquare doc's login scenario: com.authDynamic links wait while logged out and open after login,
    /// in order, with their extras and context; com.dynamic links open at once.
    func testLoginParksAndReplaysInOrder() throws {
        let r = Router()
        let session = Session()
        let opened = Log<String>()
        try r.addGuard("login") { _ in session.loggedIn ? .allow : .defer }
        let page: @Sendable (Match) throws -> (any Sendable)? = { m in
            let line = "\(m.params["targetclass"] ?? "?") name=\(m.params["name"] ?? "") from=\(m["from"] as? String ?? "") ctx=\(m.context as? Int ?? -1)"
            opened.add(line)
            return line
        }
        try r.handle("xksquare://com.dynamic", page)
        try r.handle("xksquare://com.authDynamic", requires: ["login"], page)

        XCTAssertEqual(try r.open("xksquare://com.dynamic?targetclass=Public&name=%E4%BD%93%E8%B4%B4").value as? String,
                       "Public name=体贴 from= ctx=-1")
        for (i, cls) in ["Orders", "Wallet", "Profile"].enumerated() {
            let o = try r.open("xksquare://com.authDynamic?targetclass=\(cls)", extra: ["from": "push\(i)"], context: i)
            guard case .deferred(let name) = o else { return XCTFail("not deferred: \(o)") }
            XCTAssertEqual(name, "login")
        }
        XCTAssertEqual(r.pending("login").map(\.url), ["xksquare://com.authDynamic?targetclass=Orders",
                                                       "xksquare://com.authDynamic?targetclass=Wallet",
                                                       "xksquare://com.authDynamic?targetclass=Profile"])
        XCTAssertEqual(r.pending("login").map { $0.context as? Int }, [0, 1, 2])
        XCTAssertEqual(opened.all.count, 1)

        session.logIn("lili")
        let replayed = r.resume("login")
        XCTAssertEqual(replayed.map { (try? $0.result.get())?.value as? String }, [
            "Orders name= from=push0 ctx=0", "Wallet name= from=push1 ctx=1", "Profile name= from=push2 ctx=2"])
        XCTAssertEqual(r.pending("login").count, 0)
        XCTAssertEqual(r.resume("login").count, 0)
    }

    func testResumeOfAURLThatNoLongerRoutesGoesToTheUnmatchedHandler() throws {
        let r = Router()
        let allow = Session()
        try r.addGuard("login") { _ in allow.loggedIn ? .allow : .defer }
        try r.handle("app://orders", requires: ["login"]) { _ in "orders" }
        try r.handle("app://wallet", requires: ["login"]) { _ in "wallet" }
        _ = try r.open("app://orders")
        _ = try r.open("app://wallet")
        try r.remove("app://orders")
        r.onUnmatched { u in "unmatched \(u.url)" }
        allow.logIn("x")
        let results = r.resume("login").map { (try? $0.result.get())?.value as? String }
        XCTAssertEqual(results, ["unmatched app://orders", "wallet"])
    }

    func testDeferredAgainIsParkedAgainAndDropPending() throws {
        let r = Router()
        try r.addGuard("login") { _ in .defer }
        try r.handle("app://a", requires: ["login"]) { _ in "a" }
        _ = try r.open("app://a", context: 1)
        let replayed = r.resume("login")
        XCTAssertEqual(replayed.count, 1)
        XCTAssertEqual((try? replayed[0].result.get())?.isDeferred, true)
        XCTAssertEqual(r.pending("login").count, 1)
        let dropped = r.dropPending("login")
        XCTAssertEqual(dropped.map { $0.context as? Int }, [1])
        XCTAssertEqual(r.pending("login").count, 0)
    }

    func testFullQueueRefusesTheNewOpenAndLogsIt() throws {
        let r = Router()
        try r.updateLimits { $0.maxPending = 3 }
        let log = Log<String>()
        r.setLog(level: .warning) { level, message in log.add("\(level): \(message)") }
        try r.addGuard("login") { _ in .defer }
        try r.handle("app://p/:n", requires: ["login"]) { _ in nil }
        for n in 0..<3 { XCTAssertTrue(try r.open("app://p/\(n)").isDeferred) }
        XCTAssertEqual(code { try r.open("app://p/3") }, .limit)
        XCTAssertEqual(r.pending("login").map(\.url), ["app://p/0", "app://p/1", "app://p/2"])  // nothing lost
        XCTAssertEqual(log.all.count, 1)
        XCTAssertEqual(log.all, ["warning: the queue of guard 'login' is full (3 opens, limit maxPending, LR_LIMIT_PENDING): "
                                 + "'app://p/3' was not parked"])
    }

    func testReplayDeferredAgainIsParkedAgainPastALoweredLimit() throws {
        // Found by the limits review: with maxPending lowered below the queue, the second replay deferred again
        // was refused as a full queue and lost, where "nothing already parked is lost".
        let r = Router()
        try r.updateLimits { $0.maxPending = 2 }
        try r.addGuard("login") { _ in .defer }
        try r.handle("app://x/:n", requires: ["login"]) { _ in nil }
        for n in 1...2 { XCTAssertTrue(try r.open("app://x/\(n)").isDeferred) }
        try r.updateLimits { $0.maxPending = 1 }
        XCTAssertEqual(code { try r.open("app://x/3") }, .limit)  // a new open is refused by the lowered limit
        let replayed = r.resume("login")
        XCTAssertEqual(replayed.map { (try? $0.result.get())?.isDeferred }, [true, true])
        XCTAssertEqual(r.pending("login").map(\.url), ["app://x/1", "app://x/2"])
    }

    // MARK: Executors

    struct RecordingExecutor: Executor {
        let queue: DispatchQueue
        let label: String
        func execute(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }
    }

    func testHandlerRunsOnTheChosenExecutor() throws {
        let r = Router()
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "mediator")
        queue.setSpecific(key: key, value: "mediator")
        try r.handle("mediator://OneViewController/pushToModule/:param") { m in
            "\(DispatchQueue.getSpecific(key: key) ?? "caller") \(m.params["param"] ?? "")"
        }
        XCTAssertEqual(try r.open("mediator://OneViewController/pushToModule/1", on: queue).value as? String, "mediator 1")
        XCTAssertEqual(try r.open("mediator://OneViewController/pushToModule/2").value as? String, "caller 2")
        // An error thrown on the executor comes back too.
        try r.handle("mediator://Missing/pushToModule/:p") { _ in throw Failure(why: "missing") }
        XCTAssertThrowsError(try r.open("mediator://Missing/pushToModule/1", on: queue)) {
            XCTAssertEqual($0 as? Failure, Failure(why: "missing"))
        }
    }

    /// An executor that keeps its work until `runHeld` (URLMediator's busy serial queue).
    final class HoldingExecutor: Executor, @unchecked Sendable {
        private let lock = NSLock()
        private var held: [@Sendable () -> Void] = []
        func execute(_ work: @escaping @Sendable () -> Void) { lock.lock(); held.append(work); lock.unlock() }
        func runHeld() {
            lock.lock()
            let work = held
            held = []
            lock.unlock()
            work.forEach { $0() }
        }
    }

    /// An open that timed out before its handler started never runs it: no handler acts on an open its caller
    /// was told failed. The work still runs once (the executor's contract), and does nothing.
    func testHandlerNotStartedWhenTheOpenTimedOutIsNotRun() throws {
        let r = Router()
        let ran = Log<String>()
        try r.handle("mediator://Two/pushToModule/:param") { m in ran.add(m.params["param"] ?? ""); return "pushed" }
        r.onUnmatched { u in ran.add("unmatched \(u.url)"); return nil }
        let executor = HoldingExecutor()
        XCTAssertEqual(code { try r.open("mediator://Two/pushToModule/1", on: executor, timeout: .milliseconds(20)) }, .timeout)
        XCTAssertEqual(code { try r.open("mediator://None", on: executor, timeout: .milliseconds(20)) }, .timeout)
        executor.runHeld()
        XCTAssertEqual(ran.all, [])
        // Not timed out: the held work runs the handler.
        let done = DispatchSemaphore(value: 0)
        r.open(OpenRequest("mediator://Two/pushToModule/2", executor: executor, timeout: .seconds(3600))) { result in
            XCTAssertEqual((try? result.get())?.value as? String, "pushed")
            done.signal()
        }
        executor.runHeld()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(ran.all, ["2"])
    }

    func testNonBlockingOpenCompletesOnce() throws {
        let r = Router()
        try r.handle("app://x/:n") { m in m.params["n"] }
        // A semaphore, not XCTest's expectation: wait(for:) leaks a weak reference of its own under LSan.
        let done = DispatchSemaphore(value: 0)
        let calls = Locked(0)
        r.open(OpenRequest("app://x/5", executor: DispatchQueue.global())) { result in
            XCTAssertEqual((try? result.get())?.value as? String, "5")
            calls.withLock { $0 += 1 }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(calls.withLock { $0 }, 1)
    }

    // MARK: Re-entrancy

    func testHandlersAndGuardsMayCallBackIntoTheRouter() throws {
        let r = Router()
        let allow = Session()
        // The closures capture the router unowned: the router keeps them, so a strong capture would be a cycle.
        try r.addGuard("login") { [unowned r] m in
            // A guard that reads the router while deciding.
            _ = try? r.canRoute(m.url)
            return allow.loggedIn ? .allow : .defer
        }
        try r.handle("app://outer/:n") { [unowned r] m in
            // Open another URL, add a route and resume a queue, all from inside a handler.
            let inner = try r.open("app://inner").value as? String ?? ""
            try r.handle("app://added/\(m.params["n"] ?? "")") { _ in "added" }
            allow.logIn("u")
            let resumed = r.resume("login").compactMap { (try? $0.result.get())?.value as? String }
            return "\(inner) \(resumed)"
        }
        try r.handle("app://inner") { _ in "inner" }
        try r.handle("app://late", requires: ["login"]) { _ in "late" }
        XCTAssertTrue(try r.open("app://late").isDeferred)
        XCTAssertEqual(try r.open("app://outer/1").value as? String, "inner [\"late\"]")
        XCTAssertEqual(try r.open("app://added/1").value as? String, "added")
    }

    // MARK: Logging

    func testLoggingSaysWhatHappenedAndIsOffByDefault() throws {
        let r = Router()
        let log = Log<String>()
        try r.addRewrite("^https://old.example.com/(\\d+)$", target: "app://item/$1")
        try r.handle("app://item/:id", requires: ["login"]) { _ in nil }
        let session = Session()
        try r.addGuard("login") { _ in session.loggedIn ? .allow : .defer }
        _ = try r.open("https://old.example.com/1")  // off: nothing recorded
        _ = r.dropPending("login")
        r.setLog(level: .info) { level, message in log.add(message) }
        _ = try r.open("https://old.example.com/2")
        session.logIn("u")
        _ = r.resume("login")
        XCTAssertEqual(log.all, [
            "rewrote https://old.example.com/2 to app://item/2",
            "matched https://old.example.com/2 to app://item/:id (target app://item/:id)",
            "guard login: defer https://old.example.com/2",
            "parked https://old.example.com/2 in login (1 of 64)",
            "resume login: replaying 1 parked open(s)",
            "replay https://old.example.com/2 from login",
            "rewrote https://old.example.com/2 to app://item/2",
            "matched https://old.example.com/2 to app://item/:id (target app://item/:id)",
            "guard login: allow https://old.example.com/2",
        ])
        r.setLog(level: .off, nil)
        _ = try r.open("https://old.example.com/3")
        XCTAssertEqual(log.all.count, 9)
    }

    // MARK: Concurrency

    /// Opens from several threads while guards flip, routes come and go, and queues are resumed: every open
    /// ends in one of the outcomes its URL allows, and nothing crashes (TSan runs this too).
    func testOpensFromManyThreadsWhileGuardsFlipAndRoutesChange() throws {
        let r = Router()
        let session = Session()
        try r.addGuard("login") { _ in session.loggedIn ? .allow : .defer }
        try r.handle("app://free/:n") { m in m.params["n"] }
        try r.handle("app://auth/:n", requires: ["login"]) { m in m.params["n"] }
        try r.updateLimits { $0.maxPending = 1 << 20 }
        let bad = Log<String>()
        let threads = 4, rounds = 400
        DispatchQueue.concurrentPerform(iterations: threads + 2) { t in
            if t == threads {  // flips the guard and resumes
                for i in 0..<rounds {
                    if i % 2 == 0 { session.logIn("u") } else { session.logOut() }
                    for replay in r.resume("login") where (try? replay.result.get()) == nil {
                        bad.add("replay failed: \(replay.parked.url)")
                    }
                }
                return
            }
            if t == threads + 1 {  // churns routes
                for i in 0..<rounds {
                    try? r.handle("app://churn/\(i)") { _ in "churn" }
                    if i > 0 { try? r.remove("app://churn/\(i - 1)") }
                }
                return
            }
            for i in 0..<rounds {
                do {
                    let free = try r.open("app://free/\(i)")
                    if free.value as? String != "\(i)" { bad.add("free \(i): \(free)") }
                    let auth = try r.open("app://auth/\(i)", context: i)
                    if !auth.isDeferred && auth.value as? String != "\(i)" { bad.add("auth \(i): \(auth)") }
                } catch {
                    bad.add("\(t) \(i): \(error)")
                }
            }
        }
        XCTAssertEqual(bad.all, [])
        session.logIn("u")
        r.resume("login")
        XCTAssertEqual(r.pending("login").count, 0)
    }
}

// examples/ffrouter/swift/main.swift -- FFRouter's README walk-through, step by step, on LinkRouter's Swift API.
//
// The same scenario as ../c/main.c, printing the same lines: the three kinds of handler (fire and forget, one
// that returns an object, one that answers later through a callback), `:id` and `*` routes, extra parameters
// of any type, canRoute, the unregistered-URL handler, logging on and off, rewrite rules one by one and in
// bulk, and unregistering one route or all. Every outcome is checked: a wrong one prints what differed and
// exits with status 1.
//
// Run from the repository root:  swift run -c release seed-ffrouter
import Dispatch
import LinkRouter
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: Checks

func fail(_ text: String, line: Int) -> Never {
    let message = "main.swift:\(line): \(text)\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(1)
}

func expect<T: Equatable>(_ what: String, _ got: T, _ want: T, line: Int = #line) {
    if got != want { fail("\(what): got '\(got)', want '\(want)'", line: line) }
}

/// Runs `body`, which must throw a RouterError with `code`.
@discardableResult
func expectError(_ what: String, _ code: RouterError.Code, line: Int = #line, _ body: () throws -> Void) -> RouterError {
    do {
        try body()
    } catch let error as RouterError {
        expect(what, error.code, code, line: line)
        return error
    } catch {
        fail("\(what): unexpected error \(error)", line: line)
    }
    fail("\(what): no error, want \(code)", line: line)
}

/// Runs `body`; any error ends the program (with the line that failed).
func must<T>(_ line: Int = #line, _ body: () throws -> T) -> T {
    do {
        return try body()
    } catch {
        fail("unexpected error: \(error)", line: line)
    }
}

// MARK: The app: a navigation stack, and the objects its handlers make

/// UIImage's stand-in: an object that is not a string, handed to a handler with the open.
struct Image: Sendable {
    let name: String
    let width: Int
    let height: Int
}

struct Screen: Sendable, Equatable {
    /// The class name, then what the handler was given.
    let description: String
    /// The full URL the handler saw (FFRouter's FFRouterParameterURLKey).
    let url: String
}

/// What the object handler returns (FFRouter's routeObjectURL:).
struct ObjectDetails: Sendable {
    let nickname: String
}

/// The screens handlers pushed; handlers may run on any thread, hence the lock.
final class Navigation: Sendable {
    private let stack = Mutex<[Screen]>([])

    func push(_ screen: Screen) { stack.withLock { $0.append(screen) } }
    var depth: Int { stack.withLock { $0.count } }
    var top: Screen? { stack.withLock { $0.last } }
}

/// A value one thread sets and another reads.
final class Box<T: Sendable>: Sendable {
    private let value: Mutex<T>
    init(_ value: T) { self.value = Mutex(value) }
    func set(_ v: T) { value.withLock { $0 = v } }
    func get() -> T { value.withLock { $0 } }
    func update(_ change: (inout T) -> Void) { value.withLock { change(&$0) } }
}

struct RewriteCase {
    let url: String
    /// nil: no rule matches, and nothing routes the URL.
    let rewritten: String?
    /// The screen opening it pushes.
    let screen: String?
}

// MARK: The walk-through, in the README's order

struct Walkthrough {
    let router = Router()
    let navigation = Navigation()
    let logLines = Box(0)
    static let levelNames = ["off", "error", "warning", "info", "debug"]
    static let amazonSearch = "(?:https://)?www.amazon.com/search/(.*)"

    /// Fire and forget (FFRouter's registerRouteURL:handler:): pushes a screen of `className` showing the
    /// parameters it got, and returns nothing.
    func showScreen(_ className: String) -> Handler {
        .sync { [navigation] match in
            var description = className
            for p in match.params { description += " \(p.name)=\(p.value)" }
            if let img = match.extra["img"] as? Image { description += " img=\(img.name)(\(img.width)x\(img.height))" }
            navigation.push(Screen(description: description, url: match.url))
            print("  pushed \(description)")
            return nil
        }
    }

    /// Opens `url` with a fire-and-forget handler (or the unregistered-URL one): the open returns nothing, and
    /// the screen it pushed is `want` and saw the full URL.
    func routeURL(_ url: String, extra: [String: any Sendable] = [:], _ want: String, line: Int = #line) {
        let depth = navigation.depth
        let opened = must(line) { try router.open(url, extra: extra) }
        expect("a fire-and-forget open's result is nil", opened.value == nil, true, line: line)
        expect("screens pushed", navigation.depth, depth + 1, line: line)
        expect("the screen pushed", navigation.top, Screen(description: want, url: url), line: line)
    }

    func expectCanRoute(_ url: String, _ want: Bool, line: Int = #line) {
        let can = must(line) { try router.canRoute(url) }
        print("can route \(url): \(can ? "yes" : "no")")
        expect("can route", can, want, line: line)
    }

    func rewriteAndOpen(_ c: RewriteCase, line: Int = #line) {
        let out = must(line) { try router.rewrite(c.url) }
        print("rewrite \(c.url)")
        guard let rewritten = c.rewritten else {
            expect("rewrite", out, nil, line: line)
            let can = must(line) { try router.canRoute(c.url) }
            print("  no rule matches; can route: \(can ? "yes" : "no")")
            expect("can route an URL no rule rewrites", can, false, line: line)
            return
        }
        print("  = \(out ?? "(none)")")
        expect("rewritten URL", out, rewritten, line: line)
        print("open \(c.url)")
        routeURL(c.url, c.screen ?? "", line: line)
    }

    func addRule(_ match: String, _ target: String) {
        must { try router.addRewrite(match, target: target) }
        print("add rule \(match) -> \(target)")
    }

    func registerURLs() {
        print("== Register URLs with the three kinds of handler")
        let fireAndForget = [
            ("protocol://page/routerDetails/:id", "RouterDetailsViewController"),
            ("protocol://page/routerDetails", "RouterDetailsViewController"),
            ("wildcard://*", "WildcardViewController"),
        ]
        for (pattern, screenClass) in fireAndForget {
            must { try router.handle(pattern, showScreen(screenClass)) }
            print("fire and forget:   \(pattern)")
        }
        must {
            try router.handle("protocol://page/routerObjectDetails", .sync { match in
                ObjectDetails(nickname: match.params["nickname"] ?? "")
            })
        }
        print("returns an object: protocol://page/routerObjectDetails")
        must {
            try router.handle("protocol://page/RouterCallbackDetails", .callback { match, reply in
                let nickname = match.params["nickname"] ?? ""
                print("  handler: the answer comes later, from a worker thread")
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) {
                    reply.send("Any Object for \(nickname)")
                }
            })
        }
        print("async callback:    protocol://page/RouterCallbackDetails")

        // A pattern matching exactly the URLs of a registered one is refused, and the message names that one.
        let conflict = expectError("registering a duplicate", .conflict) {
            try router.handle("protocol://page/routerDetails/:productId", showScreen("Duplicate"))
        }
        print("register protocol://page/routerDetails/:productId: \(conflict.message)")
        print("routes: \(router.count)")
        expect("routes", router.count, 5)
    }

    func routeFireAndForget() {
        print("\n== routeURL: a fire-and-forget handler pushes a screen; the open returns nothing")
        let cases = [
            ("protocol://page/routerDetails/666?nickname=imlifengfeng",
             "RouterDetailsViewController id=666 nickname=imlifengfeng"),
            // Plain parameters can simply be spliced into the URL.
            ("protocol://page/routerDetails?nickname=imlifengfeng&id=666",
             "RouterDetailsViewController nickname=imlifengfeng id=666"),
            // A path parameter outranks a query parameter of the same name.
            ("protocol://page/routerDetails/7?id=1", "RouterDetailsViewController id=7"),
            ("wildcard://any/thing?at=all", "WildcardViewController *=any/thing at=all"),
        ]
        for (url, screen) in cases {
            print("open \(url)")
            routeURL(url, screen)
        }
    }

    func routeObject() {
        print("\n== routeObjectURL: the handler returns an object")
        let url = "protocol://page/routerObjectDetails?nickname=imlifengfeng"
        print("open \(url)")
        let opened = must { try router.open(url) }
        guard let object = opened.value as? ObjectDetails else { fail("no ObjectDetails came back: \(opened)", line: #line) }
        print("  returned ObjectDetails nickname=\(object.nickname)")
        expect("the object's nickname", object.nickname, "imlifengfeng")
    }

    func routeCallback() {
        print("\n== routeCallbackURL: the handler answers later, through a callback")
        let url = "protocol://page/RouterCallbackDetails?nickname=imlifengfeng"
        print("open \(url)")
        let done = DispatchSemaphore(value: 0)
        let got = Box<String?>(nil)
        // FFRouter's targetCallback: called once, from the thread that has the outcome.
        router.open(OpenRequest(url)) { result in
            if case .success(let opened) = result, let object = opened.value as? String {
                print("  targetCallback got: \(object)")
                got.set(object)
            }
            done.signal()
        }
        done.wait()
        expect("the callback's object", got.get(), "Any Object for imlifengfeng")
    }

    func routeWithObjects() {
        print("\n== routeURL withParameters: extra parameters, one of them not a string")
        let url = "protocol://page/routerDetails?nickname=imlifengfeng"
        print("open \(url) with source=push img=<image router_test_img 120x80>")
        routeURL(url, extra: ["source": "push", "img": Image(name: "router_test_img", width: 120, height: 80)],
                 "RouterDetailsViewController nickname=imlifengfeng source=push img=router_test_img(120x80)")
    }

    func canRoute() {
        print("\n== canRouteURL")
        for (url, can) in [("protocol://page/routerDetails/1", true), ("protocol://page/routerDetails/1/more", false),
                           ("wildcard://whatever/you/like", true), ("protocol://page/unknown", false)] {
            expectCanRoute(url, can)
        }
    }

    func unregistered() {
        print("\n== An unregistered URL")
        let url = "protocol://page/unknown?from=test"
        expectError("opening an unregistered URL", .notFound) { try router.open(url) }
        print("open \(url): no route, and no handler for unregistered URLs yet")
        // FFRouter's routeUnregisterURLHandler:: every URL no route matches lands here.
        router.onUnmatched { [navigation] request in
            let description = "UnregisteredURLViewController url=\(request.url)"
            navigation.push(Screen(description: description, url: request.url))
            print("  pushed \(description)")
            return nil
        }
        print("set the handler for unregistered URLs")
        print("open \(url)")
        routeURL(url, "UnregisteredURLViewController url=protocol://page/unknown?from=test")
    }

    func logging() {
        print("\n== Logging on, then off")
        router.setLog(level: .info) { [logLines] level, message in
            logLines.update { $0 += 1 }
            print("  log \(Walkthrough.levelNames[level.rawValue]): \(message)")
        }
        print("log on (info)")
        logLines.set(0)
        print("open protocol://page/routerDetails/8")
        routeURL("protocol://page/routerDetails/8", "RouterDetailsViewController id=8")
        let whileOn = logLines.get()
        router.setLog(level: .off, nil)
        print("log off")
        logLines.set(0)
        print("open protocol://page/routerDetails/9")
        routeURL("protocol://page/routerDetails/9", "RouterDetailsViewController id=9")
        print("log lines: \(whileOn) while on, \(logLines.get()) while off")
        expect("log lines while on", whileOn, 1)
        expect("log lines while off", logLines.get(), 0)
    }

    func rewriteOne() {
        print("\n== URL rewrite: one rule, $1 is the first group")
        addRule(Walkthrough.amazonSearch, "protocol://page/routerDetails?product=$1")
        rewriteAndOpen(RewriteCase(url: "https://www.amazon.com/search/Atomic_bomb",
                                   rewritten: "protocol://page/routerDetails?product=Atomic_bomb",
                                   screen: "RouterDetailsViewController product=Atomic_bomb"))
    }

    func rewriteBulk() {
        print("\n== URL rewrite: rules in bulk; (\\d+) takes digits, $$1 encodes, $#1 decodes, $host and $query")
        // All or none: FFRouter's addRewriteRules:.
        let rules = [
            (match: "(?:https://)?www.amazon.com/dp/(\\d+)", target: "protocol://page/routerDetails/$1"),
            (match: "(?:https://)?www.taobao.com/search/(.*)", target: "protocol://page/routerDetails?product=$$1"),
            (match: "(?:https://)?www.jd.com/search/(.*)", target: "protocol://page/routerDetails?product=$#1"),
            (match: "(?:https://)?m.taobao.com/item", target: "protocol://page/routerDetails?$query&from=$host"),
        ]
        must { try router.addRewrites(rules) }
        for rule in rules { print("add rule \(rule.match) -> \(rule.target)") }

        let cases = [
            RewriteCase(url: "https://www.amazon.com/dp/42", rewritten: "protocol://page/routerDetails/42",
                        screen: "RouterDetailsViewController id=42"),
            RewriteCase(url: "https://www.amazon.com/dp/B00X", rewritten: nil, screen: nil),
            RewriteCase(url: "https://www.taobao.com/search/原子弹",
                        rewritten: "protocol://page/routerDetails?product=%E5%8E%9F%E5%AD%90%E5%BC%B9",
                        screen: "RouterDetailsViewController product=原子弹"),
            RewriteCase(url: "https://www.jd.com/search/%e5%8e%9f%e5%ad%90%e5%bc%b9",
                        rewritten: "protocol://page/routerDetails?product=原子弹",
                        screen: "RouterDetailsViewController product=原子弹"),
            RewriteCase(url: "https://m.taobao.com/item?nickname=imlifengfeng",
                        rewritten: "protocol://page/routerDetails?nickname=imlifengfeng&from=m.taobao.com",
                        screen: "RouterDetailsViewController nickname=imlifengfeng from=m.taobao.com"),
        ]
        for c in cases { rewriteAndOpen(c) }
    }

    func removeRules() {
        print("\n== Remove one rewrite rule, then all")
        must { try router.removeRewrite(Walkthrough.amazonSearch) }
        print("remove rule \(Walkthrough.amazonSearch)")
        rewriteAndOpen(RewriteCase(url: "https://www.amazon.com/search/Atomic_bomb", rewritten: nil, screen: nil))
        rewriteAndOpen(RewriteCase(url: "https://www.taobao.com/search/原子弹",
                                   rewritten: "protocol://page/routerDetails?product=%E5%8E%9F%E5%AD%90%E5%BC%B9",
                                   screen: "RouterDetailsViewController product=原子弹"))
        let again = expectError("removing a removed rule", .notFound) { try router.removeRewrite(Walkthrough.amazonSearch) }
        print("remove rule \(Walkthrough.amazonSearch) again: \(again.code.text)")

        router.removeAllRewrites()
        print("remove all rules")
        rewriteAndOpen(RewriteCase(url: "https://www.taobao.com/search/原子弹", rewritten: nil, screen: nil))
    }

    func unregister() {
        print("\n== Unregister one URL, then all")
        must { try router.remove("wildcard://*") }
        print("unregister wildcard://*")
        expectCanRoute("wildcard://any/thing", false)
        print("open wildcard://any/thing")
        routeURL("wildcard://any/thing", "UnregisteredURLViewController url=wildcard://any/thing")
        let again = expectError("unregistering a removed route", .notFound) { try router.remove("wildcard://*") }
        print("unregister wildcard://* again: \(again.code.text)")

        router.removeAll()
        print("unregister all")
        print("routes: \(router.count)")
        expect("routes", router.count, 0)
        expectCanRoute("protocol://page/routerDetails/1", false)
        print("open protocol://page/routerObjectDetails")
        routeURL("protocol://page/routerObjectDetails", "UnregisteredURLViewController url=protocol://page/routerObjectDetails")
    }

    func run() {
        print("FFRouter's README, step by step, on LinkRouter\n")
        registerURLs()
        routeFireAndForget()
        routeObject()
        routeCallback()
        routeWithObjects()
        canRoute()
        unregistered()
        logging()
        rewriteOne()
        rewriteBulk()
        removeRules()
        unregister()
        print("\nnavigation stack: \(navigation.depth) screens; every outcome as expected")
    }
}

Walkthrough().run()

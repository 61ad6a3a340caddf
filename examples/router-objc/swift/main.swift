// Router-objc (seed 001), served by LinkRouter from Swift.
//
// Router-objc opens `scheme://className/methodName?key=value` links through a connector registered per scheme:
// the native connector calls the action `methodName` of the target `Target_<className>` and returns the object it
// builds (`app://user/detail?uid=1&name=Lili` gives a User); the HTTP connector opens http and https URLs in a
// web controller. Each connector may refuse a URL first (`willPerformURL`), and every failure comes back to the
// caller as an error. Here a connector registers its routes (target = the connector's name, handler = its
// perform) and its willPerformURL as a guard those routes require.
//
// Run from the repository root: swift run seed-router-objc [demo]   (`demo`: target-action only)
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LinkRouter

func fail(_ message: String) -> Never {
    print("FAILED: \(message)")
    exit(1)
}

func expect<T: Equatable>(_ got: T, _ want: T) {
    if got != want { fail("expected \(want), got \(got)") }
}

/// What a connector's performURL reports (Router-objc's NSError): reaches the caller of open unchanged.
struct RouteError: Error, CustomStringConvertible {
    let description: String
}

// MARK: The objects targets build

protocol Described: Sendable {
    var summary: String { get }
}

struct User: Described, Equatable {
    let uid: Int
    let name: String
    var summary: String { "User(uid=\(uid), name=\(name))" }
}

struct Product: Described, Equatable {
    let id: Int
    var summary: String { "Product(id=\(id))" }
}

struct WebController: Described, Equatable {
    let url: String
    var summary: String { "WebController(url=\(url))" }
}

struct Performed: Described, Equatable {
    let connector: String
    let url: String
    var summary: String { "\(connector) performed \(url)" }
}

/// The same strict integer as the C and Python programs: an optional "-", then ASCII digits only.
func integerParam(_ match: Match, _ key: String, action: String) throws -> Int {
    let raw = match.params[key] ?? ""
    let digits = raw.hasPrefix("-") ? raw.dropFirst() : raw[...]
    guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(raw) else {
        throw RouteError(description: "\(action): \(key) '\(raw)' is not an integer")
    }
    return value
}

// MARK: Targets: Target_<className>, one function per action

typealias Action = @Sendable (Match) throws -> any Described

let targets: [String: [String: Action]] = [
    "Target_user": [
        // app://user/detail?uid=x&name=xxx
        "detail": { match in
            User(uid: try integerParam(match, "uid", action: "Target_user.detail"), name: match.params["name"] ?? "")
        },
        // app://user/userCenter
        "userCenter": { _ in User(uid: 0, name: "") },
    ],
    "Target_product": [
        "show": { match in Product(id: try integerParam(match, "id", action: "Target_product.show")) },
    ],
]

// MARK: Connectors

/// Router-objc's URLConnector: `willPerform` may refuse a URL (a reason) or let it through (nil); `perform`
/// opens it. `paths` are the route patterns it takes after `scheme://`.
protocol URLConnector: Sendable {
    var name: String { get }
    var paths: [String] { get }
    func willPerform(_ match: Match) -> String?
    func perform(_ match: Match) throws -> any Described
}

extension URLConnector {
    var paths: [String] { ["*"] }
    func willPerform(_ match: Match) -> String? { nil }
}

struct NativeConnector: URLConnector {
    let name = "NativeConnector"
    let paths = [":target/:action", ":target"]

    func perform(_ match: Match) throws -> any Described {
        let targetClass = "Target_" + (match.params["target"] ?? "")
        guard let actions = targets[targetClass] else {
            throw RouteError(description: "no target class '\(targetClass)'")
        }
        guard let actionName = match.params["action"] else {
            throw RouteError(description: "\(match.url) names no action (scheme://className/methodName)")
        }
        guard let action = actions[actionName] else {
            throw RouteError(description: "\(targetClass) has no action '\(actionName)'")
        }
        return try action(match)
    }
}

struct HTTPConnector: URLConnector {
    let name = "HTTPConnector"
    let webControllerClass: @Sendable (String) -> any Described
    let blockedHosts: [String]

    func willPerform(_ match: Match) -> String? {
        blockedHosts.contains(match.host) ? "HTTPConnector refused \(match.url): host \(match.host) is blocked" : nil
    }

    func perform(_ match: Match) throws -> any Described { webControllerClass(match.url) }
}

/// A connector of the app's own, as the seed's README shows: it takes every test:// URL.
struct TestConnector: URLConnector {
    let name = "TestConnector"

    func perform(_ match: Match) throws -> any Described { Performed(connector: name, url: match.url) }
}

/// Router-objc's Router: connectors by scheme, and openURL:error:.
final class ConnectorRouter: Sendable {
    let router = Router()

    init() {
        router.onUnmatched { request throws -> (any Sendable)? in
            throw RouteError(description: "no connector takes \(request.url)")
        }
    }

    /// The connector's routes for `scheme`, each requiring its willPerformURL guard, with its perform as handler.
    func register(_ connector: any URLConnector, forScheme scheme: String) throws {
        let guardName = connector.name + ".willPerformURL"
        try router.addGuard(guardName) { match in connector.willPerform(match).map { .deny($0) } ?? .allow }
        for path in connector.paths {
            try router.handle("\(scheme)://\(path)", target: connector.name, requires: [guardName],
                              .sync { match in try connector.perform(match) })
        }
    }

    /// The object the URL opens and no error, or nil and the error (Router-objc's openURL:error:).
    func openURL(_ url: String) -> (object: (any Described)?, error: String?) {
        do {
            let opened = try router.open(url)
            guard let object = opened.value as? any Described else { return (nil, "unexpected \(opened)") }
            return (object, nil)
        } catch let error as RouteError {
            return (nil, "error: \(error)")
        } catch let error as RouterError where error.code == .denied {
            return (nil, "refused: \(error.message)")
        } catch {
            return (nil, "unexpected error: \(error)")
        }
    }
}

// MARK: The scenarios

func makeRouter() throws -> ConnectorRouter {
    let router = ConnectorRouter()
    let http = HTTPConnector(webControllerClass: { WebController(url: $0) }, blockedHosts: ["ads.example.net"])
    try router.register(http, forScheme: "http")
    try router.register(http, forScheme: "https")
    try router.register(NativeConnector(), forScheme: "app")
    try router.register(TestConnector(), forScheme: "test")
    return router
}

@discardableResult
func openAndCheck(_ router: ConnectorRouter, _ url: String, _ want: String) -> (any Described)? {
    print("open \(url)")
    let (object, error) = router.openURL(url)
    let got = error ?? object?.summary ?? "nothing"
    print("  \(got)")
    expect(got, want)
    return object
}

func targetAction(_ router: ConnectorRouter) {
    print("== app://<className>/<methodName>?params calls the target's action and returns its object")
    let user = openAndCheck(router, "app://user/detail?uid=1&name=Lili", "User(uid=1, name=Lili)")
    expect(user as? User, User(uid: 1, name: "Lili"))  // a typed object, uid an integer
    for (url, want) in [
        ("app://user/detail?name=Lili&uid=2", "User(uid=2, name=Lili)"),
        ("app://user/userCenter", "User(uid=0, name=)"),
        ("app://product/show?id=7", "Product(id=7)"),
    ] {
        openAndCheck(router, url, want)
    }
}

func webPages(_ router: ConnectorRouter) {
    print("== http and https URLs go to the web controller, with the URL")
    for url in ["https://www.example.com/p/7?from=mail", "http://m.example.com/news"] {
        let page = openAndCheck(router, url, "WebController(url=\(url))")
        expect(page as? WebController, WebController(url: url))
    }
}

func customConnector(_ router: ConnectorRouter) {
    print("== a connector of the app's own, registered for test://")
    openAndCheck(router, "test://echo?word=hi", "TestConnector performed test://echo?word=hi")
}

let refused: [(url: String, want: String)] = [
    ("https://ads.example.net/landing",
     "refused: HTTPConnector refused https://ads.example.net/landing: host ads.example.net is blocked"),
    // The host as the routes compare it: percent-encoding or case does not get past the veto.
    ("https://%61ds.Example.net/landing",
     "refused: HTTPConnector refused https://%61ds.Example.net/landing: host ads.example.net is blocked"),
    ("app://order/detail?id=1", "error: no target class 'Target_order'"),
    ("app://user/delete?uid=1", "error: Target_user has no action 'delete'"),
    ("app://user", "error: app://user names no action (scheme://className/methodName)"),
    ("app://user/detail?uid=x&name=Lili", "error: Target_user.detail: uid 'x' is not an integer"),
    ("ftp://files.example.com/a.txt", "error: no connector takes ftp://files.example.com/a.txt"),
]

func errors(_ router: ConnectorRouter) {
    print("== a veto or a failure comes back to the caller as an error")
    for (url, want) in refused where openAndCheck(router, url, want) != nil {
        fail("\(url) opened")
    }
}

do {
    let router = try makeRouter()
    targetAction(router)
    if CommandLine.arguments.dropFirst() != ["demo"] {
        webPages(router)
        customConnector(router)
        errors(router)
        print("router-objc: all checks passed")
    }
} catch {
    fail("\(error)")
}

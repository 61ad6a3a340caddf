// xksquare's deep links (seed 000), opened through LinkRouter from Swift.
//
// The xksquare app routes `xksquare://<host>?targetclass=<screen>&...`: `com.dynamic` links open at once,
// `com.authDynamic` links need a logged-in user (parked while logged out, replayed after login), and
// `RAdapter=Model_RAdapter` turns bracket parameters (`info[nickname]=...&name[bb]=123`) into a `Decodable`
// struct (ParamsDecoder.swift). The routes are examples/xksquare/routes.json; the code here is the app: its
// screens, its navigation stack, the `login` guard and the adapters.
//
// Run from the repository root: swift run seed-xksquare [demo]   (`demo`: the login scenario only)
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LinkRouter

let routesFile = "examples/xksquare/routes.json"
let webPage = "examples/xksquare/open-app.html"
let giftLink = "xksquare://com.dynamic?targetclass=RouterTestViewController&name=%E4%BD%93%E8%B4%B4&num=2"
let giftScreen = "RouterTestViewController(name=体贴, num=2)"
let modelLink = "xksquare://model.dynamic?RAdapter=Model_RAdapter&targetclass=XKTestJumpViewController"
    + "&info[nickname]=%E4%BD%93%E8%B4%B4&name[bb]=123&num=2"

func fail(_ message: String) -> Never {
    print("FAILED: \(message)")
    exit(1)
}

func expect<T: Equatable>(_ got: T, _ want: T) {
    if got != want { fail("expected \(want), got \(got)") }
}

/// A link the app cannot open: the message reaches the caller of open unchanged.
struct JumpError: Error, CustomStringConvertible {
    let description: String
}

// MARK: The typed model (the seed's RAdapter)

struct JumpModel: Decodable, Equatable, Sendable {
    struct Info: Decodable, Equatable, Sendable { let nickname: String }
    struct Name: Decodable, Equatable, Sendable { let bb: Int }
    let info: Info
    let name: Name
    let num: Int

    var summary: String { "info.nickname=\(info.nickname), name.bb=\(name.bb), num=\(num)" }
}

/// Adapters by the name a link gives in `RAdapter`: each builds its model from the nested parameters.
let adapters: [String: @Sendable (ParamValue) throws -> any Sendable] = [
    "Model_RAdapter": { try ParamsDecoder(name: "Model_RAdapter").decode(JumpModel.self, from: $0) },
]

// MARK: The app: session, screens, navigation stack

// Opens run guards and handlers on the calling thread (no executor is given), and this program opens from its
// main thread only, so the app's mutable state is never shared between threads.
final class Session: @unchecked Sendable {
    var user: String?
}

struct Screen: Sendable {
    let className: String
    let summary: String
    var line: String { "pushed \(className)(\(summary))" }
}

/// The parent view controller a link is opened from: screens are pushed onto it.
final class NavigationStack: @unchecked Sendable {
    var screens: [Screen] = []
    var description: String { screens.map(\.className).joined(separator: " > ") }
}

/// What the unmatched handler gives back: an xksquare link that is not a dynamic jump.
struct OtherRoute: Sendable {}

func integerParam(_ match: Match, _ key: String, screen: String) throws -> Int {
    let raw = match.params[key] ?? ""
    let digits = raw.hasPrefix("-") ? raw.dropFirst() : raw[...]
    guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(raw) else {
        throw JumpError(description: "\(screen): \(key) '\(raw)' is not an integer")
    }
    return value
}

typealias ScreenFactory = @Sendable (Match, JumpModel?, Session) throws -> Screen

let screens: [String: ScreenFactory] = [
    "RouterTestViewController": { match, _, _ in
        let num = try integerParam(match, "num", screen: "RouterTestViewController")
        return Screen(className: "RouterTestViewController", summary: "name=\(match.params["name"] ?? ""), num=\(num)")
    },
    "MyOrdersViewController": { match, _, session in
        // Only reachable through com.authDynamic, so a user is logged in by the time it is built.
        Screen(className: "MyOrdersViewController",
               summary: "user=\(session.user ?? "nobody"), tab=\(match.params["tab"] ?? "all")")
    },
    "XKTestJumpViewController": { _, model, _ in
        guard let model else { throw JumpError(description: "XKTestJumpViewController needs a model (RAdapter)") }
        return Screen(className: "XKTestJumpViewController", summary: model.summary)
    },
]

final class App: @unchecked Sendable {
    let session = Session()
    let nav = NavigationStack()
    let router: Router

    init() throws {
        router = try Router(tableFile: routesFile)
        router.handle(target: "DynamicJump", .sync { [unowned self] match in try self.dynamicJump(match) })
        try router.addGuard("login") { [unowned self] _ in self.session.user != nil ? .allow : .defer }
        router.onUnmatched { _ in OtherRoute() }
    }

    /// The handler of every dynamic link: targetclass picks the screen; RAdapter, when given, builds its model;
    /// the screen is pushed onto the stack the link was opened from (the open's context).
    func dynamicJump(_ match: Match) throws -> Screen {
        guard let className = match.params["targetclass"], !className.isEmpty else {
            throw JumpError(description: "the link names no targetclass")
        }
        guard let make = screens[className] else { throw JumpError(description: "no screen class '\(className)'") }
        var model: JumpModel?
        if let adapterName = match.params["RAdapter"] {
            guard let adapt = adapters[adapterName] else { throw JumpError(description: "no adapter '\(adapterName)'") }
            model = try adapt(match.nestedParams) as? JumpModel
        }
        let screen = try make(match, model, session)
        (match.context as? NavigationStack)?.screens.append(screen)
        return screen
    }

    /// Opens a link from anywhere (in the app, a push message, a web page) and says what came of it.
    func openLink(_ url: String) -> String {
        do {
            switch try router.open(url, context: nav) {
            case .deferred(let guardName):
                return "parked until \(guardName) (\(router.pending(guardName).count) waiting)"
            case .value(let value as Screen):
                return value.line
            case .value(is OtherRoute):
                return "not a dynamic jump: left to the app's other routes"
            case .value(let value):
                return "unexpected value \(String(describing: value))"
            }
        } catch let error as JumpError {
            return "error: \(error)"
        } catch let error as AdapterError {
            return "error: \(error)"
        } catch {
            return "unexpected error: \(error)"
        }
    }

    func openAndCheck(_ url: String, _ want: String) {
        print("open \(url)")
        let got = openLink(url)
        print("  \(got)")
        expect(got, want)
    }

    func checkStack(_ want: String) {
        print("  stack: \(nav.description)")
        expect(nav.description, want)
    }
}

// MARK: The scenarios

func loginFree(_ app: App) {
    print("== a login-free link opens the screen its targetclass names, with decoded parameters")
    app.openAndCheck(giftLink, "pushed " + giftScreen)
    app.checkStack("RouterTestViewController")
}

func parkedThenReplayed(_ app: App) {
    print("== logged out: login-required links are parked")
    // The router's own log (info: matches, guard verdicts, parking, replays) shows the core doing the parking.
    app.router.setLog(level: .info) { _, message in print("  [log] \(message)") }
    let before = app.nav.description
    app.openAndCheck("xksquare://com.authDynamic?targetclass=MyOrdersViewController&tab=unpaid",
                     "parked until login (1 waiting)")
    app.openAndCheck("xksquare://com.authDynamic?targetclass=RouterTestViewController&name=%E8%AE%A2%E5%8D%95&num=7",
                     "parked until login (2 waiting)")
    expect(app.nav.description, before)  // nothing opened while logged out

    print("== login as lili: the parked links open, in the order they came")
    app.session.user = "lili"
    let replayed = app.router.resume("login")
    print("resume login replayed \(replayed.count) parked links:")
    var got: [String] = []
    for replay in replayed {
        print("  \(replay.parked.url)")
        let line: String
        switch replay.result {
        case .success(.value(let screen as Screen)): line = screen.line
        case let other: line = "unexpected \(other)"
        }
        print("    \(line)")
        got.append(line)
    }
    app.router.setLog(level: .off, nil)
    expect(got, ["pushed MyOrdersViewController(user=lili, tab=unpaid)",
                 "pushed RouterTestViewController(name=订单, num=7)"])
    expect(app.router.pending("login").count, 0)
    print("  waiting now: 0")
    let opened = ["MyOrdersViewController", "RouterTestViewController"]
    app.checkStack(((before.isEmpty ? [] : [before]) + opened).joined(separator: " > "))
}

func loggedIn(_ app: App) {
    print("== logged in: a login-required link opens at once")
    app.openAndCheck("xksquare://com.authDynamic?targetclass=MyOrdersViewController",
                     "pushed MyOrdersViewController(user=lili, tab=all)")
}

func typedModel(_ app: App) throws {
    print("== RAdapter=Model_RAdapter: bracket parameters become a typed model")
    app.openAndCheck(modelLink, "pushed XKTestJumpViewController(info.nickname=体贴, name.bb=123, num=2)")
    guard let match = try app.router.resolve(modelLink) else { fail("no match for \(modelLink)") }
    let model = try ParamsDecoder(name: "Model_RAdapter").decode(JumpModel.self, from: match.nestedParams)
    expect(model, JumpModel(info: .init(nickname: "体贴"), name: .init(bb: 123), num: 2))
    print("  model: JumpModel(info: Info(nickname: \(model.info.nickname)), name: Name(bb: \(model.name.bb)),"
        + " num: \(model.num))")
}

/// The decoder's other readings, checked without printing (JumpModel needs none of them): a `[]` list, a list
/// of groups, Bool, Double, an optional left out, and the message of each kind of failure.
func adapterChecks() throws {
    struct Friend: Decodable, Equatable { let id: Int }
    struct Profile: Decodable, Equatable {
        let tags: [String]
        let friends: [Friend]
        let vip: Bool
        let score: Double
        let note: String?
    }
    let router = Router()
    try router.add("app://profile", target: "Profile")
    let decoder = ParamsDecoder(name: "Profile_RAdapter")
    func profile(_ query: String) throws -> Profile {
        guard let match = try router.resolve("app://profile?" + query) else { fail("no match for \(query)") }
        return try decoder.decode(Profile.self, from: match.nestedParams)
    }
    expect(try profile("tags[]=a&tags[]=b&friends[][id]=1&friends[][id]=2&vip=true&score=2.5"),
           Profile(tags: ["a", "b"], friends: [Friend(id: 1), Friend(id: 2)], vip: true, score: 2.5, note: nil))
    let failures = [
        ("tags=a&friends[][id]=1&vip=true&score=1", "Profile_RAdapter: tags is not a list"),
        ("tags[]=a&friends[][id]=x&vip=true&score=1", "Profile_RAdapter: friends.0.id: 'x' is not an integer"),
        ("tags[]=a&friends[][id]=1&vip=maybe&score=1", "Profile_RAdapter: vip: 'maybe' is not true or false"),
        ("tags[]=a&friends[][id]=1&vip=true&score=high", "Profile_RAdapter: score: 'high' is not a number"),
        ("tags[]=a&friends[][id]=1&vip=true", "Profile_RAdapter: score is missing"),
        ("tags[]=a&friends[][id]=1&vip[x]=1&score=1", "Profile_RAdapter: vip is not a single value"),
    ]
    for (query, want) in failures {
        do {
            _ = try profile(query)
            fail("\(query) decoded")
        } catch let error as AdapterError {
            expect(error.description, want)
        }
    }
}

/// The file's whole text (without Foundation).
func readText(_ path: String) -> String? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count == 0 { break }
        bytes += buffer[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

func pushAndWeb(_ app: App) {
    print("== a push message and a web page carry the same URL: the same screen")
    let push = (title: "体贴 sent you a gift", router: giftLink)  // the server puts the route in one field
    print("push \"\(push.title)\" carries \(push.router)")
    let fromPush = app.openLink(push.router)
    print("  \(fromPush)")
    guard let html = readText(webPage) else { fail("cannot read \(webPage)") }
    let marker = "window.location.href = \""
    guard let start = html.firstRange(of: marker)?.upperBound, let end = html[start...].firstIndex(of: "\"") else {
        fail("no link in \(webPage)")
    }
    let link = String(html[start..<end])
    print("web page \(webPage) links to \(link)")
    let fromWeb = app.openLink(link)
    print("  \(fromWeb)")
    expect([fromPush, fromWeb], ["pushed " + giftScreen, "pushed " + giftScreen])
    print("  both opened \(giftScreen), as the in-app link did")
}

let errorCases: [(url: String, want: String)] = [
    ("xksquare://com.dynamic?targetclass=NoSuchViewController", "error: no screen class 'NoSuchViewController'"),
    ("xksquare://com.dynamic?name=x", "error: the link names no targetclass"),
    ("xksquare://com.dynamic?targetclass=XKTestJumpViewController",
     "error: XKTestJumpViewController needs a model (RAdapter)"),
    ("xksquare://model.dynamic?RAdapter=Other_RAdapter&targetclass=XKTestJumpViewController",
     "error: no adapter 'Other_RAdapter'"),
    ("xksquare://model.dynamic?RAdapter=Model_RAdapter&targetclass=XKTestJumpViewController"
        + "&info[age]=3&name[bb]=1&num=2",
     "error: Model_RAdapter: info.nickname is missing"),
    ("xksquare://model.dynamic?RAdapter=Model_RAdapter&targetclass=XKTestJumpViewController"
        + "&info[nickname]=x&name[bb]=abc&num=2", "error: Model_RAdapter: name.bb: 'abc' is not an integer"),
    ("xksquare://com.other?x=1", "not a dynamic jump: left to the app's other routes"),
]

func errors(_ app: App) {
    print("== links the app cannot open: the caller gets the reason")
    let before = app.nav.description
    for (url, want) in errorCases { app.openAndCheck(url, want) }
    expect(app.nav.description, before)  // a failed jump pushes nothing
}

do {
    let app = try App()
    if CommandLine.arguments.dropFirst() == ["demo"] {
        parkedThenReplayed(app)
    } else {
        loginFree(app)
        parkedThenReplayed(app)
        loggedIn(app)
        try typedModel(app)
        try adapterChecks()
        pushAndWeb(app)
        errors(app)
        print("xksquare: all checks passed")
    }
} catch {
    fail("\(error)")
}

// DCURLRouter (seed 002), in Swift: a route table file maps dariel:// URLs to screens, and each route's meta says
// how the screen is shown (push, replace, present, pop-N, dismiss-N). Parameters come from the URL or from a
// dictionary the caller passes, and the dictionary wins; http and https URLs open the web screen with the URL.
// The Window below is the host app's model of UIKit: a stack of presented layers, each a navigation stack.
//
// Run from the repository root: swift run seed-dcurlrouter [demo]
import LinkRouter

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let table = "examples/dcurlrouter/routes.json"

/// A view controller: what DCURLRouter's UIViewController category gives every screen.
struct Screen: Sendable {
    let className: String
    var params: [String: String] = [:]
    var originURL = ""
    var path = ""

    var sees: String {
        let pairs = params.keys.sorted().map { "\($0)=\(params[$0]!)" }.joined(separator: ", ")
        return "params {\(pairs)}, originUrl \(originURL), path \"\(path)\""
    }
}

/// One presented layer: a navigation stack, or a screen presented without one (it cannot push).
struct Layer {
    var screens: [Screen]
    let navigable: Bool
}

/// A transition the window cannot make (DCURLRouter asserts; the caller gets this instead).
struct NavigationError: Error, CustomStringConvertible {
    let description: String
}

/// The app's window: layers[0] is the root navigation stack, each present adds a layer on top.
/// Unchecked Sendable: it is the open's context, and every open here runs its handler on the main thread.
final class Window: @unchecked Sendable {
    var layers = [Layer(screens: [Screen(className: "HomeViewController")], navigable: true)]
    var lastAction = ""

    var current: Screen { layers[layers.count - 1].screens.last! }

    var described: String {
        layers.map { "\($0.navigable ? "nav" : "modal")(\($0.screens.map(\.className).joined(separator: " > ")))" }
            .joined(separator: " / ")
    }
}

/// The screen classes linked into the app. FiveViewController is in the table but not here: opening it fails.
let screenClasses = ["OneViewController", "TwoViewController", "ThreeViewController", "FourViewController",
                     "WebViewController"]

/// The screen a match opens: the params (the library's merge: caller dictionary > path > query), the original
/// URL and its path. The web screen gets only the URL, as DCURLRouter's web controller does.
func makeScreen(_ className: String, _ match: Match) -> Screen {
    let params = className == "WebViewController" ? ["urlStr": match.url] : match.params.dictionary
    return Screen(className: className, params: params, originURL: match.url, path: match.path)
}

/// The handler of one screen class: makes the screen and shows it as the route's meta "transition" says.
func openScreen(_ className: String) -> Handler {
    .sync { match in
        let window = match.context as! Window
        let screen = makeScreen(className, match)
        let top = window.layers.count - 1
        switch match.meta["transition"] {
        case "present":
            let navigable = match.meta["navigation"] == "yes"
            window.layers.append(Layer(screens: [screen], navigable: navigable))
            window.lastAction = "present \(className)\(navigable ? " in a navigation stack" : "")"
        case let transition? where transition == "push" || transition == "replace":
            guard window.layers[top].navigable else {
                throw NavigationError(description: "cannot push \(className): \(window.current.className) was presented without a navigation stack")
            }
            // DCURLRouter's replace: a screen of the same class on top is swapped for the new one; else a push.
            if transition == "replace" && window.current.className == className {
                window.layers[top].screens[window.layers[top].screens.count - 1] = screen
                window.lastAction = "replace \(className) with \(className)"
            } else {
                window.layers[top].screens.append(screen)
                window.lastAction = "push \(className)"
            }
        default:
            throw NavigationError(description: "route \(match.pattern) has no known transition")
        }
        return window.current
    }
}

/// A positive count of screens ("2"); 0 when it is not one.
func parseTimes(_ text: String?) -> Int {
    guard let text, !text.isEmpty, text.count <= 4, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return 0 }
    return Int(text) ?? 0
}

/// The handler of the Navigator routes: pop-N and dismiss-N (or to the root), as the meta says.
let navigateBack = Handler.sync { match in
    let window = match.context as! Window
    let toRoot = match.meta["to"] == "root"
    let asked = match.params["times"] ?? "to the root"
    switch match.meta["transition"] {
    case "pop":
        let top = window.layers.count - 1
        let count = window.layers[top].screens.count
        let times = toRoot ? count - 1 : parseTimes(match.params["times"])
        guard times > 0 && times < count else {  // DCURLRouter asserts here; a refusal is kinder
            throw NavigationError(description: "cannot pop \(asked): the top navigation stack holds \(count) screen(s)")
        }
        window.layers[top].screens.removeLast(times)
        window.lastAction = "pop \(times), current \(window.current.className)"
    case "dismiss":
        let times = toRoot ? window.layers.count - 1 : parseTimes(match.params["times"])
        guard times > 0 && times < window.layers.count else {
            throw NavigationError(description: "cannot dismiss \(asked): \(window.layers.count - 1) layer(s) presented")
        }
        window.layers.removeLast(times)
        window.lastAction = "dismiss \(times), current \(window.current.className)"
    default:
        throw NavigationError(description: "route \(match.pattern) has no known transition")
    }
    return window.current
}

/// One open and what must come of it. `sees` is nil for navigation back and for refusals.
struct Step {
    let url: String
    let extra: [(String, String)]
    let outcome: String
    let sees: String?
    let window: String
}

let root = "nav(HomeViewController > TwoViewController > OneViewController)"
let steps = [
    // The headline (make demo): the URL's userid loses to the caller's dictionary; its name stays.
    Step(url: "dariel://twoitem?name=dariel&userid=213213", extra: [("userName", "Hello"), ("userid", "32342")],
         outcome: "push TwoViewController",
         sees: "params {name=dariel, userName=Hello, userid=32342}, originUrl dariel://twoitem?name=dariel&userid=213213, path \"\"",
         window: "nav(HomeViewController > TwoViewController)"),
    Step(url: "dariel://oneitem?name=dariel", extra: [], outcome: "push OneViewController",
         sees: "params {name=dariel}, originUrl dariel://oneitem?name=dariel, path \"\"", window: root),
    Step(url: "dariel://oneitem", extra: [("userName", "Hello")], outcome: "replace OneViewController with OneViewController",
         sees: "params {userName=Hello}, originUrl dariel://oneitem, path \"\"", window: root),
    Step(url: "dariel://threeitem?userid=213213", extra: [], outcome: "present ThreeViewController",
         sees: "params {userid=213213}, originUrl dariel://threeitem?userid=213213, path \"\"",
         window: root + " / modal(ThreeViewController)"),
    Step(url: "dariel://twoitem", extra: [],
         outcome: "refused: cannot push TwoViewController: ThreeViewController was presented without a navigation stack",
         sees: nil, window: root + " / modal(ThreeViewController)"),
    Step(url: "dariel://fouritem", extra: [], outcome: "present FourViewController in a navigation stack",
         sees: "params {}, originUrl dariel://fouritem, path \"\"",
         window: root + " / modal(ThreeViewController) / nav(FourViewController)"),
    Step(url: "https://github.com/DarielChen/DCURLRouter?tab=readme", extra: [], outcome: "push WebViewController",
         sees: "params {urlStr=https://github.com/DarielChen/DCURLRouter?tab=readme}, originUrl https://github.com/DarielChen/DCURLRouter?tab=readme, path \"/DarielChen/DCURLRouter\"",
         window: root + " / modal(ThreeViewController) / nav(FourViewController > WebViewController)"),
    Step(url: "http://example.com", extra: [], outcome: "push WebViewController",
         sees: "params {urlStr=http://example.com}, originUrl http://example.com, path \"\"",
         window: root + " / modal(ThreeViewController) / nav(FourViewController > WebViewController > WebViewController)"),
    Step(url: "dariel://pop/2", extra: [], outcome: "pop 2, current FourViewController", sees: nil,
         window: root + " / modal(ThreeViewController) / nav(FourViewController)"),
    Step(url: "dariel://pop/3", extra: [], outcome: "refused: cannot pop 3: the top navigation stack holds 1 screen(s)",
         sees: nil, window: root + " / modal(ThreeViewController) / nav(FourViewController)"),
    Step(url: "dariel://dismiss/2", extra: [], outcome: "dismiss 2, current OneViewController", sees: nil, window: root),
    Step(url: "dariel://dismiss/1", extra: [], outcome: "refused: cannot dismiss 1: 0 layer(s) presented", sees: nil,
         window: root),
    Step(url: "dariel://pop/root", extra: [], outcome: "pop 2, current HomeViewController", sees: nil,
         window: "nav(HomeViewController)"),
    Step(url: "dariel://fiveitem", extra: [],
         outcome: "refused: route 'dariel://fiveitem' (target 'FiveViewController') has no handler", sees: nil,
         window: "nav(HomeViewController)"),
    Step(url: "dariel://sixitem", extra: [],
         outcome: "refused: no route for dariel://sixitem: add it to the route table, or check its scheme", sees: nil,
         window: "nav(HomeViewController)"),
    // Two layers presented again, then dismissed to the root in one open.
    Step(url: "dariel://threeitem?userid=1", extra: [], outcome: "present ThreeViewController",
         sees: "params {userid=1}, originUrl dariel://threeitem?userid=1, path \"\"",
         window: "nav(HomeViewController) / modal(ThreeViewController)"),
    Step(url: "dariel://fouritem", extra: [], outcome: "present FourViewController in a navigation stack",
         sees: "params {}, originUrl dariel://fouritem, path \"\"",
         window: "nav(HomeViewController) / modal(ThreeViewController) / nav(FourViewController)"),
    Step(url: "dariel://dismiss/root", extra: [], outcome: "dismiss 2, current HomeViewController", sees: nil,
         window: "nav(HomeViewController)"),
]

var failures = 0

/// Writes a line to standard error (fd 2: the C `stderr` global is not concurrency-safe in Swift 6).
func printError(_ text: String) {
    let bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

// Top-level state lives on the main actor, where this program runs.
@MainActor
func expect(_ what: String, _ got: String, _ want: String) {
    if got != want {
        printError("MISMATCH \(what):\n  got  \(got)\n  want \(want)")
        failures += 1
    }
}

@MainActor
func run(_ step: Step, on router: Router, in window: Window) {
    let withExtra = step.extra.isEmpty ? "" : " with {" + step.extra.map { "\($0.0)=\($0.1)" }.joined(separator: ", ") + "}"
    print("open \(step.url)\(withExtra)")
    var screen: Screen?
    let outcome: String
    do {
        let extra = Dictionary(uniqueKeysWithValues: step.extra.map { ($0.0, $0.1 as any Sendable) })
        screen = try router.open(step.url, extra: extra, context: window).value as? Screen
        outcome = window.lastAction
    } catch let error as NavigationError {
        outcome = "refused: \(error.description)"
    } catch let error as RouterError {
        outcome = "refused: \(error.message)"
    } catch {
        outcome = "unexpected error: \(error)"
    }
    print("  \(outcome)")
    expect(step.url, outcome, step.outcome)
    if let want = step.sees {
        let sees = screen?.sees ?? "(no screen)"
        if screen != nil { print("  sees \(sees)") }
        expect("what the screen sees", sees, want)
    }
    print("  window: \(window.described)")
    expect("the window", window.described, step.window)
}

let demo = CommandLine.arguments.dropFirst() == ["demo"]
do {
    let router = try Router(tableFile: table)
    print("DCURLRouter: \(router.count) routes from \(table)")
    // The table names classes; the code gives each class that exists its handler.
    for className in screenClasses {
        router.handle(target: className, openScreen(className))
    }
    router.handle(target: "Navigator", navigateBack)
    router.onUnmatched { unmatched in
        throw NavigationError(description: "no route for \(unmatched.url): add it to the route table, or check its scheme")
    }

    let window = Window()
    let chosen = demo ? Array(steps.prefix(1)) : steps
    for step in chosen {
        run(step, on: router, in: window)
    }
    if failures > 0 {
        printError("\(failures) mismatch(es)")
        exit(1)
    }
    print("ok: \(chosen.count) opens as expected")
} catch {
    printError("error: \(error)")
    exit(1)
}

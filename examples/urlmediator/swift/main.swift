// URLMediator (seed 003), in Swift: a table file maps module ids ("999") to view controller classes; a module is
// opened by id with a parameter, as the URL scheme://Class/method/param, and the class's method runs on the queue
// the caller chooses (none: the caller's own thread). A module id, class or method that does not exist is an error
// the caller gets back; nothing crashes.
//
// The queues are Dispatch queues standing in for the main queue ("ui") and a background queue; a DispatchQueue is
// a LinkRouter Executor as it is.
//
// Run from the repository root: swift run seed-urlmediator [demo]
import Dispatch
import LinkRouter
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let table = "examples/urlmediator/modules.json"

/// Which queue a thread is running for: what a handler reports it ran on.
struct QueueName: @unchecked Sendable {
    // SAFETY: the key is never mutated after creation; getSpecific may be called from any thread.
    let key = DispatchSpecificKey<String>()

    func queue(_ label: String, concurrent: Bool = false) -> DispatchQueue {
        let queue = DispatchQueue(label: label, attributes: concurrent ? [.concurrent] : [])
        queue.setSpecific(key: key, value: label)
        return queue
    }
}

/// URLMediator's pushToViewController: one stack, pushed to from whichever queue a module runs on.
final class Navigation: Sendable {
    private let views = Mutex<[String]>([])

    func push(_ view: String) { views.withLock { $0.append(view) } }
    var described: String { views.withLock { $0.joined(separator: " > ") } }
}

/// One call of a module, as the open's context: where the stack is, who called, what the method did and where.
final class ModuleCall: Sendable {
    let navigation: Navigation
    let caller = pthread_self()
    let report = Mutex<(ranOn: String, did: String)>(("", ""))

    init(_ navigation: Navigation) { self.navigation = navigation }
}

/// The class has no such class method (URLMediator's class_getClassMethod returning NULL).
struct MissingMethod: Error, CustomStringConvertible {
    let description: String
}

/// No route in the table answers the URL.
struct NoModule: Error, CustomStringConvertible {
    let description: String
}

/// +pushToModule: makes the view controller with the parameter (nil: none, pushToModuleID: alone) and pushes it.
func pushToModule(_ className: String, _ param: String?, _ call: ModuleCall) {
    let shown = param ?? "nil"
    call.navigation.push("\(className)(\(shown))")
    call.report.withLock { $0.did = "\(className).pushToModule(\(shown))" }
}

/// The classes linked into the app and the class methods they answer. GhostViewController is in the table, not here.
let moduleClasses: [String: [String: @Sendable (String, String?, ModuleCall) -> Void]] = [
    "OneViewController": ["pushToModule": pushToModule],
    "TwoViewController": ["pushToModule": pushToModule],
]

/// The handler of one module class: finds the method the URL names and calls it with the parameter, on whatever
/// queue the library runs it. A method the class does not have is an error.
func callModule(_ className: String, _ methods: [String: @Sendable (String, String?, ModuleCall) -> Void],
                _ queueName: QueueName) -> Handler {
    .sync { match in
        let call = match.context as! ModuleCall
        let ranOn = DispatchQueue.getSpecific(key: queueName.key)
            ?? (pthread_equal(pthread_self(), call.caller) != 0 ? "caller" : "an unnamed thread")
        call.report.withLock { $0.ranOn = ranOn }
        guard let name = match.params["method"] else {  // a route of another shape
            throw MissingMethod(description: "\(className) needs a URL of the form scheme://\(className)/method[/param]")
        }
        let param = match.params["param"]
        guard let method = methods[name] else {
            throw MissingMethod(description: "\(className) has no method '\(name)'")
        }
        method(className, param, call)
        return nil
    }
}

/// One call and what must come of it: by module id (pushToModuleID:param:queue:) or by URL.
struct Step {
    let moduleID: String?  // nil: open `url` as it is
    let param: String?
    let url: String?       // by id: the URL the id must build; nil when it builds none
    let queue: String?     // "ui", "background", or nil: the caller's thread
    let outcome: String
    let stack: String
}

let stack = "OneViewController(1) > TwoViewController(7) > OneViewController(2) > OneViewController(a b/c) > OneViewController(3)"
let steps = [
    // The headline (make demo): module 999 with parameter 1, run on the ui queue.
    Step(moduleID: "999", param: "1", url: "com.myiurlmediator://OneViewController/pushToModule/1", queue: "ui",
         outcome: "OneViewController.pushToModule(1) ran on ui", stack: "OneViewController(1)"),
    Step(moduleID: "1000", param: "7", url: "com.myiurlmediator://TwoViewController/pushToModule/7", queue: "background",
         outcome: "TwoViewController.pushToModule(7) ran on background",
         stack: "OneViewController(1) > TwoViewController(7)"),
    Step(moduleID: "999", param: "2", url: "com.myiurlmediator://OneViewController/pushToModule/2", queue: nil,
         outcome: "OneViewController.pushToModule(2) ran on caller",
         stack: "OneViewController(1) > TwoViewController(7) > OneViewController(2)"),
    Step(moduleID: "999", param: "a b/c", url: "com.myiurlmediator://OneViewController/pushToModule/a%20b%2Fc", queue: "ui",
         outcome: "OneViewController.pushToModule(a b/c) ran on ui",
         stack: "OneViewController(1) > TwoViewController(7) > OneViewController(2) > OneViewController(a b/c)"),
    Step(moduleID: nil, param: nil, url: "com.MYIURLMediator://OneViewController/pushToModule/3", queue: "background",
         outcome: "OneViewController.pushToModule(3) ran on background", stack: stack),
    Step(moduleID: nil, param: nil, url: "com.myiurlmediator://OneViewController/fly/1", queue: "ui",
         outcome: "refused: OneViewController has no method 'fly'", stack: stack),
    Step(moduleID: "777", param: "1", url: nil, queue: "ui", outcome: "refused: no route is named '777'", stack: stack),
    Step(moduleID: "404", param: "1", url: "com.myiurlmediator://GhostViewController/pushToModule/1", queue: "ui",
         outcome: "refused: route 'com.myiurlmediator://GhostViewController/:method(/:param)' (target 'GhostViewController') has no handler",
         stack: stack),
    Step(moduleID: nil, param: nil, url: "com.myiurlmediator://NoSuchController/pushToModule/1", queue: "background",
         outcome: "refused: no module answers com.myiurlmediator://NoSuchController/pushToModule/1", stack: stack),
    // pushToModuleID: without a parameter: the route's optional group, left out of the URL built.
    Step(moduleID: "1000", param: nil, url: "com.myiurlmediator://TwoViewController/pushToModule", queue: "ui",
         outcome: "TwoViewController.pushToModule(nil) ran on ui", stack: stack + " > TwoViewController(nil)"),
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
func run(_ step: Step, on router: Router, navigation: Navigation, queues: [String: DispatchQueue]) {
    let on = step.queue ?? "the caller's thread"
    let call = ModuleCall(navigation)
    let outcome: String
    do {
        let url: String
        if let moduleID = step.moduleID {
            print("pushToModuleID \(moduleID)\(step.param.map { " param \($0)" } ?? "") on \(on)")
            // The id is the route's name: the table gives the class, the method is pushToModule.
            var params = ["method": "pushToModule"]
            if let param = step.param { params["param"] = param }
            url = try router.url(name: moduleID, params: params)
            print("  url \(url)")
            expect("the URL built", url, step.url ?? "(none)")
        } else {
            url = step.url ?? ""
            print("open \(url) on \(on)")
        }
        try router.open(url, context: call, on: step.queue.flatMap { queues[$0] })
        let report = call.report.withLock { $0 }
        outcome = "\(report.did) ran on \(report.ranOn)"
    } catch let error as MissingMethod {
        outcome = "refused: \(error)"
    } catch let error as NoModule {
        outcome = "refused: \(error)"
    } catch let error as RouterError {
        outcome = "refused: \(error.message)"
    } catch {
        outcome = "unexpected error: \(error)"
    }
    print("  \(outcome)")
    expect(step.moduleID ?? step.url ?? "", outcome, step.outcome)
    print("  stack: \(navigation.described)")
    expect("the stack", navigation.described, step.stack)
}

/// What an open that is not waited for came to, set by its completion on whichever thread had the outcome.
final class Completion: Sendable {
    let outcome = Mutex<String?>(nil)
    let finished = DispatchSemaphore(value: 0)
}

/// URLMediator's call does not wait: NSURLSession hands the URL over and returns. `open(_:completion:)` is that
/// call. To show it, the ui queue is kept busy behind a gate: the open returns, the stack is still as it was, and
/// the module runs only when the gate opens and the queue reaches it.
@MainActor
func runWithoutWaiting(_ router: Router, navigation: Navigation, ui: DispatchQueue) throws {
    print("pushToModuleID 1000 param 8 on ui, without waiting (ui is busy)")
    let url = try router.url(name: "1000", params: ["method": "pushToModule", "param": "8"])
    print("  url \(url)")
    expect("the URL built", url, "com.myiurlmediator://TwoViewController/pushToModule/8")
    let before = navigation.described
    let gate = DispatchSemaphore(value: 0)
    ui.async { gate.wait() }
    let call = ModuleCall(navigation)
    let completion = Completion()
    router.open(OpenRequest(url, context: call, executor: ui)) { result in
        let outcome: String
        switch result {
        case .success:
            let report = call.report.withLock { $0 }
            outcome = "\(report.did) ran on \(report.ranOn)"
        case .failure(let error):
            outcome = "refused: \(error)"
        }
        completion.outcome.withLock { $0 = outcome }
        completion.finished.signal()
    }
    // Back at once: the module waits in the ui queue behind the gate.
    let ranEarly = completion.outcome.withLock { $0 } != nil || navigation.described != before
    print("  returned; \(ranEarly ? "the module already ran" : "the module has not run yet")")
    expect("the open returned before the module ran", ranEarly ? "ran" : "not yet", "not yet")
    gate.signal()
    completion.finished.wait()
    let outcome = completion.outcome.withLock { $0 } ?? "(no outcome)"
    print("  \(outcome)")
    expect("the open without waiting", outcome, "TwoViewController.pushToModule(8) ran on ui")
    print("  stack: \(navigation.described)")
    expect("the stack", navigation.described, before + " > TwoViewController(8)")
}

let demo = CommandLine.arguments.dropFirst() == ["demo"]
do {
    let router = try Router(tableFile: table)
    print("URLMediator: \(router.count) modules from \(table)")
    let queueName = QueueName()
    for (className, methods) in moduleClasses {
        router.handle(target: className, callModule(className, methods, queueName))
    }
    router.onUnmatched { unmatched in throw NoModule(description: "no module answers \(unmatched.url)") }

    let queues = ["ui": queueName.queue("ui"), "background": queueName.queue("background", concurrent: true)]
    let navigation = Navigation()
    let chosen = demo ? Array(steps.prefix(1)) : steps
    for step in chosen {
        run(step, on: router, navigation: navigation, queues: queues)
    }
    if !demo {
        try runWithoutWaiting(router, navigation: navigation, ui: queues["ui"]!)
    }
    if failures > 0 {
        printError("\(failures) mismatch(es)")
        exit(1)
    }
    print("ok: \(demo ? chosen.count : chosen.count + 1) calls as expected")
} catch {
    printError("error: \(error)")
    exit(1)
}

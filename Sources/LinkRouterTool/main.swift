import LinkRouter

#if canImport(Glibc)
import Glibc
#endif

/// `linkrouter`: the router from a shell.
///
///     linkrouter resolve --route 'app://user/:id=UserPage' [--rule MATCH TARGET] [--extra k=v] URL...
///     linkrouter rewrite --rule MATCH TARGET ... URL...
///
/// `resolve` prints one JSON object per URL: the match (as `lr_match_to_json` writes it), or
/// `{"url": ..., "status": "nomatch"}`, or `{"url": ..., "status": "error", "code": ..., "error": ...}`.
/// `rewrite` prints one line per URL: the rewritten URL, or the URL unchanged when no rule matches.
/// Exit status: 0 when every URL matched, 1 when some did not, 2 for usage errors and refused input.

let usage = """
    usage: linkrouter resolve --route PATTERN=TARGET ... [--rule MATCH TARGET ...] [--extra NAME=VALUE ...] URL...
           linkrouter rewrite --rule MATCH TARGET ... URL...
           linkrouter bench rewrite [--rules N]
           linkrouter version

      --route PATTERN=TARGET   add a route (split at the first '='), e.g. 'app://user/:id=UserPage'
      --rule MATCH TARGET      add a rewrite rule: a PCRE2 regex and a template ($1, $$1, $#1, $host, ...)
      --extra NAME=VALUE       an extra parameter, which outranks path and query parameters
    """

struct Options {
    var routes: [RouteSpec] = []
    var rules: [(match: String, target: String)] = []
    var extra: [String: String] = [:]
    var urls: [String] = []
    var benchRules = 1_000
}

func fail(_ message: String) -> Never {
    FileHandleStderr.write("linkrouter: \(message)\n")
    exit(2)
}

enum FileHandleStderr {
    static func write(_ s: String) {
        var bytes = Array(s.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}

func parse(_ args: ArraySlice<String>) -> Options {
    var o = Options()
    var i = args.startIndex
    func next(_ flag: String) -> String {
        i += 1
        guard i < args.endIndex else { fail("\(flag) needs a value\n\(usage)") }
        return args[i]
    }
    func split(_ s: String, _ flag: String) -> (String, String) {
        guard let eq = s.firstIndex(of: "=") else { fail("\(flag) expects NAME=VALUE, got '\(s)'") }
        return (String(s[..<eq]), String(s[s.index(after: eq)...]))
    }
    while i < args.endIndex {
        let a = args[i]
        switch a {
        case "--route":
            let (p, t) = split(next(a), a)
            o.routes.append(RouteSpec(p, target: t))
        case "--rule":
            let m = next(a)
            o.rules.append((match: m, target: next(a)))
        case "--rules":
            guard let n = Int(next(a)), n > 0 else { fail("--rules expects a positive number") }
            o.benchRules = n
        case "--extra":
            let (k, v) = split(next(a), a)
            o.extra[k] = v
        case "-h", "--help":
            print(usage)
            exit(0)
        default:
            if a.hasPrefix("--") { fail("unknown option \(a)\n\(usage)") }
            o.urls.append(a)
        }
        i += 1
    }
    return o
}

func errorJSON(_ url: String, _ e: RouterError) -> String {
    var w = JSONWriter()
    w.beginObject()
    w.key("url"); w.string(url)
    w.key("status"); w.string("error")
    w.key("code"); w.raw(String(e.code.rawValue))
    w.key("error"); w.string(e.message)
    w.endObject()
    return w.text
}

func makeRouter(_ o: Options) -> Router {
    let router = Router()
    do {
        try router.add(o.routes)
        if !o.rules.isEmpty { try router.addRewrites(o.rules) }
    } catch {
        fail(error.message)
    }
    return router
}

let args = CommandLine.arguments.dropFirst()
guard let command = args.first else { fail(usage) }
let options = parse(args.dropFirst())

switch command {
case "resolve":
    let router = makeRouter(options)
    var status: Int32 = 0
    for url in options.urls {
        do {
            if let match = try router.resolve(url, extra: options.extra) {
                print(match.json)
            } else {
                var w = JSONWriter()
                w.beginObject()
                w.key("url"); w.string(url)
                w.key("status"); w.string("nomatch")
                w.endObject()
                print(w.text)
                status = max(status, 1)
            }
        } catch {
            print(errorJSON(url, error))
            status = 2
        }
    }
    exit(status)
case "rewrite":
    let router = makeRouter(options)
    var status: Int32 = 0
    for url in options.urls {
        do {
            if let rewritten = try router.rewrite(url) {
                print(rewritten)
            } else {
                print(url)
                status = max(status, 1)
            }
        } catch {
            FileHandleStderr.write("linkrouter: \(url): \(error.message)\n")
            status = 2
        }
    }
    exit(status)
case "bench":
    guard options.urls.first == "rewrite" else { fail("usage: linkrouter bench rewrite [--rules N]") }
    exit(RewriteBench.run(rules: options.benchRules))
case "version":
    print("linkrouter \(LinkRouterVersion.string)")
case "-h", "--help", "help":
    print(usage)
default:
    fail("unknown command '\(command)'\n\(usage)")
}

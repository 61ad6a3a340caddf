import ArgumentParser
import LinkRouter

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Validate a route table file, as CI would: every problem with its JSON pointer, then warnings.",
        discussion: """
            Problems make the file unloadable (bad pattern with its byte offset, conflicting routes, a bad regex \
            with PCRE2's message, an unknown template variable, a duplicate name, a wrong type, an unknown key).

            Warnings: routes shadowed by others, routes that overlap (both match a URL, precedence picks one), \
            rewrite targets that route nowhere, and, given --guard, guards no route uses or routes requiring a \
            guard not given.

            Exit status: 0 valid, 1 problems (or warnings, with --strict), 2 when the file cannot be read.

            Example:
              linkrouter check --strict --guard login --guard fresh-session \\
                  examples/tables/shop.json
            """)

    @Flag(help: "Exit with status 1 on warnings too.") var strict = false
    @Option(name: .customLong("guard"), help: ArgumentHelp("A guard the app registers (repeat for each).", valueName: "name"))
    var guards: [String] = []
    @Flag(help: "Print the report as JSON: {\"valid\", \"problems\": [...], \"warnings\": [...]}.") var json = false
    @Argument(help: "The route table file.") var file: String

    func run() throws {
        try runCommand {
            // Read once, then judged and (when valid) loaded for its counts: a pipe, FIFO or /dev/stdin gives its
            // content to one read only.
            let bytes = try Router.tableFileBytes(file)
            let router = Router()
            let report = try bytes.withUnsafeBufferPointer { buf throws(RouterError) -> TableReport in
                let text = ByteSpan(start: buf.baseAddress, count: buf.count)
                let report = router.check(jsonBytes: text, mode: .replace, guards: guards.isEmpty ? nil : guards)
                if report.isValid && !json { try router.load(jsonBytes: text, mode: .replace) }
                return report
            }
            if json {
                print(report.json)
            } else if report.isValid {
                let rules = router.rewriteRules.count
                print("\(file): ok, \(router.count) route\(router.count == 1 ? "" : "s"), \(rules) rewrite rule\(rules == 1 ? "" : "s")"
                      + (report.warnings.isEmpty ? "" : ", \(report.warnings.count) warning\(report.warnings.count == 1 ? "" : "s")"))
                for w in report.warnings { print("warning: \(w)") }
            } else {
                print("\(file): \(report.problems.count) problem\(report.problems.count == 1 ? "" : "s")")
                for p in report.problems { print("error: \(p)") }
            }
            return !report.isValid || (strict && !report.warnings.isEmpty) ? 1 : 0
        }
    }
}

struct Routes: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the routes of a route table file: index, name, pattern, target, guards.",
        discussion: "Example: linkrouter routes examples/tables/shop.json")

    @Flag(help: "One JSON array of {\"index\", \"pattern\", \"target\", \"name\", \"requires\", \"meta\"}.") var json = false
    @Argument(help: "The route table file.") var file: String

    func run() throws {
        try runCommand {
            let routes = try Router(tableFile: file).routes
            if json {
                print(Output.json { w in
                    w.beginArray()
                    for (i, r) in routes.enumerated() {
                        w.beginObject()
                        w.key("index"); w.raw(String(i))
                        w.key("pattern"); w.string(r.pattern)
                        w.key("target"); w.string(r.target)
                        w.key("name"); if let n = r.name { w.string(n) } else { w.raw("null") }
                        w.key("requires"); w.beginArray(); r.requires.forEach { w.string($0) }; w.endArray()
                        w.key("meta"); w.beginObject()
                        for (k, v) in r.meta.sorted(by: { $0.key < $1.key }) { w.key(k); w.string(v) }
                        w.endObject()
                        w.endObject()
                    }
                    w.endArray()
                })
                return 0
            }
            let rows = [["#", "name", "pattern", "target", "requires"]] + routes.enumerated().map { i, r in
                // Escaped (`oneLine`): a target or guard may hold a newline, which would break the table's rows.
                [String(i), r.name ?? "-", r.pattern, r.target, r.requires.joined(separator: ",")].map(oneLine)
            }
            let widths = (0..<4).map { c in rows.map { $0[c].count }.max() ?? 0 }
            for row in rows {
                var line = ""
                for c in 0..<4 { line += row[c] + String(repeating: " ", count: widths[c] - row[c].count + 2) }
                line += row[4]
                while line.last == " " { line.removeLast() }
                print(line)
            }
            return 0
        }
    }
}

struct Graph: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the routing tree of a route table file as Graphviz dot.",
        discussion: """
            One node per trie node: the scheme, then each segment (literals, :params, *catch-alls), children in \
            precedence order; each route is a box with its target and name.

            Example:
              linkrouter graph examples/tables/shop.json | dot -Tsvg > routes.svg
            """)

    @Argument(help: "The route table file.") var file: String

    func run() throws {
        try runCommand {
            print(RouteGraph(try Router(tableFile: file).routes).dot, terminator: "")
            return 0
        }
    }
}

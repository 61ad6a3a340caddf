import ArgumentParser
import LinkRouter

struct LinkRouterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "linkrouter",
        abstract: "Route URLs with LinkRouter: resolve, rewrite, explain, and check route table files.",
        discussion: """
            Examples:
              linkrouter resolve --table shop.json 'shop://product/42?ref=mail'
              linkrouter resolve --route 'app://user/:id=UserPage' --extra from=push \\
                  'app://user/42?tab=a'
              linkrouter rewrite --rule '(?:https://)?www.jd.com/search/(.*)' \\
                  'app://search?q=$#1' https://www.jd.com/search/%E5%8E%9F
              linkrouter explain --table shop.json \\
                  'http://oldshop.example.com/item.php?id=7'
              linkrouter check --strict --guard login --guard fresh-session \\
                  shop.json  # CI
              linkrouter routes shop.json
              linkrouter graph shop.json | dot -Tsvg > routes.svg
              linkrouter url --table shop.json product id=42 '?ref=mail'
              cat urls.txt | linkrouter resolve --table shop.json  # stdin

            Shell completion: linkrouter --generate-completion-script bash (or zsh, fish).
            The table format: docs/TABLES.md.
            """,
        version: "linkrouter \(LinkRouterVersion.string)",
        subcommands: [Resolve.self, Rewrite.self, Explain.self, Check.self, Routes.self, Graph.self, URLFor.self,
                      Bench.self, Version.self])
}

struct Resolve: ParsableCommand, TakesURLs {
    static let configuration = CommandConfiguration(
        abstract: "Resolve URLs: one JSON object per URL (the match, as lr_match_to_json writes it).",
        discussion: """
            Prints the match, or {"url": ..., "status": "nomatch"}, or {"url": ..., "status": "error", "code": ..., \
            "error": ...}. Exit status: 0 when every URL matched, 1 when some did not, 2 for refused input.

            Example:
              linkrouter resolve --table shop.json 'shop://product/42' 'shop://nothing'
            """)

    @OptionGroup var router: RouterOptions
    @Option(name: .customLong("extra"), help: ArgumentHelp("An extra parameter, which outranks path and query parameters.",
                                                           valueName: "name=value"))
    var extra: [String] = []
    @Flag(help: "JSON output (the default for resolve; accepted for symmetry).") var json = false
    @Argument(help: "URLs to resolve; read from standard input, one per line, when none are given.") var urls: [String] = []

    func validate() throws { _ = try keyValues(extra, "--extra") }

    func run() throws {
        try runCommand {
            let r = try router.makeRouter()
            let extras = Dictionary(try keyValues(extra, "--extra"), uniquingKeysWith: { $1 })
            var status: Int32 = 0
            try forEachInputURL(urls) { _, input in
                let url = input.text
                do throws(RouterError) {
                    guard input.isValidUTF8 else { throw InputURL.notUTF8 }
                    if let match = try r.resolve(url, extra: extras) {
                        print(match.json)
                    } else {
                        print(Output.json { w in
                            w.beginObject()
                            w.key("url"); w.string(url)
                            w.key("status"); w.string("nomatch")
                            w.endObject()
                        })
                        status = max(status, 1)
                    }
                } catch {
                    print(errorObject(url, error))
                    status = 2
                }
            }
            return status
        }
    }
}

/// What resolve and rewrite --json print for a URL the router refuses:
/// {"url", "status": "error", "code", "error"}.
func errorObject(_ url: String, _ error: RouterError) -> String {
    Output.json { w in
        w.beginObject()
        w.key("url"); w.string(url)
        w.key("status"); w.string("error")
        w.key("code"); w.raw(String(error.code.rawValue))
        w.key("error"); w.string(error.message)
        w.endObject()
    }
}

struct Rewrite: ParsableCommand, TakesURLs {
    static let configuration = CommandConfiguration(
        abstract: "Rewrite URLs with the rewrite rules: one line per URL (the URL unchanged when no rule fires).",
        discussion: """
            Exit status: 0 when every URL was rewritten, 1 when some were not, 2 for refused input.

            With --json, one object per URL: {"url", "rewritten" (null when no rule fired)}, or, for a URL the \
            router refuses, {"url", "status": "error", "code", "error"} as resolve prints it (without --json, a \
            refused URL prints no line; its error goes to standard error).

            Example:
              linkrouter rewrite --rule '^old://(\\w+)' 'app://$1' old://docs
            """)

    @OptionGroup var router: RouterOptions
    @Flag(help: "One JSON object per URL.") var json = false
    @Argument(help: "URLs to rewrite; read from standard input when none are given.") var urls: [String] = []

    func run() throws {
        try runCommand {
            let r = try router.makeRouter()
            var status: Int32 = 0
            try forEachInputURL(urls) { _, input in
                let url = input.text
                do throws(RouterError) {
                    guard input.isValidUTF8 else { throw InputURL.notUTF8 }
                    let rewritten = try r.rewrite(url)
                    if rewritten == nil { status = max(status, 1) }
                    if json {
                        print(Output.json { w in
                            w.beginObject()
                            w.key("url"); w.string(url)
                            w.key("rewritten")
                            if let rewritten { w.string(rewritten) } else { w.raw("null") }
                            w.endObject()
                        })
                    } else {
                        // One line per URL: a `$#` template may have decoded a newline into it.
                        print(oneLine(rewritten ?? url))
                    }
                } catch {
                    if json {
                        print(errorObject(url, error))
                    } else {
                        Output.error("linkrouter: \(excerpt(url)): \(error.message)")
                    }
                    status = 2
                }
            }
            return status
        }
    }
}

struct Explain: ParsableCommand, TakesURLs {
    static let configuration = CommandConfiguration(
        abstract: "Explain why URLs route where they do, or nowhere.",
        discussion: """
            For each URL: the rewrite rules tried and the one that fired, the match sequence, the candidate routes \
            (those with the URL's scheme) and why each matched or not, the winner, its parameters and the guards \
            it requires. Exit status: 0 when every URL matched, 1 when some did not, 2 for refused input.

            Example:
              linkrouter explain --table shop.json 'shop://product/42/reviews'
            """)

    @OptionGroup var router: RouterOptions
    @Option(name: .customLong("extra"), help: ArgumentHelp("An extra parameter.", valueName: "name=value"))
    var extra: [String] = []
    @Option(help: "Most candidates listed per URL.") var limit = 20
    @Flag(help: "One JSON object per URL (as lr_router_explain writes it).") var json = false
    @Argument(help: "URLs to explain; read from standard input when none are given.") var urls: [String] = []

    func validate() throws { _ = try keyValues(extra, "--extra") }

    func run() throws {
        try runCommand {
            let r = try router.makeRouter()
            let extras = Dictionary(try keyValues(extra, "--extra"), uniquingKeysWith: { $1 })
            var status: Int32 = 0
            try forEachInputURL(urls) { i, input in
                // A URL that is not UTF-8 is refused as the library refuses a URL before any rule is tried.
                let explanation = input.isValidUTF8 ? r.explain(input.text, extra: extras, limit: limit)
                    : Explanation.refused(input.text, InputURL.notUTF8, rules: r.rewriteRules)
                if json {
                    print(explanation.json)
                } else {
                    if i > 0 { print("") }
                    print(explanation.text, terminator: "")
                }
                switch explanation.result {
                case .matched: break
                case .nomatch: status = max(status, 1)
                case .error: status = 2
                }
            }
            return status
        }
    }
}

struct URLFor: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "url",
        abstract: "Build the URL of a named route (reverse routing).",
        discussion: """
            Parameters are NAME=VALUE: a name of the route's pattern, or ?NAME for a query parameter (in order). \
            Values are percent-encoded for their place. Exit status 0, or 2 when the URL cannot be built.

            Example:
              linkrouter url --table shop.json product id=42 '?ref=mail & push'
              -> shop://product/42?ref=mail%20%26%20push
            """)

    @OptionGroup var router: RouterOptions
    @Flag(help: "Print {\"name\", \"url\"} as JSON.") var json = false
    @Argument(help: "The route's name.") var name: String
    @Argument(help: "Parameters: NAME=VALUE, or ?NAME=VALUE for the query.") var params: [String] = []

    func validate() throws { _ = try keyValues(params, "a parameter") }

    func run() throws {
        try runCommand {
            let r = try router.makeRouter()
            let url = try r.url(name: name, orderedParams: try keyValues(params, "a parameter").map { (name: $0.0, value: $0.1) })
            if json {
                print(Output.json { w in
                    w.beginObject()
                    w.key("name"); w.string(name)
                    w.key("url"); w.string(url)
                    w.endObject()
                })
            } else {
                print(url)
            }
            return 0
        }
    }
}

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the version.")

    func run() {
        print("linkrouter \(LinkRouterVersion.string)")
    }
}

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Benchmarks for the benchmark suite (bench/runners), as JSON metric lines.",
        subcommands: [BenchRewrite.self])

    struct BenchRewrite: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rewrite",
                                                        abstract: "The rewrite engine with N rules (bench/runners/linkrouter-rewrite.sh).")
        /// The most rules: each is a compiled regex with its URLs, and 10^6 of them already take minutes and
        /// gigabytes; more would only fail to allocate (a trap, not a message).
        static let maxRules = 1_000_000

        @Option(help: "How many rules (1 to 1000000).") var rules = 1_000

        func validate() throws {
            guard rules > 0, rules <= Self.maxRules else {
                throw ValidationError("--rules expects a number from 1 to \(Self.maxRules), got \(rules)")
            }
        }

        func run() throws {
            let status = RewriteBench.run(rules: rules)
            if status != 0 { throw ExitCode(status) }
        }
    }
}

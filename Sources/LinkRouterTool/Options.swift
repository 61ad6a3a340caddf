import ArgumentParser
import LinkRouter

#if canImport(Glibc)
import Glibc
#endif

/// Where a command's router comes from: a table file, and/or routes and rules given one by one.
struct RouterOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A route table file (JSON: docs/TABLES.md).", valueName: "file"))
    var table: String?

    @Option(name: .customLong("route"), help: ArgumentHelp("Add a route, split at the first '=': 'app://user/:id=UserPage'.",
                                                           valueName: "pattern=target"))
    var routes: [String] = []

    @Option(name: .customLong("rule"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("Add a rewrite rule: a PCRE2 regex, then a template ($1, $$1, $#1, ${name}, $host...).",
                               valueName: "match> <target"))
    var ruleParts: [String] = []

    func validate() throws {
        guard ruleParts.count % 2 == 0 else { throw ValidationError("--rule needs two values: MATCH TARGET") }
        for r in routes where !r.contains("=") { throw ValidationError("--route expects PATTERN=TARGET, got '\(r)'") }
    }

    /// The router: the table file first, then the routes and rules of the command line.
    func makeRouter() throws -> Router {
        let router = Router()
        let table = self.table
        do throws(RouterError) {
            if let table { try router.load(file: table) }
            try router.add(routes.map { r in
                let eq = r.firstIndex(of: "=") ?? r.endIndex
                return RouteSpec(String(r[..<eq]), target: eq < r.endIndex ? String(r[r.index(after: eq)...]) : "")
            })
            let rules = stride(from: 0, to: ruleParts.count - 1, by: 2).map { (match: ruleParts[$0], target: ruleParts[$0 + 1]) }
            if !rules.isEmpty { try router.addRewrites(rules) }
        } catch {
            throw Failure(error.code == .table ? "\(table ?? "table"): \(error.problems.count) problem\(error.problems.count == 1 ? "" : "s")\n"
                          + error.message : error.message)
        }
        return router
    }
}

/// Parameters given as NAME=VALUE.
func keyValues(_ items: [String], _ what: String) throws -> [(String, String)] {
    try items.map { item in
        guard let eq = item.firstIndex(of: "=") else { throw ValidationError("\(what) expects NAME=VALUE, got '\(item)'") }
        return (String(item[..<eq]), String(item[item.index(after: eq)...]))
    }
}

/// The URLs of the command line, or, when there are none, the non-empty lines of standard input.
func inputURLs(_ given: [String]) -> [String] {
    if !given.isEmpty { return given }
    var urls: [String] = []
    while let line = readLine() {
        if !line.isEmpty { urls.append(line) }
    }
    return urls
}

/// A refusal of the tool itself (a table that does not load, a file that cannot be read): the message goes to
/// standard error and the exit status is 2.
struct Failure: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

enum Output {
    static func error(_ s: String) {
        var bytes = Array((s.hasSuffix("\n") ? s : s + "\n").utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }

    static func json(_ build: (inout JSONWriter) -> Void) -> String {
        var w = JSONWriter()
        build(&w)
        return w.text
    }
}

/// Runs a command body: a `Failure` or a `RouterError` becomes a message on standard error and exit status 2.
func runCommand(_ body: () throws -> Int32) throws {
    let status: Int32
    do {
        status = try body()
    } catch let failure as Failure {
        Output.error("linkrouter: \(failure.message)")
        throw ExitCode(2)
    } catch let error as RouterError {
        Output.error("linkrouter: \(error.message)")
        throw ExitCode(2)
    }
    if status != 0 { throw ExitCode(status) }
}

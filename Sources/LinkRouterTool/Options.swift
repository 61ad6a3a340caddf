import ArgumentParser
import LinkRouter

#if canImport(Glibc)
import Glibc
#endif

/// Where a command's router comes from: a table file, and/or routes and rules given one by one.
struct RouterOptions: ParsableArguments {
    @Option(name: .customLong("table"),
            help: ArgumentHelp("A route table file (JSON: docs/TABLES.md). Repeat to load several, in order: each is merged into those before (a route that conflicts with an earlier file's is a problem).",
                               valueName: "file"))
    var tables: [String] = []

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

    /// The router: the table files first, in order, then the routes and rules of the command line.
    func makeRouter() throws -> Router {
        let router = Router()
        for table in tables {
            do throws(RouterError) {
                try router.load(file: table, mode: .merge)
            } catch {
                throw Failure(error.code == .table ? "\(table): \(error.problems.count) problem\(error.problems.count == 1 ? "" : "s")\n"
                              + error.message : error.message)
            }
        }
        do throws(RouterError) {
            try router.add(routes.map { r in
                let eq = r.firstIndex(of: "=") ?? r.endIndex
                return RouteSpec(String(r[..<eq]), target: eq < r.endIndex ? String(r[r.index(after: eq)...]) : "")
            })
            let rules = stride(from: 0, to: ruleParts.count - 1, by: 2).map { (match: ruleParts[$0], target: ruleParts[$0 + 1]) }
            if !rules.isEmpty { try router.addRewrites(rules) }
        } catch {
            throw Failure(error.message)
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

/// A URL to resolve, rewrite or explain: its text, and whether its bytes were valid UTF-8. An invalid one is
/// refused as the library refuses one (code -2, "URL is not valid UTF-8"); its text then shows each invalid byte
/// as \xNN.
struct InputURL {
    let text: String
    let isValidUTF8: Bool

    static let notUTF8 = RouterError(.invalidURL, "URL is not valid UTF-8")
}

/// Calls `body` with each URL of the command line, or, when there are none, each non-empty line of standard
/// input (read as bytes: a line that is not UTF-8 is refused, not repaired; a line ends at "\n" or "\r\n"),
/// numbered from 0. Standard input is taken as it comes: the lines of each read are handled, and what they
/// printed flushed, before the next read, so that the tool answers a pipe line by line (`tail -f | linkrouter
/// resolve`). A failed read is a `Failure` (exit status 2), after the whole lines before it: a lost input must
/// not pass for an empty one.
func forEachInputURL(_ given: [String], _ body: (Int, InputURL) throws -> Void) throws {
    if !given.isEmpty {
        for (i, arg) in given.enumerated() {
            if let bytes = RawArguments.invalid[arg] {
                try body(i, InputURL(text: displayed(bytes), isValidUTF8: false))
            } else {
                try body(i, InputURL(text: arg, isValidUTF8: true))
            }
        }
        return
    }
    var count = 0
    func handle(_ bytes: ArraySlice<UInt8>) throws {
        var line = bytes
        if line.last == 13 { line = line.dropLast() }
        if line.isEmpty { return }
        if let text = String(validating: line, as: UTF8.self) {
            try body(count, InputURL(text: text, isValidUTF8: true))
        } else {
            try body(count, InputURL(text: displayed(line), isValidUTF8: false))
        }
        count += 1
    }
    var pending: [UInt8] = []  // a line not yet ended by "\n"
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress, $0.count) }
        if n < 0 {
            let code = errno
            if code == EINTR { continue }
            // (A line the failed read cut short is not answered: it may be part of a URL.)
            throw Failure("cannot read standard input: \(String(cString: strerror(code)))")
        }
        if n == 0 {
            try handle(pending[...])
            return
        }
        // Only the new bytes are searched: a long line over many reads is not scanned again for each.
        var from = pending.count
        pending += chunk[0..<n]
        var start = 0
        while let end = pending[from...].firstIndex(of: 10) {
            try handle(pending[start..<end])
            start = end + 1
            from = start
        }
        pending.removeFirst(start)
        fflush(nil)  // every output stream: what these lines printed goes out before the next read waits
    }
}

/// The command-line arguments that are not valid UTF-8. CommandLine.arguments would repair them (each bad byte
/// becoming U+FFFD) and the tool would route a URL that was never given; main.swift hands the parser a stand-in
/// for each instead (a NUL, which no argument can hold, and its position), and keeps its bytes here. A stand-in
/// may only end up as a URL of resolve, rewrite or explain (refused there, one URL at a time, as the library
/// refuses it); anywhere else (a route, a rule, a file name...) the command is refused before it runs.
enum RawArguments {
    nonisolated(unsafe) static var invalid: [String: [UInt8]] = [:]
    /// The position (1 = the first argument after the command name) of each stand-in.
    nonisolated(unsafe) static var positions: [String: Int] = [:]

    static func standIn(_ position: Int) -> String { "\u{0}not-utf-8-argument-\(position)" }
}

/// `bytes` as text: valid UTF-8 as it is, each byte of an invalid sequence as \xNN.
func displayed<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    var out = ""
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes.makeIterator()
    var position = bytes.startIndex
    while true {
        switch parser.parseScalar(from: &iterator) {
        case .valid(let encoded):
            out.unicodeScalars.append(Unicode.UTF8.decode(encoded))
            position = bytes.index(position, offsetBy: encoded.count)
        case .error(let length):
            for _ in 0..<length {
                let hex = String(bytes[position], radix: 16, uppercase: true)
                out += "\\x" + (hex.count == 1 ? "0" : "") + hex
                position = bytes.index(after: position)
            }
        case .emptyInput:
            return out
        }
    }
}

/// The commands whose URLs may be given as arguments that are not UTF-8 (each is refused as the library would).
protocol TakesURLs {
    var urls: [String] { get }
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

// BenchCore: dataset loading, verification helpers and the timing harness shared by
// the Swift benchmark runners. Mirrors bench/c/bench_common.h and
// bench/python/bench_common.py: same datasets, same shuffled order, same JSON line.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

public struct Row {
    /// Route id (column 1).
    public let id: Int
    /// Full pattern: `gh://get/repos/:owner/:repo`.
    public let pattern: String
    /// Pattern without `scheme://`: `get/repos/:owner/:repo`.
    public let patternPath: String
    /// Full URL: `gh://get/repos/octocat/Hello-World`.
    public let url: String
    /// URL without `scheme://`: `get/repos/octocat/Hello-World`.
    public let urlPath: String
    /// Expected parameters, in pattern order.
    public let params: [(name: String, value: String)]

    /// Segments of `patternPath` (`["get", "repos", ":owner", ":repo"]`).
    public var patternSegments: [String] { patternPath.split(separator: "/", omittingEmptySubsequences: false).map(String.init) }
    /// Parameter names in pattern order (`["owner", "repo"]`).
    public var patternParamNames: [String] { patternSegments.filter { $0.hasPrefix(":") }.map { String($0.dropFirst()) } }
}

public struct Dataset {
    public let name: String
    public let rows: [Row]
    public var count: Int { rows.count }
}

public enum Bench {
    public static func env(_ name: String) -> String? {
        guard let v = ProcessInfo.processInfo.environment[name], !v.isEmpty else { return nil }
        return v
    }

    public static func envInt(_ name: String, _ dflt: Int) -> Int {
        env(name).flatMap { Int($0) } ?? dflt
    }

    public static var dataDir: String { env("LINKROUTER_DATA") ?? "../shared/data" }

    public static var datasetNames: [String] {
        (env("BENCH_DATASETS") ?? "github scale-10 scale-1000 scale-10000 scale-100000")
            .split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
    }

    public static func load(_ name: String) throws -> Dataset {
        let file = name == "github" ? "github-routes.tsv" : "\(name).tsv"
        let path = dataDir + "/" + file
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw BenchError("cannot read \(path)")
        }
        var rows: [Row] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = line.hasSuffix("\r") ? line.dropLast() : line
            if line.isEmpty || line.hasPrefix("#") { continue }
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard cols.count >= 3, let id = Int(cols[0]) else { throw BenchError("\(path): bad line \(line)") }
            var params: [(name: String, value: String)] = []
            if cols.count >= 4, !cols[3].isEmpty {
                for kv in cols[3].split(separator: ";") {
                    guard let eq = kv.firstIndex(of: "=") else { throw BenchError("\(path): bad params \(cols[3])") }
                    params.append((String(kv[..<eq]), String(kv[kv.index(after: eq)...])))
                }
            }
            func stripScheme(_ s: String) -> String {
                if let r = s.range(of: "://") { return String(s[r.upperBound...]) }
                return s
            }
            rows.append(Row(id: id, pattern: cols[1], patternPath: stripScheme(cols[1]), url: cols[2],
                            urlPath: stripScheme(cols[2]), params: params))
        }
        return Dataset(name: name, rows: rows)
    }

    /// Deterministic shuffled lookup order, identical in C, Swift and Python:
    /// Fisher-Yates from the end with a 64-bit LCG (Knuth MMIX constants), seed 42,
    /// j = (state >> 33) % (i + 1).
    public static func order(_ n: Int) -> [Int] {
        var o = Array(0..<n)
        var st: UInt64 = 42
        var i = n
        while i > 1 {
            st = st &* 6364136223846793005 &+ 1442695040888963407
            let j = Int((st >> 33) % UInt64(i))
            o.swapAt(i - 1, j)
            i -= 1
        }
        return o
    }

    public static func nowNs() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Checks every URL. `lookup(i)` looks up row i's URL and returns the matched row
    /// index and the parameters it captured (nil if no match). With `checkParams` false
    /// only the route is checked (for the exact-match dictionary baseline).
    /// Returns nil if all is right, else a message about the first wrong answer.
    public static func verify(_ ds: Dataset, checkParams: Bool = true,
                              lookup: (Int) -> (row: Int, params: [String: String])?) -> String? {
        for (i, r) in ds.rows.enumerated() {
            guard let got = lookup(i) else { return "\(r.url): no match" }
            if got.row != i {
                let g = got.row >= 0 && got.row < ds.count ? ds.rows[got.row].pattern : "?"
                return "\(r.url): matched \(g), expected \(r.pattern)"
            }
            if checkParams {
                var want: [String: String] = [:]
                for p in r.params { want[p.name] = p.value }
                if got.params != want { return "\(r.url): parameters \(got.params), expected \(want)" }
            }
        }
        return nil
    }

    /// This thread's CPU time (CLOCK_THREAD_CPUTIME_ID): leaves out the time the process
    /// is descheduled for other processes on a shared machine.
    public static func cpuNs() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// BENCH_CLOCK=cpu (default: thread CPU time) or wall (monotonic clock) for the ns_* fields.
    public static var clockIsCPU: Bool { env("BENCH_CLOCK") != "wall" }

    static func median(_ v: [Double]) -> Double {
        let s = v.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    nonisolated(unsafe) static var sink: UInt64 = 0

    /// Calibrate, warm up, time `runs` runs of `pass` and print the JSON line.
    /// `pass(order, n)` looks up order[0..<n] once each, reads the parameters and
    /// returns a checksum.
    public static func time(router: String, lang: String = "swift", dataset ds: Dataset,
                            extra: [String: Any] = [:], pass: ([Int], Int) -> UInt64) {
        let big = ds.count >= 100_000
        let runs = max(1, min(1000, envInt("BENCH_RUNS", big ? 7 : 11)))
        let runMs = Double(envInt("BENCH_RUN_MS", big ? 100 : 150))
        let maxPassMs = Double(envInt("BENCH_MAX_PASS_MS", 1000))
        let ord = order(ds.count)
        var n = ds.count
        var acc: UInt64 = 0
        let useCPU = clockIsCPU
        let clk: () -> UInt64 = useCPU ? cpuNs : nowNs

        var t0 = clk()
        acc &+= pass(ord, n)
        let one = Double(clk() - t0)
        if one > maxPassMs * 1e6 {
            var m = Int(Double(n) * maxPassMs * 1e6 / one)
            if m < 1000 { m = min(n, 1000) }
            n = m
        }
        var warmTotal: UInt64 = 0
        var warmPasses: UInt64 = 0
        repeat {
            t0 = clk()
            acc &+= pass(ord, n)
            warmTotal += clk() - t0
            warmPasses += 1
        } while Double(warmTotal) < runMs * 0.5e6
        let perPass = Double(warmTotal) / Double(warmPasses)
        let reps = max(1, Int((runMs * 1e6 / perPass).rounded()))

        var cpu: [Double] = []
        var wall: [Double] = []
        for _ in 0..<runs {
            let w0 = nowNs(), c0 = cpuNs()
            for _ in 0..<reps { acc &+= pass(ord, n) }
            let c1 = cpuNs(), w1 = nowNs()
            cpu.append(Double(c1 - c0) / Double(reps * n))
            wall.append(Double(w1 - w0) / Double(reps * n))
        }
        sink &+= acc
        let ns = (useCPU ? cpu : wall).sorted()
        let med = median(ns)
        var obj: [(String, Any)] = [
            ("router", router), ("lang", lang), ("dataset", ds.name), ("routes", ds.count),
            ("ns_median", round1(med)), ("ns_min", round1(ns[0])), ("ns_max", round1(ns[runs - 1])),
            ("runs", runs), ("lookups_per_run", reps * n), ("urls_timed", n), ("verified", true),
            ("clock", useCPU ? "thread-cpu" : "wall"),
            ("cpu_ns_median", round1(median(cpu))), ("wall_ns_median", round1(median(wall))),
        ]
        if n < ds.count { obj.append(("note", "timed the first \(n) URLs of the shuffled order per run")) }
        for k in extra.keys.sorted() { obj.append((k, extra[k]!)) }
        emit(obj)
    }

    /// A row for a router that could not be built (`wrongAnswer` false) or that answered
    /// wrong in verification (`wrongAnswer` true). Either way it is not timed.
    public static func errorRow(router: String, lang: String = "swift", dataset: String, routes: Int,
                                wrongAnswer: Bool, error: String, extra: [String: Any] = [:]) {
        var obj: [(String, Any)] = [("router", router), ("lang", lang), ("dataset", dataset), ("routes", routes),
                                    ("verified", false)]
        if wrongAnswer { obj.append(("wrong_answer", true)) }
        obj.append(("error", error))
        for k in extra.keys.sorted() { obj.append((k, extra[k]!)) }
        emit(obj)
    }

    static func round1(_ x: Double) -> Double { (x * 10).rounded() / 10 }

    static func jsonString(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 { out += String(format: "\\u%04x", u.value) } else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }

    static func jsonValue(_ v: Any) -> String {
        switch v {
        case let b as Bool: return b ? "true" : "false"
        case let i as Int: return String(i)
        case let d as Double: return String(d)
        case let s as String: return jsonString(s)
        default: return jsonString(String(describing: v))
        }
    }

    static func emit(_ obj: [(String, Any)]) {
        let body = obj.map { "\(jsonString($0.0)): \(jsonValue($0.1))" }.joined(separator: ", ")
        print("{" + body + "}")
        fflush(stdout)
    }

    /// Keeps a value alive so the optimizer cannot drop the work that made it.
    @inline(never) public static func blackHole(_ x: UInt64) { sink &+= x }

    public static func log(_ s: String) {
        FileHandle.standardError.write((s + "\n").data(using: .utf8)!)
    }
}

public struct BenchError: Error, CustomStringConvertible {
    public let description: String
    public init(_ s: String) { description = s }
}

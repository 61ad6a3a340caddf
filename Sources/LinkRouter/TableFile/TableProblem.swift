/// One problem of a route table file: where it is (a JSON pointer, RFC 6901) and why it is refused.
///
/// A table that has any problem is refused whole (`RouterError.Code.table`); the error carries every problem,
/// so a team fixes its file in one pass: `/routes/3/pattern: malformed pattern 'app://a//b' at byte 8: empty
/// segment ('//' in a pattern)`.
public struct TableProblem: Sendable, Equatable, CustomStringConvertible {
    /// The JSON pointer of the value at fault (`/routes/3/pattern`); "" for the document itself.
    public let pointer: String
    /// What kind of problem: `.pattern` (malformed pattern or rewrite template), `.conflict` (two routes match
    /// the same URLs, or share a name), `.regex` (PCRE2 refuses the regex), `.limit`, or `.table` (wrong type,
    /// missing or unknown key, JSON syntax).
    public let code: RouterError.Code
    public let reason: String

    public init(pointer: String, code: RouterError.Code, reason: String) {
        self.pointer = pointer
        self.code = code
        self.reason = reason
    }

    /// The problem as one line of text: `pointer: reason` (control characters escaped, so it stays one line).
    public var description: String {
        let line = pointer.isEmpty ? reason : "\(pointer): \(reason)"
        return oneLine(line)
    }

    /// The `.table` error for `problems`: the message lists them one per line, in file order. At most
    /// `TableProblem.listed` are kept; a last line says how many more there were. `offset`: a JSON syntax
    /// error's, the byte the document could not be read past.
    static func error(_ problems: ProblemList, offset: Int? = nil) -> RouterError {
        var kept = problems.ordered
        if problems.count > listed {
            kept.append(TableProblem(pointer: "", code: .table,
                                     reason: "... and \(problems.count - listed) more problems (only the first \(listed) are listed)"))
        }
        return RouterError(.table, kept.map(\.description).joined(separator: "\n"), offset: offset, problems: kept)
    }

    /// Most problems one error lists: enough for any real file, bounded for a hostile one.
    static let listed = 1_000
}

/// The problems of one table, as its error lists them: each one counted, but only the first `limit` in file
/// order kept (a 16 MiB file can have 8 million), so memory stays bounded. File order: the document's own
/// problems, then the routes', then the rules', by index; problems at one place in the order they were found.
struct ProblemList {
    /// Where a problem sorts: section (0 the document, 1 routes, 2 rewrites), index in it, arrival.
    private struct Key: Comparable {
        var section: Int, index: Int, arrival: Int
        static func < (a: Key, b: Key) -> Bool { (a.section, a.index, a.arrival) < (b.section, b.index, b.arrival) }
    }

    let limit: Int
    /// Every problem added, kept or not.
    private(set) var count = 0
    /// The kept problems; once `limit` are kept, a max-heap by key (the last one kept comes first).
    private var kept: [(key: Key, problem: TableProblem)] = []

    init(limit: Int = TableProblem.listed) { self.limit = limit }

    var isEmpty: Bool { count == 0 }
    /// How many are kept (at most `limit`).
    var stored: Int { kept.count }

    /// Adds a problem; `reason` is made only when it is kept.
    mutating func add(_ pointer: String, _ code: RouterError.Code, _ reason: @autoclosure () -> String) {
        let (section, index) = ProblemList.rank(pointer)
        let ranked = Key(section: section, index: index, arrival: count)
        count += 1
        if kept.count < limit {
            kept.append((ranked, TableProblem(pointer: pointer, code: code, reason: reason())))
            if kept.count == limit { heapify() }
            return
        }
        guard limit > 0, ranked < kept[0].key else { return }
        kept[0] = (ranked, TableProblem(pointer: pointer, code: code, reason: reason()))
        siftDown(0)
    }

    /// The kept problems in file order.
    var ordered: [TableProblem] { kept.sorted { $0.key < $1.key }.map(\.problem) }

    /// (section, index) of a pointer: "/routes/3/pattern" is (1, 3), "/routes" (1, -1), "/version" (0, -1), "" (0, 0).
    /// Tokens are split at the Character "/" (one followed by a combining mark is not a separator).
    private static func rank(_ pointer: String) -> (Int, Int) {
        var text = pointer
        let ascii = text.withUTF8 { b -> (Int, Int)? in
            guard b.allSatisfy({ $0 < 0x80 }) else { return nil }
            // ASCII: each byte is a Character, so bytes split as Characters do, without the grapheme walk.
            func next(_ from: Int) -> Int {
                var i = from
                while i < b.count && b[i] != ASCII.slash { i += 1 }
                return i
            }
            let a = next(0)
            guard a < b.count else { return (0, 0) }
            let e = next(a + 1)
            let token = UnsafeBufferPointer(rebasing: b[(a + 1)..<e])
            let section = token.elementsEqual("routes".utf8) ? 1 : token.elementsEqual("rewrites".utf8) ? 2 : 0
            guard e < b.count else { return (section, -1) }
            return (section, Int(String(decoding: b[(e + 1)..<next(e + 1)], as: UTF8.self)) ?? -1)
        }
        return ascii ?? rank(characters: pointer)
    }

    private static func rank(characters pointer: String) -> (Int, Int) {
        guard let a = pointer.firstIndex(of: "/") else { return (0, 0) }
        let rest = pointer[pointer.index(after: a)...]
        let b = rest.firstIndex(of: "/")
        let token = rest[..<(b ?? rest.endIndex)]
        let section = token == "routes" ? 1 : token == "rewrites" ? 2 : 0
        guard let b else { return (section, -1) }
        return (section, Int(rest[rest.index(after: b)...].prefix { $0 != "/" }) ?? -1)
    }

    private mutating func heapify() {
        for i in stride(from: kept.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        while true {
            let l = 2 * i + 1, r = l + 1
            var largest = i
            if l < kept.count && kept[largest].key < kept[l].key { largest = l }
            if r < kept.count && kept[largest].key < kept[r].key { largest = r }
            if largest == i { return }
            kept.swapAt(i, largest)
            i = largest
        }
    }
}

/// Builds JSON pointers (RFC 6901): `~` is written `~0` and `/` `~1` inside a token.
enum JSONPointer {
    static func appending(_ pointer: String, _ token: String) -> String {
        guard token.utf8.contains(where: { $0 == 0x7E || $0 == 0x2F }) else { return pointer + "/" + token }
        var escaped = ""
        for c in token.unicodeScalars {
            switch c {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.unicodeScalars.append(c)
            }
        }
        return pointer + "/" + escaped
    }

    static func appending(_ pointer: String, _ index: Int) -> String { pointer + "/" + String(index) }
}

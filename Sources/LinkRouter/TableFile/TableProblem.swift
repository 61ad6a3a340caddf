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
        return TableProblem.oneLine(line)
    }

    static func oneLine(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0..<0x20, 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The `.table` error for `problems`: the message lists them one per line. At most `TableProblem.listed`
    /// are kept; a last line says how many more there were.
    static func error(_ problems: [TableProblem]) -> RouterError {
        var kept = Array(problems.prefix(listed))
        if problems.count > listed {
            kept.append(TableProblem(pointer: "", code: .table,
                                     reason: "... and \(problems.count - listed) more problems (only the first \(listed) are listed)"))
        }
        return RouterError(.table, kept.map(\.description).joined(separator: "\n"), problems: kept)
    }

    /// Most problems one error lists: enough for any real file, bounded for a hostile one.
    static let listed = 1_000
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

/// What checking a route table finds, without loading it: the problems that would make a load fail, and the
/// warnings of a table that would load (`TableLint`).
public struct TableReport: Sendable, Equatable {
    public let problems: [TableProblem]
    public let warnings: [TableWarning]
    /// Where the JSON's syntax error is, or the NUL byte a text was refused for (then the only problem), as the
    /// load's `RouterError.offset`; else nil.
    public let offset: Int?

    public init(problems: [TableProblem], warnings: [TableWarning], offset: Int? = nil) {
        self.problems = problems
        self.warnings = warnings
        self.offset = offset
    }

    /// Whether the table would load.
    public var isValid: Bool { problems.isEmpty }

    /// `{"valid": bool, "problems": [{"pointer", "code", "reason"}], "warnings": [{"pointer", "kind", "reason"}]}`.
    public var json: String {
        var w = JSONWriter()
        w.beginObject()
        w.key("valid")
        w.raw(isValid ? "true" : "false")
        w.key("problems")
        w.beginArray()
        for p in problems {
            w.beginObject()
            w.key("pointer")
            w.string(p.pointer)
            w.key("code")
            w.raw(String(p.code.rawValue))
            w.key("reason")
            w.string(p.reason)
            w.endObject()
        }
        w.endArray()
        w.key("warnings")
        w.beginArray()
        for warning in warnings {
            w.beginObject()
            w.key("pointer")
            w.string(warning.pointer)
            w.key("kind")
            w.string(warning.kind.rawValue)
            w.key("reason")
            w.string(warning.reason)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.text
    }
}

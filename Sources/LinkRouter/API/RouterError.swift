/// Why a router call failed: a stable status code (the C ABI's `LR_E*`) and a message for people.
///
/// Every refusal in LinkRouter is one of these; nothing traps. The codes never change value.
public struct RouterError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Int32, Sendable, CaseIterable {
        /// A NULL handle or argument, or a call that makes no sense in this state.
        case misuse = -1
        /// A malformed URL, or text that is not UTF-8.
        case invalidURL = -2
        /// A malformed route pattern or rewrite template.
        case pattern = -3
        /// A route that matches exactly the URLs of an existing one.
        case conflict = -4
        /// A rewrite regex that PCRE2 will not compile.
        case regex = -5
        /// A configured limit was hit (URL length, segments, parameters, regex match or depth limit, or PCRE2's stop
        /// for a regex recursion looping at one position).
        case limit = -6
        /// The route or rule to remove does not exist.
        case notFound = -7
        /// A malformed route table file.
        case table = -8
        /// A file could not be read or written.
        case io = -9
        /// Memory could not be allocated.
        case noMemory = -10
        /// A guard denied the URL being opened; the message is the guard's.
        case denied = -11
        /// The handler did not reply in time (or a reply came after the open stopped waiting).
        case timeout = -12
        /// A reply was completed a second time, or is unknown.
        case replied = -13
        /// A handler or guard failed without a code of its own.
        case handler = -14

        /// Static English text for the code: what `lr_errstr` returns.
        public var text: StaticString {
            switch self {
            case .misuse: "misuse (NULL handle or argument, or an argument out of range)"
            case .invalidURL: "invalid URL or text (not an absolute URL, or not UTF-8)"
            case .pattern: "malformed pattern or template"
            case .conflict: "conflicting route"
            case .regex: "invalid regex"
            case .limit: "limit exceeded"
            case .notFound: "not found"
            case .table: "malformed route table"
            case .io: "I/O error"
            case .noMemory: "out of memory"
            case .denied: "denied by a guard"
            case .timeout: "timed out waiting for the handler's reply"
            case .replied: "reply already completed or unknown"
            case .handler: "handler failed"
            }
        }

        /// The text of any status a call returns: LR_OK, LR_NOMATCH and the errors above; "unknown status code"
        /// for any other value.
        public static func text(ofStatus status: Int32) -> StaticString {
            switch status {
            case 0: "ok"
            case 1: "no match"
            case 2: "deferred by a guard"
            default: Code(rawValue: status)?.text ?? "unknown status code"
            }
        }
    }

    public let code: Code
    public let message: String
    /// The byte offset in the pattern, template or regex that the error is about, or in a table's JSON at a
    /// syntax error, when there is one (`lr_last_error_offset`).
    public let offset: Int?
    /// Which item of a bulk call (routes or rewrite rules added at once) was refused.
    public let index: Int?
    /// For `.table`: every problem of the route table, each located by its JSON pointer (the message lists the
    /// same problems, one per line).
    public let problems: [TableProblem]

    public init(_ code: Code, _ message: String, offset: Int? = nil, index: Int? = nil, problems: [TableProblem] = []) {
        self.code = code
        self.message = message
        self.offset = offset
        self.index = index
        self.problems = problems
    }

    public var description: String { message }

    static func misuse(_ m: String) -> RouterError { RouterError(.misuse, m) }
    static func invalidURL(_ m: String) -> RouterError { RouterError(.invalidURL, m) }
    static func limit(_ m: String) -> RouterError { RouterError(.limit, m) }
    static func notFound(_ m: String) -> RouterError { RouterError(.notFound, m) }

    /// A pattern error, located by byte offset (sqlite3_error_offset's rule).
    static func pattern(_ text: String, at offset: Int, _ reason: String) -> RouterError {
        RouterError(.pattern, "malformed pattern '\(excerpt(text))' at byte \(offset): \(reason)", offset: offset)
    }
}

/// `text` as a message quotes it: whole when short, else its first 100 bytes or so, then "..." and its size,
/// so that a megabyte of input still gives a message someone can read. A NUL is written `\u0000`, as
/// `lr_last_error` must write it (a C string ends at a NUL), so Swift, C and the bindings show the same text.
package func excerpt(_ text: String, limit: Int = 100) -> String {
    guard text.utf8.count > limit || text.utf8.contains(0) else { return text }
    var out = ""
    var used = 0
    for scalar in text.unicodeScalars {
        let size = UTF8.width(scalar)
        if used + size > limit { return out + "... (\(text.utf8.count) bytes)" }
        if scalar == "\0" { out += "\\u0000" } else { out.unicodeScalars.append(scalar) }
        used += size
    }
    return out
}

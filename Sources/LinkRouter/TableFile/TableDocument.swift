/// A route table file decoded from JSON: its routes and rewrite rules, and every problem of shape found on the
/// way (syntax, types, missing and unknown keys, duplicates, NULs). Patterns, regexes and conflicts are judged
/// later, by `TableLoader`, against the router's limits and current table.
///
/// ```json
/// {"version": 1,
///  "routes": [{"pattern": "shop://product/:id", "target": "ProductPage", "name": "product",
///              "requires": ["login"], "meta": {"transition": "push"}}],
///  "rewrites": [{"match": "^https://shop\\.example\\.com/p/(\\d+)", "target": "shop://product/$1"}]}
/// ```
struct TableDocument {
    struct Route {
        var spec: RouteSpec
        /// Its index in the file's `routes` array (for pointers).
        var index: Int
    }

    struct Rewrite {
        var match: String
        var target: String
        var index: Int
    }

    /// The one table format version this LinkRouter reads and writes.
    static let version = 1
    /// The biggest table file accepted (a 100,000-route table is about 15 MB).
    static let maxBytes = 256 << 20
    /// Deepest nesting read: the format needs 4 (document, routes, route, meta).
    static let maxDepth = 16

    static let rootKeys = ["$schema", "version", "routes", "rewrites"]
    static let routeKeys = ["pattern", "target", "name", "requires", "meta"]
    static let rewriteKeys = ["match", "target"]

    private(set) var routes: [Route] = []
    private(set) var rewrites: [Rewrite] = []
    private(set) var problems = ProblemList()
    /// Where the JSON's syntax error is (then the document's only problem), for `RouterError.offset`.
    private(set) var syntaxErrorOffset: Int?

    init(json bytes: ByteSpan) {
        guard bytes.count <= TableDocument.maxBytes else {
            problem("", .limit, "the table is \(bytes.count) bytes, more than \(TableDocument.maxBytes) (256 MiB)")
            return
        }
        let root: JSONValue
        do throws(RouterError) {
            root = try JSONValue.parse(bytes, maxDepth: TableDocument.maxDepth)
        } catch {
            problem("", .table, error.message)
            syntaxErrorOffset = error.offset
            return
        }
        guard let members = object(root, "", allowed: TableDocument.rootKeys) else { return }
        if let version = members["version"] {
            if case .number(let text) = version {
                if !version.isNumber(equalTo: TableDocument.version) {
                    problem("/version", .table, "unsupported table format version \(excerpt(text)) (this LinkRouter reads version \(TableDocument.version))")
                }
            } else {
                problem("/version", .table, "expected the number \(TableDocument.version), found \(version.kind)")
            }
        } else {
            problem("", .table, "missing key 'version' (the table format version, \(TableDocument.version))")
        }
        if let schema = members["$schema"], schema.stringValue == nil {
            problem("/$schema", .table, "expected a string, found \(schema.kind)")
        }
        if let list = members["routes"], let items = array(list, "/routes") {
            for (i, item) in items.enumerated() { route(item, i) }
        }
        if let list = members["rewrites"], let items = array(list, "/rewrites") {
            for (i, item) in items.enumerated() { rewrite(item, i) }
        }
    }

    private mutating func route(_ value: JSONValue, _ i: Int) {
        let at = JSONPointer.appending("/routes", i)
        guard let members = object(value, at, allowed: TableDocument.routeKeys) else { return }
        let pattern = required(members, "pattern", at), target = required(members, "target", at)
        var name: String?
        if let v = members["name"] {
            let p = at + "/name"
            if let s = string(v, p) {
                if let why = RouteSpec.nameProblem(s) {
                    problem(p, .table, why)
                } else {
                    name = s
                }
            }
        }
        var requires: [String] = []
        // Where each accepted guard is in the file's list (an element refused before it shifts the positions).
        var requiresAt: [Int] = []
        if let v = members["requires"], let items = array(v, at + "/requires") {
            for (k, item) in items.enumerated() {
                let p = JSONPointer.appending(at + "/requires", k)
                guard let guardName = string(item, p) else { continue }
                if let why = RouteSpec.guardNameProblem(guardName) {
                    problem(p, .table, why)
                } else if let first = requires.firstIndex(of: guardName) {
                    problem(p, .table, "guard '\(excerpt(guardName))' is listed twice (also at \(at)/requires/\(requiresAt[first]))")
                } else {
                    requires.append(guardName)
                    requiresAt.append(k)
                }
            }
        }
        var meta: [String: String] = [:]
        if let v = members["meta"], let entries = object(v, at + "/meta", allowed: nil) {
            for (key, item) in entries.pairs {
                let p = JSONPointer.appending(at + "/meta", key)
                if key.utf8.contains(0) { problem(p, .table, RouteSpec.nulReason); continue }
                if let s = string(item, p) { meta[key] = s }
            }
        }
        // A route whose target is at fault still has its pattern judged (and conflicts found): the table is
        // refused anyway, and the team sees every problem at once.
        guard let pattern else { return }
        routes.append(Route(spec: RouteSpec(pattern, target: target ?? "", name: name, requires: requires, meta: meta), index: i))
    }

    private mutating func rewrite(_ value: JSONValue, _ i: Int) {
        let at = JSONPointer.appending("/rewrites", i)
        guard let members = object(value, at, allowed: TableDocument.rewriteKeys) else { return }
        let match = required(members, "match", at), target = required(members, "target", at)
        guard let match, let target else { return }
        rewrites.append(Rewrite(match: match, target: target, index: i))
    }

    // MARK: Shapes

    private mutating func problem(_ pointer: String, _ code: RouterError.Code, _ reason: @autoclosure () -> String) {
        problems.add(pointer, code, reason())
    }

    /// The members of an object, each key once; problems for another kind of value, a key twice, or a key not
    /// in `allowed` (nil: any key).
    private mutating func object(_ value: JSONValue, _ at: String, allowed: [String]?) -> Members? {
        guard case .object(let list) = value else {
            problem(at, .table, "expected an object, found \(value.kind)")
            return nil
        }
        var members = Members()
        var seen = Set<String>()
        for member in list {
            let p = JSONPointer.appending(at, member.key)
            if let allowed, !allowed.contains(member.key) {
                problem(p, .table, "unknown key '\(excerpt(member.key))' (expected \(allowed.joined(separator: ", ")))")
            } else if !seen.insert(member.key).inserted {
                problem(p, .table, "key '\(excerpt(member.key))' appears twice")
            } else {
                members.pairs.append((member.key, member.value))
            }
        }
        return members
    }

    private mutating func array(_ value: JSONValue, _ at: String) -> [JSONValue]? {
        guard case .array(let items) = value else {
            problem(at, .table, "expected an array, found \(value.kind)")
            return nil
        }
        return items
    }

    private mutating func string(_ value: JSONValue, _ at: String) -> String? {
        guard case .string(let s) = value else {
            problem(at, .table, "expected a string, found \(value.kind)")
            return nil
        }
        if s.utf8.contains(0) {
            problem(at, .table, RouteSpec.nulReason)
            return nil
        }
        return s
    }

    private mutating func required(_ members: Members, _ key: String, _ at: String) -> String? {
        guard let value = members[key] else {
            problem(at, .table, "missing key '\(key)'")
            return nil
        }
        return string(value, at + "/" + key)
    }

    /// An object's members in order, each key once.
    struct Members {
        var pairs: [(key: String, value: JSONValue)] = []

        subscript(key: String) -> JSONValue? { pairs.first { $0.key == key }?.value }
    }
}

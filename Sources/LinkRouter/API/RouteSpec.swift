/// What a caller registers: a pattern, the target it routes to, and what the route carries besides.
public struct RouteSpec: Sendable, Equatable {
    public var pattern: String
    public var target: String
    /// The route's name, unique in its router: for building URLs (`Router.url(name:params:)`) and explaining
    /// matches.
    public var name: String?
    /// The guards this route requires, in the order they run (after the router's global guards).
    public var requires: [String]
    /// String key/values the route carries and its matches report (a target class, a transition such as
    /// push or present...), for the host's UI layer.
    public var meta: [String: String]

    public init(_ pattern: String, target: String, name: String? = nil, requires: [String] = [],
                meta: [String: String] = [:]) {
        self.pattern = pattern
        self.target = target
        self.name = name
        self.requires = requires
        self.meta = meta
    }

    /// Why a route name cannot be used (nil when it can): it is non-empty and has no control characters, in
    /// every binding and in table files alike.
    package static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "a route name is a non-empty string" }
        if name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "a route name has no control characters" }
        return nil
    }

    /// Why a string cannot be kept when it holds a NUL, here and in table files.
    package static let nulReason = "contains U+0000 (NUL), which C strings cannot carry"

    /// Throws `.invalidURL` ("<what> contains U+0000 ...") when `text` holds a NUL: a route's strings and a
    /// rewrite rule's are kept only as a C string and a table file can carry them.
    package static func refuseNUL(_ text: String, _ what: @autoclosure () -> String) throws(RouterError) {
        if text.utf8.contains(0) { throw RouterError(.invalidURL, "\(what()) \(nulReason)") }
    }

    /// Why a guard name cannot be required (nil when it can): a guard is registered under a non-empty name.
    package static func guardNameProblem(_ name: String) -> String? {
        name.isEmpty ? "a guard name is a non-empty string" : nil
    }

    /// This route as it is kept: the rules a table file's routes follow, so that a route added through any API
    /// exports to a table that loads back. Throws `.invalidURL` ("invalid text") for a name or guard name that
    /// cannot be used, or a NUL in the target, a guard name or the meta; a guard listed twice is kept once.
    package func validated() throws(RouterError) -> RouteSpec {
        if let name, let why = RouteSpec.nameProblem(name) { throw RouterError(.invalidURL, why) }
        try RouteSpec.refuseNUL(pattern, "pattern '\(excerpt(pattern))'")
        try RouteSpec.refuseNUL(target, "target '\(excerpt(target))'")
        var spec = self
        // A guard listed twice runs once anyway (`runGuards`): kept at its first place, as a table file must list
        // it. Compared as `String`s, as guards are found (a `[String: Guard]`) and as a table file compares them:
        // "é" precomposed and decomposed are one guard.
        var seen = Set<String>()
        spec.requires = []
        for g in requires {
            if let why = RouteSpec.guardNameProblem(g) { throw RouterError(.invalidURL, why) }
            try RouteSpec.refuseNUL(g, "guard name '\(excerpt(g))'")
            if seen.insert(g).inserted { spec.requires.append(g) }
        }
        for (key, value) in meta {
            try RouteSpec.refuseNUL(key, "meta key '\(excerpt(key))'")
            try RouteSpec.refuseNUL(value, "the value of meta key '\(excerpt(key))'")
        }
        return spec
    }

    /// `meta` as one JSON object with its keys sorted (nil when empty): what `lr_match_metadata` returns.
    package var metaJSON: String? {
        guard !meta.isEmpty else { return nil }
        var w = JSONWriter()
        w.beginObject()
        for (k, v) in meta.sorted(by: { $0.key < $1.key }) {
            w.key(k)
            w.string(v)
        }
        w.endObject()
        return w.text
    }

    /// Reads `meta` from the JSON text of an object whose values are strings (`lr_router_add_route`'s
    /// metadata argument). Throws `.invalidURL` ("invalid text") for anything else.
    package static func meta(fromJSON text: String) throws(RouterError) -> [String: String] {
        let value: JSONValue
        do throws(RouterError) {
            value = try JSONValue.parse(text, maxDepth: 2)
        } catch {
            throw RouterError(.invalidURL, "metadata is not JSON: \(error.message)")
        }
        guard case .object(let members) = value else {
            throw RouterError(.invalidURL, "metadata must be a JSON object of strings, not \(value.kind)")
        }
        var meta: [String: String] = [:]
        for member in members {
            guard let s = member.value.stringValue else {
                throw RouterError(.invalidURL, "metadata key '\(excerpt(member.key))' is \(member.value.kind); values must be strings")
            }
            guard meta.updateValue(s, forKey: member.key) == nil else {
                throw RouterError(.invalidURL, "metadata key '\(excerpt(member.key))' appears twice")
            }
        }
        return meta
    }
}

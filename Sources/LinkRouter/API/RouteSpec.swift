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

/// The result of resolving a URL: the route it matched and everything known about the URL.
///
/// `params` merges three sources; on the same key the higher wins: `extra` (given to `resolve`) > path
/// (`:name`, `*name`) > query. A query can never override a path parameter.
public struct Match: Sendable, Equatable {
    public struct Param: Sendable, Equatable {
        public let name: String
        public let value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The target registered with the route.
    public let target: String
    /// The pattern as registered.
    public let pattern: String
    /// The route's name and metadata, when it has them.
    public let name: String?
    public let metadata: String?
    /// The URL as given.
    public let url: String
    /// The URL that was routed: after rewriting, or the same as `url`.
    public let rewritten: String
    /// Scheme and host of the routed URL, lower-cased; host without userinfo and port.
    public let scheme: String
    public let host: String
    public let port: String
    /// Path of the routed URL as written (not decoded).
    public let path: String
    /// Fragment as written, "" when none. It is never routed.
    public let fragment: String
    /// The route's parameters in pattern order (catch-all last), decoded (the catch-all as written).
    public let pathParams: [Param]
    /// Every query pair in order, decoded, repeated keys included.
    public let query: [Param]
    /// The extra parameters given to `resolve`.
    public let extra: [Param]
    /// The merged parameters in order: path parameters, then query keys (by first appearance), then extras.
    public let orderedParams: [Param]
    /// The merged parameters by name.
    public let params: [String: String]
    let maxNesting: Int

    init(_ r: Resolution, extra: [Param], maxNesting: Int) {
        let blob = r.blob
        target = blob.target.string
        pattern = blob.pattern.string
        name = blob.name?.string
        metadata = blob.metadata?.string
        url = r.url.string
        rewritten = r.routed.string
        scheme = r.parts.scheme(in: r.routed).string.lowercasedASCII
        host = r.parts.host(in: r.routed).string.lowercasedASCII
        port = r.parts.port(in: r.routed).string
        path = r.parts.path(in: r.routed).string
        fragment = r.parts.fragment(in: r.routed).string
        pathParams = (0..<blob.paramCount).map { Param(name: blob.paramName($0).string, value: r.values[$0].string) }
        query = r.pairs.map { Param(name: $0.key.string, value: $0.value.string) }
        self.extra = extra
        self.maxNesting = maxNesting

        var order: [String] = []
        var merged: [String: String] = [:]
        func put(_ p: Param) {
            if merged.updateValue(p.value, forKey: p.name) == nil { order.append(p.name) }
        }
        pathParams.forEach(put)
        let pathNames = Set(pathParams.map(\.name))
        for q in query where !pathNames.contains(q.name) { put(q) }
        extra.forEach(put)
        params = merged
        orderedParams = order.map { Param(name: $0, value: merged[$0] ?? "") }
    }

    /// The parameters with bracket keys nested (`info[nickname]` → `["info": ["nickname": ...]]`, `a[]` → a
    /// list), in the order of `orderedParams`: path parameters, then query keys (an extra taking a query key's
    /// top-level name replaces it where it first appears), then the remaining extras.
    public var nestedParams: ParamValue {
        let tree = ParamTree(maxDepth: maxNesting)
        for p in pathParams { tree.set(p.name, p.value) }
        let pathNames = Set(pathParams.map(\.name))
        let extras = Dictionary(extra.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        for q in query {
            let top = ParamTree.topLevelKey(q.name, maxDepth: maxNesting)
            if pathNames.contains(top) { continue }
            if let value = extras[top] {
                tree.set(top, value)
            } else {
                tree.addQuery(q.name, q.value)
            }
        }
        for e in extra { tree.set(e.name, e.value) }
        return tree.value
    }

    /// The match as one JSON object: `target pattern url rewritten scheme host path fragment params`
    /// (nested), plus `port`, `query` (every pair as `[key, value]`), and `name`, `metadata` when set.
    public var json: String {
        var w = JSONWriter()
        w.beginObject()
        for (k, v) in [("target", target), ("pattern", pattern), ("url", url), ("rewritten", rewritten),
                       ("scheme", scheme), ("host", host), ("port", port), ("path", path), ("fragment", fragment)] {
            w.key(k)
            w.string(v)
        }
        if let name {
            w.key("name")
            w.string(name)
        }
        if let metadata {
            w.key("metadata")
            w.string(metadata)
        }
        w.key("params")
        w.value(nestedParams)
        w.key("query")
        w.beginArray()
        for q in query {
            w.beginArray()
            w.string(q.name)
            w.string(q.value)
            w.endArray()
        }
        w.endArray()
        w.endObject()
        return w.text
    }

    public static func == (a: Match, b: Match) -> Bool {
        a.json == b.json && a.orderedParams == b.orderedParams
    }
}

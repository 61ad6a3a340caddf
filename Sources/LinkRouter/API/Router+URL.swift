/// Reverse routing: building a route's URL from its name (docs/TABLES.md, "Building URLs").
extension Router {
    /// The URL of the route named `name`, with `params` filling its pattern and `query` appended in order, each
    /// value percent-encoded for its place. The URL resolves back to the same route and values (a catch-all's
    /// value comes back as written here, encoded: catch-alls are captured undecoded).
    ///
    /// ```swift
    /// try router.url(name: "product", params: ["id": "42"], query: [("ref", "mail & push")])
    /// // "shop://product/42?ref=mail%20%26%20push"
    /// ```
    /// Throws `.notFound` when no route has the name, `.invalidURL` for a missing or unknown parameter (a key
    /// of `params` that starts with `?` is a query parameter too), an empty `:param` value, a value that does
    /// not fit its type, a catch-all value with an empty segment, optional groups whose URL would not resolve
    /// back (docs/SEMANTICS.md), or a `*://` route; `.limit` for a URL over `maxURLLength`.
    public func url(name: String, params: [String: String] = [:], query: [(name: String, value: String)] = []) throws(RouterError) -> String {
        let ordered = params.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
            + query.map { (name: "?" + $0.name, value: $0.value) }
        return try url(name: name, orderedParams: ordered)
    }

    /// `url(name:params:query:)` with the parameters in one ordered list: pattern parameters by name, query
    /// parameters as `?key` (the C ABI's form).
    package func url(name: String, orderedParams: [(name: String, value: String)]) throws(RouterError) -> String {
        try withState { state throws(RouterError) in
            guard let blob = state.table.route(named: name) else {
                throw RouterError(.notFound, "no route is named '\(excerpt(name))'")
            }
            return try URLBuilder.build(pattern: blob.pattern.string, name: name, params: orderedParams, limits: state.limits)
        }
    }
}

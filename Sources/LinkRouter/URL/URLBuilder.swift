/// Reverse routing: the URL of a route, its pattern filled with parameter values.
///
/// Each value is percent-encoded for its position, so the URL resolves back to the same route and values:
/// - `:name` (host or path segment): every byte but `A–Z a–z 0–9 - . _ ~` and the sub-delimiters
///   `! $ & ' ( ) * + , ; =` becomes `%XX`; a value `.` or `..` is written `%2E`/`%2E%2E` (URL libraries
///   would otherwise remove such segments). The value must not be empty (`:name` matches a non-empty segment).
/// - `:name<type>`, `x{name}y`: the value must fit the type, and is encoded as a `:name`; the literal text
///   around `{...}` is written from the parsed pattern (decoded), encoded as a `:name` (in a path keeping `:`
///   and `@`). A host literal is written as the pattern writes it, but for `@` and a final `:` (`%40`, `%3A`).
/// - `*name` (catch-all): split on `/`, each piece written as a segment; empty pieces are refused (a catch-all
///   drops empty segments, so `a//b` would come back as `a/b`), an empty value writes nothing. A catch-all is
///   captured undecoded (SPEC §3), so it comes back in the encoded form written here.
/// - `?key` (a query parameter, any name the pattern does not have): key and value keep `A–Z a–z 0–9 - . _ ~`
///   and `! $ ' ( ) * , ; : @ / ?`; everything else (`& = + # %`, spaces, UTF-8...) becomes `%XX`.
/// Optional groups: one is written with all its parameters, left out with none; only a combination the route
/// keeps (`Pattern.variants`) whose URL resolves back to the values given is built.
/// Literals are written as the pattern writes them. Names, types and affixes come from `Pattern.parse`, never
/// from the raw text (a class quantifier `{2,3}` has braces too).
enum URLBuilder {
    /// The URL of the route with `pattern` (text as registered) called `name`, from `params` in order: pattern
    /// parameters by name, query parameters as `?key`. Throws `.invalidURL` for a missing, unknown, repeated or
    /// empty parameter, a value that does not fit its type, a catch-all with an empty piece, optional groups that
    /// would not resolve back, or a `*://` pattern (no scheme to write); `.limit` when the URL would be longer than
    /// `limits.maxURLLength` or have more segments or query pairs than a lookup takes (`maxSegments`, `maxParams`).
    static func build(pattern: String, name: String, params: [(name: String, value: String)],
                      limits: Limits) throws(RouterError) -> String {
        let route = "route '\(excerpt(name))' ('\(excerpt(pattern))')"
        func fail(_ reason: String) -> RouterError { RouterError(.invalidURL, "cannot build the URL of \(route): \(reason)") }
        // The route was accepted when it was added: limits lowered since must not refuse it here, nor lose its types.
        var unlimited = limits
        unlimited.maxSegments = .max
        let parsed = try Pattern.parse(pattern, limits: unlimited)

        let (required, groupTexts) = Pattern.splitGroups(pattern)
        let text = required + groupTexts.joined()
        guard let sep = firstSeparator(text) else { throw fail("the pattern has no '://'") }
        let scheme = Array(text[..<sep])
        guard scheme != [ASCII.asterisk] else {
            throw fail("it matches any scheme ('*://'), so it has no one URL to build")
        }
        var rest = Array(text[(sep + 3)...])
        if rest.last == ASCII.slash { rest.removeLast() }
        // Literals are written as the pattern writes them; everything else comes from the parsed segments.
        let raw = rest.isEmpty ? [] : rest.split(separator: ASCII.slash, omittingEmptySubsequences: false).map(Array.init)
        guard raw.count == parsed.segments.count else { throw fail("its pattern's segments could not be told apart") }
        var names = parsed.paramNames.makeIterator()
        let nameAt = parsed.segments.map { $0.isParameter ? names.next() : nil }
        // Optional groups: a group is written when its parameters are given (all of them), left out when none
        // is (a group without parameters is left out).
        let given = Set(params.map(\.name))
        var left = [Bool](repeating: false, count: raw.count)  // the segments of groups left out
        for (g, range) in parsed.groups.enumerated() {
            let inGroup = range.compactMap { nameAt[$0] }
            guard inGroup.contains(where: given.contains) else {
                for i in range { left[i] = true }
                continue
            }
            if let missing = inGroup.first(where: { !given.contains($0) }) {
                throw fail("parameter '\(excerpt(missing))' is missing (optional group '(\(excerpt(String(decoding: groupTexts[g], as: UTF8.self))))' "
                           + "is written with all its parameters or none)")
            }
        }
        if left.contains(true) {
            // That combination must be one the route has: one with the shape of an earlier combination is left
            // out of the table (docs/SEMANTICS.md), and its URL would give the earlier one's parameters.
            let kept = parsed.segments.indices.filter { !left[$0] }
            let mine = Pattern(text: pattern, scheme: parsed.scheme, segments: kept.map { parsed.segments[$0] },
                               paramNames: kept.compactMap { nameAt[$0] })
            let variants = parsed.variants
            if !variants.contains(where: { $0.segments == mine.segments && $0.paramNames == mine.paramNames }),
               let earlier = variants.first(where: { TableLoader.conflictKey($0) == TableLoader.conflictKey(mine) }) {
                let mineOnly = mine.paramNames.filter { !earlier.paramNames.contains($0) }
                let earlierOnly = earlier.paramNames.filter { !mine.paramNames.contains($0) }
                func groups(_ names: [String]) -> String {
                    let gs = parsed.groups.indices.filter { g in parsed.groups[g].contains { nameAt[$0].map(names.contains) ?? false } }
                    return "'" + excerpt(gs.map { "(" + String(decoding: groupTexts[$0], as: UTF8.self) + ")" }.joined()) + "'"
                }
                func list(_ names: [String]) -> String { names.map { "'\(excerpt($0))'" }.joined(separator: ", ") }
                throw fail("optional group \(groups(mineOnly)) without \(groups(earlierOnly)) has the place of \(groups(earlierOnly)), "
                           + "which comes first: the URL would give \(list(earlierOnly)), not \(list(mineOnly)); give \(list(earlierOnly)) too")
            }
        }

        // The pattern's parameters, then the values given, each name once.
        var values: [String: String] = [:]
        var query: [(key: String, value: String)] = []
        let written = nameAt.indices.compactMap { left[$0] ? nil : nameAt[$0] }
        let wanted = Set(written)
        for (key, value) in params {
            if key.utf8.first == ASCII.question {
                let k = String(key.dropFirst())
                guard !k.isEmpty else { throw fail("a query parameter needs a name after '?'") }
                guard !wanted.contains(k) else {
                    throw fail("query parameter '?\(excerpt(k))' has the name of a path parameter, which would win over it")
                }
                query.append((k, value))
                continue
            }
            guard wanted.contains(key) else {
                let all = parsed.paramNames
                let known = all.isEmpty ? "it has none" : "it has " + all.map { "'\($0)'" }.joined(separator: ", ")
                throw fail("no parameter '\(excerpt(key))' (\(known); write '?\(excerpt(key))' for a query parameter)")
            }
            guard values.updateValue(value, forKey: key) == nil else { throw fail("parameter '\(excerpt(key))' is given twice") }
        }

        // Encoding only lengthens: values that alone pass maxURLLength are refused before anything is built.
        let least = scheme.count &+ 3 &+ values.values.reduce(0) { $0 &+ $1.utf8.count }
            &+ query.reduce(0) { $0 &+ $1.key.utf8.count &+ $1.value.utf8.count }
        guard least <= limits.maxURLLength else {
            throw RouterError(.limit, "cannot build the URL of \(route): it would be at least \(least) bytes, more than maxURLLength (LR_LIMIT_URL_LENGTH, \(limits.maxURLLength))")
        }

        var out: [UInt8] = scheme + [ASCII.colon, ASCII.slash, ASCII.slash]
        var comesBack: [Match.Param] = []  // what resolving the URL gives: values decoded, a catch-all as written
        var first = true
        for (i, segment) in parsed.segments.enumerated() where !left[i] {
            let atStart = first
            if !first { out.append(ASCII.slash) }
            first = false
            guard let param = nameAt[i] else {
                if i == 0 { writeHostLiteral(raw[i], into: &out) } else { out += raw[i] }
                continue
            }
            guard let value = values[param] else { throw fail("parameter '\(excerpt(param))' is missing") }
            let start = out.count
            defer {
                let back = segment != .catchAll ? value : value.isEmpty ? "" : String(decoding: out[start...], as: UTF8.self)
                comesBack.append(Match.Param(name: param, value: back))
            }
            switch segment {
            case .rule(let rule):
                // The value must fit the type, or the URL would not come back to this route.
                let bytes = Array(value.utf8)
                guard rule.accepts(bytes, fold: i == 0) else {
                    throw fail("parameter '\(excerpt(param))' = '\(excerpt(value))' does not fit '\(rule.written(param))'")
                }
                let whole = rule.prefix + bytes + rule.suffix
                if whole == [ASCII.dot] || whole == [ASCII.dot, ASCII.dot] {
                    encodeSegment(whole, into: &out)  // a dot segment, which URL libraries would remove
                } else {
                    encodeAffix(rule.prefix, host: i == 0, into: &out)
                    for b in bytes { put(b, keep: ASCII.isUnreserved(b) || isSubDelimiter(b), into: &out) }
                    encodeAffix(rule.suffix, host: i == 0, into: &out)
                }
            case .param:
                guard !value.isEmpty else { throw fail("parameter '\(excerpt(param))' is empty (':\(param)' matches one non-empty segment)") }
                encodeSegment(Array(value.utf8), into: &out)
            case .catchAll where value.isEmpty:
                if !atStart { out.removeLast() }  // the "/" before the catch-all
            case .catchAll:
                let pieces = Array(value.utf8).split(separator: ASCII.slash, omittingEmptySubsequences: false)
                guard !pieces.contains(where: \.isEmpty) else {
                    throw fail("catch-all '\(excerpt(param))' has an empty segment in '\(excerpt(value))' (leading, trailing or doubled '/'), "
                               + "which the URL would lose")
                }
                for (k, piece) in pieces.enumerated() {
                    if k > 0 { out.append(ASCII.slash) }
                    encodeSegment(Array(piece), into: &out)
                }
            case .literal:
                break
            }
        }
        let pathEnd = out.count
        for (k, pair) in query.enumerated() {
            out.append(k == 0 ? ASCII.question : ASCII.ampersand)
            encodeQuery(Array(pair.key.utf8), into: &out)
            out.append(ASCII.equals)
            encodeQuery(Array(pair.value.utf8), into: &out)
        }
        guard out.count <= limits.maxURLLength else {
            throw RouterError(.limit, "cannot build the URL of \(route): it would be \(out.count) bytes, more than maxURLLength (LR_LIMIT_URL_LENGTH, \(limits.maxURLLength))")
        }
        // A lookup refuses a URL with more segments or query pairs than the limits allow: such a URL would not
        // resolve back. Segments are counted as a lookup counts them: the host and the non-empty path segments.
        let segments = out[(scheme.count &+ 3)..<pathEnd].split(separator: ASCII.slash).count
        guard segments <= limits.maxSegments else {
            throw RouterError(.limit, "cannot build the URL of \(route): it would have \(segments) segments (host included), more than maxSegments (LR_LIMIT_SEGMENTS, \(limits.maxSegments))")
        }
        guard query.count <= limits.maxParams else {
            throw RouterError(.limit, "cannot build the URL of \(route): it would have \(query.count) query pairs, more than maxParams (LR_LIMIT_PARAMS, \(limits.maxParams))")
        }
        if left.contains(true) {
            // Another combination of the groups may still take this URL first (`x(/:a)(/:b<int>)`: a typed or
            // literal segment beats a `:name`): it must resolve, among the route's own entries, to these values.
            let got = try resolvedBack(Array(out[..<pathEnd]), parsed, limits: unlimited)
            if got != comesBack {
                func list(_ ps: [Match.Param]) -> String { ps.map { "'\(excerpt($0.name))' = '\(excerpt($0.value))'" }.joined(separator: ", ") }
                let url = "'\(excerpt(String(decoding: out, as: UTF8.self)))'"
                throw fail(got.map { "the URL \(url) would give \(list($0)), not \(list(comesBack)) "
                                     + "(another combination of its optional groups comes first)" }
                           ?? "the URL \(url) would not come back to it")
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The path parameters `url` (no query) resolves to with `pattern` the only route, nil for no match.
    private static func resolvedBack(_ url: [UInt8], _ pattern: Pattern, limits: Limits) throws(RouterError) -> [Match.Param]? {
        let table = try RouteTable.empty.updating { store throws(RouterError) in
            try store.insert(RouteSpec(pattern.text, target: "-"), pattern)
        }
        var limits = limits
        limits.maxParams = Limits.maxParamsCeiling
        let state = RouterState(table: table, rewrites: .empty, limits: limits)
        return try String(decoding: url, as: UTF8.self).withSpan { span throws(RouterError) in
            try MatchStorage.make(state, span, extras: UnsafeBufferPointer(start: nil, count: 0)).map { Match($0).pathParams }
        }
    }

    /// The literal text around an in-segment parameter (decoded, as parsed), encoded for its place: a path keeps
    /// `:` and `@`; the host cannot (`h:{port}` written `h:80` would be a port, `{user}@x` a user).
    private static func encodeAffix(_ bytes: [UInt8], host: Bool, into out: inout [UInt8]) {
        for b in bytes {
            put(b, keep: ASCII.isUnreserved(b) || isSubDelimiter(b) || (!host && (b == ASCII.colon || b == ASCII.at)), into: &out)
        }
    }

    /// A host literal as written, but `@` (it would end a user part) and a final `:` (an empty port) as `%XX`:
    /// the route's host is the decoded text, and `h:8080` still matches as host and port.
    private static func writeHostLiteral(_ raw: [UInt8], into out: inout [UInt8]) {
        for (k, b) in raw.enumerated() {
            put(b, keep: b != ASCII.at && !(b == ASCII.colon && k == raw.count - 1), into: &out)
        }
    }

    private static func firstSeparator(_ text: [UInt8]) -> Int? {
        guard text.count >= 3 else { return nil }
        for i in 0...(text.count - 3) where text[i] == ASCII.colon && text[i + 1] == ASCII.slash && text[i + 2] == ASCII.slash {
            return i
        }
        return nil
    }

    private static func isSubDelimiter(_ b: UInt8) -> Bool {
        switch b {
        case 0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x3B, 0x3D: return true  // ! $ & ' ( ) * + , ; =
        default: return false
        }
    }

    static func encodeSegment(_ bytes: [UInt8], into out: inout [UInt8]) {
        if bytes == [ASCII.dot] || bytes == [ASCII.dot, ASCII.dot] {
            for _ in bytes { out += [ASCII.percent, 0x32, 0x45] }
            return
        }
        for b in bytes { put(b, keep: ASCII.isUnreserved(b) || isSubDelimiter(b), into: &out) }
    }

    static func encodeQuery(_ bytes: [UInt8], into out: inout [UInt8]) {
        for b in bytes {
            let keep: Bool
            switch b {
            case 0x21, 0x24, 0x27, 0x28, 0x29, 0x2A, 0x2C, 0x3B, ASCII.colon, ASCII.at, ASCII.slash, ASCII.question: keep = true
            default: keep = ASCII.isUnreserved(b)
            }
            put(b, keep: keep, into: &out)
        }
    }

    @inline(__always) private static func put(_ b: UInt8, keep: Bool, into out: inout [UInt8]) {
        if keep {
            out.append(b)
        } else {
            out += [ASCII.percent, ASCII.upperHex(b >> 4), ASCII.upperHex(b & 0x0F)]
        }
    }
}

/// Reverse routing: the URL of a route, its pattern filled with parameter values.
///
/// Each value is percent-encoded for its position, so the URL resolves back to the same route and values:
/// - `:name` (host or path segment): every byte but `A–Z a–z 0–9 - . _ ~` and the sub-delimiters
///   `! $ & ' ( ) * + , ; =` becomes `%XX`; a value `.` or `..` is written `%2E`/`%2E%2E` (URL libraries
///   would otherwise remove such segments). The value must not be empty (`:name` matches a non-empty segment).
/// - `*name` (catch-all): split on `/`, each piece written as a segment; empty pieces are refused (a catch-all
///   drops empty segments, so `a//b` would come back as `a/b`), an empty value writes nothing. A catch-all is
///   captured undecoded (SPEC §3), so it comes back in the encoded form written here.
/// - `?key` (a query parameter, any name the pattern does not have): key and value keep `A–Z a–z 0–9 - . _ ~`
///   and `! $ ' ( ) * , ; : @ / ?`; everything else (`& = + # %`, spaces, UTF-8...) becomes `%XX`.
/// Literals are written as the pattern writes them.
enum URLBuilder {
    /// The URL of the route with `pattern` (text as registered) called `name`, from `params` in order: pattern
    /// parameters by name, query parameters as `?key`. Throws `.invalidURL` for a missing, unknown, repeated or
    /// empty parameter, a catch-all with an empty piece, or a `*://` pattern (no scheme to write); `.limit`
    /// when the URL is longer than `limits.maxURLLength`.
    static func build(pattern: String, name: String, params: [(name: String, value: String)],
                      limits: Limits) throws(RouterError) -> String {
        let route = "route '\(excerpt(name))' ('\(excerpt(pattern))')"
        // Optional groups: a group is written when every parameter in it is given (a group without parameters
        // is left out); the rest is built as that variant.
        let (required, groups) = Pattern.splitGroups(pattern)
        if !groups.isEmpty {
            let given = Set(params.map(\.name))
            var text = required
            for g in groups {
                let names = g.split(separator: ASCII.slash).compactMap { paramName(Array($0)) }
                if !names.isEmpty && names.allSatisfy(given.contains) { text += g }
            }
            return try build(pattern: String(decoding: text, as: UTF8.self), name: name, params: params, limits: limits)
        }
        func fail(_ reason: String) -> RouterError { RouterError(.invalidURL, "cannot build the URL of \(route): \(reason)") }

        let text = Array(pattern.utf8)
        guard let sep = firstSeparator(text) else { throw fail("the pattern has no '://'") }
        let scheme = Array(text[..<sep])
        guard scheme != [ASCII.asterisk] else {
            throw fail("it matches any scheme ('*://'), so it has no one URL to build")
        }
        var rest = Array(text[(sep + 3)...])
        if rest.last == ASCII.slash { rest.removeLast() }
        let segments = rest.isEmpty ? [] : rest.split(separator: ASCII.slash, omittingEmptySubsequences: false).map(Array.init)
        // Typed and in-segment parameters, by segment (the pattern was registered, so it parses).
        var rules: [Int: ParamRule] = [:]
        if let parsed = try? Pattern.parse(pattern, limits: limits), parsed.segments.count == segments.count {
            for (i, segment) in parsed.segments.enumerated() { if case .rule(let r) = segment { rules[i] = r } }
        }

        // The pattern's parameters, then the values given, each name once.
        var values: [String: String] = [:]
        var query: [(key: String, value: String)] = []
        let wanted = Set(segments.compactMap(paramName))
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
                let known = wanted.isEmpty ? "it has none" : "it has " + segments.compactMap(paramName).map { "'\($0)'" }.joined(separator: ", ")
                throw fail("no parameter '\(excerpt(key))' (\(known); write '?\(excerpt(key))' for a query parameter)")
            }
            guard values.updateValue(value, forKey: key) == nil else { throw fail("parameter '\(excerpt(key))' is given twice") }
        }

        var out: [UInt8] = scheme + [ASCII.colon, ASCII.slash, ASCII.slash]
        for (i, segment) in segments.enumerated() {
            if i > 0 { out.append(ASCII.slash) }
            guard let param = paramName(segment) else {
                out += segment
                continue
            }
            guard let value = values[param] else { throw fail("parameter '\(excerpt(param))' is missing") }
            if let rule = rules[i] {
                // The value must fit the type, or the URL would not come back to this route.
                let bytes = Array(value.utf8)
                guard rule.accepts(bytes) else {
                    throw fail("parameter '\(excerpt(param))' = '\(excerpt(value))' does not fit '\(rule.written(param))'")
                }
                out += rawAffix(segment, before: true)
                encodeSegment(bytes, into: &out)
                out += rawAffix(segment, before: false)
            } else if segment.first == ASCII.colon {
                guard !value.isEmpty else { throw fail("parameter '\(excerpt(param))' is empty (':\(param)' matches one non-empty segment)") }
                encodeSegment(Array(value.utf8), into: &out)
            } else if value.isEmpty {
                if i > 0 { out.removeLast() }  // the "/" before the catch-all
            } else {
                let pieces = Array(value.utf8).split(separator: ASCII.slash, omittingEmptySubsequences: false)
                guard !pieces.contains(where: \.isEmpty) else {
                    throw fail("catch-all '\(excerpt(param))' has an empty segment in '\(excerpt(value))' (leading, trailing or doubled '/'), "
                               + "which the URL would lose")
                }
                for (k, piece) in pieces.enumerated() {
                    if k > 0 { out.append(ASCII.slash) }
                    encodeSegment(Array(piece), into: &out)
                }
            }
        }
        for (k, pair) in query.enumerated() {
            out.append(k == 0 ? ASCII.question : ASCII.ampersand)
            encodeQuery(Array(pair.key.utf8), into: &out)
            out.append(ASCII.equals)
            encodeQuery(Array(pair.value.utf8), into: &out)
        }
        guard out.count <= limits.maxURLLength else {
            throw RouterError(.limit, "cannot build the URL of \(route): it would be \(out.count) bytes, more than maxURLLength (\(limits.maxURLLength))")
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The parameter a raw pattern segment names (`:id` → id, `:id<int>` → id, `v{n}.x` → n, `*path` → path,
    /// `*` → *), nil for a literal.
    private static func paramName(_ segment: [UInt8]) -> String? {
        var from = 1
        if let open = segment.firstIndex(of: ASCII.openBrace) {
            from = open + 1
        } else {
            guard let head = segment.first, head == ASCII.colon || head == ASCII.asterisk else { return nil }
            if segment.count == 1 { return "*" }
        }
        let name = segment[from...].prefix(while: ASCII.isNameByte)
        return String(decoding: name, as: UTF8.self)
    }

    /// The literal text written before (or after) an in-segment parameter's `{...}`, as the pattern writes it.
    private static func rawAffix(_ segment: [UInt8], before: Bool) -> [UInt8] {
        guard let open = segment.firstIndex(of: ASCII.openBrace), let close = segment.lastIndex(of: ASCII.closeBrace) else { return [] }
        return before ? Array(segment[..<open]) : Array(segment[(close + 1)...])
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

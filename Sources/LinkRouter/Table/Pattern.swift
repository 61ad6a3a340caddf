/// A route pattern, parsed once at registration.
///
/// ```
/// pattern  = scheme "://" [ segment *( "/" segment ) ] [ "/" ]
/// scheme   = "*" / ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )     ; "*" = any scheme
/// segment  = literal / ":" name [ type ] / [ literal ] "{" name [ type ] "}" [ literal ] / "*" [ name ]
///                                                                   ; "*" only as the last segment
/// name     = 1*( ALPHA / DIGIT / "_" )
/// type     = "<" ( "int" / "uint" / "float" / "uuid" / "slug" / class ) ">"
/// class    = "[" [ "^" ] 1*item "]" [ "+" / "{" m [ "," [ n ] ] "}" ]
/// ```
/// The first segment stands for the host. Literals are percent-decoded like URL segments (so `%3A` writes a
/// literal that starts with `:`, `%7B` a literal `{`), the scheme and the host literal are lower-cased. Errors
/// carry the byte offset.
package struct Pattern: Sendable {
    package enum Segment: Equatable, Sendable {
        /// Decoded bytes (lower-cased in the host position).
        case literal([UInt8])
        /// A plain `:name` (or `{name}`): any one non-empty element.
        case param
        /// A typed parameter, or one with a literal prefix or suffix in its segment (`:id<int>`, `{name}.png`).
        case rule(ParamRule)
        case catchAll
    }

    package let text: String
    /// Lower-cased scheme; nil for `*://`.
    package let scheme: [UInt8]?
    package let segments: [Segment]
    /// Names of the `:name` segments in order, then the catch-all's name (`*` when bare).
    package let paramNames: [String]

    /// The optional groups' segments (`app://user/:id(/:tab)`: [2 ..< 3]), in order; empty for most patterns.
    package var groups: [Range<Int>] = []

    package var hasCatchAll: Bool { segments.last == .catchAll }
    /// Whether some segment is a typed or in-segment parameter.
    package var hasRules: Bool { segments.contains { if case .rule = $0 { true } else { false } } }

    /// Most optional groups in one pattern: they expand to 2^groups routes.
    package static let maxGroups = 4

    /// A stored route's pattern, parsed again (compaction, removal, explain, lint). It parsed when the route was
    /// added, and the segment limit, the one limit parsing checks, may have been lowered since: so it is lifted.
    /// nil only for text that never was a pattern.
    package static func parseStored(_ text: String) -> Pattern? {
        var unlimited = Limits()
        unlimited.maxSegments = Int.max
        return try? parse(text, limits: unlimited)
    }

    package static func parse(_ text: String, limits: Limits = .default) throws(RouterError) -> Pattern {
        var tooDeep = false
        return try parse(text, limits: limits, tooDeep: &tooDeep)
    }

    /// `parse`, saying in `tooDeep` whether the error thrown is the segment limit's (`Router.remove` answers
    /// that one `.notFound`: no route is that deep), rather than another limit's.
    package static func parse(_ text: String, limits: Limits, tooDeep: inout Bool) throws(RouterError) -> Pattern {
        // Trailing optional groups, JLRoutes-style: "(/" ... ")" repeated at the very end. They are parsed as if
        // the parentheses were not there, and offsets map back to the text as written.
        let (bytes, groupBytes) = strippedGroups(Array(text.utf8))
        let n = bytes.count
        func original(_ at: Int) -> Int {
            var o = at
            for g in groupBytes {
                if at >= g.lowerBound { o += 1 }
                if at >= g.upperBound { o += 1 }
            }
            return o
        }
        func fail(_ at: Int, _ why: String) -> RouterError { .pattern(text, at: original(at), why) }
        if groupBytes.count > maxGroups {
            throw fail(groupBytes[maxGroups].lowerBound, "at most \(maxGroups) optional groups (they expand to 2^groups routes)")
        }
        for g in groupBytes where g.count < 2 { throw fail(g.lowerBound, "an empty optional group") }

        guard n > 0 else { throw fail(0, "empty pattern") }
        guard n <= Limits.maxRouteText else {
            throw RouterError(.limit, "pattern '\(excerpt(text))' is longer than maxRouteText (\(Limits.maxRouteText) bytes)")
        }
        var i = 0
        var scheme: [UInt8]?
        if bytes[0] == ASCII.asterisk {
            i = 1
        } else {
            guard ASCII.isAlpha(bytes[0]) else { throw fail(0, "a scheme starts with a letter, or is '*'") }
            while i < n && ASCII.isSchemeByte(bytes[i]) { i += 1 }
            scheme = bytes[0..<i].map(ASCII.lowercased)
        }
        guard n - i >= 3, bytes[i] == ASCII.colon, bytes[i + 1] == ASCII.slash, bytes[i + 2] == ASCII.slash else {
            throw fail(i, "expected '://' after the scheme")
        }
        i += 3

        var segments: [Segment] = []
        var names: [String] = []
        var seen: Set<String> = []  // the names so far: a set, so a pattern of n parameters costs O(n), not O(n²)
        // [ segment *( "/" segment ) ] [ "/" ]: a trailing "/" after the last segment, or alone ("app:///").
        if i == n - 1 && bytes[i] == ASCII.slash { i = n }
        var groups: [Range<Int>] = []
        while i < n {
            let start = i
            if groupBytes.contains(where: { $0.lowerBound == start - 1 }) {
                groups.append(segments.count..<segments.count)  // the group's segments start here
            }
            while i < n && bytes[i] != ASCII.slash { i += 1 }
            let end = i
            if i < n { i += 1 }  // the "/", which may be the trailing one
            guard end > start else { throw fail(start, "empty segment ('//' in a pattern)") }
            if segments.last == .catchAll {
                throw fail(start, "'*' must be the last segment")
            }
            guard segments.count < limits.maxSegments else {
                tooDeep = true
                throw RouterError(.limit, "pattern '\(excerpt(text))' has more than \(limits.maxSegments) segments (limit maxSegments, LR_LIMIT_SEGMENTS)",
                                  offset: original(start))
            }
            let head = bytes[start]
            func addName(_ nameStart: Int, _ nameEnd: Int, at: Int) throws(RouterError) {
                let name = nameStart == nameEnd ? "*" : String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)
                guard names.count < Limits.maxRouteParams else {
                    throw RouterError(.limit, "pattern '\(excerpt(text))' has more than \(Limits.maxRouteParams) parameters, "
                        + "the most a pattern may have (a fixed limit)", offset: original(at))
                }
                guard seen.insert(name).inserted else {
                    throw fail(at, "parameter name '\(excerpt(name))' is used twice")
                }
                names.append(name)
            }
            /// The end of the type `<...>` that opens at `open` (the offset of its `>`).
            func typeEnd(_ open: Int) throws(RouterError) -> Int {
                var k = open + 1
                while k < end && bytes[k] != ASCII.greater {
                    if bytes[k] == ASCII.backslash { k += 1 }
                    k += 1
                }
                guard k < end else { throw fail(open, "'<' opens a type that has no closing '>'") }
                return k
            }
            func literalBytes(_ s: Int, _ e: Int) throws(RouterError) -> [UInt8] {
                for k in s..<e where bytes[k] == ASCII.question || bytes[k] == ASCII.hash {
                    throw fail(k, "'\(bytes[k] == ASCII.question ? "?" : "#")' in a pattern (patterns match paths, not queries or fragments)")
                }
                for k in s..<e where bytes[k] == ASCII.openBrace || bytes[k] == ASCII.closeBrace {
                    throw fail(k, bytes[k] == ASCII.openBrace ? "one parameter per segment ('{' again; write %7B for a literal '{')"
                               : "'}' without '{' (write %7D for a literal '}')")
                }
                var literal = bytes.withUnsafeBufferPointer { buf in
                    decodedSegment(ByteSpan(start: buf.baseAddress.map { $0 + s }, count: e - s))
                }
                if segments.isEmpty { literal = literal.map(ASCII.lowercased) }
                return literal
            }
            if head == ASCII.colon || head == ASCII.asterisk {
                let nameStart = start + 1
                var nameEnd = nameStart
                while nameEnd < end && ASCII.isNameByte(bytes[nameEnd]) { nameEnd += 1 }
                // No name at all, or a type without one (':<int>'); any other byte is a bad first letter ('é').
                if head == ASCII.colon && nameStart == nameEnd && (nameStart == end || bytes[nameStart] == ASCII.less) {
                    throw fail(nameStart, "':' needs a parameter name")
                }
                var rule = ParamRule()
                if head == ASCII.colon && nameEnd < end && bytes[nameEnd] == ASCII.less {
                    let close = try typeEnd(nameEnd)
                    try ParamRule.parseType(bytes, from: nameEnd + 1, to: close, host: segments.isEmpty, into: &rule, fail: fail)
                    if close + 1 < end {
                        throw fail(close + 1, "nothing may follow ':name<type>' in its segment (write 'x{name<type>}y' for a prefix or suffix)")
                    }
                } else if nameEnd < end {
                    if head == ASCII.asterisk && segments.isEmpty && bytes[nameEnd] == ASCII.dot {
                        throw fail(nameEnd, "a host wildcard such as '*.example.com' is written '{sub}.example.com' "
                                   + "(an in-segment parameter: any non-empty subdomain, captured as 'sub')")
                    }
                    throw fail(nameEnd, "a parameter name has only letters, digits and '_'")
                }
                try addName(nameStart, nameEnd, at: start)
                segments.append(head == ASCII.asterisk ? .catchAll : rule.isPlain ? .param : .rule(rule))
            } else if let open = bytes[start..<end].firstIndex(of: ASCII.openBrace) {
                // An in-segment parameter: literal prefix, "{" name [type] "}", literal suffix.
                let nameStart = open + 1
                var nameEnd = nameStart
                while nameEnd < end && ASCII.isNameByte(bytes[nameEnd]) { nameEnd += 1 }
                if nameEnd == nameStart {
                    // As after ':': no name, or a type without one; else a bad first letter ('{é}').
                    let none = nameStart == end || bytes[nameStart] == ASCII.closeBrace || bytes[nameStart] == ASCII.less
                    throw fail(nameStart, none ? "'{' needs a parameter name" : "a parameter name has only letters, digits and '_'")
                }
                var rule = ParamRule()
                var close = nameEnd
                if close < end && bytes[close] == ASCII.less {
                    let typeClose = try typeEnd(close)
                    try ParamRule.parseType(bytes, from: close + 1, to: typeClose, host: segments.isEmpty, into: &rule, fail: fail)
                    close = typeClose + 1
                }
                guard close < end && bytes[close] == ASCII.closeBrace else {
                    throw fail(close, nameEnd == close ? "a parameter name has only letters, digits and '_' (or '{name}' misses its '}')"
                               : "expected '}' after the type")
                }
                rule.prefix = try literalBytes(start, open)
                rule.suffix = try literalBytes(close + 1, end)
                try addName(nameStart, nameEnd, at: open)
                segments.append(rule.isPlain ? .param : .rule(rule))
            } else {
                segments.append(.literal(try literalBytes(start, end)))
            }
        }
        // Each group spans its segments up to the next group (or the end).
        for (k, g) in groups.enumerated() {
            groups[k] = g.lowerBound..<(k + 1 < groups.count ? groups[k + 1].lowerBound : segments.count)
        }
        var pattern = Pattern(text: text, scheme: scheme, segments: segments, paramNames: names)
        pattern.groups = groups
        return pattern
    }

    /// The bytes without the trailing groups' parentheses, and each group's bytes ("/..." without its
    /// parentheses) in those stripped bytes. Only a run of "(/...)" groups at the very end counts: a "(" or ")"
    /// anywhere else is a literal byte, as it always was.
    private static func strippedGroups(_ bytes: [UInt8]) -> ([UInt8], [Range<Int>]) {
        var found: [(open: Int, close: Int)] = []
        var end = bytes.count
        while end > 0 && bytes[end - 1] == ASCII.closeParen {
            var k = end - 2
            while k >= 0 && bytes[k] != ASCII.openParen && bytes[k] != ASCII.closeParen { k -= 1 }
            guard k >= 0, bytes[k] == ASCII.openParen, k + 1 < end - 1, bytes[k + 1] == ASCII.slash else { break }
            found.insert((k, end - 1), at: 0)
            end = k
        }
        guard !found.isEmpty else { return (bytes, []) }
        var out = Array(bytes[..<found[0].open])
        var ranges: [Range<Int>] = []
        for g in found {
            let start = out.count
            out += bytes[(g.open + 1)..<g.close]
            ranges.append(start..<out.count)
        }
        return (out, ranges)
    }

    /// The text before the trailing optional groups, and each group's text without its parentheses.
    package static func splitGroups(_ text: String) -> (required: [UInt8], groups: [[UInt8]]) {
        let (stripped, ranges) = strippedGroups(Array(text.utf8))
        guard let first = ranges.first else { return (stripped, []) }
        return (Array(stripped[..<first.lowerBound]), ranges.map { Array(stripped[$0]) })
    }

    /// The routes a pattern with optional groups stands for, JLRoutes' order: every combination of the groups,
    /// most included first (`/the(/foo/:a)(/bar/:b)`: both, foo only, bar only, none). A variant with the shape
    /// of an earlier one is left out (the earlier one takes its URLs). `[self]` without groups.
    package var variants: [Pattern] {
        guard !groups.isEmpty else { return [self] }
        // The name of each parameter segment, by segment.
        var nameOf: [Int: String] = [:]
        var next = 0
        for (i, segment) in segments.enumerated() where segment.isParameter {
            nameOf[i] = paramNames[next]
            next += 1
        }
        var out: [Pattern] = []
        var shapes: Set<[UInt8]> = []
        let k = groups.count
        for mask in stride(from: (1 << k) - 1, through: 0, by: -1) {
            var kept: [Segment] = []
            var names: [String] = []
            for (i, segment) in segments.enumerated() {
                if let g = groups.firstIndex(where: { $0.contains(i) }), mask & (1 << (k - 1 - g)) == 0 { continue }
                kept.append(segment)
                if let name = nameOf[i] { names.append(name) }
            }
            let variant = Pattern(text: text, scheme: scheme, segments: kept, paramNames: names)
            if shapes.insert(TableLoader.conflictKey(variant)).inserted { out.append(variant) }
        }
        return out
    }
}

extension Pattern.Segment {
    /// Whether the segment captures a value (and so has a name in `paramNames`).
    var isParameter: Bool {
        if case .literal = self { return false }
        return true
    }
}

/// The percent-decoded bytes of a segment, or the segment as written when it does not decode cleanly.
func decodedSegment(_ raw: ByteSpan) -> [UInt8] {
    guard contains(raw.start, raw.count, ASCII.percent) else { return Array(raw.buffer) }
    return [UInt8](unsafeUninitializedCapacity: raw.count) { buf, count in
        guard let base = buf.baseAddress else { count = 0; return }
        if let n = percentDecode(raw, into: base) {
            count = n
        } else {
            _ = buf.initialize(from: raw.buffer)
            count = raw.count
        }
    }
}

/// A route pattern, parsed once at registration.
///
/// ```
/// pattern  = scheme "://" [ segment *( "/" segment ) ] [ "/" ]
/// scheme   = "*" / ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )     ; "*" = any scheme
/// segment  = literal / ":" name / "*" [ name ]                    ; "*" only as the last segment
/// name     = 1*( ALPHA / DIGIT / "_" )
/// ```
/// The first segment stands for the host. Literals are percent-decoded like URL segments (so `%3A` writes a
/// literal that starts with `:`), the scheme and the host literal are lower-cased. Errors carry the byte offset.
package struct Pattern: Sendable {
    package enum Segment: Equatable, Sendable {
        /// Decoded bytes (lower-cased in the host position).
        case literal([UInt8])
        case param
        case catchAll
    }

    package let text: String
    /// Lower-cased scheme; nil for `*://`.
    package let scheme: [UInt8]?
    package let segments: [Segment]
    /// Names of the `:name` segments in order, then the catch-all's name (`*` when bare).
    package let paramNames: [String]

    package var hasCatchAll: Bool { segments.last == .catchAll }

    package static func parse(_ text: String, limits: Limits = .default) throws(RouterError) -> Pattern {
        let bytes = Array(text.utf8)
        let n = bytes.count
        func fail(_ at: Int, _ why: String) -> RouterError { .pattern(text, at: at, why) }

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
        while i < n {
            let start = i
            while i < n && bytes[i] != ASCII.slash { i += 1 }
            let end = i
            if i < n { i += 1 }  // the "/", which may be the trailing one
            guard end > start else { throw fail(start, "empty segment ('//' in a pattern)") }
            if segments.last == .catchAll {
                throw fail(start, "'*' must be the last segment")
            }
            guard segments.count < limits.maxSegments else {
                throw RouterError(.limit, "pattern '\(excerpt(text))' has more than \(limits.maxSegments) segments (limit maxSegments)",
                                  offset: start)
            }
            let head = bytes[start]
            if head == ASCII.colon || head == ASCII.asterisk {
                let nameStart = start + 1
                if head == ASCII.colon && nameStart == end {
                    throw fail(nameStart, "':' needs a parameter name")
                }
                for k in nameStart..<end where !ASCII.isNameByte(bytes[k]) {
                    throw fail(k, "a parameter name has only letters, digits and '_'")
                }
                let name = nameStart == end ? "*" : String(decoding: bytes[nameStart..<end], as: UTF8.self)
                guard names.count < Limits.maxRouteParams else {
                    throw RouterError(.limit, "pattern '\(excerpt(text))' has more than \(Limits.maxRouteParams) parameters "
                        + "(limit maxRouteParams)", offset: start)
                }
                guard seen.insert(name).inserted else {
                    throw fail(start, "parameter name '\(excerpt(name))' is used twice")
                }
                names.append(name)
                segments.append(head == ASCII.colon ? .param : .catchAll)
            } else {
                for k in start..<end where bytes[k] == ASCII.question || bytes[k] == ASCII.hash {
                    throw fail(k, "'\(bytes[k] == ASCII.question ? "?" : "#")' in a pattern (patterns match paths, not queries or fragments)")
                }
                var literal = bytes.withUnsafeBufferPointer { buf in
                    decodedSegment(ByteSpan(start: buf.baseAddress.map { $0 + start }, count: end - start))
                }
                if segments.isEmpty { literal = literal.map(ASCII.lowercased) }
                segments.append(.literal(literal))
            }
        }
        return Pattern(text: text, scheme: scheme, segments: segments, paramNames: names)
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

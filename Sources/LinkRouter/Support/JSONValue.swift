/// A parsed JSON document (RFC 8259), as route table files and route metadata are read: no Foundation.
///
/// Objects keep their members in the order written, duplicates included, so a loader can report a duplicate
/// key instead of silently keeping one; numbers keep their text, so nothing is lost to floating point. Not
/// `indirect`: arrays already hold the nesting, so a value lies inline in its array (24 bytes) instead of in a
/// box of its own (a 16 MiB file of `1,1,...` took 486 MB, now 237 MB).
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number as written (already checked against the JSON grammar).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// What a value is, for messages ("expected a string, found an array").
    package var kind: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    package var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// Whether this is a number whose value is exactly `n`, however written: JSON Schema compares numbers by
    /// value, so `1`, `1.0`, `10e-1` and `0.1E+1` are all 1. Exact, in decimal (no floating point): the digits
    /// without leading or trailing zeros, and the power of ten that scales them, must be `n`'s.
    package func isNumber(equalTo n: Int) -> Bool {
        guard case .number(let text) = self, let a = JSONValue.decimal(Array(text.utf8)),
              let b = JSONValue.decimal(Array(String(n).utf8)) else { return false }
        return a.negative == b.negative && a.digits.elementsEqual(b.digits) && a.power == b.power
    }

    /// A number's text (already checked against the JSON grammar) as (negative, significant digits, power of
    /// ten); zero is (false, [], 0). nil for an exponent beyond 18 digits, which no integer we compare with has.
    private static func decimal(_ text: [UInt8]) -> (negative: Bool, digits: ArraySlice<UInt8>, power: Int)? {
        var i = 0
        let negative = text.first == ASCII.minus
        if negative { i = 1 }
        var digits: [UInt8] = []
        var fraction = 0
        var inFraction = false
        while i < text.count, ASCII.isDigit(text[i]) || text[i] == ASCII.dot {
            if text[i] == ASCII.dot {
                inFraction = true
            } else {
                digits.append(text[i])
                if inFraction { fraction += 1 }
            }
            i += 1
        }
        var exponent = 0
        if i < text.count {  // e or E, a sign, digits
            i += 1
            var sign = 1
            if text[i] == ASCII.minus || text[i] == ASCII.plus {
                if text[i] == ASCII.minus { sign = -1 }
                i += 1
            }
            let written = text[i...].drop { $0 == 0x30 }
            guard written.count <= 18 else { return nil }
            for d in written { exponent = exponent * 10 + Int(d - 0x30) }
            exponent *= sign
        }
        guard let first = digits.firstIndex(where: { $0 != 0x30 }) else { return (false, [], 0) }
        var last = digits.count - 1
        while digits[last] == 0x30 { last -= 1 }
        // Both terms are below 2^62: `fraction` and the trailing zeros count bytes of a text held in memory.
        return (negative, digits[first...last], exponent - fraction + (digits.count - 1 - last))
    }

    /// The first member named `key` of an object.
    package subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members.first { $0.key == key }?.value }
        return nil
    }
}

/// One `"key": value` member of a JSON object.
package struct JSONMember: Sendable, Equatable {
    package let key: String
    package let value: JSONValue

    package init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

extension JSONValue {
    /// Parses `text` as one JSON document. Throws `.table` with the byte offset, line and column of the first
    /// syntax error. Nesting deeper than `maxDepth` is refused, so hostile input cannot exhaust the stack.
    package static func parse(_ text: String, maxDepth: Int = 128) throws(RouterError) -> JSONValue {
        try text.withSpan { span throws(RouterError) in try parse(span, maxDepth: maxDepth) }
    }

    package static func parse(_ bytes: ByteSpan, maxDepth: Int = 128) throws(RouterError) -> JSONValue {
        var reader = JSONReader(bytes, maxDepth: maxDepth)
        return try reader.document()
    }
}

/// A recursive-descent JSON reader over UTF-8 bytes. Recursion is bounded by `maxDepth`.
struct JSONReader {
    private let p: UnsafePointer<UInt8>?
    private let n: Int
    private var i = 0
    private let maxDepth: Int

    init(_ bytes: ByteSpan, maxDepth: Int) {
        p = bytes.start
        n = bytes.count
        self.maxDepth = maxDepth
    }

    mutating func document() throws(RouterError) -> JSONValue {
        if !isValidUTF8(p, n) {
            i = firstInvalidUTF8(p, n) ?? 0
            throw fail("not valid UTF-8 (the table must be UTF-8 text)")
        }
        // A byte-order mark is not JSON (RFC 8259 §8.1): named, as "expected a JSON value" would not say why.
        if n >= 3, byte(0) == 0xEF, byte(1) == 0xBB, byte(2) == 0xBF {
            throw fail("a byte-order mark (U+FEFF) starts the text; JSON does not allow one: save it as UTF-8 without a BOM")
        }
        skipSpace()
        let value = try self.value(depth: 0)
        skipSpace()
        guard i == n else { throw fail("unexpected text after the JSON value") }
        return value
    }

    private func byte(_ k: Int) -> UInt8 { k < n ? (p?[k] ?? 0) : 0 }

    private func fail(_ reason: String) -> RouterError {
        var line = 1, column = 1
        for k in 0..<min(i, n) {
            if byte(k) == 0x0A { line += 1; column = 1 } else if byte(k) & 0xC0 != 0x80 { column += 1 }
        }
        return RouterError(.table, "JSON syntax error at byte \(i) (line \(line), column \(column)): \(reason)", offset: i)
    }

    private mutating func skipSpace() {
        while i < n, case let b = byte(i), b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { i += 1 }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(RouterError) -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard n - i >= count, bytesEqual(p.map { $0 + i }, word.utf8Start, count) else {
            throw fail("expected a JSON value")
        }
        i += count
        return value
    }

    private mutating func value(depth: Int) throws(RouterError) -> JSONValue {
        guard depth < maxDepth else { throw fail("nested deeper than \(maxDepth) levels") }
        switch byte(i) {
        case ASCII.openBrace: return try object(depth: depth)
        case ASCII.openBracket: return try array(depth: depth)
        case 0x22: return .string(try string())
        case 0x74: return try literal("true", .bool(true))
        case 0x66: return try literal("false", .bool(false))
        case 0x6E: return try literal("null", .null)
        case ASCII.minus, 0x30...0x39: return try number()
        default: throw fail(i < n ? "expected a JSON value" : "unexpected end of text")
        }
    }

    private mutating func object(depth: Int) throws(RouterError) -> JSONValue {
        i += 1
        var members: [JSONMember] = []
        skipSpace()
        if byte(i) == ASCII.closeBrace {
            i += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard byte(i) == 0x22 else { throw fail("expected a member name in double quotes") }
            let key = try string()
            skipSpace()
            guard byte(i) == ASCII.colon else { throw fail("expected ':' after a member name") }
            i += 1
            skipSpace()
            members.append(JSONMember(key, try value(depth: depth + 1)))
            skipSpace()
            if byte(i) == 0x2C {
                i += 1
                continue
            }
            guard byte(i) == ASCII.closeBrace else { throw fail("expected ',' or '}' in an object") }
            i += 1
            return .object(members)
        }
    }

    private mutating func array(depth: Int) throws(RouterError) -> JSONValue {
        i += 1
        var items: [JSONValue] = []
        skipSpace()
        if byte(i) == ASCII.closeBracket {
            i += 1
            return .array(items)
        }
        while true {
            skipSpace()
            items.append(try value(depth: depth + 1))
            skipSpace()
            if byte(i) == 0x2C {
                i += 1
                continue
            }
            guard byte(i) == ASCII.closeBracket else { throw fail("expected ',' or ']' in an array") }
            i += 1
            return .array(items)
        }
    }

    private mutating func number() throws(RouterError) -> JSONValue {
        let start = i
        if byte(i) == ASCII.minus { i += 1 }
        if byte(i) == 0x30 {
            i += 1
        } else if ASCII.isDigit(byte(i)) {
            while ASCII.isDigit(byte(i)) { i += 1 }
        } else {
            throw fail("a number needs digits")
        }
        if byte(i) == ASCII.dot {
            i += 1
            guard ASCII.isDigit(byte(i)) else { throw fail("a fraction needs digits") }
            while ASCII.isDigit(byte(i)) { i += 1 }
        }
        if byte(i) | 0x20 == 0x65 {
            i += 1
            if byte(i) == ASCII.plus || byte(i) == ASCII.minus { i += 1 }
            guard ASCII.isDigit(byte(i)) else { throw fail("an exponent needs digits") }
            while ASCII.isDigit(byte(i)) { i += 1 }
        }
        return .number(ByteSpan(start: p.map { $0 + start }, count: i - start).string)
    }

    /// A string literal starting at the opening quote; escapes decoded, surrogate pairs joined.
    private mutating func string() throws(RouterError) -> String {
        i += 1
        var out: [UInt8] = []
        while true {
            guard i < n else { throw fail("unterminated string") }
            let b = byte(i)
            if b == 0x22 {
                i += 1
                return String(decoding: out, as: UTF8.self)
            }
            if b < 0x20 { throw fail("a control character must be escaped in a string") }
            if b != ASCII.backslash {
                out.append(b)
                i += 1
                continue
            }
            i += 1
            switch byte(i) {
            case 0x22: out.append(0x22)
            case ASCII.backslash: out.append(ASCII.backslash)
            case ASCII.slash: out.append(ASCII.slash)
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75:
                var scalar = try hex4()
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    guard byte(i + 1) == ASCII.backslash, byte(i + 2) == 0x75 else { throw fail("a lone surrogate in \\u escapes") }
                    i += 2
                    let low = try hex4()
                    guard low >= 0xDC00 && low < 0xE000 else { throw fail("a lone surrogate in \\u escapes") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if scalar >= 0xDC00 && scalar < 0xE000 {
                    throw fail("a lone surrogate in \\u escapes")
                }
                guard let s = Unicode.Scalar(scalar) else { throw fail("an invalid \\u escape") }
                out.append(contentsOf: String(Character(s)).utf8)
            default:
                throw fail("an invalid escape in a string")
            }
            i += 1
        }
    }

    /// The four hex digits after `\u` (i at the `u`); leaves i on the last digit.
    private mutating func hex4() throws(RouterError) -> UInt32 {
        var v: UInt32 = 0
        for k in 1...4 {
            let h = ASCII.hexValue(byte(i + k))
            guard h != 0xFF else { throw fail("\\u needs four hex digits") }
            v = v << 4 | UInt32(h)
        }
        i += 4
        return v
    }
}

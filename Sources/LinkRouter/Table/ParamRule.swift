/// What a typed or in-segment parameter accepts (see docs/SEMANTICS.md §2, "Typed and in-segment parameters").
///
/// A segment such as `:id<int>`, `{name}.png` or `v{major<uint>}` is a parameter with a literal prefix, a literal
/// suffix and a type. It matches an element (decoded) that starts with the prefix, ends with the suffix, and whose
/// middle (at least one byte) fits the type; the middle is the value. A plain `:name` is the rule with no prefix,
/// no suffix and the type `any`, and keeps its own fast path in the trie.
package struct ParamRule: Hashable, Sendable {
    /// Built-in types first, narrowest first: their order is the precedence order among typed parameters.
    package enum Kind: UInt8, Sendable, BitwiseCopyable {
        case uint = 0, int, float, uuid, slug, chars, any
    }

    package var prefix: [UInt8] = []
    package var suffix: [UInt8] = []
    package var kind: Kind = .any
    /// `.chars`: a 256-bit set of the bytes allowed (32 bytes, bit b of byte b >> 3), and the value's length range.
    package var charSet: [UInt8] = []
    package var minLength: Int32 = 1
    package var maxLength: Int32 = .max
    /// The type as written between `<` and `>` (`""` for none), for messages and explain output, and the order of
    /// the built-in types' rules (a class is identified and ordered by its set and lengths).
    package var typeText: String = ""

    /// Whether the two rules accept the same values the same way: same kind, prefix and suffix, and the same type:
    /// for a class its set and length range, however written (`[a-z]` and `[a-z]{1}`, `[ab]+` and `[ba]+`), else
    /// the type's text. Two patterns whose rules are the same at a place share its node (so a second route there
    /// is a conflict).
    package func same(as other: ParamRule) -> Bool {
        kind == other.kind && prefix == other.prefix && suffix == other.suffix && sameType(as: other)
    }

    /// The type part of `same(as:)` (the kinds being equal).
    private func sameType(as other: ParamRule) -> Bool {
        kind == .chars ? charSet == other.charSet && minLength == other.minLength && maxLength == other.maxLength
            : typeText == other.typeText
    }

    /// What the type accepts, as bytes: for a class its set and length range, else the type's text.
    private var typeIdentity: [UInt8] {
        guard kind == .chars else { return Array(typeText.utf8) }
        var out = charSet
        withUnsafeBytes(of: minLength.littleEndian) { out += $0 }
        withUnsafeBytes(of: maxLength.littleEndian) { out += $0 }
        return out
    }

    /// Two different classes: the narrower first (fewer members, then the lower maximum length, then the higher
    /// minimum), then by the set's bytes, so that two different classes never tie.
    private static func classPrecedes(_ a: ParamRule, _ b: ParamRule) -> Bool {
        let ma = a.charSet.reduce(0) { $0 + $1.nonzeroBitCount }, mb = b.charSet.reduce(0) { $0 + $1.nonzeroBitCount }
        if ma != mb { return ma < mb }
        if a.maxLength != b.maxLength { return a.maxLength < b.maxLength }
        if a.minLength != b.minLength { return a.minLength > b.minLength }
        return a.charSet.lexicographicallyPrecedes(b.charSet)
    }

    package var isPlain: Bool { prefix.isEmpty && suffix.isEmpty && kind == .any }

    /// The rule names a port (a `:` in its prefix or suffix): in the host position it is tried on `host:port`
    /// first (`SpecialEdge.namesPort`).
    package var namesPort: Bool { prefix.contains(ASCII.colon) || suffix.contains(ASCII.colon) }

    /// Precedence at one place, independent of registration order: more literal bytes (prefix + suffix) first,
    /// then by type (uint, int, float, uuid, slug, character class, untyped), then two classes by what they
    /// accept (`classPrecedes`, never by how they are written), then by prefix and suffix bytes (so two rules
    /// that are not the `same` never tie).
    package static func precedes(_ a: ParamRule, _ b: ParamRule) -> Bool {
        let la = a.prefix.count + a.suffix.count, lb = b.prefix.count + b.suffix.count
        if la != lb { return la > lb }
        if a.kind != b.kind { return a.kind.rawValue < b.kind.rawValue }
        if !a.sameType(as: b) {
            if a.kind == .chars { return classPrecedes(a, b) }
            return Array(a.typeText.utf8).lexicographicallyPrecedes(Array(b.typeText.utf8))
        }
        if a.prefix != b.prefix { return a.prefix.lexicographicallyPrecedes(b.prefix) }
        return a.suffix.lexicographicallyPrecedes(b.suffix)
    }

    /// The bytes that identify the rule (two patterns with equal rules at a place share the trie node there): equal
    /// exactly when the rules are the `same`.
    package var key: [UInt8] {
        var out: [UInt8] = [kind.rawValue]
        for part in [prefix, suffix, typeIdentity] {
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: part.count).littleEndian) { out += $0 }
            out += part
        }
        return out
    }

    /// The rule as a pattern writes it, with `name` (`{name}.png`, `:id<int>`).
    package func written(_ name: String) -> String {
        let type = typeText.isEmpty ? "" : "<\(typeText)>"
        if prefix.isEmpty && suffix.isEmpty { return ":\(name)\(type)" }
        return String(decoding: prefix, as: UTF8.self) + "{\(name)\(type)}" + String(decoding: suffix, as: UTF8.self)
    }

    /// The value of `element` (decoded bytes): the offsets of the middle, or nil when the rule does not accept it.
    /// `fold`: compare prefix and suffix case-insensitively (the host; the pattern's host bytes are lower-cased).
    package func value(in element: UnsafePointer<UInt8>?, _ n: Int, fold: Bool) -> (start: Int, end: Int)? {
        prefix.withUnsafeBufferPointer { pre in
            suffix.withUnsafeBufferPointer { suf in
                charSet.withUnsafeBufferPointer { set in
                    let edge = SpecialEdge(kind: kind, prefixLength: Int32(truncatingIfNeeded: pre.count),
                                           suffixLength: Int32(truncatingIfNeeded: suf.count), minLength: minLength,
                                           maxLength: maxLength, prefix: pre.baseAddress, suffix: suf.baseAddress,
                                           charSet: set.baseAddress)
                    return withUnsafePointer(to: edge) { ParamRule.value(in: element, n, edge: $0, fold: fold) }
                }
            }
        }
    }

    /// Whether `value` (decoded bytes, without prefix and suffix) is a value of the rule's type (`fold`: in the
    /// host position, where a class sees the value lower-cased).
    package func accepts(_ value: [UInt8], fold: Bool = false) -> Bool {
        guard !value.isEmpty else { return false }
        return value.withUnsafeBufferPointer { v in
            charSet.withUnsafeBufferPointer { set in
                ParamRule.fits(v.baseAddress!, v.count, kind: kind, set: set.baseAddress, min: Int(minLength), max: Int(maxLength),
                               fold: fold)
            }
        }
    }

    /// The check shared by the trie walk (on its special edges, read in place: a field is loaded only where it
    /// is needed) and `value(in:)`.
    @inline(__always)
    static func value(in e: UnsafePointer<UInt8>?, _ n: Int, edge: UnsafePointer<SpecialEdge>,
                      fold: Bool) -> (start: Int, end: Int)? {
        let pn = Int(edge.pointee.prefixLength), sn = Int(edge.pointee.suffixLength)
        guard let e, n > pn &+ sn else { return nil }
        if pn > 0 && !affixEqual(e, edge.pointee.prefix, pn, fold: fold) { return nil }
        if sn > 0 && !affixEqual(e + (n &- sn), edge.pointee.suffix, sn, fold: fold) { return nil }
        let start = pn, end = n &- sn
        guard fits(e + start, end &- start, kind: edge.pointee.kind, set: edge.pointee.charSet,
                   min: Int(edge.pointee.minLength), max: Int(edge.pointee.maxLength), fold: fold) else { return nil }
        return (start, end)
    }

    /// Whether `n` bytes of the element at `a` equal the pattern's bytes at `b` (`fold`: `a` lower-cased first).
    @inline(__always)
    private static func affixEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>?, _ n: Int, fold: Bool) -> Bool {
        guard let b else { return false }
        if fold {
            for i in 0..<n where ASCII.lowercased(a[i]) != b[i] { return false }
        } else {
            for i in 0..<n where a[i] != b[i] { return false }
        }
        return true
    }

    /// Whether the `n` (≥ 1) bytes at `v` are a value of the type. `fold`: the host position, compared
    /// case-insensitively: a class is tested on the bytes lower-cased (its set was folded when parsed, see
    /// `parseClass`); the other types do not depend on case (`uuid` and `slug` take either, numbers none).
    @inline(__always)
    static func fits(_ v: UnsafePointer<UInt8>, _ n: Int, kind: Kind, set: UnsafePointer<UInt8>?, min: Int, max: Int,
                     fold: Bool = false) -> Bool {
        switch kind {
        case .any:
            return true
        case .uint:
            // Up to 19 digits always fit in a UInt64: only longer values need the number.
            return n <= 19 ? allDigits(v, n) : unsigned(v, n) != nil
        case .int:
            let negative = v[0] == ASCII.minus
            let digits = negative ? v + 1 : v, count = negative ? n &- 1 : n
            guard count > 0 else { return false }
            if count <= 18 { return allDigits(digits, count) }  // up to 18 digits always fit in an Int64
            guard let m = unsigned(digits, count) else { return false }
            return m <= (negative ? UInt64(Int64.max) &+ 1 : UInt64(Int64.max))
        case .float:
            var i = v[0] == ASCII.minus ? 1 : 0
            let digitsStart = i
            while i < n && ASCII.isDigit(v[i]) { i &+= 1 }
            guard i > digitsStart else { return false }
            if i == n { return true }
            guard v[i] == ASCII.dot else { return false }
            i &+= 1
            let fraction = i
            while i < n && ASCII.isDigit(v[i]) { i &+= 1 }
            return i == n && i > fraction
        case .uuid:
            guard n == 36 else { return false }
            for i in 0..<36 {
                if i == 8 || i == 13 || i == 18 || i == 23 {
                    if v[i] != ASCII.minus { return false }
                } else if !isHex(v[i]) {
                    return false
                }
            }
            return true
        case .slug:
            for i in 0..<n where !(ASCII.isNameByte(v[i]) || v[i] == ASCII.minus) { return false }
            return true
        case .chars:
            guard n >= min && n <= max, let set else { return false }
            if fold {
                for i in 0..<n {
                    let b = ASCII.lowercased(v[i])
                    if set[Int(b >> 3)] & (1 << (b & 7)) == 0 { return false }
                }
                return true
            }
            for i in 0..<n where set[Int(v[i] >> 3)] & (1 << (v[i] & 7)) == 0 { return false }
            return true
        }
    }

    /// The inline check's answer; `.unknown` leaves the edge to the general check.
    enum Verdict { case yes, no, unknown }

    /// The walk's inline check of an unaffixed `<uint>` or (`signed`) `<int>` edge on the `n` bytes at `v`, as
    /// `value(in:)` decides it: up to 16 digits always fit, after an optional "-" for `<int>`. Longer or empty
    /// values are `.unknown`, for the general check. Digits are tested first: most values are not negative.
    @inline(__always)
    static func fitsLane(_ v: UnsafePointer<UInt8>, _ n: Int, signed: Bool) -> Verdict {
        guard UInt(bitPattern: n &- 1) < 16 else { return .unknown }
        if shortDigits(v, n) { return .yes }
        return signed && n > 1 && v[0] == ASCII.minus && shortDigits(v + 1, n &- 1) ? .yes : .no
    }

    /// Whether the `n` (at most 16) bytes at `v` are all digits, without a loop: two overlapping words (a byte
    /// loop below 4).
    @inline(__always) private static func shortDigits(_ v: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        let raw = UnsafeRawPointer(v)
        if n >= 8 {
            return nonDigits(raw.loadUnaligned(as: UInt64.self)) | nonDigits(raw.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)) == 0
        }
        if n >= 4 {
            let low = UInt64(raw.loadUnaligned(as: UInt32.self)), high = UInt64(raw.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self))
            return digitWord(low << 32 | high)
        }
        for i in 0..<n where v[i] &- 0x30 >= 10 { return false }
        return true
    }

    /// Whether the `n` bytes at `v` are all decimal digits, a word at a time (see `digitWord`): up to 16 as
    /// `shortDigits`, longer ones 8 at a time with an overlapping last word, so no byte outside the value is read.
    @inline(__always) static func allDigits(_ v: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        if n <= 16 { return shortDigits(v, n) }
        let raw = UnsafeRawPointer(v)
        var i = 0
        while i &+ 8 <= n {
            guard digitWord(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) else { return false }
            i &+= 8
        }
        return i == n || digitWord(raw.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self))
    }

    /// Whether a word's bytes are all digits: with x = w ^ "00000000", each byte of x must be below 10, that is
    /// have a zero high nibble and keep it after adding 6. When every high nibble of x is zero, adding 6 to each
    /// byte carries into no other byte; when one is not, x itself shows it. Three constants, one test.
    @inline(__always) private static func digitWord(_ w: UInt64) -> Bool { nonDigits(w) == 0 }

    /// `digitWord` without the test: not zero when a byte is not a digit.
    @inline(__always) private static func nonDigits(_ w: UInt64) -> UInt64 {
        let x = w ^ 0x3030_3030_3030_3030
        return (x | (x &+ 0x0606_0606_0606_0606)) & 0xF0F0_F0F0_F0F0_F0F0
    }

    @inline(__always) private static func isHex(_ b: UInt8) -> Bool {
        ASCII.isDigit(b) || (b | 0x20) &- 0x61 < 6
    }

    /// The decimal digits at `v` as a number, nil when not all digits or above UInt64.max.
    @inline(__always) private static func unsigned(_ v: UnsafePointer<UInt8>, _ n: Int) -> UInt64? {
        var value: UInt64 = 0
        for i in 0..<n {
            let d = v[i] &- 0x30
            guard d < 10 else { return nil }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(UInt64(d))
            if o1 || o2 { return nil }
            value = s
        }
        return value
    }

    // MARK: Parsing the type

    /// The rule's type from the text between `<` and `>` at `bytes[from ..< to]`; errors carry the byte offset.
    /// `host`: the rule is in the host position (a class's set is folded, see `parseClass`).
    static func parseType(_ bytes: [UInt8], from: Int, to: Int, host: Bool, into rule: inout ParamRule,
                          fail: (Int, String) -> RouterError) throws(RouterError) {
        let text = String(decoding: bytes[from..<to], as: UTF8.self)
        rule.typeText = text
        switch text {
        case "int": rule.kind = .int
        case "uint": rule.kind = .uint
        case "float": rule.kind = .float
        case "uuid": rule.kind = .uuid
        case "slug": rule.kind = .slug
        case "": throw fail(from, "'<>' needs a type: int, uint, float, uuid, slug or a class such as [a-z0-9]+")
        default:
            guard bytes[from] == ASCII.openBracket else {
                throw fail(from, "unknown type '\(excerpt(text))': int, uint, float, uuid, slug or a class such as [a-z0-9]+")
            }
            try parseClass(bytes, from: from, to: to, host: host, into: &rule, fail: fail)
        }
    }

    /// `[` [`^`] items `]` [quantifier]: items are bytes, ranges `a-z` and escapes `\x` (for `] - \ ^ >`);
    /// the quantifier is `+` (1 or more), `{m}`, `{m,}` or `{m,n}` with 1 ≤ m ≤ n; none means exactly one byte.
    /// `host`: the host compares case-insensitively and the walk tests a host class on lower-cased bytes, so each
    /// upper-case member brings its lower case in, before a `^` negates (as a caseless regex's class does:
    /// `[A-Z]+` takes `User`, `[^A-Z]+` takes no letter); the upper-case bits are then cleared (never tested).
    private static func parseClass(_ bytes: [UInt8], from: Int, to: Int, host: Bool, into rule: inout ParamRule,
                                   fail: (Int, String) -> RouterError) throws(RouterError) {
        var set = [UInt8](repeating: 0, count: 32)
        var i = from + 1
        let negated = i < to && bytes[i] == 0x5E  // ^
        if negated { i += 1 }
        func item() throws(RouterError) -> UInt8 {
            guard i < to else { throw fail(i, "a character class needs its closing ']'") }
            var b = bytes[i]
            if b == ASCII.backslash {
                i += 1
                guard i < to else { throw fail(i, "'\\' at the end of a character class") }
                b = bytes[i]
            } else if b == ASCII.openBracket {
                throw fail(i, "'[' inside a character class (write '\\[')")
            }
            guard b < 0x80 else { throw fail(i, "a character class holds ASCII bytes only") }
            i += 1
            return b
        }
        var members = 0
        while true {
            guard i < to else { throw fail(i, "a character class needs its closing ']'") }
            if bytes[i] == ASCII.closeBracket { break }
            let at = i
            let low = try item()
            var high = low
            if i + 1 < to && bytes[i] == ASCII.minus && bytes[i + 1] != ASCII.closeBracket {
                i += 1
                high = try item()
                guard high >= low else { throw fail(at, "range '\(Character(Unicode.Scalar(low)))-\(Character(Unicode.Scalar(high)))' is reversed") }
            }
            for b in low...high { set[Int(b >> 3)] |= 1 << (b & 7) }
            members += 1
        }
        guard members > 0 else { throw fail(i, "an empty character class matches nothing") }
        i += 1  // "]"
        if host {
            for b in UInt8(ascii: "A")...UInt8(ascii: "Z") where set[Int(b >> 3)] & (1 << (b & 7)) != 0 {
                let l = b | 0x20
                set[Int(l >> 3)] |= 1 << (l & 7)
            }
        }
        if negated { set = set.map { ~$0 } }
        if host {  // never tested on lower-cased bytes: cleared, so that equal classes have equal sets
            for b in UInt8(ascii: "A")...UInt8(ascii: "Z") { set[Int(b >> 3)] &= ~(1 << (b & 7)) }
        }
        rule.kind = .chars
        rule.charSet = set
        (rule.minLength, rule.maxLength) = (1, 1)
        guard i < to else { return }
        if bytes[i] == ASCII.plus && i + 1 == to {
            rule.maxLength = .max
            return
        }
        guard bytes[i] == ASCII.openBrace, bytes[to - 1] == ASCII.closeBrace else {
            throw fail(i, "after a character class: '+', '{m}', '{m,}' or '{m,n}' (a parameter takes at least one byte)")
        }
        func number(_ s: Int, _ e: Int) throws(RouterError) -> Int32 {
            guard e > s, e - s <= 6, bytes[s..<e].allSatisfy(ASCII.isDigit) else { throw fail(s, "expected a count in '{m,n}'") }
            return Int32(String(decoding: bytes[s..<e], as: UTF8.self)) ?? 0
        }
        let inner = i + 1, close = to - 1
        if let comma = bytes[inner..<close].firstIndex(of: 0x2C) {
            rule.minLength = try number(inner, comma)
            rule.maxLength = comma + 1 == close ? .max : try number(comma + 1, close)
        } else {
            rule.minLength = try number(inner, close)
            rule.maxLength = rule.minLength
        }
        guard rule.minLength >= 1 else { throw fail(inner, "a parameter takes at least one byte: the count starts at 1") }
        guard rule.maxLength >= rule.minLength else { throw fail(inner, "'{m,n}' needs m ≤ n") }
    }
}

/// A rewrite target (SPEC §5), parsed once when its rule is added and expanded in one pass.
///
/// ```
/// $N        capture N (0–99, two digits taken greedily: $12 is group 12); an unset group gives ""
/// ${N}      capture N, any number of digits, leading zeros ignored (so "$1" followed by "2" is written "${1}2")
/// ${name}   named capture (with duplicate names, the first group that is set)
/// $scheme $host $port $path $query $fragment $url     parts of the original URL, as written
/// $$…       the same, percent-encoded (RFC 3986 strict: all but A–Z a–z 0–9 - . _ ~ becomes %XX)
/// $#…       the same, percent-decoded (a %XX run that is malformed or not UTF-8 is kept as written, and %00)
/// \$  a literal "$"      \\  a literal "\"      \ before anything else is kept as written
/// ```
///
/// Substituted text is never scanned again: `$1` whose value is `$2` gives `$2`.
package final class RewriteTemplate: @unchecked Sendable {
    // SAFETY: every stored property is set in `init` and only read afterwards; the buffers belong to this
    // object (allocated in `init`, freed in `deinit`) and are never written after `init`, so threads share
    // immutable memory. A class with raw buffers, not arrays, so that the hot path neither copies nor
    // reference-counts anything.
    package enum Mode: UInt8, Sendable, BitwiseCopyable {
        case raw, encode, decode
    }

    /// The parts of the original URL a template can name (`$scheme` ... `$url`), as written in the URL.
    package enum Part: UInt8, Sendable, CaseIterable {
        case scheme, host, port, path, query, fragment, url

        var word: String {
            switch self {
            case .scheme: "scheme"
            case .host: "host"
            case .port: "port"
            case .path: "path"
            case .query: "query"
            case .fragment: "fragment"
            case .url: "url"
            }
        }
    }

    /// One step of the expansion.
    struct Piece: BitwiseCopyable, Sendable {
        enum Kind: UInt8, BitwiseCopyable { case literal, group, named, part }
        var kind: Kind
        var mode: Mode
        /// literal: start in `literals`; group: the number; named: the name's index in `names`; part: the Part.
        var a: Int32
        /// literal: length.
        var b: Int32
    }

    /// A distinct name's groups: a range of `namedGroups`.
    struct NameRange: BitwiseCopyable, Sendable {
        var start: Int32
        var count: Int32
    }

    /// The template as given.
    package let text: String
    /// One allocation holding `pieces`, `names`, `namedGroups` and `literals`, in that order: expanding reads
    /// one or two cache lines, not four allocations (with a thousand rules, the template that fires is cold).
    private let block: UnsafeMutableRawPointer
    private let pieces: UnsafeMutableBufferPointer<Piece>
    /// Literal text with escapes removed; literal pieces are ranges of it.
    private let literals: UnsafeMutableBufferPointer<UInt8>
    /// The distinct names of the `${name}` references: each a range of `namedGroups` (start, count).
    private let names: UnsafeMutableBufferPointer<NameRange>
    /// The group numbers of each distinct name, once per name however often it is referenced, flat.
    private let namedGroups: UnsafeMutableBufferPointer<Int32>
    /// Whether a `$scheme`... word appears (the URL is parsed only then).
    private let usesParts: Bool
    /// Ovector pairs the expansion reads: the highest group referenced, plus one.
    package let groupsNeeded: Int

    /// Parses `target` against `regex` (for its capture count and group names). Throws `.pattern` with the
    /// byte offset of the offending `$` (or of the end) for a malformed template.
    package init(_ target: String, regex: Regex) throws(RouterError) {
        let bytes = Array(target.utf8)
        let n = bytes.count
        var pieces: [Piece] = []
        var literals: [UInt8] = []
        var named: [Int32] = []
        var names: [NameRange] = []
        var nameIndex: [ArraySlice<UInt8>: Int32] = [:]  // a name's index in `names`
        var usesParts = false
        var maxGroup = 0

        func fail(_ offset: Int, _ reason: String) -> RouterError {
            RouterError(.pattern, "malformed rewrite target '\(excerpt(target))' at byte \(offset): \(reason)", offset: offset)
        }
        func addLiteral(_ byte: UInt8) {
            if let last = pieces.last, last.kind == .literal, Int(last.a) &+ Int(last.b) == literals.count {
                pieces[pieces.count &- 1].b &+= 1
            } else {
                pieces.append(Piece(kind: .literal, mode: .raw, a: Int32(truncatingIfNeeded: literals.count), b: 1))
            }
            literals.append(byte)
        }
        /// `number` as written: a `${N}` too long for an Int is reported as it stands.
        func noSuchGroup(_ number: String, at offset: Int) -> RouterError {
            fail(offset, "group \(number) does not exist: the regex has \(regex.captureCount) capture group"
                 + (regex.captureCount == 1 ? "" : "s"))
        }
        func group(_ number: Int, at offset: Int, _ mode: Mode) throws(RouterError) {
            guard number <= regex.captureCount else { throw noSuchGroup(String(number), at: offset) }
            maxGroup = max(maxGroup, number)
            pieces.append(Piece(kind: .group, mode: mode, a: Int32(truncatingIfNeeded: number), b: 0))
        }

        var i = 0
        while i < n {
            let b = bytes[i]
            if b == ASCII.backslash {
                if i &+ 1 < n && (bytes[i &+ 1] == ASCII.dollar || bytes[i &+ 1] == ASCII.backslash) {
                    addLiteral(bytes[i &+ 1])
                    i &+= 2
                } else {
                    addLiteral(b)
                    i &+= 1
                }
                continue
            }
            guard b == ASCII.dollar else {
                addLiteral(b)
                i &+= 1
                continue
            }
            let start = i
            i &+= 1
            var mode = Mode.raw
            if i < n && bytes[i] == ASCII.dollar {
                mode = .encode
                i &+= 1
            } else if i < n && bytes[i] == ASCII.hash {
                mode = .decode
                i &+= 1
            }
            guard i < n else {
                throw fail(start, "'\(excerpt(String(decoding: bytes[start..<n], as: UTF8.self)))' at the end of the target"
                           + " (write \\$ for a literal dollar)")
            }
            let c = bytes[i]
            if ASCII.isDigit(c) {
                var number = Int(c &- 0x30)
                i &+= 1
                if i < n && ASCII.isDigit(bytes[i]) {
                    number = number &* 10 &+ Int(bytes[i] &- 0x30)
                    i &+= 1
                }
                try group(number, at: start, mode)
            } else if c == ASCII.openBrace {
                var close = i &+ 1
                while close < n && bytes[close] != ASCII.closeBrace { close &+= 1 }
                guard close < n else { throw fail(start, "'${' is not closed by '}'") }
                let name = bytes[(i &+ 1)..<close]
                guard !name.isEmpty else { throw fail(start, "'${}' names no group") }
                if name.allSatisfy(ASCII.isDigit) {
                    // Leading zeros are no digits of the number: "${0001}" is group 1.
                    let digits = name.drop { $0 == ASCII.zero }
                    guard digits.count <= 5, let number = digits.isEmpty ? 0 : Int(String(decoding: digits, as: UTF8.self)) else {
                        throw noSuchGroup(String(decoding: name, as: UTF8.self), at: start)
                    }
                    try group(number, at: start, mode)
                } else if let index = nameIndex[name] {
                    pieces.append(Piece(kind: .named, mode: mode, a: index, b: 0))
                } else {
                    // A name's groups are looked up and stored once: with (?J) a name may have thousands of groups,
                    // and a target may name it thousands of times.
                    let groups = name.withUnsafeBufferPointer { regex.groups(named: ByteSpan(start: $0.baseAddress, count: $0.count)) }
                    guard let highest = groups.last else {
                        throw fail(start, "the regex has no group named '\(excerpt(String(decoding: name, as: UTF8.self)))'")
                    }
                    maxGroup = max(maxGroup, highest)
                    let index = Int32(truncatingIfNeeded: names.count)
                    nameIndex[name] = index
                    names.append(NameRange(start: Int32(truncatingIfNeeded: named.count), count: Int32(truncatingIfNeeded: groups.count)))
                    named.append(contentsOf: groups.map { Int32(truncatingIfNeeded: $0) })
                    pieces.append(Piece(kind: .named, mode: mode, a: index, b: 0))
                }
                i = close &+ 1
            } else if ASCII.isNameByte(c) {
                var end = i
                while end < n && ASCII.isNameByte(bytes[end]) { end &+= 1 }
                let word = String(decoding: bytes[i..<end], as: UTF8.self)
                guard let part = Part.allCases.first(where: { $0.word == word }) else {
                    throw fail(start, "unknown word '$\(word)' (expected a group number, ${name}, $scheme, $host, "
                               + "$port, $path, $query, $fragment or $url; write \\$ for a literal dollar)")
                }
                usesParts = true
                pieces.append(Piece(kind: .part, mode: mode, a: Int32(part.rawValue), b: 0))
                i = end
            } else {
                throw fail(start, "'$' must be followed by a group number, {name} or a URL part"
                           + " (write \\$ for a literal dollar)")
            }
        }
        self.text = target
        // Every stride is a multiple of 4 but the bytes', which come last, so each part starts aligned.
        let size = pieces.count &* MemoryLayout<Piece>.stride &+ names.count &* MemoryLayout<NameRange>.stride
            &+ named.count &* MemoryLayout<Int32>.stride &+ literals.count
        block = .allocate(byteCount: max(size, 1), alignment: max(MemoryLayout<Piece>.alignment, MemoryLayout<NameRange>.alignment))
        var at = block
        self.pieces = RewriteTemplate.place(pieces, &at)
        self.names = RewriteTemplate.place(names, &at)
        self.namedGroups = RewriteTemplate.place(named, &at)
        self.literals = RewriteTemplate.place(literals, &at)
        self.usesParts = usesParts
        self.groupsNeeded = maxGroup &+ 1
    }

    deinit {
        // SAFETY: allocated in `init`, owned by this object alone, freed once; no expansion can be running
        // because every caller holds a strong reference to the template (or to the rule set holding it) while
        // expanding. The parts are plain values (nothing to deinitialize).
        block.deallocate()
    }

    /// Copies `array` to `at` (aligned for `T`, with room for it) and moves `at` past it.
    private static func place<T: BitwiseCopyable>(_ array: [T], _ at: inout UnsafeMutableRawPointer) -> UnsafeMutableBufferPointer<T> {
        // SAFETY: `init` sized the block for every part and places them in order, each at an offset aligned for
        // its type; the regions do not overlap, so each is bound to one type only.
        let buffer = UnsafeMutableBufferPointer(start: at.bindMemory(to: T.self, capacity: array.count), count: array.count)
        for (i, v) in array.enumerated() { buffer.initializeElement(at: i, to: v) }
        at += array.count &* MemoryLayout<T>.stride
        return buffer
    }

    // MARK: Expansion

    /// Writes the expansion for the match held in `scratch` (whose subject is `url`). Throws `.limit` when the
    /// result is longer than `maxLength` (the router's URL limit), and stops writing there.
    @inline(__always)
    package func expand(url: ByteSpan, scratch: RegexScratch, into out: inout ByteWriter, maxLength: Int) throws(RouterError) {
        guard layout.write(url: url, scratch: scratch, into: &out, maxLength: maxLength) else { throw tooLong(maxLength) }
    }

    /// What expanding reads, as a value: `RewriteRules` keeps its templates' side by side, so that the one that
    /// fires is expanded without reading its object first. Valid as long as the template it came from.
    package struct Layout: BitwiseCopyable {
        fileprivate let pieces: UnsafeMutableBufferPointer<Piece>
        fileprivate let literals: UnsafeMutableBufferPointer<UInt8>
        fileprivate let names: UnsafeMutableBufferPointer<NameRange>
        fileprivate let namedGroups: UnsafeMutableBufferPointer<Int32>
        fileprivate let usesParts: Bool
    }

    package var layout: Layout {
        Layout(pieces: pieces, literals: literals, names: names, namedGroups: namedGroups, usesParts: usesParts)
    }

    /// The error `expand` throws when `Layout.write` returns false.
    package func tooLong(_ maxLength: Int) -> RouterError {
        .limit("rewritten URL would be longer than maxURLLength (LR_LIMIT_URL_LENGTH, \(maxLength) bytes); rule target '\(excerpt(text))'")
    }

    /// How many group numbers the template stores for its `${name}` references (each distinct name's once).
    package var storedGroupNumbers: Int { namedGroups.count }
    /// How many distinct names its `${name}` references use.
    package var distinctNames: Int { names.count }
}

extension RewriteTemplate.Layout {
    /// `expand`'s work: false when the result would be longer than `maxLength`, writing stopped there.
    @inline(__always)
    package func write(url: ByteSpan, scratch: RegexScratch, into out: inout ByteWriter, maxLength: Int) -> Bool {
        let parts = usesParts ? (URLParts.parse(url, requireScheme: false) ?? URLParts()) : URLParts()
        // Each distinct name resolved once for this match (its first group that is set; -1: none), not once per
        // reference. Without room for that (an allocation failed), each reference walks its name's groups.
        let resolved = names.isEmpty ? nil : scratch.nameSlots(names.count)
        if let resolved {
            for k in 0..<names.count { resolved[k] = firstSetGroup(names[k], scratch) }
        }
        let mark = out.count
        let lit = literals.baseAddress
        for piece in pieces {
            let value: ByteSpan
            switch piece.kind {
            case .literal:
                out.append(ByteSpan(start: lit.map { UnsafePointer($0 + Int(piece.a)) }, count: Int(piece.b)))
                if out.count &- mark > maxLength { return false }
                continue
            case .group:
                value = scratch.group(Int(piece.a)) ?? .empty
            case .named:
                let index = Int(piece.a)
                let number = resolved.map { $0[index] } ?? (index < names.count ? firstSetGroup(names[index], scratch) : -1)
                value = scratch.group(Int(number)) ?? .empty
            case .part:
                value = partValue(RewriteTemplate.Part(rawValue: UInt8(truncatingIfNeeded: piece.a)) ?? .url, parts, url)
            }
            switch piece.mode {
            case .raw: out.append(value)
            case .encode: percentEncode(value, into: &out)
            case .decode: appendDecodedRuns(value, into: &out)
            }
            if out.count &- mark > maxLength { return false }
        }
        return true
    }

    /// The number of the first group of a name that is set in the match, or -1 when none is.
    @inline(__always) private func firstSetGroup(_ name: RewriteTemplate.NameRange, _ scratch: RegexScratch) -> Int32 {
        var k = Int(name.start)
        let end = k &+ Int(name.count)
        while k < end && k < namedGroups.count {
            if scratch.group(Int(namedGroups[k])) != nil { return namedGroups[k] }
            k &+= 1
        }
        return -1
    }

    @inline(__always) private func partValue(_ part: RewriteTemplate.Part, _ parts: URLParts, _ url: ByteSpan) -> ByteSpan {
        switch part {
        case .scheme: parts.scheme(in: url)
        case .host: parts.host(in: url)
        case .port: parts.port(in: url)
        case .path: parts.path(in: url)
        case .query: parts.query(in: url)
        case .fragment: parts.fragment(in: url)
        case .url: url
        }
    }
}

// MARK: - Decoding

/// Writes `src` with each run of `%XX` escapes decoded, when the run decodes to UTF-8; a run that does not,
/// and a malformed `%` (not followed by two hex digits), are kept as written, and so is `%00`. `+` stays `+`.
///
/// Runs are decoded one by one (not the whole value at once) so that one stray `%` in a query does not keep
/// the rest of it encoded: `$#query` of `q=100%&n=%E5%8E%9F` gives `q=100%&n=原`.
func appendDecodedRuns(_ src: ByteSpan, into out: inout ByteWriter) {
    guard let s = src.start, src.count > 0 else { return }
    let n = src.count
    // Most values have no escape: found eight bytes at a time, then copied whole.
    guard contains(s, n, ASCII.percent) else {
        out.append(src)
        return
    }
    var i = 0
    var plainStart = 0
    while i < n {
        guard s[i] == ASCII.percent, isEscape(s, i, n) else {
            i &+= 1
            continue
        }
        // A run of escapes starts at i.
        var end = i
        var utf8 = UTF8Check()
        while end < n && s[end] == ASCII.percent && isEscape(s, end, n) {
            utf8.feed(escapeValue(s, end))
            end &+= 3
        }
        out.append(ByteSpan(start: s + plainStart, count: i &- plainStart))
        if utf8.isComplete {
            var k = i
            while k < end {
                // %00 stays as written: a NUL in the rewritten URL would cut it short in every C string that
                // reports it (lr_router_rewrite, lr_match_rewritten) and route it apart from what they show.
                let v = escapeValue(s, k)
                if v == 0 { out.append(ByteSpan(start: s + k, count: 3)) } else { out.append(v) }
                k &+= 3
            }
        } else {
            out.append(ByteSpan(start: s + i, count: end &- i))
        }
        i = end
        plainStart = end
    }
    out.append(ByteSpan(start: s + plainStart, count: n &- plainStart))
}

@inline(__always) private func isEscape(_ s: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> Bool {
    i &+ 2 < n && ASCII.hexValue(s[i &+ 1]) != 0xFF && ASCII.hexValue(s[i &+ 2]) != 0xFF
}

@inline(__always) private func escapeValue(_ s: UnsafePointer<UInt8>, _ i: Int) -> UInt8 {
    ASCII.hexValue(s[i &+ 1]) &<< 4 | ASCII.hexValue(s[i &+ 2])
}

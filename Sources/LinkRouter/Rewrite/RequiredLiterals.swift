/// A conservative reading of a PCRE2 pattern: what text every match must contain.
///
/// The pattern is parsed as alternatives of concatenations. In a concatenation, a literal run (ASCII
/// lower-cased) is required; an atom followed by `?`, `*` or a `{…}` whose minimum may be 0 is dropped, and
/// `+` / `{n,…}` end the run after the atom. A group is read recursively (`(…)`, `(?:…)`, `(?<name>…)`,
/// `(?>…)`, `(?|…)`, `(?i:…)`) and, unless it may repeat zero times, adds what its alternatives need
/// ("one of" when there are several); lookarounds add nothing. Classes, `.`, anchors and escapes such as `\d`
/// end a run; `\E` outside `\Q…\E` and an empty `\Q\E` are skipped as PCRE2 skips them (a quantifier after
/// them applies to the atom before them); an escape whose length the scan does not know (`\x{…}`, `\p{…}`, back
/// references…) stops literals for the rest of its concatenation. A leading `(?i)` (or `(?i:`) makes the scan drop `i`, `k`, `s`
/// and non-ASCII characters, which have case variants outside ASCII (K is also U+212A). Anything else it does
/// not fully understand — other option settings, verbs `(*…)`, comments, conditionals, recursion — gives nil:
/// the rule is tried for every URL.
enum RequiredLiterals {
    /// Something every match contains.
    indirect enum Need: Sendable, Equatable {
        /// A literal run of three bytes or more, as the gram keys it could be filed under (any one suffices).
        case grams([UInt64], text: [UInt8])
        /// One of these alternatives, each a list of needs that all hold.
        case anyOf([[Need]])

        func collectKeys(into keys: inout Set<UInt64>) {
            switch self {
            case .grams(let k, _): keys.formUnion(k)
            case .anyOf(let alternatives): for a in alternatives { for n in a { n.collectKeys(into: &keys) } }
            }
        }

        /// A readable form for tests: a run as its text, "one of" as `(a b|c)`.
        var description: String {
            switch self {
            case .grams(_, let text): String(decoding: text, as: UTF8.self)
            case .anyOf(let alternatives):
                "(" + alternatives.map { $0.map(\.description).joined(separator: " ") }.joined(separator: "|") + ")"
            }
        }
    }

    static let tag3: UInt64 = 3
    static let tag4: UInt64 = 4

    @inline(__always) static func key3(_ w: UInt32) -> UInt64 { UInt64(w & 0xFF_FFFF) | tag3 &<< 32 }
    @inline(__always) static func key4(_ w: UInt32) -> UInt64 { UInt64(w) | tag4 &<< 32 }

    /// Grams that almost every URL contains: filed under one of them, a rule would be tried for every URL.
    private static let commonGrams: [UInt64] = {
        var set = Set<UInt64>()
        for g in ["http", "ttp:", "tp:/", "p://", "ttps", "tps:", "ps:/", "s://", "www.", ".com", "com/", "/www",
                  "//ww", "html", ".htm", "?utm", "utm_"] {
            let b = Array(g.utf8)
            set.insert(key4(UInt32(b[0]) &<< 24 | UInt32(b[1]) &<< 16 | UInt32(b[2]) &<< 8 | UInt32(b[3])))
        }
        for g in ["://", "htt", "ttp", "tps", "www", "com", "ww.", ".co", "om/", "/ww", "//w"] {
            let b = Array(g.utf8)
            set.insert(key3(UInt32(b[0]) &<< 16 | UInt32(b[1]) &<< 8 | UInt32(b[2])))
        }
        return set.sorted()
    }()

    /// The cost of filing a rule under `key`: how many rules share it, and more for grams most URLs contain
    /// or that are only three bytes long.
    @inline(__always) static func cost(_ key: UInt64, _ frequency: GramCounts) -> Int {
        var c = frequency[key]
        if key &>> 32 == tag3 { c &+= 4 }
        if isCommon(key) { c &+= 10_000 }
        return c
    }

    @inline(__always) private static func isCommon(_ key: UInt64) -> Bool {
        var lo = 0, hi = commonGrams.count
        while lo < hi {
            let mid = (lo &+ hi) / 2
            if commonGrams[mid] < key { lo = mid &+ 1 } else { hi = mid }
        }
        return lo < commonGrams.count && commonGrams[lo] == key
    }

    /// Every gram key in `needs`, once each, sorted.
    static func keys(_ needs: [Need]) -> [UInt64] {
        var keys = Set<UInt64>()
        for need in needs { need.collectKeys(into: &keys) }
        return keys.sorted()
    }

    /// The cheapest set of grams such that every match contains one of them, or nil when there is none.
    static func cheapest(_ needs: [Need], _ frequency: GramCounts, allow3: Bool) -> (keys: [UInt64], cost: Int)? {
        var best: (keys: [UInt64], cost: Int)? = nil
        for need in needs {
            guard let option = cheapest(need, frequency, allow3: allow3) else { continue }
            if best == nil || option.cost < (best?.cost ?? Int.max) { best = option }
        }
        return best
    }

    private static func cheapest(_ need: Need, _ frequency: GramCounts, allow3: Bool) -> (keys: [UInt64], cost: Int)? {
        switch need {
        case .grams(let keys, _):
            var best: (keys: [UInt64], cost: Int)? = nil
            for key in keys where allow3 || key &>> 32 != tag3 {
                let c = cost(key, frequency)
                if best == nil || c < (best?.cost ?? Int.max) { best = ([key], c) }
            }
            return best
        case .anyOf(let alternatives):
            var keys: [UInt64] = []
            var total = 0
            for alternative in alternatives {
                guard let option = cheapest(alternative, frequency, allow3: allow3) else { return nil }
                keys.append(contentsOf: option.keys)
                total = total &+ option.cost
            }
            return keys.isEmpty ? nil : (keys, total)
        }
    }

    /// What every match of `pattern` contains; empty when nothing is known for sure (an always-candidate).
    static func needs(_ pattern: String) -> [Need] {
        var scanner = Scanner(Array(pattern.utf8))
        return scanner.pattern() ?? []
    }

    /// Most 4-grams kept for one literal run. Every match contains the whole run, so any one of its grams
    /// suffices: a long run keeps a sample spread evenly across it. Keeping every gram made the index's keys grow
    /// with the literals' length, and the index is rebuilt over all keys at each change (100 rules of 20 KB
    /// literals took 9.7 s to add one by one; 0.94 s with this cap). Runs up to 67 bytes, what real rules have,
    /// keep every gram: the rarest, which the index files a rule under, is then always there. (A cap of 16 cut
    /// runs of 20 bytes and more, and with 1,000 FFRouter-style rules the regexes run per URL went from 0.92 to
    /// 1.77, `linkrouter bench rewrite`.)
    static let maxGramsPerRun = 64

    /// The gram keys of a literal run: its 4-grams (at most `maxGramsPerRun`, spread across the run), or the
    /// 3-gram of a three-byte run; nil when shorter.
    static func need(forRun run: [UInt8]) -> Need? {
        if run.count == 3 {
            return .grams([key3(UInt32(run[0]) &<< 16 | UInt32(run[1]) &<< 8 | UInt32(run[2]))], text: run)
        }
        guard run.count >= 4 else { return nil }
        let grams = run.count &- 3  // 4-grams, starting at 0..<grams
        let kept = min(grams, maxGramsPerRun)
        var keys = Set<UInt64>()
        for k in 0..<kept {
            // Evenly spread starts, the first and the last gram included.
            let at = kept == 1 ? 0 : k &* (grams &- 1) / (kept &- 1)
            keys.insert(key4(UInt32(run[at]) &<< 24 | UInt32(run[at &+ 1]) &<< 16 | UInt32(run[at &+ 2]) &<< 8
                             | UInt32(run[at &+ 3])))
        }
        return .grams(keys.sorted(), text: run)
    }

    struct Scanner {
        private let p: [UInt8]
        private var i = 0
        private var n: Int { p.count }

        init(_ p: [UInt8]) { self.p = p }

        /// The whole pattern; nil when the scanner is unsure.
        mutating func pattern() -> [Need]? {
            var caseless = false
            if starts(with: "(?i)") {
                caseless = true
                i = 4
            }
            guard let alternatives = alternation(caseless: caseless, nested: false) else { return nil }
            return RequiredLiterals.combine(alternatives)
        }

        private func starts(with text: StaticString) -> Bool {
            let t = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
            guard i &+ t.count <= n else { return false }
            for k in 0..<t.count where p[i &+ k] != t[k] { return false }
            return true
        }

        /// Alternatives up to the end (top level) or to the `)` that closes the group (nested), consumed.
        private mutating func alternation(caseless: Bool, nested: Bool) -> [[Need]]? {
            var alternatives: [[Need]] = []
            while true {
                guard let needs = concatenation(caseless: caseless) else { return nil }
                alternatives.append(needs)
                if i < n && p[i] == ASCII.pipe {
                    i &+= 1
                    continue
                }
                if nested {
                    guard i < n && p[i] == ASCII.closeParen else { return nil }
                    i &+= 1
                } else if i < n {
                    return nil  // a ")" with no "(": PCRE2 would not have compiled it
                }
                return alternatives
            }
        }

        /// One alternative: up to `|`, `)` or the end (not consumed).
        private mutating func concatenation(caseless: Bool) -> [Need]? {
            var needs: [Need] = []
            var run: [UInt8] = []
            var atomStart = -1  // where the last atom starts in `run`; -1 when the last item was no literal
            // After an escape of unknown length, its tail ("41" of \x41) could pass for literal text: no more
            // literal runs in this concatenation. Groups are still read: such escapes hold no ( ) | [.
            var blind = false
            func endRun() {
                if let need = RequiredLiterals.need(forRun: run) { needs.append(need) }
                run = []
                atomStart = -1
            }
            while i < n {
                let b = p[i]
                switch b {
                case ASCII.pipe, ASCII.closeParen:
                    endRun()
                    return needs
                case ASCII.openParen:
                    endRun()
                    guard let group = group(caseless: caseless) else { return nil }
                    var required = group.required
                    i = skipIgnored(i)  // "(abcd)\E?": the quantifier applies to the group
                    if i < n, let q = quantifier(i) {
                        i = q.end
                        if q.minZero { required = false }
                    }
                    if required { needs.append(contentsOf: RequiredLiterals.combine(group.alternatives)) }
                case ASCII.openBracket:
                    endRun()
                    guard let end = skipClass(i) else { return nil }
                    i = end
                case ASCII.dot, ASCII.caret, ASCII.dollar:
                    endRun()
                    i &+= 1
                case ASCII.question, ASCII.asterisk, ASCII.plus, ASCII.openBrace:
                    guard let q = quantifier(i) else {
                        // A "{" that is no quantifier is a literal "{"; not worth keeping.
                        endRun()
                        i &+= 1
                        continue
                    }
                    if atomStart >= 0 && q.minZero { run.removeSubrange(atomStart...) }
                    endRun()
                    i = q.end
                case ASCII.backslash:
                    guard i &+ 1 < n else { return nil }
                    let c = p[i &+ 1]
                    if ignored(at: i) > 0 {
                        // "\E" outside "\Q…\E" and an empty "\Q\E": PCRE2 ignores them, so a quantifier after them
                        // applies to the atom before them ("abcd\E?" is "abcd?"). The run and its last atom go on.
                        i = skipIgnored(i)
                    } else if c >= 0x80 {  // an escaped non-ASCII character: skip it whole
                        endRun()
                        blind = true
                        i &+= 1 &+ (c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2)
                    } else if !ASCII.isAlphaNumeric(c) {
                        if blind {
                            endRun()
                        } else {
                            atomStart = run.count
                            run.append(ASCII.lowercased(c))
                        }
                        i &+= 2
                    } else if c == 0x51 {  // \Q…\E: literal text, not kept
                        endRun()
                        i &+= 2
                        while i < n && !(p[i] == ASCII.backslash && i &+ 1 < n && p[i &+ 1] == 0x45) { i &+= 1 }
                        i = min(n, i &+ 2)
                    } else if c == 0x63 {  // \c X: a control character; X may be any ASCII byte
                        endRun()
                        i &+= 3
                    } else if RequiredLiterals.twoByteEscapes.contains(c) {
                        endRun()
                        i &+= 2
                        // "\d{2}" is a quantifier; any other "{…}" after an escape ("\b{wb}") is not one we know.
                        if i < n && p[i] == ASCII.openBrace && quantifier(i) == nil { blind = true }
                    } else {
                        // \x{…} \o{…} \p{…} \N{…} \g… \k… digits…: one atom of a length this scan does not know.
                        endRun()
                        blind = true
                        i &+= 2
                    }
                default:
                    let length = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 0
                    guard length > 0, i &+ length <= n else { return nil }
                    if blind || (caseless && (b >= 0x80 || RequiredLiterals.caseTroubled(b))) {
                        endRun()
                    } else {
                        atomStart = run.count
                        for k in 0..<length { run.append(ASCII.lowercased(p[i &+ k])) }
                    }
                    i &+= length
                }
            }
            endRun()
            return needs
        }

        /// The length of a sequence PCRE2 ignores at `at`: 2 for "\E" outside "\Q…\E", 4 for an empty "\Q\E"; else 0.
        private func ignored(at: Int) -> Int {
            guard at &+ 1 < n, p[at] == ASCII.backslash else { return 0 }
            if p[at &+ 1] == 0x45 { return 2 }  // \E
            if p[at &+ 1] == 0x51, at &+ 3 < n, p[at &+ 2] == ASCII.backslash, p[at &+ 3] == 0x45 { return 4 }  // \Q\E
            return 0
        }

        /// The index after any run of sequences PCRE2 ignores (`ignored(at:)`) starting at `at`.
        private func skipIgnored(_ at: Int) -> Int {
            var k = at
            while true {
                let length = ignored(at: k)
                if length == 0 { return k }
                k &+= length
            }
        }

        /// The group opening at `i`, consumed with its `)`: its alternatives and whether the match must contain
        /// them (false for lookarounds). nil for kinds the scan avoids.
        private mutating func group(caseless: Bool) -> (alternatives: [[Need]], required: Bool)? {
            guard i &+ 1 < n else { return nil }
            var required = true
            var inner = caseless
            if p[i &+ 1] == ASCII.asterisk { return nil }  // (*VERB), (*ACCEPT): may end the match early
            if p[i &+ 1] != ASCII.question {
                i &+= 1
            } else {
                guard i &+ 2 < n else { return nil }
                let c = p[i &+ 2]
                switch c {
                case ASCII.colon, ASCII.greater, ASCII.pipe:
                    i &+= 3
                case ASCII.equals, ASCII.exclamation:
                    required = false
                    i &+= 3
                case ASCII.less:
                    guard i &+ 3 < n else { return nil }
                    let d = p[i &+ 3]
                    if d == ASCII.equals || d == ASCII.exclamation {
                        required = false
                        i &+= 4
                    } else if ASCII.isAlpha(d) || d == ASCII.underscore {
                        guard skipName(from: i &+ 3, close: ASCII.greater) else { return nil }
                    } else {
                        return nil
                    }
                case 0x50:  // (?P<name>
                    guard i &+ 3 < n, p[i &+ 3] == ASCII.less, skipName(from: i &+ 4, close: ASCII.greater) else { return nil }
                case ASCII.apostrophe:
                    guard skipName(from: i &+ 3, close: ASCII.apostrophe) else { return nil }
                case 0x69:  // (?i:
                    guard starts(with: "(?i:") else { return nil }
                    inner = true
                    i &+= 4
                default:
                    return nil  // options, comments, conditionals, recursion, callouts
                }
            }
            guard let alternatives = alternation(caseless: inner, nested: true) else { return nil }
            return (alternatives, required)
        }

        /// Skips a group name starting at `from` and its closing byte; false when it is not a plain name.
        private mutating func skipName(from: Int, close: UInt8) -> Bool {
            var k = from
            while k < n && ASCII.isNameByte(p[k]) { k &+= 1 }
            guard k > from, k < n, p[k] == close else { return false }
            i = k &+ 1
            return true
        }

        /// A quantifier starting at `at`: where it ends (lazy `?` / possessive `+` included) and whether its
        /// minimum may be 0. nil for a `{` that is no quantifier in any PCRE2 version.
        private func quantifier(_ at: Int) -> (end: Int, minZero: Bool)? {
            var end: Int
            var minZero: Bool
            switch p[at] {
            case ASCII.question, ASCII.asterisk:
                end = at &+ 1
                minZero = true
            case ASCII.plus:
                end = at &+ 1
                minZero = false
            case ASCII.openBrace:
                // Digits, commas and spaces up to "}" may be a quantifier (10.43 allows "{,n}" and spaces).
                var j = at &+ 1
                while j < n && (ASCII.isDigit(p[j]) || p[j] == ASCII.comma || p[j] == ASCII.space) { j &+= 1 }
                guard j < n, p[j] == ASCII.closeBrace, j > at &+ 1 else { return nil }
                // A minimum above 0 only for the plain form "{d…" with a non-zero leading number.
                var k = at &+ 1
                var minimum = 0
                while k < j && ASCII.isDigit(p[k]) {
                    minimum = min(minimum &* 10 &+ Int(p[k] &- 0x30), 1 << 20)
                    k &+= 1
                }
                minZero = k == at &+ 1 || minimum == 0
                end = j &+ 1
            default:
                return nil
            }
            if end < n && (p[end] == ASCII.question || p[end] == ASCII.plus) { end &+= 1 }
            return (end, minZero)
        }

        /// The index just after the class opening at `at` ("["), or nil when it cannot be delimited for sure.
        private func skipClass(_ at: Int) -> Int? {
            var j = at &+ 1
            if j < n && p[j] == ASCII.caret { j &+= 1 }
            if j < n && p[j] == ASCII.closeBracket { j &+= 1 }  // a "]" first is literal
            while j < n {
                switch p[j] {
                case ASCII.backslash:
                    guard j &+ 1 < n else { return nil }
                    if p[j &+ 1] == 0x51 || p[j &+ 1] == 0x63 { return nil }  // \Q, \c inside a class
                    j &+= 2
                case ASCII.openBracket:
                    guard j &+ 1 < n else { return nil }
                    let c = p[j &+ 1]
                    if c == ASCII.dot || c == ASCII.equals { return nil }
                    if c != ASCII.colon {
                        j &+= 1
                        continue
                    }
                    // "[:name:]": the first "]" must close it, right after a ":".
                    var k = j &+ 2
                    while k < n && p[k] != ASCII.closeBracket {
                        if p[k] == ASCII.openBracket || p[k] == ASCII.backslash { return nil }
                        k &+= 1
                    }
                    guard k < n, k > j &+ 2, p[k &- 1] == ASCII.colon else { return nil }
                    j = k &+ 1
                case ASCII.closeBracket:
                    return j &+ 1
                default:
                    j &+= 1
                }
            }
            return nil
        }
    }

    /// What a set of alternatives needs: the needs of the only one, or "one of" them all.
    static func combine(_ alternatives: [[Need]]) -> [Need] {
        if alternatives.count == 1 { return alternatives[0] }
        if alternatives.contains(where: \.isEmpty) { return [] }  // an alternative that needs nothing
        return [.anyOf(alternatives)]
    }

    /// Escapes two bytes long that stand for a character type, a single character or an assertion.
    fileprivate static let twoByteEscapes: Set<UInt8> = Set("dDsSwWhHvVRXbBAzZGKntrfea".utf8)

    /// ASCII letters whose case-insensitive matches include a non-ASCII character (U+212A KELVIN SIGN,
    /// U+017F LONG S; "i" for the Turkish dotted and dotless I of newer PCRE2 options).
    @inline(__always) fileprivate static func caseTroubled(_ b: UInt8) -> Bool {
        let l = b | 0x20
        return l == 0x6B || l == 0x73 || l == 0x69
    }
}

extension ASCII {
    static let pipe: UInt8 = 0x7C  // |
    static let openParen: UInt8 = 0x28  // (
    static let closeParen: UInt8 = 0x29  // )
    static let caret: UInt8 = 0x5E  // ^
    static let comma: UInt8 = 0x2C  // ,
    static let space: UInt8 = 0x20  // " "
    static let exclamation: UInt8 = 0x21  // !
    static let greater: UInt8 = 0x3E  // >
    static let less: UInt8 = 0x3C  // <
    static let apostrophe: UInt8 = 0x27  // '
}

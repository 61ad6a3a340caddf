/// Which rewrite rules can match a URL, found without running their regexes.
///
/// Each rule's regex is scanned (`RequiredLiterals`) for what every match must contain: literal runs, and
/// "one of" sets when the regex alternates (`(?:amazon|amzn)\.com`, or `a|b` at the top). From that, the
/// index files the rule under a few grams (four bytes of a literal, or three for a three-byte literal,
/// ASCII-lower-cased) such that every URL the regex matches contains at least one of them: one gram for a
/// literal run, one per alternative for a "one of" set, choosing the grams the fewest rules share (and
/// avoiding grams that nearly every URL has, such as `http`). A rule with nothing usable is an "always"
/// candidate.
///
/// A lookup slides over the URL's grams (lower-cased too, so a case-insensitive regex is still covered),
/// tests each against a bloom bitset and, on a hit, the gram table; every rule found, and every
/// always-candidate, gets a bit in a per-call bitset of rule ordinals on the stack. The rules are then tried
/// in ordinal (insertion) order, stopping at the first match: the same answer as trying every rule in turn.
///
/// The filter may keep a rule that cannot match (a shared gram, a bloom false positive), never drop one that
/// can: a rule is filed only under grams the scanner is sure about.
final class RewriteIndex: @unchecked Sendable {
    // SAFETY: every stored property is written in `init` and only read afterwards; the buffers are owned by
    // this object (allocated in `init`, freed in `deinit`) and never handed out, so sharing it between threads
    // is sharing immutable memory.

    /// A gram key (`RequiredLiterals.key3/key4`, never 0 thanks to its length tag) and its rules.
    private struct Slot: BitwiseCopyable {
        var key: UInt64 = 0
        var start: Int32 = 0
        var count: Int32 = 0
    }

    /// Below this many rules, trying each regex costs less than scanning the URL's grams.
    static let linearThreshold = 4
    /// Up to this many rules that need a 3-gram are tried for every URL rather than scanning for 3-grams.
    static let threeGramRules = 3

    let ruleCount: Int
    /// UInt64 words in a candidate bitset.
    let words: Int
    /// True when the rules are simply tried in order (few rules, or none with a literal).
    let linear: Bool
    /// Rules with no usable literal, as a bitset of `words` words.
    private let always: UnsafeMutableBufferPointer<UInt64>
    /// One bit per hash of a 4-gram / 3-gram that some rule is filed under (3-grams: none when `!has3`).
    private let bloom4: UnsafeMutableBufferPointer<UInt64>
    private let bloom3: UnsafeMutableBufferPointer<UInt64>
    private let shift4: UInt32
    private let shift3: UInt32
    private let has3: Bool
    private let slots: UnsafeMutableBufferPointer<Slot>
    private let slotShift: UInt64
    /// Rule ordinals, ascending within each slot.
    private let postings: UnsafeMutableBufferPointer<Int32>

    static let empty = RewriteIndex(needs: [], keys: [])

    /// `needs[i]`: what every match of rule `i` contains (`RequiredLiterals.needs`), empty for an
    /// always-candidate; `keys[i]`: every gram key in `needs[i]`, once each (`RequiredLiterals.keys`).
    init(needs: [[RequiredLiterals.Need]], keys: [[UInt64]]) {
        ruleCount = needs.count
        words = (needs.count &+ 63) / 64

        // How many rules could be filed under each gram.
        let frequency = GramCounts(capacity: keys.reduce(0) { $0 &+ $1.count })
        for ruleKeys in keys {
            for key in ruleKeys { frequency.add(key) }
        }
        // Each rule under the cheapest grams such that every match contains one of them.
        always = .allocate(capacity: max(words, 1))
        always.initialize(repeating: 0)
        var choices = needs.map { RequiredLiterals.cheapest($0, frequency, allow3: true)?.keys }
        // Scanning a URL for 3-grams too costs about as much as trying three regexes: when at most three rules
        // need a 3-gram, they are filed under 4-grams only, or tried for every URL.
        let need3 = choices.indices.filter { choices[$0]?.contains { $0 &>> 32 == RequiredLiterals.tag3 } ?? false }
        if need3.count <= RewriteIndex.threeGramRules {
            for r in need3 { choices[r] = RequiredLiterals.cheapest(needs[r], frequency, allow3: false)?.keys }
        }
        // (key, ordinal) pairs, sorted: each key's rules in insertion order.
        var pairs: [(key: UInt64, ordinal: Int32)] = []
        pairs.reserveCapacity(needs.count)
        for (ordinal, keys) in choices.enumerated() {
            if let keys {
                var previous: UInt64 = 0
                for key in keys.sorted() where key != previous {
                    pairs.append((key, Int32(truncatingIfNeeded: ordinal)))
                    previous = key
                }
            } else {
                always[ordinal &>> 6] |= 1 &<< UInt64(ordinal & 63)
            }
        }
        pairs.sort { ($0.key, $0.ordinal) < ($1.key, $1.ordinal) }
        var distinct = 0, count3 = 0
        for (i, pair) in pairs.enumerated() where i == 0 || pairs[i &- 1].key != pair.key {
            distinct &+= 1
            if pair.key &>> 32 == RequiredLiterals.tag3 { count3 &+= 1 }
        }
        linear = needs.count <= RewriteIndex.linearThreshold || distinct == 0

        // Gram table: open addressing, linear probing, at most half full.
        var slotBits = 3
        while (1 << slotBits) < distinct &* 2 && slotBits < 40 { slotBits &+= 1 }
        slots = .allocate(capacity: 1 << slotBits)
        slots.initialize(repeating: Slot())
        slotShift = UInt64(64 &- slotBits)
        // Bloom bitsets: about 32 bits per gram, so that 2 to 3 % of a URL's grams that no rule has reach the table.
        func bloomBits(_ keys: Int) -> Int {
            var bits = 9
            while (1 << bits) < keys &* 32 && bits < 22 { bits &+= 1 }
            return bits
        }
        let bits4 = bloomBits(distinct &- count3), bits3 = bloomBits(count3)
        bloom4 = .allocate(capacity: (1 << bits4) / 64)
        bloom4.initialize(repeating: 0)
        bloom3 = .allocate(capacity: (1 << bits3) / 64)
        bloom3.initialize(repeating: 0)
        shift4 = UInt32(32 &- bits4)
        shift3 = UInt32(32 &- bits3)
        has3 = count3 > 0
        postings = .allocate(capacity: max(pairs.count, 1))
        postings.initialize(repeating: -1)
        let mask = (1 << slotBits) &- 1
        var start = 0
        while start < pairs.count {
            let key = pairs[start].key
            var end = start
            while end < pairs.count && pairs[end].key == key {
                postings[end] = pairs[end].ordinal
                end &+= 1
            }
            var i = RewriteIndex.slot(key, slotShift)
            while slots[i].key != 0 { i = (i &+ 1) & mask }
            slots[i] = Slot(key: key, start: Int32(truncatingIfNeeded: start), count: Int32(truncatingIfNeeded: end &- start))
            let w = UInt32(truncatingIfNeeded: key)
            if key &>> 32 == RequiredLiterals.tag3 {
                let b = Int(RewriteIndex.hash3(w) &>> shift3)
                bloom3[b &>> 6] |= 1 &<< UInt64(b & 63)
            } else {
                let b = Int(RewriteIndex.hash4(w) &>> shift4)
                bloom4[b &>> 6] |= 1 &<< UInt64(b & 63)
            }
            start = end
        }
    }

    deinit {
        // SAFETY: allocated in `init`, owned by this object alone and freed once; no lookup can be running
        // because every lookup holds a strong reference to the rule set that holds this index.
        always.deallocate()
        bloom4.deallocate()
        bloom3.deallocate()
        slots.deallocate()
        postings.deallocate()
    }

    @inline(__always) private static func hash4(_ w: UInt32) -> UInt32 { w &* 0x9E37_79B1 }
    @inline(__always) private static func hash3(_ w: UInt32) -> UInt32 { w &* 0x85EB_CA77 }
    @inline(__always) private static func slot(_ key: UInt64, _ shift: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0xC2B2_AE3D_27D4_EB4F) &>> shift)
    }

    /// Whether rule `ordinal` is tried for every URL.
    func isAlways(_ ordinal: Int) -> Bool {
        if linear { return true }
        guard ordinal >= 0, ordinal &>> 6 < always.count else { return false }
        return always[ordinal &>> 6] & (1 &<< UInt64(ordinal & 63)) != 0
    }

    /// Sets in `bits` (`words` words) the ordinal of every rule that may match `url`, and clears the others.
    @inline(__always)
    func collect(_ url: ByteSpan, into bits: UnsafeMutablePointer<UInt64>) {
        guard let alwaysBase = always.baseAddress else { return }
        bits.update(from: alwaysBase, count: min(words, always.count))
        let n = url.count
        guard let p = url.start, n >= 3, let b4 = bloom4.baseAddress, let b3 = bloom3.baseAddress else { return }
        if has3 {
            scan(p, n, bits) { w in
                if RewriteIndex.test(b4, RewriteIndex.hash4(w) &>> shift4) { hit(RequiredLiterals.key4(w), bits) }
                let w3 = w & 0xFF_FFFF
                if RewriteIndex.test(b3, RewriteIndex.hash3(w3) &>> shift3) { hit(RequiredLiterals.key3(w3), bits) }
            }
            // The first three bytes: the only 3-gram that is no 4-gram's tail.
            let w0 = UInt32(ASCII.lowercased(p[0])) &<< 16 | UInt32(ASCII.lowercased(p[1])) &<< 8 | UInt32(ASCII.lowercased(p[2]))
            if RewriteIndex.test(b3, RewriteIndex.hash3(w0) &>> shift3) { hit(RequiredLiterals.key3(w0), bits) }
        } else {
            scan(p, n, bits) { w in
                if RewriteIndex.test(b4, RewriteIndex.hash4(w) &>> shift4) { hit(RequiredLiterals.key4(w), bits) }
            }
        }
    }

    /// Calls `probe` with every 4-gram of `p[0..<n]` (n ≥ 3), lower-cased, first byte highest. The bytes are
    /// loaded and lower-cased eight at a time.
    @inline(__always)
    private func scan(_ p: UnsafePointer<UInt8>, _ n: Int, _ bits: UnsafeMutablePointer<UInt64>, _ probe: (UInt32) -> Void) {
        var w = UInt32(ASCII.lowercased(p[0])) &<< 16 | UInt32(ASCII.lowercased(p[1])) &<< 8 | UInt32(ASCII.lowercased(p[2]))
        var i = 3
        while i &+ 8 <= n {
            let chunk = lowercasedWord(UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self))
            for k in 0..<8 {
                w = w &<< 8 | UInt32(truncatingIfNeeded: chunk &>> UInt64(8 &* k)) & 0xFF
                probe(w)
            }
            i &+= 8
        }
        if i < n {
            let chunk = lowercasedWord(loadWord(p + i, n &- i))
            for k in 0..<(n &- i) {
                w = w &<< 8 | UInt32(truncatingIfNeeded: chunk &>> UInt64(8 &* k)) & 0xFF
                probe(w)
            }
        }
    }

    @inline(__always) private static func test(_ bloom: UnsafeMutablePointer<UInt64>, _ b: UInt32) -> Bool {
        bloom[Int(b &>> 6)] & (1 &<< UInt64(b & 63)) != 0
    }

    /// The rules filed under `key` go into `bits`.
    @inline(never)
    private func hit(_ key: UInt64, _ bits: UnsafeMutablePointer<UInt64>) {
        guard let slotBase = slots.baseAddress, let postingBase = postings.baseAddress else { return }
        let mask = slots.count &- 1
        var i = RewriteIndex.slot(key, slotShift) & mask
        while slotBase[i].key != key {
            if slotBase[i].key == 0 { return }
            i = (i &+ 1) & mask
        }
        let slot = slotBase[i]
        let end = min(Int(slot.start) &+ Int(slot.count), postings.count)
        var k = Int(slot.start)
        while k < end {
            let o = Int(postingBase[k])
            if o >= 0 && o &>> 6 < words { bits[o &>> 6] |= 1 &<< UInt64(o & 63) }
            k &+= 1
        }
    }
}

/// How many rules have each gram key: an open-addressing table (no hashing cost beyond a multiply), built
/// once per rule set by one thread and dropped with the builder.
final class GramCounts {
    private let keys: UnsafeMutableBufferPointer<UInt64>
    private let counts: UnsafeMutableBufferPointer<Int32>
    private let shift: UInt64
    private let mask: Int

    init(capacity: Int) {
        var bits = 4
        while (1 << bits) < capacity &* 2 && bits < 40 { bits &+= 1 }
        keys = .allocate(capacity: 1 << bits)
        keys.initialize(repeating: 0)
        counts = .allocate(capacity: 1 << bits)
        counts.initialize(repeating: 0)
        shift = UInt64(64 &- bits)
        mask = (1 << bits) &- 1
    }

    deinit {
        // SAFETY: allocated in `init`, owned by this object alone (it never leaves the index builder), freed once.
        keys.deallocate()
        counts.deallocate()
    }

    @inline(__always) private func index(_ key: UInt64) -> Int {
        var i = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> shift) & mask
        while keys[i] != 0 && keys[i] != key { i = (i &+ 1) & mask }
        return i
    }

    /// Counts one more rule for `key` (never 0). The table was sized for every key added, so it never fills.
    func add(_ key: UInt64) {
        let i = index(key)
        keys[i] = key
        counts[i] &+= 1
    }

    subscript(key: UInt64) -> Int { Int(counts[index(key)]) }
}

/// A conservative reading of a PCRE2 pattern: what text every match must contain.
///
/// The pattern is parsed as alternatives of concatenations. In a concatenation, a literal run (ASCII
/// lower-cased) is required; an atom followed by `?`, `*` or a `{…}` whose minimum may be 0 is dropped, and
/// `+` / `{n,…}` end the run after the atom. A group is read recursively (`(…)`, `(?:…)`, `(?<name>…)`,
/// `(?>…)`, `(?|…)`, `(?i:…)`) and, unless it may repeat zero times, adds what its alternatives need
/// ("one of" when there are several); lookarounds add nothing. Classes, `.`, anchors and escapes such as `\d`
/// end a run; an escape whose length the scan does not know (`\x{…}`, `\p{…}`, back references…) stops
/// literals for the rest of its concatenation. A leading `(?i)` (or `(?i:`) makes the scan drop `i`, `k`, `s`
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

    /// The gram keys of a literal run: every 4-gram, or the 3-gram of a three-byte run; nil when shorter.
    static func need(forRun run: [UInt8]) -> Need? {
        if run.count == 3 {
            return .grams([key3(UInt32(run[0]) &<< 16 | UInt32(run[1]) &<< 8 | UInt32(run[2]))], text: run)
        }
        guard run.count >= 4 else { return nil }
        var keys = Set<UInt64>()
        var w: UInt32 = 0
        for (i, b) in run.enumerated() {
            w = w &<< 8 | UInt32(b)
            if i >= 3 { keys.insert(key4(w)) }
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
                    if c >= 0x80 {  // an escaped non-ASCII character: skip it whole
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
    fileprivate static let twoByteEscapes: Set<UInt8> = Set("dDsSwWhHvVRXbBAzZGKEntrfea".utf8)

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

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
    /// The words of `always` from its first non-zero one to its last (empty when there is no such rule).
    private let alwaysWords: Range<Int>
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
        var first = 0, last = -1
        for w in 0..<min(words, always.count) where always[w] != 0 {
            if last < 0 { first = w }
            last = w
        }
        alwaysWords = first..<(last &+ 1)

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

    /// Grams whose bloom bit is set, held while one eight-byte chunk is probed (8 per chunk, 16 with 3-grams)
    /// and looked up after it, so that the probe loop makes no call.
    static let pendingCapacity = 16
    /// UInt64 words `collect` needs at `bits`: the candidate bitset, then the pending grams.
    var scratchWords: Int { words &+ RewriteIndex.pendingCapacity }

    /// Sets in `bits` (`scratchWords` words) the ordinal of every rule that may match `url` and returns the
    /// range of words to read: the others are neither cleared nor set, since a URL usually touches one or two
    /// words of a large rule set.
    @inline(__always)
    func collect(_ url: ByteSpan, into bits: UnsafeMutablePointer<UInt64>) -> Range<Int> {
        var touched = alwaysWords
        if !touched.isEmpty, let alwaysBase = always.baseAddress {
            (bits + touched.lowerBound).update(from: alwaysBase + touched.lowerBound, count: touched.count)
        }
        let n = url.count
        guard let p = url.start, n >= 3, let b4 = bloom4.baseAddress, let b3 = bloom3.baseAddress else { return touched }
        let pending = bits + words
        var found = 0
        // A gram whose bloom bit is set waits in `pending` until its chunk is done.
        if has3 {
            scan(p, n, { w in
                if RewriteIndex.test(b4, RewriteIndex.hash4(w) &>> shift4) {
                    pending[found] = RequiredLiterals.key4(w)
                    found &+= 1
                }
                let w3 = w & 0xFF_FFFF
                if RewriteIndex.test(b3, RewriteIndex.hash3(w3) &>> shift3) {
                    pending[found] = RequiredLiterals.key3(w3)
                    found &+= 1
                }
            }, { flush(pending, &found, bits, &touched) })
            // The first three bytes: the only 3-gram that is no 4-gram's tail.
            let w0 = UInt32(ASCII.lowercased(p[0])) &<< 16 | UInt32(ASCII.lowercased(p[1])) &<< 8 | UInt32(ASCII.lowercased(p[2]))
            if RewriteIndex.test(b3, RewriteIndex.hash3(w0) &>> shift3) { hit(RequiredLiterals.key3(w0), bits, &touched) }
        } else {
            scan(p, n, { w in
                if RewriteIndex.test(b4, RewriteIndex.hash4(w) &>> shift4) {
                    pending[found] = RequiredLiterals.key4(w)
                    found &+= 1
                }
            }, { flush(pending, &found, bits, &touched) })
        }
        return touched
    }

    /// Calls `probe` with every 4-gram of `p[0..<n]` (n ≥ 3), lower-cased, first byte highest, and `chunkDone`
    /// after each eight of them (and after the last). The bytes are loaded and lower-cased eight at a time.
    @inline(__always)
    private func scan(_ p: UnsafePointer<UInt8>, _ n: Int, _ probe: (UInt32) -> Void, _ chunkDone: () -> Void) {
        var w = UInt32(ASCII.lowercased(p[0])) &<< 16 | UInt32(ASCII.lowercased(p[1])) &<< 8 | UInt32(ASCII.lowercased(p[2]))
        var i = 3
        while i &+ 8 <= n {
            let chunk = lowercasedWord(UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self))
            for k in 0..<8 {
                w = w &<< 8 | UInt32(truncatingIfNeeded: chunk &>> UInt64(8 &* k)) & 0xFF
                probe(w)
            }
            chunkDone()
            i &+= 8
        }
        if i < n {
            let chunk = lowercasedWord(loadWord(p + i, n &- i))
            for k in 0..<(n &- i) {
                w = w &<< 8 | UInt32(truncatingIfNeeded: chunk &>> UInt64(8 &* k)) & 0xFF
                probe(w)
            }
            chunkDone()
        }
    }

    /// Looks up the `found` grams held at `pending` and empties it.
    @inline(__always)
    private func flush(_ pending: UnsafeMutablePointer<UInt64>, _ found: inout Int, _ bits: UnsafeMutablePointer<UInt64>,
                       _ touched: inout Range<Int>) {
        for k in 0..<found { hit(pending[k], bits, &touched) }
        found = 0
    }

    @inline(__always) private static func test(_ bloom: UnsafeMutablePointer<UInt64>, _ b: UInt32) -> Bool {
        bloom[Int(b &>> 6)] & (1 &<< UInt64(b & 63)) != 0
    }

    /// The rules filed under `key` go into `bits`; `touched` grows to cover their words, each word cleared
    /// as it joins the range.
    @inline(never)
    private func hit(_ key: UInt64, _ bits: UnsafeMutablePointer<UInt64>, _ touched: inout Range<Int>) {
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
            let w = o &>> 6
            if o >= 0 && w < words {
                if touched.isEmpty {
                    bits[w] = 0
                    touched = w..<(w &+ 1)
                } else if w < touched.lowerBound {
                    bits.advanced(by: w).initialize(repeating: 0, count: touched.lowerBound &- w)
                    touched = w..<touched.upperBound
                } else if w >= touched.upperBound {
                    bits.advanced(by: touched.upperBound).initialize(repeating: 0, count: w &+ 1 &- touched.upperBound)
                    touched = touched.lowerBound..<(w &+ 1)
                }
                bits[w] |= 1 &<< UInt64(o & 63)
            }
            k &+= 1
        }
    }
}

/// The components of a URL, as byte offsets into its UTF-8 text, found in one pass.
///
/// `scheme ":" ["//" authority] path ["?" query] ["#" fragment]` (RFC 3986 §3), parsed leniently:
/// spaces and raw UTF-8 are kept as they come from real apps, and a port that is not all digits is
/// taken as part of the host. Nothing is decoded or copied here.
///
/// The same pass, eight bytes per step, notes what later stages would otherwise scan for again: whether any
/// byte is non-ASCII (only then does UTF-8 validation run), and whether the host and path are written
/// canonically (no `%`, no `//`, no trailing `/`), which lets the static table answer in one probe.
package struct URLParts {
    // Offsets are stored as Int32 (URLs are bounded by maxURLLength ≤ 2^30) so the struct stays small enough to
    // pass in registers, and read as Int: half-open ranges into the URL's bytes.
    private var offsets: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32,
                          Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    package var schemeEnd: Int {  // scheme = 0..<schemeEnd (0: none)
        get { Int(offsets.0) } set { offsets.0 = Int32(truncatingIfNeeded: newValue) } }
    package var authorityStart: Int { get { Int(offsets.1) } set { offsets.1 = Int32(truncatingIfNeeded: newValue) } }
    package var authorityEnd: Int { get { Int(offsets.2) } set { offsets.2 = Int32(truncatingIfNeeded: newValue) } }
    package var hostStart: Int { get { Int(offsets.3) } set { offsets.3 = Int32(truncatingIfNeeded: newValue) } }
    package var hostEnd: Int { get { Int(offsets.4) } set { offsets.4 = Int32(truncatingIfNeeded: newValue) } }
    package var portStart: Int { get { Int(offsets.5) } set { offsets.5 = Int32(truncatingIfNeeded: newValue) } }
    package var portEnd: Int { get { Int(offsets.6) } set { offsets.6 = Int32(truncatingIfNeeded: newValue) } }
    package var pathStart: Int { get { Int(offsets.7) } set { offsets.7 = Int32(truncatingIfNeeded: newValue) } }
    package var pathEnd: Int { get { Int(offsets.8) } set { offsets.8 = Int32(truncatingIfNeeded: newValue) } }
    package var queryStart: Int { get { Int(offsets.9) } set { offsets.9 = Int32(truncatingIfNeeded: newValue) } }
    package var queryEnd: Int { get { Int(offsets.10) } set { offsets.10 = Int32(truncatingIfNeeded: newValue) } }
    package var fragmentStart: Int { get { Int(offsets.11) } set { offsets.11 = Int32(truncatingIfNeeded: newValue) } }
    package var fragmentEnd: Int { get { Int(offsets.12) } set { offsets.12 = Int32(truncatingIfNeeded: newValue) } }
    package var hasAuthority = false
    package var hasQuery = false
    package var hasFragment = false
    /// Every byte is ASCII (so the text is valid UTF-8).
    package var isASCII = true
    /// The host has a `%`, or an upper-case letter.
    package var hostHasPercent = false
    package var hostHasUppercase = false
    package var schemeHasUppercase = false
    /// Bit j set when byte j of the path is "/", for j < 64.
    package var pathSlashes: UInt64 = 0
    /// The path is shorter than 64 bytes (so an offset into it, its end included, is a valid shift) and has no
    /// `%`: `pathSlashes` says where each of its segments is, and that it needs no decoding.
    package var pathSegmentsByBits = false

    package var hostCount: Int { hostEnd &- hostStart }
    package var hasPort: Bool { portEnd > portStart }

    /// Parses `url`; nil when `requireScheme` and the text does not start with `scheme ":"`.
    /// Without `requireScheme` a text with no scheme is read as a relative reference (path, query, fragment),
    /// which is what the rewrite engine's `$path`, `$query`... see for a URL such as `www.example.com/a?b`.
    package static func parse(_ url: ByteSpan, requireScheme: Bool = true) -> URLParts? {
        var parts = URLParts()
        return parts.scan(url, requireScheme: requireScheme) ? parts : nil
    }

    /// `parse` into `self` (no copy of the result): false when `requireScheme` and there is no scheme.
    /// `scanWords` scans the common case (a lower-case scheme, a plain host, a path of plain bytes to the end);
    /// anything else goes to `scanAuthority` and `scanRest`, kept out of line so that it stays small.
    @inline(__always)
    package mutating func scan(_ url: ByteSpan, requireScheme: Bool) -> Bool {
        self = URLParts()
        let n = url.count
        guard let p = url.start, n > 0 else { return !requireScheme }
        return n >= 8 ? scanWords(p, n, requireScheme: requireScheme) : scanShort(p, n, requireScheme: requireScheme)
    }

    /// Sets `self` (as `URLParts()` before) to what `scan` finds in `scheme://host/path` read by another reader
    /// (`RouteTable.directMatch`): a scheme ending at `schemeEnd`, a plain host (the whole authority, no port)
    /// at `start ..< end`, and the path from there to `pathEnd`, with no query or fragment.
    @inline(__always)
    package mutating func setPlain(schemeEnd: Int, host start: Int, _ end: Int, pathEnd: Int) {
        self.schemeEnd = schemeEnd
        hasAuthority = true
        (authorityStart, authorityEnd, hostStart, hostEnd) = (start, end, start, end)
        (portStart, portEnd, pathStart, self.pathEnd) = (end, end, end, pathEnd)
    }

    /// After `setPlain`: a query at `start ..< end` (after the "?" that ends the path), as `scan` sets it for an
    /// ASCII query without a fragment.
    @inline(__always)
    package mutating func setQuery(_ start: Int, _ end: Int) {
        hasQuery = true
        (queryStart, queryEnd) = (start, end)
    }

    /// A URL of 1 ... 7 bytes, copied to the end of a zeroed buffer: `scanWords` then reads eight bytes ending
    /// within the copy.
    @inline(never)
    private mutating func scanShort(_ url: UnsafePointer<UInt8>, _ n: Int, requireScheme: Bool) -> Bool {
        var buffer: (UInt64, UInt64) = (0, 0)
        return withUnsafeMutableBytes(of: &buffer) { raw in
            guard let base = raw.baseAddress else { return false }
            let p = base.assumingMemoryBound(to: UInt8.self) + 8
            p.update(from: url, count: n)
            return scanWords(p, n, requireScheme: requireScheme)
        }
    }

    /// `scan` of `p[0 ..< n]`, where the eight bytes before `p + max(n, 8)` may be read (`wordIn`).
    @inline(__always)
    private mutating func scanWords(_ p: UnsafePointer<UInt8>, _ n: Int, requireScheme: Bool) -> Bool {
        // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"
        // Most schemes are lower-case letters then ":" within the first word: found with one mask. Any other
        // text (upper case, digits, "+-.", longer schemes, no scheme) is read byte by byte.
        var i = 0
        let lower = lowerSchemeLength(wordIn(p, 0, n))
        if lower > 0 {
            schemeEnd = lower
            i = lower &+ 1
        } else {
            if ASCII.isAlpha(p[0]) {
                var upper = p[0] &- 0x41 < 26
                var k = 1
                while k < n && ASCII.isSchemeByte(p[k]) {
                    upper = upper || p[k] &- 0x41 < 26
                    k &+= 1
                }
                if k < n && p[k] == ASCII.colon {
                    schemeEnd = k
                    schemeHasUppercase = upper
                    i = k &+ 1
                }
            }
            if schemeEnd == 0 && requireScheme { return false }
        }

        // "//" authority, up to "/", "?" or "#"
        if i &+ 1 < n && UnsafeRawPointer(p + i).loadUnaligned(as: UInt16.self) == 0x2F2F {  // "//"
            hasAuthority = true
            authorityStart = i &+ 2
            // Most hosts are plain (lower-case letters, digits, "-", "."): their end is the first byte that may
            // matter (`plainHostEnd`), when it is "/", "?", "#" or the end of the URL. Else `scanAuthority`.
            var end = plainHostEnd(p, from: authorityStart, n)
            if end < n && p[end] != ASCII.slash && p[end] != ASCII.question && p[end] != ASCII.hash {
                end = scanAuthority(p, from: end, n)
            }
            authorityEnd = end
            if hostEnd == 0 {  // plain, or no "@", ":", "[" nor "%" (`scanAuthority` sets the host only then)
                hostStart = authorityStart
                hostEnd = end
                portStart = end
                portEnd = end
            }
            i = end
        }

        // The path, up to "?" or "#". Its first 64 bytes are scanned noting the slashes (as bits): the walk then
        // finds the segments of a short path, and the static probe sees whether it is canonical, without reading
        // its bytes again. Words with no rare byte ("?", "#", "%", non-ASCII...: most paths have none) need only
        // their slashes; from the first that has one, `scanRest`.
        pathStart = i
        let count = min(n &- i, 64)  // the bytes to note slashes in
        let q = p + i
        var slashes: UInt64 = 0
        var off = 0
        var plain = true
        let words = count & ~7
        while off < words {
            let w = UnsafeRawPointer(q + off).loadUnaligned(as: UInt64.self)
            if rarePathBytes(w) != 0 {
                plain = false
                break
            }
            slashes |= byteBits(matchMask(w, ASCII.slash)) &<< UInt64(truncatingIfNeeded: off)
            off &+= 8
        }
        if plain && off < count {  // the last 1 ... 7 bytes
            // After a word of the path, its last eight bytes: those seen again are not rare, and their slashes
            // are set again. A shorter path is padded with "a", as in `pathWord`.
            let last = off >= 8 ? count &- 8 : off
            let w = off >= 8 ? UnsafeRawPointer(q + last).loadUnaligned(as: UInt64.self)
                : wordIn(p, i, i &+ count) | 0x6161_6161_6161_6161 &<< UInt64(truncatingIfNeeded: count &* 8)
            if rarePathBytes(w) != 0 {
                plain = false
            } else {
                slashes |= byteBits(matchMask(w, ASCII.slash)) &<< UInt64(truncatingIfNeeded: last)
                off = count
            }
        }
        if plain && count == n &- i {  // the path runs to the end, all plain
            pathEnd = n
            pathSlashes = slashes
            pathSegmentsByBits = count < 64
        } else {
            scanRest(p, from: i &+ off, n, slashes: slashes)
        }
        return true
    }

    /// The authority from `from` (its first byte that may matter: the bytes before it are plain) to its end,
    /// which it returns. Sets
    /// `hostHasUppercase`, `isASCII` (for the bytes so far), and the host and port when it has "@", ":", "[" or "%"
    /// (else leaves them to the caller).
    @inline(never)
    private mutating func scanAuthority(_ p: UnsafePointer<UInt8>, from: Int, _ n: Int) -> Int {
        var end = from
        var high: UInt64 = 0
        var special: UInt64 = 0  // "@", ":", "[" or "%": the authority needs a closer look
        var upper = false
        while end < n {
            let w = wordAt(p, end, n)
            let stop = matchMask(w, ASCII.slash) | matchMask(w, ASCII.question) | matchMask(w, ASCII.hash)
            let below = stop == 0 ? ~0 : (stop & (0 &- stop)) &- 1
            if notPlainHostBytes(w) & below != 0 {
                high |= w & 0x8080_8080_8080_8080 & below
                special |= (matchMask(w, ASCII.at) | matchMask(w, ASCII.colon) | matchMask(w, ASCII.openBracket)
                            | matchMask(w, ASCII.percent)) & below
                let inside = stop == 0 ? w : w & ((stop & (0 &- stop)) &>> 7 &- 1)  // the bytes before the stop
                upper = upper || lowercasedWord(inside) != inside
            }
            if stop != 0 {
                end &+= stop.trailingZeroBitCount &>> 3
                break
            }
            end = min(end &+ 8, n)
        }
        hostHasUppercase = upper
        if special != 0 {
            splitAuthority(p, authorityStart, end)
            hostHasPercent = contains(p + hostStart, hostCount, ASCII.percent)
        }
        isASCII = high == 0
        return end
    }

    /// The path from `from` (the start of its first word with a rare byte, or of its 65th byte), the query and
    /// the fragment; `slashes` as the caller found them, `isASCII` as `scanAuthority` left it.
    @inline(never)
    private mutating func scanRest(_ p: UnsafePointer<UInt8>, from: Int, _ n: Int, slashes: UInt64) {
        var i = from
        var slashes = slashes
        var high: UInt64 = isASCII ? 0 : 0x80  // high bits of every byte seen: UTF-8 validation only if one is set
        var percent: UInt64 = 0
        var stopped = false
        let limit = min(n, pathStart &+ 64)  // wrapping: n ≤ maxURLLength ≤ 2^30
        while i < limit {
            let w = pathWord(p, i, limit)
            let offset = UInt64(truncatingIfNeeded: i &- pathStart)  // a multiple of 8 below 64
            var slash = matchMask(w, ASCII.slash)
            let stop = matchMask(w, ASCII.question) | matchMask(w, ASCII.hash)
            var pct = matchMask(w, ASCII.percent)
            if stop != 0 {
                let below = (stop & (0 &- stop)) &- 1
                high |= w & 0x8080_8080_8080_8080 & below
                slash &= below
                pct &= below
                slashes |= byteBits(slash) &<< offset
                percent |= pct
                i &+= stop.trailingZeroBitCount &>> 3
                stopped = true
                break
            }
            high |= w & 0x8080_8080_8080_8080
            percent |= pct
            slashes |= byteBits(slash) &<< offset
            i = min(i &+ 8, limit)
        }
        while !stopped && i < n {  // beyond 64 bytes: only the end, and the high bits
            let w = wordAt(p, i, n)
            let stop = matchMask(w, ASCII.question) | matchMask(w, ASCII.hash)
            if stop != 0 {
                high |= w & 0x8080_8080_8080_8080 & ((stop & (0 &- stop)) &- 1)
                i &+= stop.trailingZeroBitCount &>> 3
                break
            }
            high |= w & 0x8080_8080_8080_8080
            i = min(i &+ 8, n)
        }
        pathEnd = i
        pathSlashes = slashes
        pathSegmentsByBits = i &- pathStart < 64 && percent == 0

        if i < n && p[i] == ASCII.question {
            hasQuery = true
            queryStart = i &+ 1
            queryEnd = firstIndex(of: ASCII.hash, ASCII.hash, ASCII.hash, in: p, from: queryStart, to: n)
            i = queryEnd
        }
        if i < n && p[i] == ASCII.hash {
            hasFragment = true
            fragmentStart = i &+ 1
            fragmentEnd = n
        }
        // The query and the fragment: only their high bits matter here.
        var k = pathEnd
        while k < n {
            high |= wordAt(p, k, n) & 0x8080_8080_8080_8080
            k &+= 8
        }
        isASCII = high == 0
    }

    /// `[ userinfo "@" ] host [ ":" port ]`, with `[v6]` hosts kept whole.
    @inline(__always)
    private mutating func splitAuthority(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) {
        var hostStart = start
        var k = end
        while k > start {  // the last "@" ends the userinfo
            k &-= 1
            if p[k] == ASCII.at {
                hostStart = k &+ 1
                break
            }
        }
        var hostEnd = end
        var portStart = end
        if hostStart < end && p[hostStart] == ASCII.openBracket {
            var j = hostStart
            while j < end && p[j] != ASCII.closeBracket { j &+= 1 }
            if j < end {
                hostEnd = j &+ 1
                if hostEnd < end && p[hostEnd] == ASCII.colon && allDigits(p, hostEnd &+ 1, end) {
                    portStart = hostEnd &+ 1
                } else {
                    hostEnd = end
                }
            }
        } else {
            var j = end
            while j > hostStart {
                j &-= 1
                if p[j] == ASCII.colon {
                    if allDigits(p, j &+ 1, end) {
                        hostEnd = j
                        portStart = j &+ 1
                    }
                    break
                }
            }
        }
        self.hostStart = hostStart
        self.hostEnd = hostEnd
        self.portStart = portStart
        self.portEnd = end
    }

    @inline(__always)
    private func allDigits(_ p: UnsafePointer<UInt8>, _ from: Int, _ to: Int) -> Bool {
        var j = from
        while j < to {
            if !ASCII.isDigit(p[j]) { return false }
            j &+= 1
        }
        return true
    }

    // MARK: Spans

    @inline(__always) package func scheme(in url: ByteSpan) -> ByteSpan { slice(url, 0, schemeEnd) }
    @inline(__always) package func host(in url: ByteSpan) -> ByteSpan { slice(url, hostStart, hostEnd) }
    @inline(__always) package func port(in url: ByteSpan) -> ByteSpan { slice(url, portStart, portEnd) }
    @inline(__always) package func path(in url: ByteSpan) -> ByteSpan { slice(url, pathStart, pathEnd) }
    @inline(__always) package func query(in url: ByteSpan) -> ByteSpan {
        hasQuery ? slice(url, queryStart, queryEnd) : .empty
    }
    @inline(__always) package func fragment(in url: ByteSpan) -> ByteSpan {
        hasFragment ? slice(url, fragmentStart, fragmentEnd) : .empty
    }

    @inline(__always) private func slice(_ url: ByteSpan, _ from: Int, _ to: Int) -> ByteSpan {
        guard to > from, let s = url.start else { return .empty }
        return ByteSpan(start: s + from, count: to &- from)
    }
}

/// The bits of a byte mask (0x80 or 0 in each byte), byte i as bit i: the multiply adds bit 8i + 7 into bit 56 + i.
@inline(__always)
func byteBits(_ mask: UInt64) -> UInt64 {
    (mask &* 0x0002_0408_1020_4081) &>> 56  // ((mask >> 7) * 0x0102_0408_1020_4080) >> 56, mask having no low bits
}

/// 0x80 in each byte of `w` that is not a lower-case letter, a digit, "-" or "." (zero padding included).
@inline(__always)
func notPlainHostBytes(_ w: UInt64) -> UInt64 {
    let x = w & 0x7F7F_7F7F_7F7F_7F7F  // each `x + (0x80 - c)` has its high bit set where the byte is >= c
    let dashDot = (x &+ 0x5353_5353_5353_5353) & ~(x &+ 0x5151_5151_5151_5151)  // 0x2D ... 0x2E
    let digit = (x &+ 0x5050_5050_5050_5050) & ~(x &+ 0x4646_4646_4646_4646)  // 0x30 ... 0x39
    let lower = (x &+ 0x1F1F_1F1F_1F1F_1F1F) & ~(x &+ 0x0505_0505_0505_0505)  // 0x61 ... 0x7A
    return ~((dashDot | digit | lower) & ~w) & 0x8080_8080_8080_8080
}

/// 0x80 in each byte of `w` that the authority's fast scan must look at: below 0x2D ("#", "%", zero padding...),
/// "/", 0x3A ... 0x5B (":", "?", "@", upper case, "["), or 0x80 and above. A superset of what changes a field,
/// in fewer steps than `notPlainHostBytes`.
@inline(__always)
func hostBytesToSee(_ w: UInt64) -> UInt64 {
    let x = w & 0x7F7F_7F7F_7F7F_7F7F  // each `x + (0x80 - c)` has its high bit set where the byte is >= c
    let below2D = ~(x &+ 0x5353_5353_5353_5353)
    let colonToBracket = (x &+ 0x4646_4646_4646_4646) & ~(x &+ 0x2424_2424_2424_2424)  // 0x3A ... 0x5B
    let slash = ~((x ^ 0x2F2F_2F2F_2F2F_2F2F) &+ 0x7F7F_7F7F_7F7F_7F7F)
    return (below2D | colonToBracket | slash | w) & 0x8080_8080_8080_8080
}

/// The length of the scheme at the start of a URL whose first eight bytes are `head` (`wordIn`) when it is one to
/// seven lower-case letters followed by ":"; else 0 (and the scheme, if any, is read byte by byte).
@inline(__always)
func lowerSchemeLength(_ head: UInt64) -> Int {
    let firstNotLower = notLowerLetterBytes(head).trailingZeroBitCount  // 8 × index + 7; 64: eight letters
    guard firstNotLower > 7, firstNotLower < 64,
          UInt8(truncatingIfNeeded: head &>> UInt64(firstNotLower &- 7)) == ASCII.colon else { return 0 }
    return firstNotLower &>> 3
}

/// Where the plain host bytes from `from` end: the first byte that may matter (`hostBytesToSee`: "/", "?", "#",
/// ":", "@", "%", upper case, non-ASCII...), or `n`. Eight bytes per step, read as `wordIn` reads them (the
/// zero padding past the end is to be seen, so a word of eight plain bytes is all the URL's).
@inline(__always)
func plainHostEnd(_ p: UnsafePointer<UInt8>, from: Int, _ n: Int) -> Int {
    var end = from
    while end < n {
        let odd = hostBytesToSee(wordIn(p, end, n))
        if odd != 0 { return min(end &+ (odd.trailingZeroBitCount &>> 3), n) }
        end &+= 8
    }
    return end
}

/// 0x80 in each byte of `w` that is not a lower-case letter (zero padding included).
@inline(__always)
func notLowerLetterBytes(_ w: UInt64) -> UInt64 {
    let x = w & 0x7F7F_7F7F_7F7F_7F7F
    let lower = (x &+ 0x1F1F_1F1F_1F1F_1F1F) & ~(x &+ 0x0505_0505_0505_0505)  // 0x61 ... 0x7A
    return ~(lower & ~w) & 0x8080_8080_8080_8080
}

/// 0x80 in each byte of `w` that a path scan must look at more closely: below 0x26 (controls, space, "!", "\"",
/// "#", "$", "%", zero padding), "?", or 0x80 and above. A superset, in fewer steps than the exact masks.
@inline(__always)
func rarePathBytes(_ w: UInt64) -> UInt64 {
    let x = w & 0x7F7F_7F7F_7F7F_7F7F
    let atLeast26 = x &+ 0x5A5A_5A5A_5A5A_5A5A
    let notQuestion = (x ^ 0x3F3F_3F3F_3F3F_3F3F) &+ 0x7F7F_7F7F_7F7F_7F7F
    return ~(atLeast26 & notQuestion & ~w) & 0x8080_8080_8080_8080
}

/// `wordAt` where the eight bytes before `to` may be read (`to` ≥ 8, or a buffer that allows it): no byte loop.
@inline(__always)
func wordIn(_ p: UnsafePointer<UInt8>, _ i: Int, _ to: Int) -> UInt64 {
    if i &+ 8 <= to { return UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) }
    return UnsafeRawPointer(p + (to &- 8)).loadUnaligned(as: UInt64.self) &>> UInt64(truncatingIfNeeded: (8 &- (to &- i)) &* 8)
}

/// The bytes `i ..< min(i + 8, to)` as `wordAt` reads them, but padded with "a" rather than 0: the padding is
/// then no delimiter and no rare byte (`rarePathBytes`), and a path's last word needs no exact masks.
@inline(__always)
func pathWord(_ p: UnsafePointer<UInt8>, _ i: Int, _ to: Int) -> UInt64 {
    if i &+ 8 <= to { return UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) }
    let r = UInt64(truncatingIfNeeded: to &- i)  // 1 ... 7: callers have i < to
    return wordAt(p, i, to) | 0x6161_6161_6161_6161 &<< (r &* 8)
}

/// Whether the path is written canonically: no `%`, no `//`, no trailing `/` (eight bytes per step).
func pathIsCanonical(_ p: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Bool {
    guard end > start else { return true }
    if p[end &- 1] == ASCII.slash { return false }
    var i = start
    var previousSlash: UInt64 = 0
    while i < end {
        let w = wordAt(p, i, end)
        let slash = matchMask(w, ASCII.slash)
        if matchMask(w, ASCII.percent) | (slash & (slash &<< 8 | previousSlash)) != 0 { return false }
        previousSlash = slash &>> 56
        i &+= 8
    }
    return true
}

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
    @inline(__always)
    package mutating func scan(_ url: ByteSpan, requireScheme: Bool) -> Bool {
        self = URLParts()
        let n = url.count
        guard let p = url.start, n > 0 else { return !requireScheme }

        // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"
        var i = 0
        if ASCII.isAlpha(p[0]) {
            var upper = p[0] &- 0x41 < 26
            i = 1
            while i < n && ASCII.isSchemeByte(p[i]) {
                upper = upper || p[i] &- 0x41 < 26
                i &+= 1
            }
            if i < n && p[i] == ASCII.colon {
                schemeEnd = i
                schemeHasUppercase = upper
                i &+= 1
            } else {
                i = 0
            }
        }
        if schemeEnd == 0 && requireScheme { return false }

        var high: UInt64 = 0  // high bits of every byte seen: UTF-8 validation is needed only if one is set
        // "//" authority, up to "/", "?" or "#"
        if i &+ 1 < n && p[i] == ASCII.slash && p[i &+ 1] == ASCII.slash {
            hasAuthority = true
            authorityStart = i &+ 2
            var end = authorityStart
            var special: UInt64 = 0  // "@", ":", "[" or "%": the authority needs a closer look
            var upper = false
            while end < n {
                let w = wordAt(p, end, n)
                let stop = matchMask(w, ASCII.slash) | matchMask(w, ASCII.question) | matchMask(w, ASCII.hash)
                let below = stop == 0 ? ~0 : (stop & (0 &- stop)) &- 1
                // Most hosts are plain (lower-case letters, digits, "-", "."): nothing to note, one test.
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
            authorityEnd = end
            hostHasUppercase = upper
            if special == 0 {
                hostStart = authorityStart
                hostEnd = end
                portStart = end
                portEnd = end
            } else {
                splitAuthority(p, authorityStart, end)
                hostHasPercent = contains(p + hostStart, hostCount, ASCII.percent)
            }
            i = end
        }

        // The path, up to "?" or "#". Its first 64 bytes are scanned noting the slashes (as bits) and any "%": the
        // walk then finds the segments of a short path, and the static probe sees whether it is canonical,
        // without reading its bytes again. The rest of a longer path is only searched for its end.
        pathStart = i
        let pathBegin = i
        var slashes: UInt64 = 0
        var percent: UInt64 = 0
        var stopped = false
        while i < n && i &- pathBegin < 64 {
            let w = wordAt(p, i, n)
            let stop = matchMask(w, ASCII.question) | matchMask(w, ASCII.hash)
            var slash = matchMask(w, ASCII.slash)
            var pct = matchMask(w, ASCII.percent)
            let offset = UInt64(truncatingIfNeeded: i &- pathBegin)  // a multiple of 8 below 64
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
            slashes |= byteBits(slash) &<< offset
            percent |= pct
            i = min(i &+ 8, n)
        }
        while !stopped && i < n {
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
        pathSegmentsByBits = i &- pathBegin < 64 && percent == 0

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
        return true
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

/// The bits of a byte mask (0x80 or 0 in each byte), byte i as bit i.
@inline(__always)
func byteBits(_ mask: UInt64) -> UInt64 {
    ((mask &>> 7) &* 0x0102_0408_1020_4080) &>> 56
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

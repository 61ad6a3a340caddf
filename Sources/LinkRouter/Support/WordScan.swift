/// Comparing and scanning bytes eight at a time (SWAR): the primitives of the URL scan and the trie walk.

// MARK: - Comparison

@inlinable @inline(__always)  // inlinable: `MatchLayout.value(named:)`, inlined into lr_match_get, calls it
func bytesEqual(_ a: UnsafePointer<UInt8>?, _ b: UnsafePointer<UInt8>?, _ n: Int) -> Bool {
    guard n > 0 else { return true }
    guard let a, let b else { return false }
    let x = UnsafeRawPointer(a), y = UnsafeRawPointer(b)
    // Keys and names are short: words, the last one overlapping, and no byte loop.
    if n >= 8 {
        var i = 0
        while i &+ 8 < n {
            if x.loadUnaligned(fromByteOffset: i, as: UInt64.self) != y.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
                return false
            }
            i &+= 8
        }
        return x.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self) == y.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
    }
    if n >= 4 {
        return x.loadUnaligned(as: UInt32.self) == y.loadUnaligned(as: UInt32.self)
            && x.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self) == y.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
    }
    return a[0] == b[0] && a[n &>> 1] == b[n &>> 1] && a[n &- 1] == b[n &- 1]  // 1 to 3 bytes: all of them
}

/// Lower-cases the ASCII letters of eight bytes at once (bytes ≥ 0x80 are left alone).
@inline(__always) func lowercasedWord(_ w: UInt64) -> UInt64 {
    let heptets = w & 0x7F7F_7F7F_7F7F_7F7F
    let aboveZ = heptets &+ 0x2525_2525_2525_2525  // high bit set where byte > 'Z'
    let atLeastA = heptets &+ 0x3F3F_3F3F_3F3F_3F3F  // high bit set where byte >= 'A'
    let upper = ~w & (atLeastA ^ aboveZ) & 0x8080_8080_8080_8080
    return w | (upper &>> 2)
}

/// Loads up to eight bytes little-endian, never reading past `n`.
@inline(__always) func loadWord(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt64 {
    if n >= 8 { return UnsafeRawPointer(p).loadUnaligned(as: UInt64.self) }
    var w: UInt64 = 0
    var i = 0
    while i < n {
        w |= UInt64(p[i]) &<< UInt64(i &* 8)
        i &+= 1
    }
    return w
}

// MARK: - Word-at-a-time scanning and key digests

/// 0x80 in each byte of `w` that equals `byte`, 0 elsewhere (exact: no false positives).
@inline(__always) func matchMask(_ w: UInt64, _ byte: UInt8) -> UInt64 {
    let x = w ^ (UInt64(byte) &* 0x0101_0101_0101_0101)
    let t = (x & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F
    return ~(t | x | 0x7F7F_7F7F_7F7F_7F7F)
}

/// The bytes `i ..< min(i + 8, to)` of `p`, little-endian and zero-padded, with one load: the last partial
/// word is read as the eight bytes that end at `to` (when the text is that long) and shifted down. Zero
/// padding never matches a delimiter, so scanners need no byte-by-byte tail.
@inline(__always) func wordAt(_ p: UnsafePointer<UInt8>, _ i: Int, _ to: Int) -> UInt64 {
    if i &+ 8 <= to { return UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) }
    let r = to &- i
    if to >= 8 { return UnsafeRawPointer(p + to - 8).loadUnaligned(as: UInt64.self) &>> UInt64((8 &- r) &* 8) }
    return loadWord(p + i, r)
}

/// The low `n` bytes of a word (n in 0...8).
@inline(__always) func lowBytes(_ w: UInt64, _ n: Int) -> UInt64 {
    n >= 8 ? w : w & ((1 &<< UInt64(n &* 8)) &- 1)
}

/// The first `n` (≤ 8) bytes at `p`, little-endian and zero-padded, read with one 8-byte load when the
/// memory around `p` allows it: `before` bytes may be read before `p`, `after` bytes from `p` on (≥ n).
@inline(__always)
func loadHead(_ p: UnsafePointer<UInt8>, _ n: Int, before: Int, after: Int) -> UInt64 {
    if after >= 8 { return lowBytes(UnsafeRawPointer(p).loadUnaligned(as: UInt64.self), n) }
    if n > 0 && before &+ n >= 8 {
        return UnsafeRawPointer(p + n - 8).loadUnaligned(as: UInt64.self) &>> UInt64((8 &- n) &* 8)
    }
    return loadWord(p, n)
}

/// Index of the first of `c1`, `c2`, `c3` in `p[from..<to]`, or `to`; eight bytes per step.
/// `p` is the start of the text: the last partial word may be read from before `from` (see `wordAt`).
@inline(__always)
func firstIndex(of c1: UInt8, _ c2: UInt8, _ c3: UInt8, in p: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
    var i = from
    while i < to {
        let w = wordAt(p, i, to)
        let m = matchMask(w, c1) | matchMask(w, c2) | matchMask(w, c3)
        if m != 0 { return i &+ (m.trailingZeroBitCount &>> 3) }
        i &+= 8
    }
    return to
}

@inline(__always) func contains(_ p: UnsafePointer<UInt8>?, _ n: Int, _ byte: UInt8) -> Bool {
    guard let p else { return false }
    var i = 0
    while i &+ 8 <= n {
        if matchMask(UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self), byte) != 0 { return true }
        i &+= 8
    }
    while i < n {
        if p[i] == byte { return true }
        i &+= 1
    }
    return false
}

/// The end of the segment that starts at `from` (the next "/", or `to`), and whether it holds a "%";
/// eight bytes per step.
@inline(__always)
func segmentEnd(_ p: UnsafePointer<UInt8>, from: Int, to: Int) -> (end: Int, hasPercent: Bool) {
    var i = from
    var percent = false
    while i < to {
        let w = wordAt(p, i, to)
        let slash = matchMask(w, ASCII.slash)
        let pct = matchMask(w, ASCII.percent)
        if slash != 0 {
            let below = (slash & (0 &- slash)) &- 1  // the bits below the first slash
            return (i &+ (slash.trailingZeroBitCount &>> 3), percent || pct & below != 0)
        }
        percent = percent || pct != 0
        i &+= 8
    }
    return (to, percent)
}

/// Byte-level helpers shared by the URL parser, the pattern parser, the matcher and the rewrite engine.
///
/// Everything here works on UTF-8 bytes through raw pointers: the hot path never builds a `String`.

/// A borrowed run of bytes: a pointer into a URL, a pattern, a scratch buffer or a table's arena.
package struct ByteSpan: BitwiseCopyable {
    package var start: UnsafePointer<UInt8>?
    package var count: Int

    @inline(__always) package init(start: UnsafePointer<UInt8>?, count: Int) {
        self.start = start
        self.count = count
    }

    package static var empty: ByteSpan { ByteSpan(start: nil, count: 0) }

    @inline(__always) package var buffer: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: start, count: count)
    }

    package var isValidUTF8: Bool { LinkRouter.isValidUTF8(start, count) }

    /// A `String` copy (the bytes are valid UTF-8 wherever a span is made).
    package var string: String {
        String(decoding: buffer, as: UTF8.self)
    }

    @inline(__always) package func equals(_ other: ByteSpan) -> Bool {
        count == other.count && bytesEqual(start, other.start, count)
    }
}

enum ASCII {
    static let percent: UInt8 = 0x25  // %
    static let ampersand: UInt8 = 0x26  // &
    static let asterisk: UInt8 = 0x2A  // *
    static let plus: UInt8 = 0x2B  // +
    static let minus: UInt8 = 0x2D  // -
    static let dot: UInt8 = 0x2E  // .
    static let slash: UInt8 = 0x2F  // /
    static let colon: UInt8 = 0x3A  // :
    static let equals: UInt8 = 0x3D  // =
    static let question: UInt8 = 0x3F  // ?
    static let at: UInt8 = 0x40  // @
    static let hash: UInt8 = 0x23  // #
    static let dollar: UInt8 = 0x24  // $
    static let backslash: UInt8 = 0x5C  // \
    static let openBracket: UInt8 = 0x5B  // [
    static let closeBracket: UInt8 = 0x5D  // ]
    static let openBrace: UInt8 = 0x7B  // {
    static let closeBrace: UInt8 = 0x7D  // }
    static let underscore: UInt8 = 0x5F  // _
    static let tilde: UInt8 = 0x7E  // ~

    @inline(__always) static func isAlpha(_ b: UInt8) -> Bool { (b | 0x20) &- 0x61 < 26 }
    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }
    @inline(__always) static func isAlphaNumeric(_ b: UInt8) -> Bool { isAlpha(b) || isDigit(b) }
    /// `name = 1*( ALPHA / DIGIT / "_" )` of a pattern parameter.
    @inline(__always) static func isNameByte(_ b: UInt8) -> Bool { isAlphaNumeric(b) || b == underscore }
    /// RFC 3986 scheme characters after the first letter.
    @inline(__always) static func isSchemeByte(_ b: UInt8) -> Bool {
        isAlphaNumeric(b) || b == plus || b == minus || b == dot
    }
    /// RFC 3986 unreserved set: what `$$` leaves as it is.
    @inline(__always) static func isUnreserved(_ b: UInt8) -> Bool {
        isAlphaNumeric(b) || b == minus || b == dot || b == underscore || b == tilde
    }
    @inline(__always) static func lowercased(_ b: UInt8) -> UInt8 { b &- 0x41 < 26 ? b | 0x20 : b }

    /// The value of a hex digit, or 0xFF.
    @inline(__always) static func hexValue(_ b: UInt8) -> UInt8 {
        if b &- 0x30 < 10 { return b &- 0x30 }
        let l = b | 0x20
        if l &- 0x61 < 6 { return l &- 0x61 &+ 10 }
        return 0xFF
    }

    @inline(__always) static func upperHex(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 &+ nibble : 0x41 &+ (nibble &- 10)
    }
}

// MARK: - Comparison

@inline(__always)
func bytesEqual(_ a: UnsafePointer<UInt8>?, _ b: UnsafePointer<UInt8>?, _ n: Int) -> Bool {
    guard n > 0 else { return true }
    guard let a, let b else { return false }
    var i = 0
    while i &+ 8 <= n {
        if UnsafeRawPointer(a).loadUnaligned(fromByteOffset: i, as: UInt64.self)
            != UnsafeRawPointer(b).loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
        i &+= 8
    }
    while i < n {
        if a[i] != b[i] { return false }
        i &+= 1
    }
    return true
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

/// What the trie compares keys by: a hash of all the bytes and the first eight of them.
/// The matcher and the table builder must agree on it, so both call `digest`.
struct KeyDigest {
    var hash: UInt32
    /// The first ≤ 8 bytes, zero-padded (lower-cased when folding): the whole key when it is that short.
    var head: UInt64
}

@inline(__always) func mix(_ h: UInt64, _ w: UInt64) -> UInt64 {
    let m = (h ^ w) &* 0xFF51_AFD7_ED55_8CCD
    return m ^ (m &>> 29)
}

@inline(__always) func finish(_ h: UInt64) -> UInt32 {
    let m = (h ^ (h &>> 32)) &* 0xC4CE_B9FE_1A85_EC53
    return UInt32(truncatingIfNeeded: m ^ (m &>> 29))
}

/// Digest of `p[0..<n]`, ASCII-lower-cased when `fold`. `before`/`after` say how much memory around `p`
/// may be read (see `loadHead`); pass 0 and `n` when unsure: the result is the same, only slower.
@inline(__always)
func digest(_ p: UnsafePointer<UInt8>?, _ n: Int, fold: Bool, before: Int = 0, after: Int = -1) -> KeyDigest {
    guard let p, n > 0 else { return KeyDigest(hash: finish(0x9E37_79B9_7F4A_7C15), head: 0) }
    var head = loadHead(p, n, before: before, after: after < 0 ? n : after)
    if fold { head = lowercasedWord(head) }
    var h = mix(0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: n), head)
    var i = 8
    while i &+ 8 <= n {
        var w = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
        if fold { w = lowercasedWord(w) }
        h = mix(h, w)
        i &+= 8
    }
    if i < n {  // the last 1...7 bytes, read as the word that ends the key (it starts inside the key)
        var w = UnsafeRawPointer(p + n - 8).loadUnaligned(as: UInt64.self) &>> UInt64((8 &- (n &- i)) &* 8)
        if fold { w = lowercasedWord(w) }
        h = mix(h, w)
    }
    return KeyDigest(hash: finish(h), head: head)
}

/// Whether bytes 8..<n of two keys whose first eight bytes are known equal are equal (`fold`: `a` folded).
@inline(__always)
func tailsEqual(_ a: UnsafePointer<UInt8>?, _ b: UnsafePointer<UInt8>?, _ n: Int, fold: Bool) -> Bool {
    guard n > 8 else { return true }
    guard let a, let b else { return false }
    var i = 8
    while i &+ 8 <= n {
        var w = UnsafeRawPointer(a + i).loadUnaligned(as: UInt64.self)
        if fold { w = lowercasedWord(w) }
        if w != UnsafeRawPointer(b + i).loadUnaligned(as: UInt64.self) { return false }
        i &+= 8
    }
    if i < n {
        var w = UnsafeRawPointer(a + n - 8).loadUnaligned(as: UInt64.self)
        if fold { w = lowercasedWord(w) }
        return w == UnsafeRawPointer(b + n - 8).loadUnaligned(as: UInt64.self)
    }
    return true
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

// MARK: - UTF-8

/// Strict UTF-8 validation (no overlong forms, no surrogates, nothing above U+10FFFF).
func isValidUTF8(_ p: UnsafePointer<UInt8>?, _ n: Int) -> Bool {
    guard let p else { return n == 0 }
    var i = 0
    // Eight ASCII bytes at a time: the common case for URLs.
    while i &+ 8 <= n && UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
        i &+= 8
    }
    var check = UTF8Check()
    while i < n {
        check.feed(p[i])
        i &+= 1
    }
    return check.isComplete
}

/// A streaming strict UTF-8 check (no overlong forms, no surrogates, nothing above U+10FFFF).
struct UTF8Check {
    private var need = 0
    private var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
    private var valid = true

    /// True when every byte fed so far forms complete, valid UTF-8.
    var isComplete: Bool { valid && need == 0 }

    mutating func feed(_ b: UInt8) {
        guard valid else { return }
        if need > 0 {
            guard b >= lo && b <= hi else { valid = false; return }
            lo = 0x80
            hi = 0xBF
            need &-= 1
            return
        }
        switch b {
        case 0x00...0x7F: return
        case 0xC2...0xDF: need = 1
        case 0xE0: need = 2; lo = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: need = 2
        case 0xED: need = 2; hi = 0x9F
        case 0xF0: need = 3; lo = 0x90
        case 0xF1...0xF3: need = 3
        case 0xF4: need = 3; hi = 0x8F
        default: valid = false
        }
    }
}

// MARK: - Percent coding

/// Percent-decodes `src` into `dst` (which has room for `src.count` bytes) and returns the decoded length,
/// or nil when a `%` sequence is malformed or the result is not UTF-8: the caller then keeps the text as written.
/// `+` is left as it is.
@inline(__always)
func percentDecode(_ src: ByteSpan, into dst: UnsafeMutablePointer<UInt8>) -> Int? {
    guard let s = src.start else { return 0 }
    var i = 0, o = 0, sawHigh = false
    while i < src.count {
        let b = s[i]
        if b == ASCII.percent {
            guard i &+ 2 < src.count else { return nil }
            let h = ASCII.hexValue(s[i &+ 1]), l = ASCII.hexValue(s[i &+ 2])
            guard h != 0xFF && l != 0xFF else { return nil }
            let v = h &<< 4 | l
            if v >= 0x80 { sawHigh = true }
            dst[o] = v
            i &+= 3
        } else {
            if b >= 0x80 { sawHigh = true }
            dst[o] = b
            i &+= 1
        }
        o &+= 1
    }
    if sawHigh && !isValidUTF8(dst, o) { return nil }
    return o
}

/// Writes the strict RFC 3986 encoding of `src` (every byte outside `A–Z a–z 0–9 - . _ ~` as upper-case `%XX`).
func percentEncode(_ src: ByteSpan, into out: inout ByteWriter) {
    guard let s = src.start else { return }
    for i in 0..<src.count {
        let b = s[i]
        if ASCII.isUnreserved(b) {
            out.append(b)
        } else {
            out.append(ASCII.percent)
            out.append(ASCII.upperHex(b &>> 4))
            out.append(ASCII.upperHex(b & 0x0F))
        }
    }
}

/// `raw` percent-decoded into `scratch` when it has a `%` and decodes cleanly; otherwise `raw` itself, as written
/// (nothing is copied). When `scratch` is full, its count still grows by `raw.count`, so the caller learns the size.
@inline(__always)
func decodedOrRaw(_ raw: ByteSpan, _ scratch: inout ByteWriter) -> ByteSpan {
    guard contains(raw.start, raw.count, ASCII.percent),
          let dst = scratch.reserve(raw.count), let n = percentDecode(raw, into: dst) else { return raw }
    scratch.commit(n)
    return ByteSpan(start: UnsafePointer(dst), count: n)
}

// MARK: - Output buffers

/// Appends bytes to a fixed buffer and keeps counting past its end, so a caller learns the size it needs
/// (the snprintf rule). No allocation: growing is the caller's choice.
package struct ByteWriter {
    package let base: UnsafeMutablePointer<UInt8>?
    package let capacity: Int
    /// Bytes written, or that would have been written when `overflowed`.
    package private(set) var count: Int = 0

    package init(base: UnsafeMutablePointer<UInt8>?, capacity: Int) {
        self.base = base
        self.capacity = base == nil ? 0 : capacity
    }

    package var overflowed: Bool { count > capacity }

    @inline(__always) package mutating func append(_ b: UInt8) {
        if count < capacity, let base { base[count] = b }
        count &+= 1
    }

    @inline(__always) package mutating func append(_ span: ByteSpan) {
        if span.count > 0, count &+ span.count <= capacity, let base, let s = span.start {
            (base + count).update(from: s, count: span.count)
        }
        count &+= span.count
    }

    package mutating func append(_ s: StaticString) {
        append(ByteSpan(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// Room for `n` more bytes written directly by the caller, then `commit`ted; nil when it does not fit.
    @inline(__always) mutating func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8>? {
        guard let base, count &+ n <= capacity else {
            count &+= n
            return nil
        }
        return base + count
    }

    @inline(__always) mutating func commit(_ n: Int) { count &+= n }

    @inline(__always) package mutating func truncate(to mark: Int) { count = mark }

    /// The span of the bytes written since `mark` (only meaningful when nothing overflowed).
    @inline(__always) package func span(from mark: Int) -> ByteSpan {
        guard let base, !overflowed else { return ByteSpan(start: nil, count: count &- mark) }
        return ByteSpan(start: UnsafePointer(base + mark), count: count &- mark)
    }
}

extension String {
    /// Runs `body` over the string's UTF-8 bytes without copying when the storage is contiguous.
    @inline(__always)
    package func withSpan<R>(_ body: (ByteSpan) throws(RouterError) -> R) throws(RouterError) -> R {
        var copy = self
        let result: Result<R, RouterError> = copy.withUTF8 { buf in
            do throws(RouterError) {
                return .success(try body(ByteSpan(start: buf.baseAddress, count: buf.count)))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

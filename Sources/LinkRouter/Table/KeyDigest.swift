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

/// The hash's 32 bits: `mix` already multiplied and folded; every user spreads the result again (`slotIndex`
/// multiplies the tag), so a second multiplication here bought nothing but instructions.
@inline(__always) func finish(_ h: UInt64) -> UInt32 {
    UInt32(truncatingIfNeeded: h ^ (h &>> 32))
}

/// Digest of `p[0..<n]`, ASCII-lower-cased when `fold`. `before`/`after` say how much memory around `p`
/// may be read (see `loadHead`); pass 0 and `n` when unsure: the result is the same, only slower.
@inline(__always)
func digest(_ p: UnsafePointer<UInt8>?, _ n: Int, fold: Bool, before: Int = 0, after: Int = -1) -> KeyDigest {
    guard let p, n > 0 else { return KeyDigest(hash: keyHash(nil, 0, head: 0, fold: fold), head: 0) }
    var head = loadHead(p, n, before: before, after: after < 0 ? n : after)
    if fold { head = lowercasedWord(head) }
    return KeyDigest(hash: keyHash(p, n, head: head, fold: fold), head: head)
}

/// The hash of `digest`, for a caller that has the key's head already (`head`: as `KeyDigest.head`).
@inline(__always)
func keyHash(_ p: UnsafePointer<UInt8>?, _ n: Int, head: UInt64, fold: Bool) -> UInt32 {
    guard let p, n > 0 else { return finish(0x9E37_79B9_7F4A_7C15) }
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
    return finish(h)
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

/// The last ≤ 8 bytes of `p[0..<n]`, little-endian and zero-padded (0 for an empty key).
@inline(__always)
func tailWord(_ p: UnsafePointer<UInt8>?, _ n: Int) -> UInt64 {
    guard let p, n > 0 else { return 0 }
    return n >= 8 ? UnsafeRawPointer(p + (n &- 8)).loadUnaligned(as: UInt64.self) : loadWord(p, n)
}

/// The static filter's bit (of 2^bits, bits in 1 ... 63) for a key of `n` bytes whose `tailWord` is `tail`.
@inline(__always)
func staticFilterBit(_ tail: UInt64, _ n: Int, bits: Int) -> Int {
    Int(truncatingIfNeeded: ((tail ^ UInt64(truncatingIfNeeded: n)) &* 0x9E37_79B9_7F4A_7C15) &>> UInt64(truncatingIfNeeded: 64 &- bits))
}

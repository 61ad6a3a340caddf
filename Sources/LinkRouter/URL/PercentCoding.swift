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

/// The host a match reports, decoded over its copy at `dst` (never longer than `raw`, which is elsewhere): its
/// length. nil when the host is reported as written, the copy at `dst` restored: when its decoding is malformed or
/// not UTF-8 (the router then compares it as written too), or holds a NUL, which would end it early as a C string
/// (`good.com%00.evil.com` must not read as `good.com`). The caller lower-cases what it reports.
func decodeHost(_ raw: ByteSpan, over dst: UnsafeMutablePointer<UInt8>) -> Int? {
    if let n = percentDecode(raw, into: dst), !contains(UnsafePointer(dst), n, 0) { return n }
    copyBytes(dst, raw.start, raw.count)
    return nil
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

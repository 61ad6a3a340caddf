/// The packed result: a header of little-endian u32 words, a table of (offset, length) words, then the bytes.
enum Packed {
    static let headerWords = 8
    static let fixedStrings = 10  // target pattern name metadata routed scheme host port path fragment

    /// Writes `r`; `.limit` when the result would not fit the format's 32-bit offsets (possible only with limits
    /// raised near their maximum), rather than offsets that wrap.
    static func write(_ r: Resolution, into out: inout ByteWriter) throws(RouterError) {
        let blob = r.blob
        let p = blob.paramCount
        let q = r.pairs.count
        let requires = blob.requiresCount
        let strings = fixedStrings + 2 * p + 2 * q + requires
        let tableStart = headerWords * 4

        // String i of the table, in the documented order.
        func string(_ i: Int) -> ByteSpan {
            switch i {
            case 0: return blob.target
            case 1: return blob.pattern
            case 2: return blob.name ?? .empty
            case 3: return blob.metadata ?? .empty
            case 4: return r.routed
            case 5: return r.parts.scheme(in: r.routed)
            case 6: return r.parts.host(in: r.routed)
            case 7: return r.parts.port(in: r.routed)
            case 8: return r.parts.path(in: r.routed)
            case 9: return r.parts.fragment(in: r.routed)
            default:
                let k = i - fixedStrings
                if k < p { return blob.paramName(k) }
                if k < 2 * p { return r.values[k - p] }
                if k >= 2 * p + 2 * q { return blob.requires(k - 2 * p - 2 * q) }
                let pair = r.pairs[(k - 2 * p) / 2]
                return (k - 2 * p) % 2 == 0 ? pair.key : pair.value
            }
        }
        // The size first, then one reservation: words are stored directly and each string copied once.
        var total = tableStart + 8 * strings
        for i in 0..<strings { total += string(i).count }
        guard total <= Int(UInt32.max) else {
            throw RouterError(.limit, "packed result of \(total) bytes does not fit its 32-bit offsets")
        }
        guard let base = out.reserve(total) else { return }  // too small: `out` now counts the size needed
        let raw = UnsafeMutableRawPointer(base)
        var flags: UInt32 = r.wasRewritten ? 1 : 0
        if blob.name != nil { flags |= 2 }
        if blob.metadata != nil { flags |= 4 }
        func word(_ k: Int, _ w: Int) {
            raw.storeBytes(of: UInt32(truncatingIfNeeded: w).littleEndian, toByteOffset: 4 * k, as: UInt32.self)
        }
        word(0, total)
        word(1, blob.sequence)
        word(2, Int(flags))
        word(3, requires)
        word(4, p)
        word(5, q)
        word(6, strings)
        word(7, 0)
        var cursor = tableStart + 8 * strings
        for i in 0..<strings {
            let s = string(i)
            var count = s.count
            if let src = s.start, s.count > 0 {
                (raw + cursor).copyMemory(from: src, byteCount: s.count)
                if i == 5 || i == 6 {  // scheme and host, lower-cased; the host decoded as lr_match_host's
                    let bytes = (base + cursor)
                    if i == 6 && r.parts.hostHasPercent { count = decodeHost(s, over: bytes) ?? count }
                    for k in 0..<count { bytes[k] = ASCII.lowercased(bytes[k]) }
                }
            }
            word(headerWords + 2 * i, cursor)
            word(headerWords + 2 * i + 1, count)
            cursor += count
        }
        // A decoded host is shorter than the room sized for it: the rest is zeroed, never left unwritten.
        if cursor < total { (base + cursor).initialize(repeating: 0, count: total - cursor) }
        out.commit(total)
    }
}

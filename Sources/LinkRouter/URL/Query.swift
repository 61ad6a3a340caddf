/// One `key=value` pair of a query, decoded (or as written when it does not decode cleanly).
package struct QueryPair: BitwiseCopyable {
    package var key: ByteSpan
    package var value: ByteSpan

    package init(key: ByteSpan, value: ByteSpan) {
        self.key = key
        self.value = value
    }
}

/// Query strings: split on `&`, then on the first `=`; a bare `k` gives `""`; empty pieces are skipped;
/// keys and values are percent-decoded, `+` stays `+`.
package enum Query {
    /// How many pairs `parse` will produce.
    static func pairCount(_ query: ByteSpan) -> Int {
        guard let p = query.start else { return 0 }
        var pairs = 0, pieceLength = 0
        for i in 0..<query.count {
            if p[i] == ASCII.ampersand {
                if pieceLength > 0 { pairs &+= 1 }
                pieceLength = 0
            } else {
                pieceLength &+= 1
            }
        }
        return pieceLength > 0 ? pairs &+ 1 : pairs
    }

    /// Writes up to `capacity` pairs to `out` in order and returns how many were written.
    static func parse(_ query: ByteSpan, scratch: inout ByteWriter,
                      into out: UnsafeMutablePointer<QueryPair>, capacity: Int) -> Int {
        guard let p = query.start else { return 0 }
        var written = 0
        var i = 0
        let n = query.count
        while i < n && written < capacity {
            let start = i
            var eq = -1
            while i < n && p[i] != ASCII.ampersand {
                if eq < 0 && p[i] == ASCII.equals { eq = i }
                i &+= 1
            }
            if i > start {
                let keyEnd = eq < 0 ? i : eq
                let key = decodedOrRaw(ByteSpan(start: p + start, count: keyEnd &- start), &scratch)
                let value = eq < 0 ? ByteSpan.empty : decodedOrRaw(ByteSpan(start: p + eq + 1, count: i &- eq &- 1), &scratch)
                out[written] = QueryPair(key: key, value: value)
                written &+= 1
            }
            i &+= 1
        }
        return written
    }
}

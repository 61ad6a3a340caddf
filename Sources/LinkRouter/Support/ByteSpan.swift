/// Byte-level work in LinkRouter (URL parser, pattern parser, matcher, rewrite engine) goes through raw
/// pointers to UTF-8 bytes: the hot path never builds a `String`.

/// A borrowed run of bytes: a pointer into a URL, a pattern, a scratch buffer or a table's arena.
package struct ByteSpan: BitwiseCopyable {
    package var start: UnsafePointer<UInt8>?
    package var count: Int

    @inline(__always) package init(start: UnsafePointer<UInt8>?, count: Int) {
        self.start = start
        self.count = count
    }

    /// No bytes, at a static "" (a start that is never nil): a value that is present but empty — an empty
    /// catch-all, a bare query key's value — reaches C as a non-NULL pointer, as the C ABI promises (NULL there
    /// means absent). An address costs what nil costs.
    @inline(__always) package static var empty: ByteSpan {
        let text: StaticString = ""
        return ByteSpan(start: text.utf8Start, count: 0)
    }

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

/// Runs `body` with `pairs` as `QueryPair` spans over one contiguous copy of their UTF-8 bytes.
package func withExtraSpans<R>(_ pairs: [(key: String, value: String)],
                               _ body: (UnsafeBufferPointer<QueryPair>) throws(RouterError) -> R) throws(RouterError) -> R {
    if pairs.isEmpty { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
    var bytes: [UInt8] = []
    var ranges: [(Int, Int, Int, Int)] = []
    for (k, v) in pairs {
        let ks = bytes.count
        bytes.append(contentsOf: k.utf8)
        let vs = bytes.count
        bytes.append(contentsOf: v.utf8)
        ranges.append((ks, vs - ks, vs, bytes.count - vs))
    }
    let result: Result<R, RouterError> = bytes.withUnsafeBufferPointer { buf in
        var spans: [QueryPair] = []
        spans.reserveCapacity(ranges.count)
        for (ks, kn, vs, vn) in ranges {
            spans.append(QueryPair(key: ByteSpan(start: buf.baseAddress.map { $0 + ks }, count: kn),
                                   value: ByteSpan(start: buf.baseAddress.map { $0 + vs }, count: vn)))
        }
        return spans.withUnsafeBufferPointer { s in
            do throws(RouterError) { return .success(try body(s)) } catch { return .failure(error) }
        }
    }
    return try result.get()
}

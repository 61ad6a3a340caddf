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

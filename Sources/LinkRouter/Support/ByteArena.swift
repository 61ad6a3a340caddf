/// Append-only bytes holding a table's strings; records point straight into it.
///
/// Bytes never move and are never rewritten, so a pointer stays valid as long as a snapshot that holds the
/// chunk is alive. The last chunk may be shared with published snapshots: appending past their end is safe
/// because readers never look beyond what existed when their snapshot was published, and writers are
/// serialized by the router.
package struct ByteArena {
    final class Chunk {
        let base: UnsafeMutableRawPointer
        let capacity: Int

        init(capacity: Int) {
            base = .allocate(byteCount: capacity, alignment: 16)
            self.capacity = capacity
        }

        deinit { base.deallocate() }
    }

    static let chunkSize = 64 * 1024

    private var chunks: [Chunk] = []
    private var used = 0
    /// Bytes handed out, for memory accounting.
    package private(set) var totalBytes = 0

    package init() {}

    /// Room for `count` bytes aligned to `alignment` (a power of two, at most 16).
    package mutating func allocate(_ count: Int, alignment: Int = 1) -> UnsafeMutableRawPointer {
        if count > ByteArena.chunkSize / 4 {
            // Large blocks get a chunk of their own, placed before the current one so it stays the last.
            let chunk = Chunk(capacity: count)
            chunks.insert(chunk, at: max(chunks.count - 1, 0))
            totalBytes += count
            return chunk.base
        }
        var start = (used + alignment - 1) & ~(alignment - 1)
        if chunks.isEmpty || start + count > ByteArena.chunkSize {
            chunks.append(Chunk(capacity: ByteArena.chunkSize))
            start = 0
        }
        used = start + count
        totalBytes += count
        return chunks[chunks.count - 1].base + start
    }

    /// A NUL-terminated copy of `bytes`.
    package mutating func store(_ bytes: ByteSpan) -> UnsafePointer<UInt8> {
        let p = allocate(bytes.count + 1).assumingMemoryBound(to: UInt8.self)
        if let s = bytes.start, bytes.count > 0 { p.update(from: s, count: bytes.count) }
        p[bytes.count] = 0
        return UnsafePointer(p)
    }

    /// Keeps the chunks alive for a snapshot.
    package var owners: [AnyObject] { chunks }
}

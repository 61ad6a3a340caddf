/// Persistent storage for table snapshots.
///
/// A router publishes immutable snapshots, and every add or remove makes a new one. Copying a whole table per
/// change would make N single adds cost O(N²), so snapshots share storage instead: a `ChunkedArray` keeps its
/// elements in fixed-size chunks, and a write copies only the chunk it touches when an older snapshot still
/// holds it (`isKnownUniquelyReferenced`). A lookup reads through a `ChunkReader`, a flat array of chunk
/// pointers made once per snapshot, so the hot path is two loads and no reference counting.

package struct ChunkedArray<Element: BitwiseCopyable> {
    final class Chunk {
        let base: UnsafeMutablePointer<Element>

        init(capacity: Int, fill: Element) {
            base = .allocate(capacity: capacity)
            base.initialize(repeating: fill, count: capacity)
        }

        init(copying other: Chunk, capacity: Int) {
            base = .allocate(capacity: capacity)
            base.initialize(from: other.base, count: capacity)
        }

        deinit { base.deallocate() }
    }

    private var chunks: [Chunk] = []
    package private(set) var count = 0
    private let shift: Int
    private let fill: Element

    /// `shift` sets the chunk size (2^shift elements); new slots hold `fill`.
    package init(shift: Int, fill: Element) {
        self.shift = shift
        self.fill = fill
    }

    /// An array of `count` elements, all `fill`.
    package init(shift: Int, fill: Element, count: Int) {
        self.init(shift: shift, fill: fill)
        let capacity = 1 << shift
        for _ in 0..<((count + capacity - 1) >> shift) {
            chunks.append(Chunk(capacity: capacity, fill: fill))
        }
        self.count = count
    }

    private var mask: Int { (1 << shift) &- 1 }

    package subscript(i: Int) -> Element {
        get { chunks[i >> shift].base[i & mask] }
        set {
            let c = i >> shift
            if !isKnownUniquelyReferenced(&chunks[c]) {
                chunks[c] = Chunk(copying: chunks[c], capacity: 1 << shift)
            }
            chunks[c].base[i & mask] = newValue
        }
    }

    @discardableResult
    package mutating func append(_ element: Element) -> Int {
        if count & mask == 0 && count >> shift == chunks.count {
            chunks.append(Chunk(capacity: 1 << shift, fill: fill))
        }
        let i = count
        count += 1
        self[i] = element
        return i
    }

    /// A reader over this exact content, valid while the returned owner is alive.
    package func freeze() -> FrozenChunks<Element> {
        FrozenChunks(chunks: chunks.map { $0.base }, owners: chunks, shift: shift, count: count)
    }
}

/// The read side of a snapshot's `ChunkedArray`: it keeps the chunks alive and holds their base pointers.
package final class FrozenChunks<Element: BitwiseCopyable>: @unchecked Sendable {
    // SAFETY: the chunks are never written once frozen (a later write copies the chunk first, because this
    // object holds a second reference to it), so any number of threads may read them.
    private let owners: [AnyObject]
    private let pointers: UnsafeMutablePointer<UnsafeMutablePointer<Element>>
    package let reader: ChunkReader<Element>

    init(chunks: [UnsafeMutablePointer<Element>], owners: [AnyObject], shift: Int, count: Int) {
        self.owners = owners
        pointers = .allocate(capacity: max(chunks.count, 1))
        pointers.initialize(from: chunks, count: chunks.count)
        reader = ChunkReader(directory: pointers, shift: shift, count: count)
    }

    deinit { pointers.deallocate() }
}

/// Unchecked element access for the hot path: indices come from the table itself.
package struct ChunkReader<Element: BitwiseCopyable>: @unchecked Sendable {
    let directory: UnsafeMutablePointer<UnsafeMutablePointer<Element>>
    let shift: Int
    let mask: Int
    package let count: Int

    init(directory: UnsafeMutablePointer<UnsafeMutablePointer<Element>>, shift: Int, count: Int) {
        self.directory = directory
        self.shift = shift
        self.mask = (1 << shift) &- 1
        self.count = count
    }

    @inline(__always) package subscript(i: Int) -> Element {
        directory[i &>> shift][i & mask]
    }
}

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

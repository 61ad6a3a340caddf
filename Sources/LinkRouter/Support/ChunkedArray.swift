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

    /// Element `i` in place, to read a few fields of a large element without copying all of it. `shift`: the
    /// reader's own, which a caller that knows it as a constant passes, to save loading it and the mask.
    @inline(__always) func address(_ i: Int, shift: Int) -> UnsafePointer<Element> {
        UnsafePointer(directory[i &>> shift] + (i & ((1 &<< shift) &- 1)))
    }
}

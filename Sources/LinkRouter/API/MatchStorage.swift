/// The memory of a Swift `Match`: one object whose tail holds its `MatchRecord` (one allocation in all), and
/// whose header holds what an open added (extras of any type, the caller's context), so that a `Match` is one
/// reference: copying one into a reply or a closure is one retain.
/// Immutable once handed out (the record is written by `make`, the header by `Match.init` before the match is
/// shared), so the types that hold one may be shared across threads; ManagedBuffer itself cannot say so. For
/// the same reason the header is read and written through its pointer, which skips the dynamic
/// exclusivity check of ManagedBuffer's `header` property: nothing writes a shared header. One field at a time:
/// a copy of the whole header would retain all it holds.
final class MatchStorage: ManagedBuffer<MatchStorage.Header, UInt8> {
    struct Header {
        var extra: [String: any Sendable] = [:]
        var context: (any Sendable)?
        var rawContext: UnsafeMutableRawPointer?
        /// The bytes the tail was made for (at least the record's size).
        var capacity = 0
    }

    /// Resolves `url` on `state` into a new storage; nil for no match. `reusable`: the match is an open's, whose
    /// storage is recycled when the open is over, so it may be this thread's spare (when big enough) and is
    /// made with room to spare; a `resolve`'s match is the caller's to keep, and is made to measure.
    static func make(_ state: RouterState, _ url: ByteSpan, extras: UnsafeBufferPointer<QueryPair>,
                     reusable: Bool = false) throws(RouterError) -> MatchStorage? {
        var storage: MatchStorage?
        _ = try state.matchRecord(url, extras: extras) { size in
            let made = allocate(size, reusable: reusable)
            storage = made
            return made.withUnsafeMutablePointerToElements { UnsafeMutableRawPointer($0) }
        }
        return storage
    }

    /// A storage holding a copy of `record`, for an open (made as `make` makes an open's).
    static func copy(of record: MatchRecord) -> MatchStorage {
        let size = record.size
        let made = allocate(size, reusable: true)
        made.withUnsafeMutablePointerToElements { UnsafeMutableRawPointer($0).copyMemory(from: record.base, byteCount: size) }
        return made
    }

    /// An empty storage of at least `size` bytes; `reusable` (an open's): this thread's spare when big enough.
    private static func allocate(_ size: Int, reusable: Bool) -> MatchStorage {
        if reusable, let spare = ThreadState.takeSpareStorage(size) { return spare }
        // An open's at least 512 bytes, so that a storage kept as a spare fits most matches after it.
        let capacity = reusable ? max(size, 512) : size
        return unsafeDowncast(MatchStorage.create(minimumCapacity: capacity) { _ in Header(capacity: capacity) },
                              to: MatchStorage.self)
    }

    /// Keeps the storage of a match that nothing else holds (its open is over, and its handler kept no copy)
    /// as this thread's spare, emptied, for the next match made here.
    static func recycle(_ match: inout Match?) {
        guard var storage = match?.storage else { return }
        match = nil
        guard isKnownUniquelyReferenced(&storage) else { return }
        let kept = storage.withUnsafeMutablePointerToHeader { header in
            guard header.pointee.capacity <= ThreadState.spareMatchLimit else { return false }
            if !header.pointee.extra.isEmpty { header.pointee.extra = [:] }
            header.pointee.context = nil
            header.pointee.rawContext = nil
            return true
        }
        if kept { ThreadState.keepSpareStorage(storage) }
    }

    /// The bytes its tail holds.
    @inline(__always) var tailCapacity: Int { withUnsafeMutablePointerToHeader { $0.pointee.capacity } }

    /// The record, valid while this storage is alive.
    @inline(__always) var record: MatchRecord {
        MatchRecord(withUnsafeMutablePointerToElements { UnsafeRawPointer($0) })
    }
}

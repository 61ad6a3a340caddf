/// The memory of a Swift `Match`: one object whose tail holds its `MatchRecord` (one allocation in all).
/// Immutable once `make` returns (the record is written before the storage is handed out), so the types that
/// hold one may be shared across threads; ManagedBuffer itself cannot say so.
final class MatchStorage: ManagedBuffer<Int, UInt8> {

    /// Resolves `url` on `state` into a new storage; nil for no match.
    static func make(_ state: RouterState, _ url: ByteSpan, extras: UnsafeBufferPointer<QueryPair>) throws(RouterError) -> MatchStorage? {
        var storage: MatchStorage?
        _ = try state.matchRecord(url, extras: extras) { size in
            let buffer = MatchStorage.create(minimumCapacity: size) { _ in size }
            let made = unsafeDowncast(buffer, to: MatchStorage.self)
            storage = made
            return made.withUnsafeMutablePointerToElements { UnsafeMutableRawPointer($0) }
        }
        return storage
    }

    /// The record, valid while this storage is alive.
    @inline(__always) var record: MatchRecord {
        MatchRecord(withUnsafeMutablePointerToElements { UnsafeRawPointer($0) })
    }
}

/// The memory of a Swift `Match`: one object whose tail holds its `MatchRecord` (one allocation in all), and
/// whose header holds what an open added (extras of any type, the caller's context), so that a `Match` is one
/// reference: copying one into a reply or a closure is one retain.
/// Immutable once handed out (the record is written by `make`, the header by `Match.init` before the match is
/// shared), so the types that hold one may be shared across threads; ManagedBuffer itself cannot say so.
final class MatchStorage: ManagedBuffer<MatchStorage.Header, UInt8> {
    struct Header {
        var extra: [String: any Sendable] = [:]
        var context: (any Sendable)?
    }

    /// Resolves `url` on `state` into a new storage; nil for no match.
    static func make(_ state: RouterState, _ url: ByteSpan, extras: UnsafeBufferPointer<QueryPair>) throws(RouterError) -> MatchStorage? {
        var storage: MatchStorage?
        _ = try state.matchRecord(url, extras: extras) { size in
            let buffer = MatchStorage.create(minimumCapacity: size) { _ in Header() }
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

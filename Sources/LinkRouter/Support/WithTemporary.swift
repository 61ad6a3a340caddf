#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs `body` with room for `capacity` values of `T` (uninitialized): on the stack when it takes 1 KiB or less,
/// else from malloc. Returns nil when the memory cannot be had — a size that overflows, or malloc failing — and
/// the caller reports `.noMemory`. `withUnsafeTemporaryAllocation` would trap on the first and abort the host on
/// the second (Swift's allocator does not return NULL); sizes here come from URLs and limits, so neither may.
@inline(__always)
package func withTemporary<T, R>(_ type: T.Type, capacity: Int, _ body: (UnsafeMutablePointer<T>) -> R) -> R? {
    let (bytes, overflow) = max(capacity, 1).multipliedReportingOverflow(by: MemoryLayout<T>.stride)
    guard !overflow, MemoryLayout<T>.alignment <= 16 else { return nil }
    return withTemporaryBytes(bytes) { body($0.bindMemory(to: T.self, capacity: max(capacity, 1))) }
}

/// The most bytes `withTemporaryBytes` takes from the stack (what `withUnsafeTemporaryAllocation` puts there).
package var temporaryStackBytes: Int { 1024 }

/// Runs `body` with `count` bytes aligned to 16 (uninitialized): on the stack up to 1 KiB, else from malloc;
/// nil when malloc fails. One block for several arrays costs one set-up instead of one each.
@inline(__always)
package func withTemporaryBytes<R>(_ count: Int, _ body: (UnsafeMutableRawPointer) -> R) -> R? {
    let bytes = max(count, 1)
    if bytes <= temporaryStackBytes {
        return withUnsafeTemporaryAllocation(byteCount: bytes, alignment: 16) { $0.baseAddress.map(body) }
    }
    // malloc's alignment (16 on 64-bit glibc and musl) suits every type the lookups use.
    guard let raw = malloc(bytes) else { return nil }
    defer { free(raw) }
    return body(raw)
}

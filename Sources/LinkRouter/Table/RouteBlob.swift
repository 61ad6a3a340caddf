/// How one route is stored: a fixed header and its strings in one block of the table's arena.
///
/// ```
///  0  u32 pattern length      16  u16 parameter count
///  4  u32 target length       18  u16 flags (catch-all, has name, has metadata)
///  8  u32 name length         20  u32 insertion sequence
/// 12  u32 metadata length     24  parameter names: count × (u32 offset from the block, u32 length)
///     then pattern NUL, target NUL, name NUL, metadata NUL, each parameter name NUL
/// ```
/// One block per route keeps a table near 150 bytes per route, and every string a lookup returns is a
/// NUL-terminated pointer that the C ABI can hand out as it is.
package struct RouteBlob: @unchecked Sendable {
    // SAFETY: the block is written once, before the snapshot holding it is published, and never again.
    package let base: UnsafeRawPointer

    static let headerSize = 24
    static let catchAllFlag: UInt16 = 1
    static let nameFlag: UInt16 = 2
    static let metadataFlag: UInt16 = 4

    @inline(__always) private func u32(_ offset: Int) -> Int {
        Int(base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inline(__always) package var patternLength: Int { u32(0) }
    @inline(__always) package var targetLength: Int { u32(4) }
    @inline(__always) var nameLength: Int { u32(8) }
    @inline(__always) var metadataLength: Int { u32(12) }
    @inline(__always) package var paramCount: Int {
        Int(base.loadUnaligned(fromByteOffset: 16, as: UInt16.self))
    }
    @inline(__always) var flags: UInt16 { base.loadUnaligned(fromByteOffset: 18, as: UInt16.self) }
    @inline(__always) package var sequence: Int { u32(20) }
    @inline(__always) package var isCatchAll: Bool { flags & RouteBlob.catchAllFlag != 0 }

    @inline(__always) private var strings: UnsafePointer<UInt8> {
        (base + RouteBlob.headerSize + 8 &* paramCount).assumingMemoryBound(to: UInt8.self)
    }

    /// The pattern as registered (NUL-terminated).
    @inline(__always) package var pattern: ByteSpan { ByteSpan(start: strings, count: patternLength) }
    /// The target as registered (NUL-terminated).
    @inline(__always) package var target: ByteSpan {
        ByteSpan(start: strings + patternLength + 1, count: targetLength)
    }
    /// The route's name, nil when it has none.
    package var name: ByteSpan? {
        guard flags & RouteBlob.nameFlag != 0 else { return nil }
        return ByteSpan(start: strings + patternLength + targetLength + 2, count: nameLength)
    }
    /// The route's metadata (opaque text, JSON by convention), nil when it has none.
    package var metadata: ByteSpan? {
        guard flags & RouteBlob.metadataFlag != 0 else { return nil }
        return ByteSpan(start: strings + patternLength + targetLength + nameLength + 3, count: metadataLength)
    }

    /// Name of parameter `i` (path order, catch-all last), NUL-terminated.
    @inline(__always) package func paramName(_ i: Int) -> ByteSpan {
        let entry = RouteBlob.headerSize + 8 &* i
        return ByteSpan(start: (base + u32(entry)).assumingMemoryBound(to: UInt8.self), count: u32(entry + 4))
    }

    /// Writes a block for `route` into `arena`.
    static func make(_ route: RouteSpec, pattern: Pattern, sequence: Int, in arena: inout ByteArena) -> RouteBlob {
        let names = pattern.paramNames
        let params = names.count
        let name = route.name.map { Array($0.utf8) }
        let metadata = route.metadata.map { Array($0.utf8) }
        let patternBytes = Array(route.pattern.utf8), targetBytes = Array(route.target.utf8)
        let stringsSize = patternBytes.count + targetBytes.count + (name?.count ?? 0) + (metadata?.count ?? 0) + 4
            + names.reduce(0) { $0 + $1.utf8.count + 1 }
        let size = headerSize + 8 * params + stringsSize
        let block = arena.allocate(size, alignment: 4)

        var flags: UInt16 = pattern.hasCatchAll ? catchAllFlag : 0
        if name != nil { flags |= nameFlag }
        if metadata != nil { flags |= metadataFlag }
        block.storeBytes(of: UInt32(patternBytes.count), toByteOffset: 0, as: UInt32.self)
        block.storeBytes(of: UInt32(targetBytes.count), toByteOffset: 4, as: UInt32.self)
        block.storeBytes(of: UInt32(name?.count ?? 0), toByteOffset: 8, as: UInt32.self)
        block.storeBytes(of: UInt32(metadata?.count ?? 0), toByteOffset: 12, as: UInt32.self)
        block.storeBytes(of: UInt16(params), toByteOffset: 16, as: UInt16.self)
        block.storeBytes(of: flags, toByteOffset: 18, as: UInt16.self)
        block.storeBytes(of: UInt32(truncatingIfNeeded: sequence), toByteOffset: 20, as: UInt32.self)

        var offset = headerSize + 8 * params
        func put(_ bytes: [UInt8]) -> Int {
            let at = offset
            bytes.withUnsafeBytes { raw in
                if let src = raw.baseAddress { (block + at).copyMemory(from: src, byteCount: raw.count) }
            }
            block.storeBytes(of: 0, toByteOffset: offset + bytes.count, as: UInt8.self)
            offset += bytes.count + 1
            return at
        }
        _ = put(patternBytes)
        _ = put(targetBytes)
        _ = put(name ?? [])
        _ = put(metadata ?? [])
        for (i, n) in names.enumerated() {
            let bytes = Array(n.utf8)
            let at = put(bytes)
            block.storeBytes(of: UInt32(at), toByteOffset: headerSize + 8 * i, as: UInt32.self)
            block.storeBytes(of: UInt32(bytes.count), toByteOffset: headerSize + 8 * i + 4, as: UInt32.self)
        }
        return RouteBlob(base: UnsafeRawPointer(block))
    }
}

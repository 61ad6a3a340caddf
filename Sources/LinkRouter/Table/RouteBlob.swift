/// How one route is stored: a fixed header and its strings in one block of the table's arena.
///
/// ```
///  0  u32 pattern length      16  u16 parameter count
///  4  u32 target length       18  u16 flags (catch-all, has name, has metadata, has extras)
///  8  u32 name length         20  u32 insertion sequence
/// 12  u32 metadata length     24  parameter names: count × (u32 offset from the block, u32 length)
///     then pattern NUL, target NUL, name NUL, metadata NUL, each parameter name NUL
///     then, when the route requires guards or carries meta, the extras (4-aligned):
///     u16 requires count R, u16 meta count M, R × (u32 offset, u32 length), M × (key offset, key length,
///     value offset, value length), then each of those strings NUL-terminated
/// ```
/// "metadata" is the route's meta as one JSON object (sorted keys), kept ready for `lr_match_metadata`.
/// One block per route keeps a table near 150 bytes per route, and every string a lookup returns is a
/// NUL-terminated pointer that the C ABI can hand out as it is. The extras come last: only the open path
/// reads them, so routes without them pay nothing.
package struct RouteBlob: @unchecked Sendable {
    // SAFETY: the block is written once, before the snapshot holding it is published, and never again.
    package let base: UnsafeRawPointer

    static let headerSize = 24
    static let catchAllFlag: UInt16 = 1
    static let nameFlag: UInt16 = 2
    static let metadataFlag: UInt16 = 4
    static let extrasFlag: UInt16 = 8
    /// One of the extra routes an optional group expands to (`app://u/:id(/:tab)` without its group): it
    /// matches, but listings, names and counts see only the route as registered.
    static let variantFlag: UInt16 = 16
    /// Most parameters, required guards or meta entries one route may have (they are stored as u16).
    package static let maxItems = Int(UInt16.max)

    @inline(__always) private func u32(_ offset: Int) -> Int {
        Int(base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inline(__always) private func u16(_ offset: Int) -> Int {
        Int(base.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    @inline(__always) package var patternLength: Int { u32(0) }
    @inline(__always) package var targetLength: Int { u32(4) }
    @inline(__always) var nameLength: Int { u32(8) }
    @inline(__always) var metadataLength: Int { u32(12) }
    @inline(__always) package var paramCount: Int { u16(16) }
    @inline(__always) var flags: UInt16 { base.loadUnaligned(fromByteOffset: 18, as: UInt16.self) }
    @inline(__always) package var sequence: Int { u32(20) }
    @inline(__always) package var isCatchAll: Bool { flags & RouteBlob.catchAllFlag != 0 }
    package var isVariant: Bool { flags & RouteBlob.variantFlag != 0 }

    @inline(__always) private var strings: UnsafePointer<UInt8> {
        (base + RouteBlob.headerSize + 8 &* paramCount).assumingMemoryBound(to: UInt8.self)
    }

    @inline(__always) private func span(_ offset: Int, _ count: Int) -> ByteSpan {
        ByteSpan(start: (base + offset).assumingMemoryBound(to: UInt8.self), count: count)
    }

    /// The pattern as registered (NUL-terminated).
    @inline(__always) package var pattern: ByteSpan { ByteSpan(start: strings, count: patternLength) }
    /// The target as registered (NUL-terminated).
    @inline(__always) package var target: ByteSpan {
        ByteSpan(start: strings + patternLength + 1, count: targetLength)
    }
    /// The route's name, nil when it has none.
    package var name: ByteSpan? {
        guard hasName else { return nil }
        return ByteSpan(start: strings + patternLength + targetLength + 2, count: nameLength)
    }
    /// The route's meta as one JSON object with sorted keys, nil when it has none.
    package var metadata: ByteSpan? {
        guard hasMetadata else { return nil }
        return ByteSpan(start: strings + patternLength + targetLength + nameLength + 3, count: metadataLength)
    }

    /// Name of parameter `i` (path order, catch-all last), NUL-terminated.
    @inline(__always) package func paramName(_ i: Int) -> ByteSpan {
        let e = paramNameEntry(i)
        return span(e.offset, e.count)
    }

    /// The (offset, length) of parameter `i`'s name in the block.
    @inline(__always) package func paramNameEntry(_ i: Int) -> (offset: Int, count: Int) {
        let entry = RouteBlob.headerSize &+ 8 &* i
        return (u32(entry), u32(entry &+ 4))
    }

    /// Where the pattern starts in the block; the target, name and metadata follow it, each NUL-terminated
    /// ("" when absent).
    @inline(__always) package var patternOffset: Int { RouteBlob.headerSize &+ 8 &* paramCount }
    @inline(__always) package var hasName: Bool { flags & RouteBlob.nameFlag != 0 }
    @inline(__always) package var hasMetadata: Bool { flags & RouteBlob.metadataFlag != 0 }

    /// Where the strings before the extras end: after the last parameter name (they are written in order),
    /// else after the metadata's NUL.
    @inline(__always) private var namesEnd: Int {
        let n = paramCount
        guard n > 0 else { return patternOffset &+ patternLength &+ targetLength &+ nameLength &+ metadataLength &+ 4 }
        let last = paramNameEntry(n &- 1)
        return last.offset &+ last.count &+ 1
    }

    /// Where the extras start (0: the route has none). Found from the strings before them: only the open path
    /// and matches ask, so the header does not spend a word on it.
    @inline(__always) private var extrasOffset: Int {
        guard flags & RouteBlob.extrasFlag != 0 else { return 0 }
        return (namesEnd &+ 3) & ~3
    }

    /// The end of the block: the route's strings from `patternOffset` to here (with the extras' tables between
    /// them, when it has extras) are one run that a match copies in one piece, each string at the same distance
    /// from the run's start.
    @inline(__always) package var stringsEnd: Int {
        let x = extrasOffset
        if x == 0 { return namesEnd }
        let requires = u16(x), meta = u16(x &+ 2)
        // The extras' strings follow their tables in order: the last meta value, else the last guard, ends them.
        let last: Int
        if meta > 0 {
            last = x &+ 4 &+ 8 &* requires &+ 16 &* (meta &- 1) &+ 8
        } else if requires > 0 {
            last = x &+ 4 &+ 8 &* (requires &- 1)
        } else {
            return x &+ 4
        }
        return u32(last) &+ u32(last &+ 4) &+ 1
    }

    /// The (offset, length) of required guard `i` in the block.
    @inline(__always) package func requiresEntry(_ i: Int) -> (offset: Int, count: Int) {
        let entry = extrasOffset &+ 4 &+ 8 &* i
        return (u32(entry), u32(entry &+ 4))
    }

    /// The (offset, length) of meta entry `i`'s key and of its value in the block.
    @inline(__always) package func metaEntry(_ i: Int) -> (key: Int, keyCount: Int, value: Int, valueCount: Int) {
        let x = extrasOffset
        let entry = x &+ 4 &+ 8 &* u16(x) &+ 16 &* i
        return (u32(entry), u32(entry &+ 4), u32(entry &+ 8), u32(entry &+ 12))
    }

    /// The guards the route requires, in order.
    @inline(__always) package var requiresCount: Int {
        let x = extrasOffset
        return x == 0 ? 0 : u16(x)
    }

    package func requires(_ i: Int) -> ByteSpan {
        let e = requiresEntry(i)
        return span(e.offset, e.count)
    }

    /// The route's meta entries, sorted by key.
    @inline(__always) package var metaCount: Int {
        let x = extrasOffset
        return x == 0 ? 0 : u16(x + 2)
    }

    package func meta(_ i: Int) -> (key: ByteSpan, value: ByteSpan) {
        let e = metaEntry(i)
        return (span(e.key, e.keyCount), span(e.value, e.valueCount))
    }

    /// The route as a caller would register it again.
    package var spec: RouteSpec {
        var meta: [String: String] = [:]
        for i in 0..<metaCount {
            let (k, v) = self.meta(i)
            meta[k.string] = v.string
        }
        return RouteSpec(pattern.string, target: target.string, name: name?.string,
                         requires: (0..<requiresCount).map { requires($0).string }, meta: meta)
    }

    /// Writes a block for `route` into `arena`. Throws `.limit` when a count or size does not fit the block's
    /// fields (more than 65,535 parameters, guards or meta entries, a block over 4 GiB, ids exhausted).
    static func make(_ route: RouteSpec, pattern: Pattern, sequence: Int, variant: Bool = false,
                     in arena: inout ByteArena) throws(RouterError) -> RouteBlob {
        let names = pattern.paramNames.map { Array($0.utf8) }
        let name = route.name.map { Array($0.utf8) }
        let metadata = route.metaJSON.map { Array($0.utf8) }
        let patternBytes = Array(route.pattern.utf8), targetBytes = Array(route.target.utf8)
        let requires = route.requires.map { Array($0.utf8) }
        let meta = route.meta.sorted { $0.key < $1.key }.map { (Array($0.key.utf8), Array($0.value.utf8)) }
        let tooMany = [("parameters", names.count), ("required guards", requires.count), ("meta entries", meta.count)]
        for (what, count) in tooMany where count > maxItems {
            throw .limit("route '\(excerpt(route.pattern))' has \(count) \(what), more than \(maxItems)")
        }
        guard let sequence = UInt32(exactly: sequence) else {
            throw .limit("this router has handed out every route id (2^32); make a new router")
        }

        let hasExtras = !requires.isEmpty || !meta.isEmpty
        var size = headerSize + 8 * names.count + patternBytes.count + targetBytes.count + (name?.count ?? 0)
            + (metadata?.count ?? 0) + 4 + names.reduce(0) { $0 + $1.count + 1 }
        let extrasAt = (size + 3) & ~3
        if hasExtras {
            size = extrasAt + 4 + 8 * requires.count + 16 * meta.count
                + requires.reduce(0) { $0 + $1.count + 1 } + meta.reduce(0) { $0 + $1.0.count + $1.1.count + 2 }
        }
        guard size <= Int(UInt32.max) else {
            throw .limit("route '\(excerpt(route.pattern))' needs \(size) bytes, more than a route may hold (4 GiB)")
        }
        let block = arena.allocate(size, alignment: 4)

        var flags: UInt16 = pattern.hasCatchAll ? catchAllFlag : 0
        if variant { flags |= variantFlag }
        if name != nil { flags |= nameFlag }
        if metadata != nil { flags |= metadataFlag }
        if hasExtras { flags |= extrasFlag }
        // Every value below is at most `size`, which fits a u32, or a count checked against u16.
        func u32(_ v: Int, at offset: Int) { block.storeBytes(of: UInt32(truncatingIfNeeded: v), toByteOffset: offset, as: UInt32.self) }
        func u16(_ v: Int, at offset: Int) { block.storeBytes(of: UInt16(truncatingIfNeeded: v), toByteOffset: offset, as: UInt16.self) }
        u32(patternBytes.count, at: 0)
        u32(targetBytes.count, at: 4)
        u32(name?.count ?? 0, at: 8)
        u32(metadata?.count ?? 0, at: 12)
        u16(names.count, at: 16)
        block.storeBytes(of: flags, toByteOffset: 18, as: UInt16.self)
        block.storeBytes(of: sequence, toByteOffset: 20, as: UInt32.self)

        var offset = headerSize + 8 * names.count
        /// Copies `bytes` and a NUL at the cursor; records (offset, length) at `ref` when given.
        // The closure reads a copy of the cursor: Swift 6.3's SIL verifier rejects reading the captured var in
        // the closure while `put` writes it (it crashed the TSan build of the library).
        func put(_ bytes: [UInt8], ref: Int? = nil) {
            let at = offset
            offset = at + bytes.count + 1
            bytes.withUnsafeBytes { raw in
                if let src = raw.baseAddress { (block + at).copyMemory(from: src, byteCount: raw.count) }
            }
            block.storeBytes(of: 0, toByteOffset: at + bytes.count, as: UInt8.self)
            if let ref {
                u32(at, at: ref)
                u32(bytes.count, at: ref + 4)
            }
        }
        put(patternBytes)
        put(targetBytes)
        put(name ?? [])
        put(metadata ?? [])
        for (i, n) in names.enumerated() { put(n, ref: headerSize + 8 * i) }
        if hasExtras {
            // The padding before the tables is zeroed: a match record copies this run whole (MatchRecord.write).
            for k in offset..<extrasAt { block.storeBytes(of: 0, toByteOffset: k, as: UInt8.self) }
            offset = extrasAt
            u16(requires.count, at: offset)
            u16(meta.count, at: offset + 2)
            let requiresRefs = offset + 4, metaRefs = requiresRefs + 8 * requires.count
            offset = metaRefs + 16 * meta.count
            for (i, r) in requires.enumerated() { put(r, ref: requiresRefs + 8 * i) }
            for (i, (k, v)) in meta.enumerated() {
                put(k, ref: metaRefs + 16 * i)
                put(v, ref: metaRefs + 16 * i + 8)
            }
        }
        return RouteBlob(base: UnsafeRawPointer(block))
    }
}

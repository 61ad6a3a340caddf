#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The reads the C getters (`lr_match_*`) make on a record, public to LinkRouterC alone (SPI) and inlinable into
/// it: each getter is then one function, with no call into the core (Swift inlines no `package` function across
/// modules). `MatchRecord` reads through them too, so that the layout is written down once.
@_spi(CExports) public enum MatchLayout {
    /// The header's u32 words, before the refs (`MatchRecord` says what each holds).
    public enum Word: Int, CaseIterable {
        case size, routeID, flags, params, pathParams, queryPairs, extras, requires, zero, meta, nesting, capacity
    }

    /// Header words before the refs (`Word`'s cases; MatchRecordTests holds the two together).
    @inlinable public static var headerWords: Int { 12 }
    /// The flag (in `Word.flags`) of a record whose merged parameters are its path parameters, whose refs
    /// then serve as both.
    @inlinable public static var mergedArePathFlag: UInt32 { 8 }
    /// The fixed strings, in the order of their refs (`MatchRecord.Field`).
    public enum Field: Int, CaseIterable {
        case target, pattern, name, metadata, url, routed, scheme, host, port, path, fragment
    }

    /// The ref of the first merged parameter's name: after the fixed strings, then (name, value) refs in pairs.
    @inlinable public static var firstParamRef: Int { 11 }

    /// Header word `w`.
    @inlinable @inline(__always)
    public static func word(_ w: Int, in base: UnsafeRawPointer) -> Int {
        Int(base.loadUnaligned(fromByteOffset: 4 &* w, as: UInt32.self))
    }

    /// Where ref `i` is in the block: (u32 offset of its string, u32 length).
    @inlinable @inline(__always)
    static func refAt(_ i: Int) -> Int { 4 &* headerWords &+ 8 &* i }

    /// The start of the string ref `i` refers to; NUL-terminated.
    @inlinable @inline(__always)
    public static func refStart(_ i: Int, in base: UnsafeRawPointer) -> UnsafePointer<UInt8> {
        (base + Int(base.loadUnaligned(fromByteOffset: refAt(i), as: UInt32.self))).assumingMemoryBound(to: UInt8.self)
    }

    /// The length of the string ref `i` refers to.
    @inlinable @inline(__always)
    public static func refCount(_ i: Int, in base: UnsafeRawPointer) -> Int {
        Int(base.loadUnaligned(fromByteOffset: refAt(i) &+ 4, as: UInt32.self))
    }

    /// The first ref of each list after the fixed strings: merged parameters (name, value), path parameters
    /// (none of their own when `mergedArePathFlag` says the merged ones are they), query pairs, extras,
    /// requires (one ref each), meta (key, value).
    @inlinable @inline(__always)
    public static func pathStart(in base: UnsafeRawPointer) -> Int {
        UInt32(truncatingIfNeeded: word(Word.flags.rawValue, in: base)) & mergedArePathFlag != 0
            ? firstParamRef : firstParamRef &+ 2 &* word(Word.params.rawValue, in: base)
    }
    @inlinable @inline(__always)
    public static func queryStart(in base: UnsafeRawPointer) -> Int {
        pathStart(in: base) &+ 2 &* word(Word.pathParams.rawValue, in: base)
    }
    @inlinable @inline(__always)
    public static func extraStart(in base: UnsafeRawPointer) -> Int {
        queryStart(in: base) &+ 2 &* word(Word.queryPairs.rawValue, in: base)
    }
    @inlinable @inline(__always)
    public static func requiresStart(in base: UnsafeRawPointer) -> Int {
        extraStart(in: base) &+ 2 &* word(Word.extras.rawValue, in: base)
    }
    @inlinable @inline(__always)
    public static func metaStart(in base: UnsafeRawPointer) -> Int {
        requiresStart(in: base) &+ word(Word.requires.rawValue, in: base)
    }

    /// The lists the C getters read by index: merged parameters, query pairs and meta entries (pairs of refs),
    /// requires (one ref each).
    public enum List { case params, query, requires, meta }

    /// The number of items in list `l`.
    @inlinable @inline(__always)
    public static func count(_ l: List, in base: UnsafeRawPointer) -> Int {
        switch l {
        case .params: word(Word.params.rawValue, in: base)
        case .query: word(Word.queryPairs.rawValue, in: base)
        case .requires: word(Word.requires.rawValue, in: base)
        case .meta: word(Word.meta.rawValue, in: base)
        }
    }

    /// The first ref of list `l`.
    @inlinable @inline(__always)
    static func first(_ l: List, in base: UnsafeRawPointer) -> Int {
        switch l {
        case .params: firstParamRef
        case .query: queryStart(in: base)
        case .requires: requiresStart(in: base)
        case .meta: metaStart(in: base)
        }
    }

    /// Item `i` of list `l` (of a pair, its name, or its value when `second`), as a C string; nil when `i` is out
    /// of range.
    @inlinable @inline(__always)
    public static func item(_ l: List, _ i: UInt, second: Bool = false, in base: UnsafeRawPointer) -> UnsafePointer<CChar>? {
        guard i < UInt(count(l, in: base)) else { return nil }
        let ref = first(l, in: base) &+ (l == .requires ? 1 : 2) &* Int(i) &+ (second ? 1 : 0)
        return UnsafeRawPointer(refStart(ref, in: base)).assumingMemoryBound(to: CChar.self)
    }

    /// The value of the first pair of list `l` whose name is C string `name`; nil when none is
    /// (`lr_match_get`, `lr_match_meta`). One strlen, then a stored name of another length is passed over with
    /// one compare; only the name's bytes before its NUL are read, so a stored name holding a decoded NUL
    /// matches no C string.
    @inlinable @inline(__always)
    public static func value(named name: UnsafePointer<CChar>, in l: List, of base: UnsafeRawPointer) -> UnsafePointer<CChar>? {
        let length = strlen(name)
        let bytes = UnsafeRawPointer(name).assumingMemoryBound(to: UInt8.self)
        let n = count(l, in: base), start = first(l, in: base)
        var i = 0
        while i < n {
            let key = start &+ 2 &* i
            if refCount(key, in: base) == length && bytesEqual(bytes, refStart(key, in: base), length) {
                return UnsafeRawPointer(refStart(key &+ 1, in: base)).assumingMemoryBound(to: CChar.self)
            }
            i &+= 1
        }
        return nil
    }
}

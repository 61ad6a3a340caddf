#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The reads the C getters (`lr_match_*`) make on a record, public to LinkRouterC alone (SPI) and inlinable into
/// it: each getter is then one function, with no call into the core (Swift inlines no `package` function across
/// modules). `MatchRecord` reads through them too, so that the layout is written down once.
@_spi(CExports) public enum MatchLayout {
    /// Header words before the refs (`MatchRecord.Word`; MatchRecordTests holds the two together).
    @inlinable public static var headerWords: Int { 12 }
    /// The header word holding the merged parameters' count (`MatchRecord.Word.params`).
    @inlinable public static var paramCountWord: Int { 3 }
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

    /// The value of merged parameter `name`, a C string, as the start of its NUL-terminated bytes; nil when
    /// absent. One strlen, then a stored name of another length is passed over with one compare; only the
    /// name's bytes before its NUL are read, so a stored name holding a decoded NUL matches no C string.
    @inlinable @inline(__always)
    public static func paramValue(in base: UnsafeRawPointer, cName name: UnsafePointer<CChar>) -> UnsafePointer<CChar>? {
        let length = strlen(name)
        let bytes = UnsafeRawPointer(name).assumingMemoryBound(to: UInt8.self)
        let n = word(paramCountWord, in: base)
        var i = 0
        while i < n {
            let key = firstParamRef &+ 2 &* i
            if refCount(key, in: base) == length && bytesEqual(bytes, refStart(key, in: base), length) {
                return UnsafeRawPointer(refStart(key &+ 1, in: base)).assumingMemoryBound(to: CChar.self)
            }
            i &+= 1
        }
        return nil
    }
}

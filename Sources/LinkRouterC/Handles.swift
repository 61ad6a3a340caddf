import CLinkRouter
import LinkRouter

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Handle boxing and argument checks for the C ABI: the one place that turns C pointers into Swift objects.
///
/// `lr_router *` is an unmanaged `Router` (+1 from lr_router_new, released by lr_router_free);
/// `lr_match *` is an unmanaged `MatchBox`. Every export goes through `guarded`, which turns a thrown
/// `RouterError` into its status code and records the message for `lr_last_error`.

public typealias CString = UnsafePointer<CChar>

/// Runs an export's body; a thrown error becomes its code, with the message kept for this thread.
@inline(__always)
func guarded(_ body: () throws(RouterError) -> Int32) -> Int32 {
    do {
        return try body()
    } catch {
        ThreadState.with { $0.setError(error.message) }
        return error.code.rawValue
    }
}

/// Records a misuse that has no status to return through (getters given a NULL match, an index out of range).
func noteMisuse(_ message: String) {
    ThreadState.with { $0.setError(message) }
}

func router(_ handle: UnsafeMutableRawPointer?, _ function: StaticString) throws(RouterError) -> Router {
    guard let handle else { throw RouterError(.misuse, "\(function): the router is NULL") }
    return Unmanaged<Router>.fromOpaque(handle).takeUnretainedValue()
}

/// `body` with the router of `handle`, borrowed without a retain and release: for the lookups, which run
/// millions of times (the caller keeps the handle alive for the call, as the header requires).
@inline(__always)
func withRouter<R>(_ handle: UnsafeMutableRawPointer?, _ function: StaticString,
                   _ body: (Router) throws(RouterError) -> R) throws(RouterError) -> R {
    guard let handle else { throw RouterError(.misuse, "\(function): the router is NULL") }
    return try Unmanaged<Router>.fromOpaque(handle)._withUnsafeGuaranteedRef { router -> Result<R, RouterError> in
        do throws(RouterError) { return .success(try body(router)) } catch { return .failure(error) }
    }.get()
}

func newRouterHandle() -> UnsafeMutableRawPointer {
    Unmanaged.passRetained(Router()).toOpaque()
}

func releaseRouterHandle(_ handle: UnsafeMutableRawPointer) {
    Unmanaged<Router>.fromOpaque(handle).release()
}

/// The bytes of a C string argument (no copy); NULL is misuse.
func bytes(_ s: CString?, _ what: StaticString, _ function: StaticString) throws(RouterError) -> ByteSpan {
    guard let s else { throw RouterError(.misuse, "\(function): \(what) is NULL") }
    return s.withMemoryRebound(to: UInt8.self, capacity: 1) { ByteSpan(start: $0, count: strlen(s)) }
}

/// `length` bytes of a C argument (no NUL needed); NULL is misuse unless the length is 0.
func bytes(_ s: CString?, length: Int, _ what: StaticString, _ function: StaticString) throws(RouterError) -> ByteSpan {
    guard length >= 0 else { throw RouterError(.misuse, "\(function): \(what) length is out of range") }
    guard let s else {
        if length == 0 { return .empty }
        throw RouterError(.misuse, "\(function): \(what) is NULL")
    }
    return s.withMemoryRebound(to: UInt8.self, capacity: 1) { ByteSpan(start: $0, count: length) }
}

/// A span from the table, the URL or scratch, as a C pointer ("" when empty).
func cString(_ span: ByteSpan) -> CString {
    guard let start = span.start else { return emptyCString }
    return UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self)
}

/// The caller's `lr_param_ref` array seen as `QueryPair`s, which have the same layout: two (pointer, length)
/// pairs. Checked, not assumed: a layout that differs is refused rather than misread.
func paramPairs(_ params: UnsafeMutablePointer<lr_param_ref>?, _ function: StaticString) throws(RouterError)
    -> UnsafeMutablePointer<QueryPair>? {
    guard let params else { return nil }
    guard MemoryLayout<QueryPair>.size == MemoryLayout<lr_param_ref>.size,
          MemoryLayout<QueryPair>.stride == MemoryLayout<lr_param_ref>.stride,
          MemoryLayout<QueryPair>.offset(of: \QueryPair.value) == MemoryLayout<lr_param_ref>.offset(of: \lr_param_ref.value),
          MemoryLayout<ByteSpan>.offset(of: \ByteSpan.count) == MemoryLayout<lr_param_ref>.offset(of: \lr_param_ref.name_len)
    else { throw RouterError(.misuse, "\(function): lr_param_ref layout differs from this build's") }
    return UnsafeMutableRawPointer(params).assumingMemoryBound(to: QueryPair.self)
}

/// A C string argument as a Swift String; NULL is misuse, invalid UTF-8 is LR_EINVAL, and a string longer than
/// `maxLength` is LR_ELIMIT, refused before it is copied.
func text(_ s: CString?, _ what: StaticString, _ function: StaticString, maxLength: Int = .max) throws(RouterError) -> String {
    let span = try bytes(s, what, function)
    guard span.count <= maxLength else {
        throw RouterError(.limit, "\(function): \(what) of \(span.count) bytes is longer than \(maxLength) bytes")
    }
    guard span.isValidUTF8 else { throw RouterError(.invalidURL, "\(function): \(what) is not valid UTF-8") }
    return span.string
}

/// An optional C string argument (NULL allowed).
func optionalText(_ s: CString?, _ what: StaticString, _ function: StaticString, maxLength: Int = .max) throws(RouterError)
    -> String? {
    guard s != nil else { return nil }
    return try text(s, what, function, maxLength: maxLength)
}

/// `count` strings from a C array of pointers; a NULL array is misuse unless `count` is 0. A refused
/// element is reported like any refused item of a bulk call: its index, and a message starting "<item> <i>:".
func texts(_ array: UnsafePointer<CString?>?, _ count: Int, _ what: StaticString, _ function: StaticString,
           item: StaticString, maxLength: Int = .max) throws(RouterError) -> [String] {
    guard count > 0 else { return [] }
    guard let array else { throw RouterError(.misuse, "\(function): \(what) is NULL") }
    var out: [String] = []
    out.reserveCapacity(count)
    for i in 0..<count {
        do throws(RouterError) {
            guard array[i] != nil else { throw RouterError(.misuse, "\(function): \(what)[\(i)] is NULL") }
            out.append(try text(array[i], what, function, maxLength: maxLength))
        } catch {
            throw RouterError(error.code, "\(item) \(i): \(error.message)", index: i)
        }
    }
    return out
}

/// A bulk add from two parallel C arrays of `n` strings: `add` gets them as Swift strings, and a refused item's
/// index goes to `failedIndex` (when not NULL), whether it was refused here (NULL, not UTF-8) or by `add`.
func bulk(_ first: UnsafePointer<CString?>?, _ second: UnsafePointer<CString?>?, _ n: UInt,
          _ failedIndex: UnsafeMutablePointer<UInt>?, _ function: StaticString, item: StaticString,
          names: (StaticString, StaticString), maxLength: Int = .max,
          _ add: ([String], [String]) throws(RouterError) -> Void) throws(RouterError) {
    let n = try count(n, function)
    do throws(RouterError) {
        try add(try texts(first, n, names.0, function, item: item, maxLength: maxLength),
                try texts(second, n, names.1, function, item: item, maxLength: maxLength))
    } catch {
        if let failedIndex, let i = error.index { failedIndex.pointee = UInt(i) }
        throw error
    }
}

/// A `size_t` count from C, refused when it cannot be a real array length.
func count(_ n: UInt, _ function: StaticString) throws(RouterError) -> Int {
    guard n <= UInt(Int32.max) else { throw RouterError(.misuse, "\(function): count \(n) is out of range") }
    return Int(n)
}

/// A string the caller owns: malloc'd, NUL-terminated, freed by lr_string_free.
func ownedCString(_ s: String) -> UnsafeMutablePointer<CChar>? {
    let utf8 = Array(s.utf8)
    guard let p = malloc(utf8.count + 1)?.assumingMemoryBound(to: CChar.self) else { return nil }
    utf8.withUnsafeBufferPointer { src in
        if let base = src.baseAddress { memcpy(p, base, src.count) }
    }
    p[utf8.count] = 0
    return p
}

/// An `lr_match`: a `Match` and, in one block, NUL-terminated copies of every string the getters return.
final class MatchBox {
    let match: Match
    private let block: UnsafeMutablePointer<CChar>
    private let fieldOffsets: [Int]
    private let nameOffset: Int?, metadataOffset: Int?
    private let paramOffsets: [(name: Int, value: Int)]
    private let queryOffsets: [(name: Int, value: Int)]

    enum Field: Int { case target, pattern, url, rewritten, scheme, host, port, path, fragment }

    init?(_ match: Match) {
        self.match = match
        var bytes: [UInt8] = []
        func put(_ s: String) -> Int {
            let at = bytes.count
            bytes.append(contentsOf: s.utf8)
            bytes.append(0)
            return at
        }
        fieldOffsets = [match.target, match.pattern, match.url, match.rewritten, match.scheme, match.host,
                        match.port, match.path, match.fragment].map(put)
        nameOffset = match.name.map(put)
        metadataOffset = match.metadata.map(put)
        paramOffsets = match.orderedParams.map { (put($0.name), put($0.value)) }
        queryOffsets = match.query.map { (put($0.name), put($0.value)) }
        guard let block = malloc(bytes.count)?.assumingMemoryBound(to: CChar.self) else { return nil }
        bytes.withUnsafeBufferPointer { src in
            if let base = src.baseAddress { memcpy(block, base, src.count) }
        }
        self.block = block
    }

    deinit { free(block) }

    func field(_ f: Field) -> CString { UnsafePointer(block + fieldOffsets[f.rawValue]) }
    var name: CString? { nameOffset.map { UnsafePointer(block + $0) } }
    var metadata: CString? { metadataOffset.map { UnsafePointer(block + $0) } }
    var paramCount: Int { paramOffsets.count }
    var queryCount: Int { queryOffsets.count }

    func param(_ i: UInt, name: Bool) -> CString? {
        guard i < UInt(paramOffsets.count) else { return nil }
        let entry = paramOffsets[Int(i)]
        return UnsafePointer(block + (name ? entry.name : entry.value))
    }

    func query(_ i: UInt, name: Bool) -> CString? {
        guard i < UInt(queryOffsets.count) else { return nil }
        let entry = queryOffsets[Int(i)]
        return UnsafePointer(block + (name ? entry.name : entry.value))
    }

    func value(named key: CString) -> CString? {
        for entry in paramOffsets where strcmp(block + entry.name, key) == 0 {
            return UnsafePointer(block + entry.value)
        }
        return nil
    }

    static func from(_ handle: UnsafeRawPointer?) -> MatchBox? {
        handle.map { Unmanaged<MatchBox>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// Stores a new match handle in `out` (+1, released by lr_match_free).
func publish(_ match: Match, to out: UnsafeMutablePointer<UnsafeMutableRawPointer?>) throws(RouterError) -> Int32 {
    guard let box = MatchBox(match) else { throw RouterError(.noMemory, "out of memory building a match") }
    out.pointee = Unmanaged.passRetained(box).toOpaque()
    return 0
}

/// Empty C string for getters given a NULL handle.
var emptyCString: CString {
    let empty: StaticString = ""
    return UnsafeRawPointer(empty.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// The limits of `enum lr_limit`, by their C values.
extension Limits {
    private static func path(_ limit: Int32) throws(RouterError) -> WritableKeyPath<Limits, Int> {
        switch limit {
        case 1: return \.maxURLLength
        case 2: return \.maxSegments
        case 3: return \.maxParams
        case 4: return \.maxNestingDepth
        case 5: return \.regexMatchLimit
        case 6: return \.regexDepthLimit
        case 7: return \.regexStartLimit
        default: throw RouterError(.misuse, "unknown limit \(limit) (see enum lr_limit)")
        }
    }

    func get(_ limit: Int32) throws(RouterError) -> Int { self[keyPath: try Limits.path(limit)] }

    mutating func set(_ limit: Int32, _ value: Int) throws(RouterError) { self[keyPath: try Limits.path(limit)] = value }
}

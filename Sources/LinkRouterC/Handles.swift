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
/// `lr_match *` is a `MatchRecord` block from malloc. Every export goes through `guarded`, which turns a thrown
/// `RouterError` into its status code and records the message for `lr_last_error`.

public typealias CString = UnsafePointer<CChar>

/// Runs an export's body; a thrown error becomes its code, with the message kept for this thread.
@inline(__always)
func guarded(_ body: () throws(RouterError) -> Int32) -> Int32 {
    do {
        return try body()
    } catch {
        ThreadState.with { $0.setError(error.message, offset: error.offset) }
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
@inline(__always)  // every lr_router_resolve starts here; the message is made out of line
func bytes(_ s: CString?, _ what: StaticString, _ function: StaticString) throws(RouterError) -> ByteSpan {
    guard let s else { throw nullBytes(what, function) }
    return s.withMemoryRebound(to: UInt8.self, capacity: 1) { ByteSpan(start: $0, count: strlen(s)) }
}

@inline(never)
private func nullBytes(_ what: StaticString, _ function: StaticString) -> RouterError {
    RouterError(.misuse, "\(function): \(what) is NULL")
}

/// `length` bytes of a C argument (no NUL needed); NULL is misuse unless the length is 0. Inline (every lookup
/// starts here); the messages are made out of line.
@inline(__always)
func bytes(_ s: CString?, length: Int, _ what: StaticString, _ function: StaticString) throws(RouterError) -> ByteSpan {
    guard length >= 0, let s else {
        if length == 0 { return .empty }
        throw badBytes(length, what, function)
    }
    return s.withMemoryRebound(to: UInt8.self, capacity: 1) { ByteSpan(start: $0, count: length) }
}

@inline(never)
private func badBytes(_ length: Int, _ what: StaticString, _ function: StaticString) -> RouterError {
    length < 0 ? RouterError(.misuse, "\(function): \(what) length is out of range")
        : RouterError(.misuse, "\(function): \(what) is NULL")
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
    guard pairLayoutMatches else { throw RouterError(.misuse, "\(function): lr_param_ref layout differs from this build's") }
    return UnsafeMutableRawPointer(params).assumingMemoryBound(to: QueryPair.self)
}

/// Whether `lr_param_ref` and `QueryPair` have the same layout (constants: the check folds away).
@inline(__always)
var pairLayoutMatches: Bool {
    MemoryLayout<QueryPair>.size == MemoryLayout<lr_param_ref>.size
        && MemoryLayout<QueryPair>.stride == MemoryLayout<lr_param_ref>.stride
        && MemoryLayout<QueryPair>.offset(of: \QueryPair.value) == MemoryLayout<lr_param_ref>.offset(of: \lr_param_ref.value)
        && MemoryLayout<ByteSpan>.offset(of: \ByteSpan.count) == MemoryLayout<lr_param_ref>.offset(of: \lr_param_ref.name_len)
}

/// A C string argument as a Swift String; NULL is misuse, invalid UTF-8 is LR_EINVAL, and a string longer than
/// `maxLength` is LR_ELIMIT, refused before it is copied.
/// `index`: the string is that element of the array `what` (the message names `what[index]`).
func text(_ s: CString?, _ what: StaticString, _ function: StaticString, index: Int? = nil,
          maxLength: Int = .max) throws(RouterError) -> String {
    let span = try bytes(s, what, function)
    guard span.count <= maxLength else {
        throw RouterError(.limit, "\(function): \(named(what, index)) of \(span.count) bytes is longer than \(maxLength) bytes")
    }
    guard span.isValidUTF8 else { throw RouterError(.invalidURL, "\(function): \(named(what, index)) is not valid UTF-8") }
    return span.string
}

/// An argument's name in a message: `what`, or `what[index]` for an element of it.
private func named(_ what: StaticString, _ index: Int?) -> String {
    guard let index else { return "\(what)" }
    return "\(what)[\(index)]"
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
    // Not reserved from `count`: a count far past the array's end (a caller's slip, up to 2^31) would size
    // gigabytes before its first NULL is seen. The array grows as items are read.
    var out: [String] = []
    for i in 0..<count {
        do throws(RouterError) {
            guard array[i] != nil else { throw RouterError(.misuse, "\(function): \(named(what, i)) is NULL") }
            out.append(try text(array[i], what, function, index: i, maxLength: maxLength))
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
func count(_ n: UInt, _ function: StaticString, _ what: StaticString = "count") throws(RouterError) -> Int {
    guard n <= UInt(Int32.max) else { throw RouterError(.misuse, "\(function): \(what) \(n) is out of range") }
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

/// `count` (name, value) pairs of C strings as spans, validated (non-NULL, UTF-8) but not copied: the extras of
/// lr_router_resolve_with. A refused pair is reported as "extra <i>: ...".
func withPairs<R>(_ names: UnsafePointer<CString?>?, _ values: UnsafePointer<CString?>?, _ count: Int,
                  _ function: StaticString, _ body: (UnsafeBufferPointer<QueryPair>) throws(RouterError) -> R) throws(RouterError) -> R {
    guard count > 0 else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
    guard let names else { throw RouterError(.misuse, "\(function): names is NULL") }
    guard let values else { throw RouterError(.misuse, "\(function): values is NULL") }
    // Every pointer is checked before anything is sized from `count`: a count past the arrays' end (a caller's
    // slip, up to 2^31) meets a NULL there, rather than sizing gigabytes first. The memory comes from
    // `withTemporary`, which reports a size it cannot have instead of aborting the host.
    for i in 0..<count where names[i] == nil || values[i] == nil {
        let array = names[i] == nil ? "names" : "values"
        throw RouterError(.misuse, "extra \(i): \(function): \(array)[\(i)] is NULL", index: i)
    }
    let result = withTemporary(QueryPair.self, capacity: count) { base -> Result<R, RouterError> in
        do throws(RouterError) {
            for i in 0..<count {
                do throws(RouterError) {
                    let name = try bytes(names[i], "name", function), value = try bytes(values[i], "value", function)
                    guard name.isValidUTF8, value.isValidUTF8 else {
                        throw RouterError(.invalidURL, "\(function): its \(name.isValidUTF8 ? "value" : "name") is not valid UTF-8")
                    }
                    base[i] = QueryPair(key: name, value: value)
                } catch {
                    throw RouterError(error.code, "extra \(i): \(error.message)", index: i)
                }
            }
            return .success(try body(UnsafeBufferPointer(start: base, count: count)))
        } catch {
            return .failure(error)
        }
    }
    guard let result else { throw RouterError(.noMemory, "\(function): no memory for \(count) extras") }
    return try result.get()
}

/// Empty C string for getters given a NULL handle.
var emptyCString: CString {
    let empty: StaticString = ""
    return UnsafeRawPointer(empty.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// The limits of `enum lr_limit`, by their C values; messages name the calling function and the C name.
extension Limits {
    private static func limit(_ id: Int32, _ function: StaticString) throws(RouterError)
        -> (name: StaticString, path: WritableKeyPath<Limits, Int>) {
        switch id {
        case 1: return ("LR_LIMIT_URL_LENGTH", \.maxURLLength)
        case 2: return ("LR_LIMIT_SEGMENTS", \.maxSegments)
        case 3: return ("LR_LIMIT_PARAMS", \.maxParams)
        case 4: return ("LR_LIMIT_NESTING", \.maxNestingDepth)
        case 5: return ("LR_LIMIT_REGEX_MATCH", \.regexMatchLimit)
        case 6: return ("LR_LIMIT_REGEX_DEPTH", \.regexDepthLimit)
        case 7: return ("LR_LIMIT_REGEX_START", \.regexStartLimit)
        case 8: return ("LR_LIMIT_PENDING", \.maxPending)
        case 9: return ("LR_LIMIT_REPLY_TIMEOUT_MS", \.replyTimeoutMilliseconds)
        default: throw RouterError(.misuse, "\(function): unknown limit \(id) (see enum lr_limit)")
        }
    }

    func get(_ id: Int32, _ function: StaticString) throws(RouterError) -> Int {
        self[keyPath: try Limits.limit(id, function).path]
    }

    /// Sets limit `id` when `value` is in its range (`Limits.ranges`, which `Router.updateLimits` checks again).
    /// The id is checked first, so that an unknown limit is named as such whatever the value.
    mutating func set(_ id: Int32, _ value: UInt, _ function: StaticString) throws(RouterError) {
        let (name, path) = try Limits.limit(id, function)
        let range = Limits.ranges.first(where: { $0.path == path })?.range ?? 0...Int.max
        guard let v = Int(exactly: value), range.contains(v) else {
            throw RouterError(.misuse, "\(function): \(name) = \(value) is out of range \(range.lowerBound)...\(range.upperBound)")
        }
        self[keyPath: path] = v
    }
}

// MARK: - Callbacks, contexts, replies (Include/linkrouter.h, "Opening URLs")

/// A C callback's user_data with its release function: release(user_data) runs when the last Swift closure
/// holding this object goes away, i.e. once nothing can call the callback any more.
final class CUserData: @unchecked Sendable {
    // SAFETY: `userData` is opaque to the library; `armed` is written once, before the object is shared, when a
    // registration fails (nothing was kept, so nothing is released).
    let userData: UnsafeMutableRawPointer?
    private let release: lr_release_fn?
    var armed = true

    init(_ userData: UnsafeMutableRawPointer?, _ release: lr_release_fn?) {
        self.userData = userData
        self.release = release
    }

    deinit {
        if armed, let release { release(userData) }
    }
}

/// The `lr_match *` lent to a C callback, and the open's C context.
private func cArguments(_ match: Match) -> (OpaquePointer, UnsafeMutableRawPointer?) {
    (OpaquePointer(match.recordBase), match.rawContext)
}

/// A C handler as a core `Handler`: the sync one is called as it is (`CFunctionHandler`); the async one gets
/// the reply's id from the registry.
func handler(_ h: lr_handler, _ function: StaticString) throws(RouterError) -> (Handler, CUserData) {
    let owner = CUserData(h.user_data, h.release)
    switch (h.call, h.call_async) {
    case let (call?, nil):
        // Without a release function nothing the call uses can be freed under it (the function and its user
        // data are the caller's for good): the open then keeps no owner alive, and retains nothing.
        return (.c(CFunctionHandler(call, userData: owner.userData, owner: h.release == nil ? nil : owner)), owner)
    case let (nil, callAsync?):
        return (.callback { match, reply in
            let (m, context) = cArguments(match)
            callAsync(m, context, owner.userData, Replies.register(reply, owner: owner))
        }, owner)
    default:
        owner.armed = false
        throw RouterError(.misuse, "\(function): a handler sets exactly one of call and call_async")
    }
}

/// The replies C handlers hold, by id: ids are never reused, so a completed (removed) one is known as such.
///
/// A pending reply is kept with the owner of its handler's user data: the handler may still use it until it
/// replies. A reply that expires is let go at once (with its match, the log sink and that owner), and only its
/// id is remembered, so that a late reply is told LR_ETIMEOUT: the last `rememberedExpired` of them, so that
/// handlers that never reply cost bounded memory.
enum Replies {
    private struct Table {
        var next: UInt64 = 1
        var pending: [UInt64: (reply: Reply, owner: CUserData)] = [:]
        /// Expired ids, each once: a ring, oldest at `oldest` once full.
        var expired: Set<UInt64> = []
        var expiredRing: [UInt64] = []
        var oldest = 0

        mutating func rememberExpired(_ id: UInt64) {
            if expiredRing.count < Replies.rememberedExpired {
                expiredRing.append(id)
            } else {
                expired.remove(expiredRing[oldest])
                expiredRing[oldest] = id
                oldest = (oldest &+ 1) % expiredRing.count
            }
            expired.insert(id)
        }
    }

    static let rememberedExpired = 1024
    private static let table = Locked(Table())

    /// The id of `reply`, kept (with `owner`) until it is completed or expires.
    static func register(_ reply: Reply, owner: CUserData) -> UInt64 {
        let id = table.withLock { t in
            let id = t.next
            t.next &+= 1
            t.pending[id] = (reply, owner)
            return id
        }
        reply.whenExpired { Replies.expired(id) }
        return id
    }

    /// Forgets expired reply `id` but its id. What it held is released after the lock (a release function may
    /// call back into the library).
    private static func expired(_ id: UInt64) {
        let released = table.withLock { t -> (reply: Reply, owner: CUserData)? in
            guard let entry = t.pending.removeValue(forKey: id) else { return nil }
            t.rememberExpired(id)
            return entry
        }
        withExtendedLifetime(released) {}
    }

    private enum Found {
        case pending(Reply, CUserData)
        case expired
        case unknown
    }

    /// Completes reply `id` and forgets it: LR_OK, LR_ETIMEOUT or LR_EREPLIED, the last two with this thread's
    /// error set unless `setsError` is false (`lr_reply_drop`, a finalizer's call).
    static func complete(_ id: UInt64, _ result: Result<(any Sendable)?, any Error>, setsError: Bool = true) -> Int32 {
        let found = table.withLock { t -> Found in
            if let entry = t.pending.removeValue(forKey: id) { return .pending(entry.reply, entry.owner) }
            return t.expired.remove(id) != nil ? .expired : .unknown
        }
        // The owner goes (and its release may run) after the reply is delivered, outside the lock.
        switch found {
        case .pending(let reply, let owner):
            defer { withExtendedLifetime(owner) {} }
            switch reply.complete(result) {
            case .delivered: return 0
            case .timedOut: return timedOut(id, setsError)
            case .alreadyReplied: return replied(id, setsError)
            }
        case .expired:
            return timedOut(id, setsError)
        case .unknown:
            return replied(id, setsError)
        }
    }

    private static func timedOut(_ id: UInt64, _ setsError: Bool) -> Int32 {
        if setsError { ThreadState.with { $0.setError("reply \(id) came after its open stopped waiting (timeout)") } }
        return RouterError.Code.timeout.rawValue
    }

    private static func replied(_ id: UInt64, _ setsError: Bool) -> Int32 {
        if setsError { ThreadState.with { $0.setError("reply \(id) was completed before, or is unknown") } }
        return RouterError.Code.replied.rawValue
    }
}

/// A C executor: dispatch(executor, work, arg) runs the work once, wherever it chooses.
struct CExecutor: Executor {
    let dispatch: lr_dispatch_fn
    let executor: CPointer

    private final class Work {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    func execute(_ work: @escaping @Sendable () -> Void) {
        dispatch(executor.raw, { arg in
            guard let arg else { return }
            Unmanaged<Work>.fromOpaque(arg).takeRetainedValue().run()
        }, Unmanaged.passRetained(Work(work)).toOpaque())
    }
}

/// The request of a plain open (`lr_router_open` with no extras, dispatch or timeout), borrowing the URL.
func plainRequest(_ url: ByteSpan, _ context: UnsafeMutableRawPointer?) -> OpenRequest {
    var request = OpenRequest(borrowing: url)
    request.rawContext = context
    return request
}

/// An open request from C arguments. `borrowingURL`: the request borrows the caller's URL bytes, for a call
/// that is over before the caller's string may go (`lr_router_open`); its String is made only if the open
/// needs one (see `OpenRequest.borrowedURL`). Borrowed bytes are not checked for UTF-8 here: routing checks
/// them (`RouterState.resolve`) before a handler, a guard or the unmatched handler can see the URL.
func openRequest(_ url: CString?, _ opts: UnsafePointer<lr_open_options>?, _ function: StaticString,
                 borrowingURL: Bool = false) throws(RouterError) -> OpenRequest {
    var request: OpenRequest
    if borrowingURL {
        request = plainRequest(try bytes(url, "url", function), nil)
    } else {
        request = OpenRequest(try text(url, "url", function))
    }
    guard let o = opts?.pointee else { return request }
    let n = try count(UInt(bitPattern: o.extra_count), function, "extra_count")
    if n > 0 {
        let names = try texts(o.extra_names, n, "extra_names", function, item: "extra")
        let values = try texts(o.extra_values, n, "extra_values", function, item: "extra")
        // In the order given, as lr_router_resolve_with takes them.
        request.setExtra(inOrder: zip(names, values).map { (name: $0, value: $1) })
    }
    if let dispatch = o.dispatch { request.executor = CExecutor(dispatch: dispatch, executor: CPointer(raw: o.executor)) }
    if o.timeout_ms != 0 { request.timeout = .milliseconds(Int64(o.timeout_ms)) }
    // The context stays a raw pointer (`rawContext`), which C callbacks get back as it came; `context` is for
    // Swift values, and a C pointer boxed in it would only cost a copy and a cast at each use.
    request.rawContext = o.context
    return request
}

/// An open's outcome as C sees it: (status, result, message). Errors that are not the library's become
/// LR_EHANDLER with their description.
func cOutcome(_ result: OpenResult) -> (Int32, UnsafeMutableRawPointer?, String) {
    switch result {
    case .pointer(let p): return (0, p.raw, "")
    case .opened(.value(let v)): return (0, (v as? CPointer)?.raw, "")
    case .opened(.deferred(let name)): return (2, nil, "deferred by guard '\(name)'")
    case .unmatched: return (1, nil, "no route matches, and there is no unmatched handler")
    case .failed(let error as RouterError): return (error.code.rawValue, nil, error.message)
    case .failed(let error as CStatusError): return (error.code, nil, error.message)
    case .failed(let error): return (RouterError.Code.handler.rawValue, nil, "\(error)")
    }
}

/// `lr_router_open`'s status for an outcome: its value through `out`, a failure's message as the thread's last
/// error.
func cStatus(_ result: OpenResult, _ out: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int32 {
    let (status, value, why) = cOutcome(result)
    if status < 0 {
        ThreadState.with { $0.setError(why) }
        return status
    }
    out?.pointee = value
    return status
}

/// Calls `done` with an `lr_outcome` whose strings live for the call.
func report(_ result: OpenResult, url: String, context: UnsafeMutableRawPointer?, _ done: lr_done_fn, _ data: UnsafeMutableRawPointer?) {
    let (status, value, text) = cOutcome(result)
    url.withCString { u in
        text.withCString { m in
            var outcome = lr_outcome(status: status, result: value, message: m, url: u, context: context)
            done(&outcome, data)
        }
    }
}

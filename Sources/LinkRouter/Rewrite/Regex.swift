import CPCRE2

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A compiled PCRE2 regex (UTF mode, JIT when available): the only place in LinkRouter that calls PCRE2.
///
/// The compiled code is immutable once built and is shared by every thread and every snapshot that holds the
/// rule. Matching needs mutable memory (the ovector and PCRE2's backtracking frames): that lives in a
/// `RegexScratch`, one per thread, never shared.
package final class Regex: @unchecked Sendable {
    // SAFETY: `code` is written once in `init` and only read afterwards. PCRE2 documents compiled patterns
    // (JIT code included) as read-only during matching and safe to use from several threads at once; all
    // per-match state lives in match data and match contexts, which `RegexScratch` keeps per thread.
    // `deinit` frees `code` when the last snapshot holding this regex goes away, so no match can be running.

    /// The regex as given.
    package let pattern: String
    /// Number of capture groups (group 0, the whole match, not counted).
    package let captureCount: Int
    /// Whether the JIT compiled the pattern; matches fall back to the interpreter when its stack runs out.
    package let usesJIT: Bool
    /// Named groups, sorted by name, then by group number (duplicate names are allowed with `(?J)`).
    private let names: [(name: [UInt8], group: Int)]
    /// `pcre2_code_8 *`, never NULL.
    private let code: OpaquePointer

    /// Extra compile options: `\C` could split a UTF-8 character and give captures that are not UTF-8.
    /// PCRE2_USE_OFFSET_LIMIT lets the match context bound the start offsets tried (`Limits.regexStartLimit`).
    private static let compileOptions: UInt32 = UInt32(PCRE2_UTF) | UInt32(PCRE2_NEVER_BACKSLASH_C)
        | UInt32(PCRE2_USE_OFFSET_LIMIT)

    /// Compiles `pattern`. Throws `.regex` with PCRE2's own message and the byte offset it reports.
    /// `jit: false` keeps the pattern interpreted (tests use it to cover both engines).
    package init(_ pattern: String, jit: Bool = true) throws(RouterError) {
        var errorCode: Int32 = 0
        var errorOffset = 0
        let compiled: OpaquePointer? = pattern.utf8.withContiguousStorageIfAvailable { buf -> OpaquePointer? in
            // SAFETY: `buf` is the string's UTF-8 storage, valid for the duration of this closure; PCRE2
            // copies what it needs into the compiled code and keeps no pointer to the pattern text. A zero-length
            // pattern still needs a non-NULL pointer, which a one-byte local provides.
            var empty: UInt8 = 0
            return withUnsafePointer(to: &empty) { emptyPointer in
                pcre2_compile_8(buf.baseAddress ?? emptyPointer, buf.count, Regex.compileOptions,
                                &errorCode, &errorOffset, nil)
            }
        } ?? {
            // Non-contiguous (bridged) strings: compile from a copy.
            var bytes = Array(pattern.utf8)
            bytes.append(0)
            let count = bytes.count &- 1
            return bytes.withUnsafeBufferPointer { buf -> OpaquePointer? in
                // SAFETY: as above; the array outlives the call.
                guard let base = buf.baseAddress else { return nil }
                return pcre2_compile_8(base, count, Regex.compileOptions, &errorCode, &errorOffset, nil)
            }
        }()
        guard let compiled else {
            let reason = Regex.errorMessage(errorCode)
            throw RouterError(.regex, "invalid rewrite regex '\(excerpt(pattern))' at byte \(errorOffset): \(reason) (PCRE2 error \(errorCode))",
                              offset: errorOffset)
        }
        code = compiled
        self.pattern = pattern

        var captures: UInt32 = 0
        // SAFETY: PCRE2_INFO_CAPTURECOUNT writes one uint32_t, which `captures` is.
        _ = pcre2_pattern_info_8(compiled, UInt32(PCRE2_INFO_CAPTURECOUNT), &captures)
        captureCount = Int(captures)
        names = Regex.nameTable(compiled)

        // SAFETY: JIT compilation only adds machine code to `compiled`, which nothing else can see yet.
        // It fails harmlessly (for example where executable memory is forbidden): the interpreter is then used.
        // A pattern that starts with (*NO_JIT) "succeeds" without any machine code, so the JIT size decides.
        var jitSize = 0
        if jit && pcre2_jit_compile_8(compiled, UInt32(PCRE2_JIT_COMPLETE)) == 0 {
            // SAFETY: PCRE2_INFO_JITSIZE writes one size_t, which `jitSize` is.
            _ = pcre2_pattern_info_8(compiled, UInt32(PCRE2_INFO_JITSIZE), &jitSize)
        }
        usesJIT = jitSize > 0
    }

    deinit {
        // SAFETY: `code` came from pcre2_compile_8 and is freed exactly once, here; nothing can use it any more
        // because every user holds a strong reference to this object while matching.
        pcre2_code_free_8(code)
    }

    /// The numbers of the groups called `name`, in increasing order; empty when the regex has none.
    package func groups(named name: ByteSpan) -> [Int] {
        var found: [Int] = []
        for entry in names where entry.name.count == name.count {
            let same = entry.name.withUnsafeBufferPointer { bytesEqual($0.baseAddress, name.start, name.count) }
            if same { found.append(entry.group) }
        }
        return found.sorted()
    }

    /// Reads PCRE2's name table: entries of `entrySize` bytes, a big-endian group number then the NUL-terminated name.
    private static func nameTable(_ code: OpaquePointer) -> [(name: [UInt8], group: Int)] {
        var count: UInt32 = 0
        var entrySize: UInt32 = 0
        var table: UnsafePointer<UInt8>? = nil
        // SAFETY: NAMECOUNT and NAMEENTRYSIZE write one uint32_t each; NAMETABLE writes one PCRE2_SPTR, which
        // points into the compiled code and stays valid as long as `code` does (we copy the names out now).
        guard pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_NAMECOUNT), &count) == 0,
              pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_NAMEENTRYSIZE), &entrySize) == 0,
              pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_NAMETABLE), &table) == 0,
              count > 0, entrySize > 2, let table else { return [] }
        var result: [(name: [UInt8], group: Int)] = []
        result.reserveCapacity(Int(count))
        for i in 0..<Int(count) {
            // SAFETY: the table holds `count` entries of `entrySize` bytes each (pcre2api "Information about
            // named groups"); each name is NUL-terminated within its entry.
            let entry = table + i &* Int(entrySize)
            let group = Int(entry[0]) &<< 8 | Int(entry[1])
            var name: [UInt8] = []
            var k = 2
            while k < Int(entrySize) && entry[k] != 0 {
                name.append(entry[k])
                k &+= 1
            }
            result.append((name, group))
        }
        return result
    }

    /// PCRE2's text for an error code.
    static func errorMessage(_ code: Int32) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { buf -> String in
            guard let base = buf.baseAddress else { return "PCRE2 error \(code)" }
            // SAFETY: PCRE2 writes at most `buf.count` bytes, NUL included, and returns the length written
            // (or a negative code, when we report the number instead).
            let n = pcre2_get_error_message_8(code, base, buf.count)
            guard n > 0 else { return "PCRE2 error \(code)" }
            return String(decoding: UnsafeBufferPointer(start: base, count: Int(n)), as: UTF8.self)
        }
    }

    // MARK: Matching

    /// What a match needs of a compiled regex, as a value: `RewriteRules` keeps its rules' handles side by side, so
    /// that trying a rule reads the handle and PCRE2's code, not the rule's objects first (each a likely cache
    /// miss with a thousand rules). Valid as long as the `Regex` it came from.
    package struct Handle: BitwiseCopyable {
        fileprivate let code: OpaquePointer
        fileprivate let usesJIT: Bool
        /// Ovector pairs to prepare (the groups the caller reads), at least 1.
        fileprivate let pairs: Int32
    }

    /// A handle for matches whose groups `0..<groups` are read.
    package func handle(groups: Int) -> Handle {
        Handle(code: code, usesJIT: usesJIT, pairs: Int32(clamping: max(groups, 1)))
    }

    /// Searches `subject` for the first match (unanchored). On a match, groups `0..<groups` (at least) are in
    /// `scratch` until its next use. `subject` must be valid UTF-8 (it is not checked again). A PCRE2 match,
    /// depth or heap limit, or a JIT stack overflow that the interpreter cannot get past either, throws `.limit`.
    /// `named`: as `error`'s.
    @inline(__always)
    package func firstMatch(in subject: ByteSpan, groups: Int, scratch: RegexScratch, limits: Limits,
                            named: Bool = true) throws(RouterError) -> Bool {
        try result(Regex.match(handle(groups: groups), subject, scratch, limits), subject, limits, named: named)
    }

    /// `match`'s code for no match.
    @inline(__always) package static var noMatch: Int32 { PCRE2_ERROR_NOMATCH }

    /// Returned by `match` instead of running the interpreter on a subject longer than `interpretedSubjectLimit`.
    private static let tooLongAfterJIT = Int32.min
    private static let tooLongNoJIT = Int32.min &+ 1
    private static let noMatchData = Int32.min &+ 2

    /// Runs a handle's regex on `subject`: PCRE2's return code (a match's groups are then in `scratch`), or one
    /// of the codes above. `result` (on the regex the handle came from) turns it into the answer.
    @inline(__always)
    package static func match(_ handle: Handle, _ subject: ByteSpan, _ scratch: RegexScratch, _ limits: Limits) -> Int32 {
        guard scratch.prepare(pairs: Int(handle.pairs), limits: limits) else { return noMatchData }
        var rc: Int32
        if handle.usesJIT {
            rc = runJIT(handle.code, subject, scratch)
            if rc == PCRE2_ERROR_JIT_STACKLIMIT {
                // The JIT's stack is full; the interpreter keeps its backtracking on the heap, under the depth
                // and heap limits.
                guard subject.count <= Regex.interpretedSubjectLimit else { return tooLongAfterJIT }
                rc = run(handle.code, subject, scratch, options: UInt32(PCRE2_NO_UTF_CHECK) | UInt32(PCRE2_NO_JIT))
            }
        } else {
            guard subject.count <= Regex.interpretedSubjectLimit else { return tooLongNoJIT }
            rc = run(handle.code, subject, scratch, options: UInt32(PCRE2_NO_UTF_CHECK))
        }
        if rc >= 0 { scratch.matched(rc, subject: subject) }
        return rc
    }

    /// `match`'s code as `firstMatch` answers: true on a match, false on none, else the error.
    @inline(__always)
    package func result(_ rc: Int32, _ subject: ByteSpan, _ limits: Limits, named: Bool = true) throws(RouterError) -> Bool {
        if rc >= 0 { return true }
        if rc == PCRE2_ERROR_NOMATCH { return false }
        throw error(rc, subject, limits, named: named)
    }

    /// The error for a `match` code that is neither a match nor `noMatch`. Its message names the regex, or says
    /// "it" when `named` is false (for a caller whose own message names the regex already).
    package func error(_ rc: Int32, _ subject: ByteSpan, _ limits: Limits, named: Bool = true) -> RouterError {
        let name = named ? "rewrite regex '\(excerpt(pattern))'" : "it"
        switch rc {
        case Regex.noMatchData: return RouterError(.noMemory, "no memory for PCRE2 match data")
        case PCRE2_ERROR_NOMEMORY: return RouterError(.noMemory, (named ? "\(name): " : "") + "PCRE2 ran out of memory")
        case Regex.tooLongAfterJIT: return tooLongToInterpret(name, subject, afterJIT: true)
        case Regex.tooLongNoJIT: return tooLongToInterpret(name, subject, afterJIT: false)
        default: return failure(name, rc, subject, limits)
        }
    }

    @inline(__always)
    private static func run(_ code: OpaquePointer, _ subject: ByteSpan, _ scratch: RegexScratch, options: UInt32) -> Int32 {
        var empty: UInt8 = 0
        return withUnsafePointer(to: &empty) { emptyPointer in
            // SAFETY: `code` belongs to a live Regex (a handle is used only while its Regex is held); `subject`
            // points at `subject.count` readable bytes for the whole call (the caller borrows them); a
            // zero-length subject gets a valid one-byte pointer because PCRE2 10.42 rejects NULL.
            // `code` is immutable and thread-safe; the match data and context belong to this thread's scratch
            // and are not used by anyone else during the call. PCRE2_NO_UTF_CHECK is sound because every URL
            // is validated as UTF-8 before it reaches the rewrite engine.
            pcre2_match_8(code, subject.start ?? emptyPointer, subject.count, 0, options,
                          scratch.matchData, scratch.context)
        }
    }

    /// `pcre2_jit_match`, PCRE2's fast path for JIT-compiled code (it skips the argument checks of
    /// `pcre2_match`, and never checks UTF).
    @inline(__always)
    private static func runJIT(_ code: OpaquePointer, _ subject: ByteSpan, _ scratch: RegexScratch) -> Int32 {
        var empty: UInt8 = 0
        return withUnsafePointer(to: &empty) { emptyPointer in
            // SAFETY: as in `run`; in addition the handle's `usesJIT` says pcre2_jit_compile succeeded on `code`
            // with PCRE2_JIT_COMPLETE, which pcre2_jit_match requires, and the match data holds at least one pair.
            pcre2_jit_match_8(code, subject.start ?? emptyPointer, subject.count, 0, 0, scratch.matchData, scratch.context)
        }
    }

    /// Longest subject the interpreter is given. Its match limit counts backtracking from each start position
    /// afresh, so a pattern such as `[a-z]+=x` costs time quadratic in the subject's length (1.4 s on 60 KB
    /// here) without ever reaching the limit; the JIT has no such blind spot. The interpreter runs only where
    /// the JIT is unavailable or after the JIT's stack overflowed, and then a longer URL is refused with `.limit`.
    static let interpretedSubjectLimit = 8 * 1024

    private func tooLongToInterpret(_ name: String, _ subject: ByteSpan, afterJIT: Bool) -> RouterError {
        RouterError(.limit, "\(name) " + (afterJIT ? "overflowed the PCRE2 JIT stack" : "has no JIT code")
                    + " and a URL of \(subject.count) bytes is too long for the PCRE2 interpreter "
                    + "(at most \(Regex.interpretedSubjectLimit) bytes)")
    }

    private func failure(_ name: String, _ rc: Int32, _ subject: ByteSpan, _ limits: Limits) -> RouterError {
        let what: String
        switch rc {
        case PCRE2_ERROR_MATCHLIMIT: what = "the PCRE2 match limit (regexMatchLimit \(limits.regexMatchLimit))"
        case PCRE2_ERROR_DEPTHLIMIT: what = "the PCRE2 depth limit (regexDepthLimit \(limits.regexDepthLimit))"
        case PCRE2_ERROR_HEAPLIMIT: what = "the PCRE2 heap limit (\(RegexScratch.heapLimitKiB) KiB)"
        case PCRE2_ERROR_JIT_STACKLIMIT: what = "the PCRE2 JIT stack limit"
        // A recursion that comes back to where it started (`(?R)*` and the like) without using up the subject:
        // PCRE2 stops it as it stops a depth that runs away, so it is a limit, not a broken regex (which
        // compiling would have refused).
        case PCRE2_ERROR_RECURSELOOP: what = "PCRE2's stop for a recursion looping at one position"
        default:
            return RouterError(.regex, "\(name) failed on a URL of \(subject.count) bytes: "
                               + "\(Regex.errorMessage(rc)) (PCRE2 error \(rc))")
        }
        return RouterError(.limit, "\(name) hit \(what) on a URL of \(subject.count) bytes")
    }
}

/// One thread's matching memory: a PCRE2 match data block (ovector and backtracking frames, which PCRE2 keeps
/// and reuses between matches) and a match context holding the limits. Never shared between threads.
package final class RegexScratch {
    /// Heap limit for the interpreter's backtracking frames, in KiB (the depth limit bounds it too).
    static let heapLimitKiB: UInt32 = 32 * 1024

    /// `pcre2_match_data_8 *` with `pairs` ovector pairs, or nil before the first use / after a failed allocation.
    @exclusivity(unchecked) fileprivate var matchData: OpaquePointer?
    /// `pcre2_match_context_8 *`, or nil when it could not be allocated (PCRE2's defaults then apply).
    fileprivate let context: OpaquePointer?
    /// `pcre2_jit_stack_8 *` assigned to `context`: this thread's JIT stack on the heap, so that JIT matching
    /// neither borrows 32 KiB of the caller's own stack (PCRE2's default) nor stops at that depth.
    private let jitStack: OpaquePointer?
    static let jitStackStart = 32 * 1024
    static let jitStackMax = 1024 * 1024
    @exclusivity(unchecked) private var pairs = 0
    @exclusivity(unchecked) private var ovector: UnsafeMutablePointer<Int>?
    @exclusivity(unchecked) private var matchLimit: UInt32 = 0
    @exclusivity(unchecked) private var depthLimit: UInt32 = 0
    @exclusivity(unchecked) private var startLimit = -1
    /// `pcre2_match`'s return of the last successful match (0: the ovector was too small for every group).
    @exclusivity(unchecked) private var lastRC: Int32 = 0
    /// The subject of the last successful match.
    @exclusivity(unchecked) package private(set) var subject = ByteSpan.empty
    /// True while a caller is using this scratch (a re-entrant caller on the same thread gets a private one).
    @exclusivity(unchecked) private var busy = false
    /// Room for a template's resolved names (`nameSlots`), grown on demand, freed in deinit.
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<Int32>?
    @exclusivity(unchecked) private var slotCapacity = 0

    private init() {
        // SAFETY: a fresh match context and JIT stack owned by this object, freed in deinit.
        context = pcre2_match_context_create_8(nil)
        jitStack = pcre2_jit_stack_create_8(RegexScratch.jitStackStart, RegexScratch.jitStackMax, nil)
        if let context {
            // SAFETY: `context` is ours; setting a limit only stores a field. The JIT stack is used only by this
            // thread's matches (PCRE2: never share a JIT stack between threads) and outlives the context's use.
            _ = pcre2_set_heap_limit_8(context, RegexScratch.heapLimitKiB)
            if let jitStack { pcre2_jit_stack_assign_8(context, nil, UnsafeMutableRawPointer(jitStack)) }
        }
    }

    deinit {
        // SAFETY: all three were created by PCRE2 for this object only and are freed once, the context before
        // the JIT stack it refers to; freeing NULL is a no-op.
        pcre2_match_data_free_8(matchData)
        pcre2_match_context_free_8(context)
        pcre2_jit_stack_free_8(jitStack)
        free(slots)
    }

    /// Room for `count` Int32 values, valid until the next call on this scratch; nil when it cannot be allocated.
    @inline(__always)
    package func nameSlots(_ count: Int) -> UnsafeMutablePointer<Int32>? {
        if count > slotCapacity {
            // SAFETY: the old block is not in use (expansions run one at a time on this scratch) and is freed once.
            free(slots)
            let capacity = max(count, 16)
            slots = malloc(capacity &* MemoryLayout<Int32>.stride)?.bindMemory(to: Int32.self, capacity: capacity)
            slotCapacity = slots == nil ? 0 : capacity
        }
        return slots
    }

    /// Makes room for `pairs` ovector pairs and applies `limits`; false when memory could not be allocated.
    @inline(__always)
    fileprivate func prepare(pairs needed: Int, limits: Limits) -> Bool {
        if needed > pairs || matchData == nil {
            // SAFETY: the old block is not in use (matches run one at a time on this scratch) and is freed once.
            pcre2_match_data_free_8(matchData)
            let size = max(needed, 16)
            matchData = pcre2_match_data_create_8(UInt32(clamping: size), nil)
            guard let matchData else {
                pairs = 0
                ovector = nil
                return false
            }
            pairs = size
            // SAFETY: the ovector lives inside the match data block and is valid until the block is freed,
            // which also resets this pointer.
            ovector = pcre2_get_ovector_pointer_8(matchData)
        }
        let match = UInt32(clamping: limits.regexMatchLimit)
        let depth = UInt32(clamping: limits.regexDepthLimit)
        if let context, match != matchLimit || depth != depthLimit || limits.regexStartLimit != startLimit {
            // SAFETY: `context` belongs to this thread's scratch; setting a limit only stores a field.
            _ = pcre2_set_match_limit_8(context, match)
            _ = pcre2_set_depth_limit_8(context, depth)
            _ = pcre2_set_offset_limit_8(context, max(limits.regexStartLimit, 0))
            matchLimit = match
            depthLimit = depth
            startLimit = limits.regexStartLimit
        }
        return true
    }

    @inline(__always) fileprivate func matched(_ rc: Int32, subject: ByteSpan) {
        lastRC = rc
        self.subject = subject
    }

    /// Capture group `n` of the last successful match, as a span of its subject; nil when the group did not
    /// take part in the match (or does not exist).
    @inline(__always)
    package func group(_ n: Int) -> ByteSpan? {
        guard n >= 0, n < pairs, lastRC == 0 || n < Int(lastRC), let ovector, let base = subject.start else { return nil }
        // SAFETY: `n < pairs`, so both slots are inside the ovector. PCRE2 wrote the pair during the last match,
        // or left PCRE2_UNSET (all ones, -1 as Int) for a group that did not take part.
        let start = ovector[2 &* n], end = ovector[2 &* n &+ 1]
        guard start >= 0, end >= start, end <= subject.count else { return nil }
        return ByteSpan(start: base + start, count: end &- start)
    }

    // MARK: Per-thread storage

    /// Runs `body` with this thread's scratch, kept in the thread's `ThreadState` (created on first use). A
    /// nested call on the same thread (or a thread with no thread-specific storage) gets a private scratch for
    /// the duration of the call.
    @inline(__always)
    package static func with<R, E: Error>(_ body: (RegexScratch) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = ThreadState.with { thread in
            let scratch: RegexScratch
            if let existing = thread.regexScratch {
                scratch = existing
            } else {
                scratch = RegexScratch()
                thread.regexScratch = scratch
            }
            do throws(E) {
                if scratch.busy { return .success(try body(RegexScratch())) }
                scratch.busy = true
                defer { scratch.busy = false }
                return .success(try body(scratch))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

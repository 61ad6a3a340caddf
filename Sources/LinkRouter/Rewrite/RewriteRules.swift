/// An immutable, ordered set of rewrite rules: one router snapshot's worth (SPEC §5).
///
/// Rules are tried in the order added; the first whose regex is found anywhere in the URL replaces the whole
/// URL with its expanded target. A `RewriteIndex` picks the few rules that can match a URL, so a URL costs a
/// couple of regex evaluations whatever the number of rules, and the answer is still "the first rule in
/// order that matches". Changes build a new set that shares the compiled regexes of the old one.
package final class RewriteRules: @unchecked Sendable {
    // SAFETY: every stored property is set in `init` and only read afterwards; `handles` and `layouts` are owned
    // by this object (allocated in `init`, freed in `deinit`) and point into regexes and templates that
    // `entries` keeps alive as long.
    package static let empty = RewriteRules(entries: [])

    /// The rules in the order they are tried.
    package let rules: [(match: String, target: String)]

    let entries: [RewriteRule]
    /// Position of each rule by its regex's bytes (not a `String` key: canonically equivalent texts, such as
    /// "é" precomposed and decomposed, are different regexes).
    private let positions: [[UInt8]: Int]
    private let index: RewriteIndex
    /// Each rule's regex handle, in rule order: trying a candidate reads its handle here, and the rule's objects
    /// only when it matches (with a thousand rules, each object is a likely cache miss).
    private let handles: UnsafeMutableBufferPointer<Regex.Handle>
    /// Each rule's template layout, in rule order: the one that fires is expanded without reading its objects.
    private let layouts: UnsafeMutableBufferPointer<RewriteTemplate.Layout>

    private init(entries: [RewriteRule]) {
        self.entries = entries
        let handles = UnsafeMutableBufferPointer<Regex.Handle>.allocate(capacity: max(entries.count, 1))
        for (i, e) in entries.enumerated() {
            handles.initializeElement(at: i, to: e.regex.handle(groups: e.template.groupsNeeded))
        }
        self.handles = UnsafeMutableBufferPointer(rebasing: handles[0..<entries.count])
        let layouts = UnsafeMutableBufferPointer<RewriteTemplate.Layout>.allocate(capacity: max(entries.count, 1))
        for (i, e) in entries.enumerated() { layouts.initializeElement(at: i, to: e.template.layout) }
        self.layouts = UnsafeMutableBufferPointer(rebasing: layouts[0..<entries.count])
        rules = entries.map { ($0.match, $0.template.text) }
        var positions: [[UInt8]: Int] = [:]
        for (i, e) in entries.enumerated() { positions[Array(e.match.utf8)] = i }
        self.positions = positions
        index = entries.isEmpty ? .empty : RewriteIndex(needs: entries.map(\.needs), keys: entries.map(\.keys))
    }

    deinit {
        // SAFETY: allocated in `init`, owned by this object alone and freed once; no rewrite can be running, as
        // each holds a strong reference to this set. Both hold plain values (nothing to deinitialize).
        handles.deallocate()
        layouts.deallocate()
    }

    package var isEmpty: Bool { rules.isEmpty }

    /// A new set with `rules` added in order; a rule whose `match` already exists replaces that rule's target
    /// in place. All or none: the first invalid rule throws (`.regex`, `.pattern`) and nothing is added.
    package func adding(_ rules: [(match: String, target: String)], limits: Limits, single: Bool = false) throws(RouterError) -> RewriteRules {
        var entries = self.entries
        var positions = self.positions
        for (i, rule) in rules.enumerated() {
            do throws(RouterError) {
                if let at = positions[Array(rule.match.utf8)], at < entries.count {
                    let old = entries[at]
                    entries[at] = try RewriteRule(match: rule.match, target: rule.target, regex: old.regex, needs: old.needs)
                } else {
                    let added = try RewriteRule(match: rule.match, target: rule.target)
                    try added.probe()
                    positions[Array(rule.match.utf8)] = entries.count
                    entries.append(added)
                }
            } catch {
                throw single ? error
                    : RouterError(error.code, "rewrite rule \(i): \(error.message)", offset: error.offset, index: i)
            }
        }
        return RewriteRules(entries: entries)
    }

    /// A new set without the rule whose regex is `match`; `.notFound` when there is none.
    package func removing(_ match: String) throws(RouterError) -> RewriteRules {
        guard let at = positions[Array(match.utf8)], at < entries.count else {
            throw RouterError.notFound("no rewrite rule '\(excerpt(match))'")
        }
        var entries = self.entries
        entries.remove(at: at)
        return RewriteRules(entries: entries)
    }

    /// Rewrites `url` with the first rule whose regex is found in it: writes the whole new URL to `out` and
    /// returns true. Returns false, writing nothing, when no rule matches. A PCRE2 match or depth limit
    /// throws `.limit`, and so does a result longer than `limits.maxURLLength`.
    ///
    /// `url` must be valid UTF-8 (the router validates every URL before it gets here).
    package func rewrite(_ url: ByteSpan, into out: inout ByteWriter, limits: Limits) throws(RouterError) -> Bool {
        if entries.isEmpty { return false }
        return try RegexScratch.with { scratch throws(RouterError) -> Bool in
            var evaluated = 0
            guard let fired = try firstMatch(url, scratch, limits, linear: false, evaluated: &evaluated) else { return false }
            try expand(fired, url, scratch, &out, limits)
            return true
        }
    }

    /// The ordinal of the first rule (in order) whose regex is found in `url`, its captures left in `scratch`.
    @inline(__always)
    private func firstMatch(_ url: ByteSpan, _ scratch: RegexScratch, _ limits: Limits, linear: Bool,
                            evaluated: inout Int) throws(RouterError) -> Int? {
        if linear || index.linear {
            for ordinal in entries.indices {
                if try matches(ordinal, url, scratch, limits, &evaluated) { return ordinal }
            }
            return nil
        }
        return try withUnsafeTemporaryAllocation(of: UInt64.self, capacity: index.scratchWords) { bits throws(RouterError) -> Int? in
            guard let base = bits.baseAddress else { return nil }
            for w in index.collect(url, into: base) {
                var word = base[w]
                while word != 0 {
                    let ordinal = w &<< 6 | word.trailingZeroBitCount
                    word &= word &- 1
                    if try matches(ordinal, url, scratch, limits, &evaluated) { return ordinal }
                }
            }
            return nil
        }
    }

    /// Expands the template of rule `ordinal` (one `matches` found) for the match held in `scratch`.
    @inline(__always)
    private func expand(_ ordinal: Int, _ url: ByteSpan, _ scratch: RegexScratch, _ out: inout ByteWriter,
                        _ limits: Limits) throws(RouterError) {
        guard let layout = layouts.baseAddress?[ordinal],
              layout.write(url: url, scratch: scratch, into: &out, maxLength: limits.maxURLLength) else {
            throw entries[ordinal].template.tooLong(limits.maxURLLength)
        }
    }

    /// Whether rule `ordinal`'s regex is found in `url` (false for an ordinal out of range).
    @inline(__always)
    private func matches(_ ordinal: Int, _ url: ByteSpan, _ scratch: RegexScratch, _ limits: Limits,
                         _ evaluated: inout Int) throws(RouterError) -> Bool {
        guard ordinal < entries.count, ordinal < layouts.count, ordinal < handles.count,
              let handle = handles.baseAddress?[ordinal] else { return false }
        evaluated &+= 1
        let rc = Regex.match(handle, url, scratch, limits)
        if rc >= 0 { return true }
        if rc == Regex.noMatch { return false }
        throw entries[ordinal].regex.error(rc, url, limits)
    }

    // MARK: Inspection (tests, benchmarks, the CLI's explain)

    /// The ordinals of the rules the index would try for `url`, in order (without stopping at a match).
    package func candidates(for url: String) -> [Int] {
        if index.linear { return Array(entries.indices) }
        var copy = url
        return copy.withUTF8 { buf in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: index.scratchWords) { bits -> [Int] in
                guard let base = bits.baseAddress else { return [] }
                var result: [Int] = []
                for w in index.collect(ByteSpan(start: buf.baseAddress, count: buf.count), into: base) {
                    var word = base[w]
                    while word != 0 {
                        result.append(w &<< 6 | word.trailingZeroBitCount)
                        word &= word &- 1
                    }
                }
                return result
            }
        }
    }

    /// `url` rewritten (nil when no rule matches) and how many regexes were evaluated to find out.
    /// `linear: true` tries every rule in order, bypassing the index: the reference for differential tests.
    package func rewriteCounting(_ url: String, limits: Limits = .default, linear: Bool = false) throws(RouterError)
        -> (rewritten: String?, evaluated: Int) {
        guard !entries.isEmpty else { return (nil, 0) }
        return try url.withSpan { span throws(RouterError) in
            guard isValidUTF8(span.start, span.count) else { throw .invalidURL("URL is not valid UTF-8") }
            return try RegexScratch.with { scratch throws(RouterError) -> (rewritten: String?, evaluated: Int) in
                var evaluated = 0
                guard let fired = try firstMatch(span, scratch, limits, linear: linear, evaluated: &evaluated) else {
                    return (nil, evaluated)
                }
                var capacity = max(256, 2 &* span.count &+ 64)
                while true {
                    let result = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buf -> Result<String?, RouterError> in
                        var out = ByteWriter(base: buf.baseAddress, capacity: capacity)
                        do throws(RouterError) {
                            try expand(fired, span, scratch, &out, limits)
                        } catch {
                            return .failure(error)
                        }
                        if out.overflowed {
                            capacity = out.count
                            return .success(nil)
                        }
                        return .success(out.span(from: 0).string)
                    }
                    if let text = try result.get() { return (text, evaluated) }
                }
            }
        }
    }

    /// `url` rewritten through the index, or nil when no rule matches.
    package func rewrite(_ url: String, limits: Limits = .default) throws(RouterError) -> String? {
        try rewriteCounting(url, limits: limits).rewritten
    }

    /// `url` rewritten by trying every rule in order (no index), or nil when no rule matches.
    package func rewriteLinear(_ url: String, limits: Limits = .default) throws(RouterError) -> String? {
        try rewriteCounting(url, limits: limits, linear: true).rewritten
    }

    /// Whether rule `ordinal` is tried for every URL (nothing the index can use, or few rules).
    package func isAlwaysCandidate(_ ordinal: Int) -> Bool {
        index.isAlways(ordinal)
    }
}

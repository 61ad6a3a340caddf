/// Two routes that both match some URL where precedence, not the literals, decides which one wins: allowed,
/// but worth knowing (`Router.overlaps()`, `lr_router_overlaps`, `linkrouter check`).
public struct RouteOverlap: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// At some place both have a parameter, with different types or literal prefixes/suffixes (a typed and a
        /// plain `:param`, `<uint>` and `<int>`, `{name}.png` and `:file`): the rule that comes first wins the
        /// values both accept.
        case typed
        /// A scheme-specific route and a `*://` route: the scheme's routes are tried first as a whole, so the
        /// scheme route (often a catch-all) hides the `*://` one for that scheme.
        case anyScheme = "any_scheme"
    }

    public let kind: Kind
    /// The route the example URL goes to, and the other one (patterns as registered).
    public let winner: String
    public let other: String
    /// Their positions in the router's route list (insertion order, as `routes` and table exports list them).
    public let winnerIndex: Int
    public let otherIndex: Int
    /// A URL both routes match (the lookup gives it to `winner`; rewrite rules are not applied).
    public let example: String

    public var reason: String {
        let why = kind == .typed ? "the parameter that comes first in precedence (more literal bytes, then the narrower type) wins"
            : "a scheme's own routes are tried before '*://' routes"
        return "'\(excerpt(other))' overlaps '\(excerpt(winner))': both match URLs such as '\(excerpt(example))', "
            + "which go to '\(excerpt(winner))' (\(why))"
    }

    /// `overlaps` as a JSON array of objects (`lr_router_overlaps`): kind, winner, winner_index, other,
    /// other_index, example, reason.
    package static func json(_ overlaps: [RouteOverlap]) -> String {
        var w = JSONWriter()
        w.beginArray()
        for o in overlaps {
            w.beginObject()
            w.key("kind")
            w.string(o.kind.rawValue)
            w.key("winner")
            w.string(o.winner)
            w.key("winner_index")
            w.raw(String(o.winnerIndex))
            w.key("other")
            w.string(o.other)
            w.key("other_index")
            w.raw(String(o.otherIndex))
            w.key("example")
            w.string(o.example)
            w.key("reason")
            w.string(o.reason)
            w.endObject()
        }
        w.endArray()
        return w.text
    }
}

/// Finds the overlaps. Only routes with a typed or in-segment parameter, or a `*://` scheme, can be in one, and
/// only with routes that agree with them wherever both have a literal: the search walks the routes' trie against
/// itself to find those pairs (about one step per route in a typical table, not one per pair of routes), and
/// each reported pair comes with a URL that shows it: an example is built from sample values of both patterns,
/// then routed through the table to learn the winner. A pair whose shared URLs the samples miss (exotic
/// character classes) goes unreported; a reported one is always real.
enum TableOverlaps {
    static func find(_ state: RouterState) -> [RouteOverlap] {
        var work = CheckWork()
        return find(state, work: &work)
    }

    static func find(_ state: RouterState, work: inout CheckWork) -> [RouteOverlap] {
        let plain = state.with(rewrites: .empty)
        let routes: [(pattern: Pattern, sequence: Int)] = state.table.blobs.compactMap { blob in
            Pattern.parseStored(blob.spec.pattern).map { ($0, blob.sequence) }
        }
        var samples = Samples(maxLength: state.limits.maxURLLength)
        var found: [RouteOverlap] = []
        var pairs = 0, visits = 0
        PatternTrie(routes.map(\.pattern)).pairs(samples: &samples, visits: &visits) { x, y, samples in
            pairs += 1
            // The routes in the order the search always took them: the one with rules or `*://` first.
            let involved = routes[x].pattern.scheme == nil || routes[x].pattern.hasRules
            let (i, j) = involved ? (x, y) : (y, x)
            for a in routes[i].pattern.variants {
                for b in routes[j].pattern.variants {
                    guard let kind = kind(a, b), let url = samples.example(a, b) else { continue }
                    let winner = try? url.withSpan { span throws(RouterError) in
                        try plain.withResolution(span, query: false) { $0?.blob.sequence }
                    }
                    let w: Int
                    if winner == routes[i].sequence { w = i } else if winner == routes[j].sequence { w = j } else { continue }
                    let o = w == i ? j : i
                    found.append(RouteOverlap(kind: kind, winner: routes[w].pattern.text, other: routes[o].pattern.text,
                                              winnerIndex: w, otherIndex: o, example: url))
                    return
                }
            }
        }
        work.overlapPairs += pairs
        work.trieVisits += visits
        work.samples += samples.count
        work.sampleBytes += samples.bytes
        return found.sorted { ($0.otherIndex, $0.winnerIndex) < ($1.otherIndex, $1.winnerIndex) }
    }

    /// What makes the pair worth a report, or nil: a `*://` against a scheme, or two different parameters at
    /// one place.
    private static func kind(_ a: Pattern, _ b: Pattern) -> RouteOverlap.Kind? {
        if (a.scheme == nil) != (b.scheme == nil) { return .anyScheme }
        for (sa, sb) in zip(a.segments, b.segments) {
            switch (sa, sb) {
            case (.param, .rule), (.rule, .param): return .typed
            case (.rule(let x), .rule(let y)) where !x.same(as: y): return .typed
            default: continue
            }
        }
        return nil
    }
}

/// The routes' variants as a trie: the scheme (or `*`), then one level per segment, parameters keyed by their
/// rule, catch-alls kept at the node where they start. Two routes share a URL only along two paths that agree
/// wherever both have a literal, so walking the trie against itself reaches every pair that can overlap.
struct PatternTrie {
    private struct Node {
        var literals: [[UInt8]: Int] = [:]
        var params: [(segment: Pattern.Segment, child: Int)] = []
        var paramIndex: [[UInt8]: Int] = [:]
        /// Routes (their indices) with a variant that ends here, or whose catch-all starts here.
        var ends: [Int] = []
        var catchAlls: [Int] = []
        var parent: Int
        var isParam: Bool
        /// A parameter node somewhere under this one.
        var paramBelow = false
    }

    private var nodes: [Node] = []
    private var schemes: [Int] = []
    private var schemeIndex: [[UInt8]: Int] = [:]
    private var anyScheme: Int?

    init(_ patterns: [Pattern]) {
        for (r, pattern) in patterns.enumerated() {
            for variant in pattern.variants { insert(variant, r) }
        }
        // Children come after their parents.
        for n in nodes.indices.reversed() where nodes[n].parent >= 0 && (nodes[n].isParam || nodes[n].paramBelow) {
            nodes[nodes[n].parent].paramBelow = true
        }
    }

    private mutating func make(parent: Int, param: Bool) -> Int {
        nodes.append(Node(parent: parent, isParam: param))
        return nodes.count - 1
    }

    private mutating func insert(_ pattern: Pattern, _ route: Int) {
        var node: Int
        if let scheme = pattern.scheme {
            if let n = schemeIndex[scheme] { node = n } else {
                node = make(parent: -1, param: false)
                schemeIndex[scheme] = node
                schemes.append(node)
            }
        } else if let n = anyScheme {
            node = n
        } else {
            node = make(parent: -1, param: false)
            anyScheme = node
        }
        for segment in pattern.segments {
            switch segment {
            case .literal(let bytes):
                if let c = nodes[node].literals[bytes] { node = c; continue }
                let c = make(parent: node, param: false)
                nodes[node].literals[bytes] = c
                node = c
            case .param, .rule:
                let key: [UInt8]
                if case .rule(let rule) = segment { key = rule.key } else { key = [] }
                if let k = nodes[node].paramIndex[key] { node = nodes[node].params[k].child; continue }
                let c = make(parent: node, param: true)
                nodes[node].paramIndex[key] = nodes[node].params.count
                nodes[node].params.append((segment, c))
                node = c
            case .catchAll:
                nodes[node].catchAlls.append(route)
                return
            }
        }
        nodes[node].ends.append(route)
    }

    /// Calls `body` once for each pair of routes (x < y) that might meet where a parameter differs or a `*://`
    /// route meets a scheme's, the only pairs an overlap can be: paths are followed in step, both sides at a
    /// time, as long as they can share an element; a pair of paths that agrees so far and cannot reach two
    /// parameters at one place is dropped. `visits` counts the pairs of nodes followed.
    func pairs(samples: inout Samples, visits: inout Int, _ body: (Int, Int, inout Samples) -> Void) {
        var seen = Set<Int>()
        func emit(_ x: Int, _ y: Int) {
            guard x != y, seen.insert(min(x, y) << 32 | max(x, y)).inserted else { return }
            body(min(x, y), max(x, y), &samples)
        }
        func routes(under node: Int) -> [Int] {
            var out: [Int] = [], stack = [node]
            while let n = stack.popLast() {
                out += nodes[n].ends
                out += nodes[n].catchAlls
                stack += nodes[n].literals.values
                stack += nodes[n].params.map(\.child)
            }
            return out
        }
        /// Whether the paths through `a` and `b` are worth following: they differ already (`hot`), or both lead
        /// on to parameters.
        func worth(_ a: Int, _ b: Int, _ hot: Bool) -> Bool { hot || (nodes[a].paramBelow && nodes[b].paramBelow) }
        /// Whether `literal` is an element the parameter accepts, as `Samples.common` would find (the host
        /// folds case, so there the samples decide).
        func fits(_ literal: [UInt8], _ param: Pattern.Segment, host: Bool) -> Bool {
            let rule: ParamRule
            if case .rule(let r) = param { rule = r } else { rule = ParamRule() }
            if literal.withUnsafeBufferPointer({ rule.value(in: $0.baseAddress, $0.count, fold: host) }) != nil { return true }
            return host && samples.common(.literal(literal), param, host: true) != nil
        }
        // (u, v, depth, hot): u == v is a path against itself; the mirror (v, u) of a pair is never followed.
        var stack: [(u: Int, v: Int, depth: Int, hot: Bool)] = []
        for s in schemes {
            stack.append((s, s, 0, false))
            if let any = anyScheme { stack.append((s, any, 0, true)) }
        }
        if let any = anyScheme { stack.append((any, any, 0, false)) }
        while let item = stack.popLast() {
            let (u, v, depth, hot) = item
            visits += 1
            let nu = nodes[u], nv = nodes[v], host = depth == 0
            if u == v {
                for c in nu.literals.values where nodes[c].paramBelow { stack.append((c, c, depth + 1, false)) }
                for (k, p) in nu.params.enumerated() {
                    if nodes[p.child].paramBelow {
                        stack.append((p.child, p.child, depth + 1, false))
                        for (literal, c) in nu.literals where nodes[c].paramBelow && fits(literal, p.segment, host: host) {
                            stack.append((c, p.child, depth + 1, false))
                        }
                    }
                    for q in nu.params[(k + 1)...] where samples.common(p.segment, q.segment, host: host) != nil {
                        stack.append((p.child, q.child, depth + 1, true))
                    }
                }
                continue
            }
            if hot {
                for x in nu.ends { for y in nv.ends { emit(x, y) } }
                if !nu.catchAlls.isEmpty {
                    let under = routes(under: v)
                    for x in nu.catchAlls { for y in under { emit(x, y) } }
                }
                if !nv.catchAlls.isEmpty {
                    let under = routes(under: u)
                    for y in nv.catchAlls { for x in under { emit(x, y) } }
                }
            }
            if nu.literals.count <= nv.literals.count {
                for (literal, a) in nu.literals { if let b = nv.literals[literal], worth(a, b, hot) { stack.append((a, b, depth + 1, hot)) } }
            } else {
                for (literal, b) in nv.literals { if let a = nu.literals[literal], worth(a, b, hot) { stack.append((a, b, depth + 1, hot)) } }
            }
            for q in nv.params {
                for (literal, a) in nu.literals where worth(a, q.child, hot) && fits(literal, q.segment, host: host) {
                    stack.append((a, q.child, depth + 1, hot))
                }
            }
            for p in nu.params {
                for (literal, b) in nv.literals where worth(p.child, b, hot) && fits(literal, p.segment, host: host) {
                    stack.append((p.child, b, depth + 1, hot))
                }
                for q in nv.params {
                    if case .param = p.segment, case .param = q.segment {
                        if worth(p.child, q.child, hot) { stack.append((p.child, q.child, depth + 1, hot)) }
                    } else if case .rule(let x) = p.segment, case .rule(let y) = q.segment, x.same(as: y) {
                        if worth(p.child, q.child, hot) { stack.append((p.child, q.child, depth + 1, hot)) }
                    } else if samples.common(p.segment, q.segment, host: host) != nil {
                        stack.append((p.child, q.child, depth + 1, true))
                    }
                }
            }
        }
    }
}

/// The sample elements and example URLs of the overlap search. No sample is longer than `maxLength` (the
/// router's maxURLLength: a longer element is in no URL a lookup accepts), and samples are built one at a time,
/// so a rule like `<[!-~]{999999}>` costs nothing instead of 94 copies of its minimum length.
struct Samples {
    let maxLength: Int
    /// Samples built, and their bytes.
    private(set) var count = 0
    private(set) var bytes = 0

    init(maxLength: Int) { self.maxLength = maxLength }

    private static let fixed = ["1", "0", "-1", "1.5", "a", "x", "A", "a-b", "a.b", "00000000-0000-0000-0000-000000000000"].map { Array($0.utf8) }

    /// A URL both patterns match, or nil when none is found (or it would be longer than `maxLength`).
    mutating func example(_ a: Pattern, _ b: Pattern) -> String? {
        if let x = a.scheme, let y = b.scheme, x != y { return nil }
        let scheme = a.scheme ?? b.scheme ?? Array("any".utf8)
        var elements: [[UInt8]] = []
        // The URL's bytes so far, at least (encoding only adds): past maxLength no lookup takes it.
        var length = scheme.count + 3
        func add(_ v: [UInt8]) -> Bool {
            length += v.count + (elements.isEmpty ? 0 : 1)
            elements.append(v)
            return length <= maxLength
        }
        var i = 0
        func rest(_ p: Pattern, from k: Int) -> Bool {
            for s in p.segments[k...] {
                if s == .catchAll { break }
                guard let v = common(s, nil, host: elements.isEmpty), add(v) else { return false }
            }
            return true
        }
        while true {
            let sa = i < a.segments.count ? a.segments[i] : nil, sb = i < b.segments.count ? b.segments[i] : nil
            if sa == nil && sb == nil { break }
            if sa == .catchAll {
                guard rest(b, from: i) else { return nil }
                break
            }
            if sb == .catchAll {
                guard rest(a, from: i) else { return nil }
                break
            }
            guard let sa, let sb, let v = common(sa, sb, host: i == 0), add(v) else { return nil }
            i += 1
        }
        var url = scheme + Array("://".utf8)
        for (k, e) in elements.enumerated() {
            if k > 0 { url.append(ASCII.slash) }
            if k == 0, case .literal? = a.segments.first { url += e } else { URLBuilder.encodeSegment(e, into: &url) }
        }
        return String(decoding: url, as: UTF8.self)
    }

    /// A decoded element both segments match (`b` nil: one `a` matches): the first of the literals, then of
    /// each affix pair around each sample value, that both accept.
    mutating func common(_ a: Pattern.Segment, _ b: Pattern.Segment?, host: Bool) -> [UInt8]? {
        func rule(_ s: Pattern.Segment) -> ParamRule? {
            switch s {
            case .param: return ParamRule()
            case .rule(let r): return r
            default: return nil
            }
        }
        func accepts(_ s: Pattern.Segment?, _ e: [UInt8]) -> Bool {
            guard let s else { return true }
            if case .literal(let l) = s { return l == (host ? e.map(ASCII.lowercased) : e) }
            guard let r = rule(s) else { return false }
            return e.withUnsafeBufferPointer { r.value(in: $0.baseAddress, $0.count, fold: host) != nil }
        }
        /// Whether an element of `n` bytes could be accepted (false: surely not, so it is not built).
        func fits(_ s: Pattern.Segment?, _ n: Int) -> Bool {
            guard let s else { return true }
            if case .literal(let l) = s { return n == l.count }
            guard let r = rule(s) else { return false }
            let middle = n - r.prefix.count - r.suffix.count
            switch r.kind {
            case .chars: return middle >= Int(r.minLength) && middle <= Int(r.maxLength)
            case .uuid: return middle == 36
            default: return middle >= 1
            }
        }
        for s in [a, b] {
            if case .literal(let l)? = s, accepts(a, l), accepts(b, l) { return l }
        }
        let rules = [a, b].compactMap { $0.flatMap(rule) }
        // An element both accept starts with both prefixes and ends with both suffixes (`p1{x}` and `p2{x}`
        // share none): no sample needed.
        if rules.count == 2 {
            let (p, q) = (rules[0].prefix, rules[1].prefix), (x, y) = (rules[0].suffix, rules[1].suffix)
            guard p.starts(with: q) || q.starts(with: p), x.reversed().starts(with: y.reversed()) || y.reversed().starts(with: x.reversed()) else { return nil }
        }
        // The sample values after the fixed ones: each allowed byte of a character class, repeated its minimum.
        var runs: [(byte: UInt8, count: Int)] = []
        for r in rules where r.kind == .chars {
            for byte in UInt8(0x21)...UInt8(0x7E) where r.charSet[Int(byte >> 3)] & (1 << (byte & 7)) != 0 {
                runs.append((byte, Int(r.minLength)))
            }
        }
        let affixes: [([UInt8], [UInt8])] = rules.count == 2
            ? [(rules[0].prefix + rules[1].prefix, rules[1].suffix + rules[0].suffix),
               (rules[1].prefix + rules[0].prefix, rules[0].suffix + rules[1].suffix),
               (rules[0].prefix, rules[0].suffix), (rules[1].prefix, rules[1].suffix)]
            : rules.map { ($0.prefix, $0.suffix) }
        var e: [UInt8] = []
        for (p, s) in affixes {
            for k in 0..<(Samples.fixed.count + runs.count) {
                let n = p.count + s.count + (k < Samples.fixed.count ? Samples.fixed[k].count : runs[k - Samples.fixed.count].count)
                guard n <= maxLength, fits(a, n), fits(b, n) else { continue }
                e.removeAll(keepingCapacity: true)
                e += p
                if k < Samples.fixed.count {
                    e += Samples.fixed[k]
                } else {
                    e.append(contentsOf: repeatElement(runs[k - Samples.fixed.count].byte, count: runs[k - Samples.fixed.count].count))
                }
                e += s
                count += 1
                bytes += n
                if accepts(a, e) && accepts(b, e) { return e }
            }
        }
        return nil
    }
}

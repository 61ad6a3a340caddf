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

/// Finds the overlaps. Only routes with a typed or in-segment parameter, or a `*://` scheme, can be in one, so
/// the search pairs those few with every route, and each reported pair comes with a URL that shows it: an example
/// is built from sample values of both patterns, then routed through the table to learn the winner. A pair whose
/// shared URLs the samples miss (exotic character classes) goes unreported; a reported one is always real.
enum TableOverlaps {
    static func find(_ state: RouterState) -> [RouteOverlap] {
        let plain = state.with(rewrites: .empty)
        var unlimited = Limits()
        unlimited.maxSegments = Int.max
        let routes: [(pattern: Pattern, sequence: Int)] = state.table.blobs.compactMap { blob in
            (try? Pattern.parse(blob.spec.pattern, limits: unlimited)).map { ($0, blob.sequence) }
        }
        let involved = routes.indices.filter { routes[$0].pattern.scheme == nil || routes[$0].pattern.hasRules }
        var done: Set<[Int]> = []
        var found: [RouteOverlap] = []
        for i in involved {
            for j in routes.indices where j != i && done.insert([min(i, j), max(i, j)]).inserted {
                pairs: for a in routes[i].pattern.variants {
                    for b in routes[j].pattern.variants {
                        guard let kind = kind(a, b), let url = example(a, b) else { continue }
                        let winner = try? url.withSpan { span throws(RouterError) in
                            try plain.withResolution(span, query: false) { $0?.blob.sequence }
                        }
                        let w: Int
                        if winner == routes[i].sequence { w = i } else if winner == routes[j].sequence { w = j } else { continue }
                        let o = w == i ? j : i
                        found.append(RouteOverlap(kind: kind, winner: routes[w].pattern.text, other: routes[o].pattern.text,
                                                  winnerIndex: w, otherIndex: o, example: url))
                        break pairs
                    }
                }
            }
        }
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

    /// A URL both patterns match, or nil when none is found.
    static func example(_ a: Pattern, _ b: Pattern) -> String? {
        if let x = a.scheme, let y = b.scheme, x != y { return nil }
        let scheme = a.scheme ?? b.scheme ?? Array("any".utf8)
        var elements: [[UInt8]] = []
        var i = 0
        func rest(_ p: Pattern, from k: Int) -> Bool {
            for s in p.segments[k...] {
                if s == .catchAll { break }
                guard let v = common(s, nil, host: elements.isEmpty) else { return false }
                elements.append(v)
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
            guard let sa, let sb, let v = common(sa, sb, host: i == 0) else { return nil }
            elements.append(v)
            i += 1
        }
        var url = scheme + Array("://".utf8)
        for (k, e) in elements.enumerated() {
            if k > 0 { url.append(ASCII.slash) }
            if k == 0, case .literal? = a.segments.first { url += e } else { URLBuilder.encodeSegment(e, into: &url) }
        }
        return String(decoding: url, as: UTF8.self)
    }

    /// A decoded element both segments match (`b` nil: one `a` matches).
    private static func common(_ a: Pattern.Segment, _ b: Pattern.Segment?, host: Bool) -> [UInt8]? {
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
        var candidates: [[UInt8]] = []
        for s in [a, b].compactMap({ $0 }) {
            if case .literal(let l) = s { candidates.append(l) }
        }
        let rules = [a, b].compactMap { $0.flatMap(rule) }
        var values = ["1", "0", "-1", "1.5", "a", "x", "A", "a-b", "a.b", "00000000-0000-0000-0000-000000000000"].map { Array($0.utf8) }
        for r in rules where r.kind == .chars {
            for byte in UInt8(0x21)...UInt8(0x7E) where r.charSet[Int(byte >> 3)] & (1 << (byte & 7)) != 0 {
                values.append([UInt8](repeating: byte, count: Int(r.minLength)))
            }
        }
        let affixes: [([UInt8], [UInt8])] = rules.count == 2
            ? [(rules[0].prefix + rules[1].prefix, rules[1].suffix + rules[0].suffix),
               (rules[1].prefix + rules[0].prefix, rules[0].suffix + rules[1].suffix),
               (rules[0].prefix, rules[0].suffix), (rules[1].prefix, rules[1].suffix)]
            : rules.map { ($0.prefix, $0.suffix) }
        for (p, s) in affixes {
            for v in values { candidates.append(p + v + s) }
        }
        return candidates.first { accepts(a, $0) && accepts(b, $0) }
    }
}

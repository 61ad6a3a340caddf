/// Computes an `Explanation`: the rewrite rules tried one by one, then every route of the snapshot checked on
/// its own against the URL's match sequence, the winner chosen by precedence.
///
/// This is deliberately not the lookup path (`TrieWalk`): it is slow, allocates freely and records reasons, and
/// it is a second, independent statement of the rules (docs/SEMANTICS.md): a route's precedence key is its
/// scheme (a scheme before `*`), then per element `host:port` literal, literal, `:param`, `*`, then "ends here"
/// before a catch-all; the smallest key among the routes that match wins. That is exactly the trie's
/// depth-first search in precedence order with backtracking, so the two must agree (ExplainTests checks it on
/// the semantics table and the GitHub routes).
struct ExplainWalker {
    let state: RouterState
    let limit: Int

    /// One element of the match sequence: raw (as written) and decoded.
    struct Element {
        var raw: [UInt8]
        var decoded: [UInt8]
    }

    func explain(_ url: String, extra: [Match.Param]) -> Explanation {
        var rules: [Explanation.Rule] = []
        var routed = url
        do throws(RouterError) {
            try url.withSpan { span throws(RouterError) in try state.validate(span) }
            routed = try rewrite(url, &rules)
            return try match(url, routed: routed, rules: rules, extra: extra)
        } catch {
            // A URL over maxURLLength (refused by `validate`, before anything is tried) is quoted rather than echoed
            // twice, escaped: it may be as long as the caller likes (SEMANTICS §6).
            let quoted = url.utf8.count > state.limits.maxURLLength ? excerpt(url) : nil
            // Refused before any rule was tried: each rule is listed as not tried, not left out as if there were none.
            if rules.isEmpty { return Explanation.refused(quoted ?? url, error, rules: state.rewrites.rules) }
            return Explanation(url: quoted ?? url, result: .error, error: error, rules: rules, routed: quoted ?? routed,
                               sequence: [], candidates: [], candidatesOmitted: 0, otherSchemeRoutes: 0, route: nil, params: [])
        }
    }

    // MARK: Rewrite

    /// Each rule in order until one fires, and the URL it makes (the engine's own output). `rules` gets the
    /// outcomes even when this throws: up to and including the rule whose regex failed, or all of them when
    /// the rule that fired could not expand its target.
    ///
    /// As the lookup (`RewriteRules.firstMatch`), only the rules the index picks for the URL are run: the others
    /// cannot match, and running them anyway could fail (a PCRE2 limit) where the lookup succeeds.
    private func rewrite(_ url: String, _ rules: inout [Explanation.Rule]) throws(RouterError) -> String {
        let entries = state.rewrites.entries
        guard !entries.isEmpty else { return url }
        let indexed = Set(state.rewrites.candidates(for: url))
        var steps: [Explanation.Rule] = []
        defer { rules = steps }
        func step(_ i: Int, _ outcome: Explanation.Rule.Outcome) {
            steps.append(Explanation.Rule(index: i, match: entries[i].match, target: entries[i].template.text,
                                          outcome: outcome, indexed: indexed.contains(i)))
        }
        var fired = false
        try url.withSpan { span throws(RouterError) in
            try RegexScratch.with { scratch throws(RouterError) in
                for (i, rule) in entries.enumerated() {
                    if fired {
                        step(i, .notTried)
                        continue
                    }
                    guard indexed.contains(i) else {
                        step(i, .skipped)
                        continue
                    }
                    do throws(RouterError) {
                        fired = try rule.matches(span, scratch, state.limits)
                    } catch {
                        step(i, .error)
                        throw error
                    }
                    step(i, fired ? .fired : .noMatch)
                }
            }
        }
        guard fired else { return url }
        return try url.withSpan { span throws(RouterError) in
            try state.withRewritten(span) { out, _ in out.string }
        }
    }

    // MARK: Match

    private func match(_ url: String, routed: String, rules: [Explanation.Rule], extra: [Match.Param]) throws(RouterError) -> Explanation {
        let bytes = Array(routed.utf8)
        let parsed: (parts: URLParts, elements: [Element], hostFirst: Bool, query: [Match.Param])
        parsed = try bytes.withUnsafeBufferPointer { buf throws(RouterError) in
            let span = ByteSpan(start: buf.baseAddress, count: buf.count)
            guard span.count <= state.limits.maxURLLength else {
                throw .limit("rewritten URL of \(span.count) bytes is longer than maxURLLength (LR_LIMIT_URL_LENGTH, \(state.limits.maxURLLength))")
            }
            guard let parts = URLParts.parse(span, requireScheme: true) else { throw state.notAbsolute(span) }
            try state.validate(span)
            try state.checkSegments(span, from: parts.pathStart, to: parts.pathEnd, host: parts.hasAuthority && parts.hostCount > 0)
            let hostFirst = parts.hasAuthority && parts.hostCount > 0
            var elements: [Element] = []
            if hostFirst {
                let raw = Array(parts.host(in: span).buffer)
                elements.append(Element(raw: raw, decoded: decodedSegment(parts.host(in: span))))
            }
            for piece in Array(parts.path(in: span).buffer).split(separator: ASCII.slash) {
                let raw = Array(piece)
                elements.append(Element(raw: raw, decoded: raw.withUnsafeBufferPointer {
                    decodedSegment(ByteSpan(start: $0.baseAddress, count: $0.count))
                }))
            }
            let query = ExplainWalker.queryPairs(parts.query(in: span))
            guard query.count <= state.limits.maxParams else {
                throw .limit("URL has \(query.count) query pairs, more than maxParams (LR_LIMIT_PARAMS, \(state.limits.maxParams))")
            }
            return (parts, elements, hostFirst, query)
        }
        let (parts, elements, hostFirst, query) = parsed
        let scheme = bytes.withUnsafeBufferPointer { Array(parts.scheme(in: ByteSpan(start: $0.baseAddress, count: $0.count)).buffer).map(ASCII.lowercased) }
        // `host:port` decoded, the host's case kept (a rule naming a port takes its value from it).
        let hostPort: [UInt8]? = hostFirst && parts.hasPort
            ? elements[0].decoded + [ASCII.colon] + Array(bytes[parts.portStart..<parts.portEnd]) : nil

        var verdicts: [Verdict] = []
        var otherSchemes = 0
        var inPlay: [(order: Int, spec: RouteSpec, pattern: Pattern)] = []
        for (order, blob) in state.table.blobs.enumerated() {
            let spec = blob.spec
            guard let pattern = Pattern.parseStored(spec.pattern) else { continue }
            if let s = pattern.scheme, s != scheme {
                otherSchemes += 1
                continue
            }
            inPlay.append((order, spec, pattern))
        }
        // Parameter ranks: every rule in play (the plain `:param` included) in the trie's precedence order.
        var paramRules: [[UInt8]: ParamRule] = [ParamRule().key: ParamRule()]
        for c in inPlay {
            for case .rule(let r) in c.pattern.segments { paramRules[r.key] = r }
        }
        var ranks: [[UInt8]: UInt32] = [:]
        for (k, r) in paramRules.values.sorted(by: ParamRule.precedes).enumerated() { ranks[r.key] = ExplainWalker.rankParam + UInt32(k) }
        for c in inPlay {
            // A route with optional groups is judged as each of its variants: the best that matches, else the
            // one that got furthest.
            let judged = c.pattern.variants.map {
                judge(c.spec, $0, order: c.order, elements: elements, hostFirst: hostFirst, hostPort: hostPort, ranks: ranks)
            }
            let best = judged.filter(\.matched).min { $0.key.lexicographicallyPrecedes($1.key) }
                ?? judged.max { $0.progress < $1.progress } ?? judged[0]
            verdicts.append(best)
        }

        let winner = verdicts.filter(\.matched).min { $0.key.lexicographicallyPrecedes($1.key) }
        var ranked = verdicts
        ranked.sort { a, b in
            if a.matched != b.matched { return a.matched }
            if a.matched { return a.key.lexicographicallyPrecedes(b.key) }
            return a.progress != b.progress ? a.progress > b.progress : a.order < b.order
        }
        let candidates = ranked.prefix(limit).map { v -> Explanation.Candidate in
            var reason = v.reason
            if v.matched, let winner, winner.order != v.order {
                reason = "matches, but '\(excerpt(winner.route.pattern))' comes first (\(ExplainWalker.why(winner.key, beats: v.key, hostFirst)))"
            }
            return Explanation.Candidate(route: v.route, matched: v.matched && winner?.order == v.order, reason: reason,
                                         elementsMatched: v.progress)
        }
        let sequence = elements.map { String(decoding: $0.decoded, as: UTF8.self) }
        guard let winner else {
            return Explanation(url: url, result: .nomatch, error: nil, rules: rules, routed: routed, sequence: sequence,
                               candidates: Array(candidates), candidatesOmitted: max(0, ranked.count - limit),
                               otherSchemeRoutes: otherSchemes, route: nil, params: [])
        }
        return Explanation(url: url, result: .matched, error: nil, rules: rules, routed: routed, sequence: sequence,
                           candidates: Array(candidates), candidatesOmitted: max(0, ranked.count - limit),
                           otherSchemeRoutes: otherSchemes, route: winner.route,
                           params: ExplainWalker.merge(winner.captures, query: query, extra: extra))
    }

    /// A route's verdict on the URL: matched (with its precedence key and captures), or the first difference.
    struct Verdict {
        var route: RouteSpec
        var order: Int
        var matched = false
        var key: [UInt32] = []
        var progress = 0
        var reason = "matched"
        var captures: [Match.Param] = []
    }

    // Precedence ranks, per position of the key.
    // A parameter's rank is rankParam + its rule's place in the precedence order (see `ParamRule.precedes`); a
    // rule naming a port that takes `host:port` ranks rankHostPort + 1 + that place, before the host's literal.
    static let rankHostPort: UInt32 = 0, rankLiteral: UInt32 = 1 << 30, rankParam: UInt32 = (1 << 30) + 1, rankCatchAll: UInt32 = .max
    static let rankEnd: UInt32 = 0

    private func judge(_ spec: RouteSpec, _ pattern: Pattern, order: Int, elements: [Element], hostFirst: Bool,
                       hostPort: [UInt8]?, ranks: [[UInt8]: UInt32]) -> Verdict {
        var v = Verdict(route: spec, order: order)
        v.key.append(pattern.scheme == nil ? ExplainWalker.rankParam : ExplainWalker.rankLiteral)
        var names = pattern.paramNames.makeIterator()
        for (i, segment) in pattern.segments.enumerated() {
            let place = ExplainWalker.place(i, hostFirst)
            if segment == .catchAll {
                let rest = elements[min(i, elements.count)...].map { String(decoding: $0.raw, as: UTF8.self) }
                v.captures.append(Match.Param(name: names.next() ?? "*", value: rest.joined(separator: "/")))
                v.key.append(ExplainWalker.rankCatchAll)
                v.matched = true
                return v
            }
            guard i < elements.count else {
                v.reason = "the URL ends after \(elements.count) element\(elements.count == 1 ? "" : "s"); the pattern needs "
                    + "\(pattern.segments.count)"
                return v
            }
            let element = elements[i]
            switch segment {
            case .literal(let literal):
                if i == 0 && hostFirst {
                    if let hostPort, literal == hostPort.map(ASCII.lowercased) {
                        v.key.append(ExplainWalker.rankHostPort)
                    } else if literal == element.decoded.map(ASCII.lowercased) {
                        v.key.append(ExplainWalker.rankLiteral)
                    } else {
                        v.reason = "\(place) '\(ExplainWalker.show(element))' is not '\(ExplainWalker.show(literal))'"
                        return v
                    }
                } else if literal == element.decoded {
                    v.key.append(ExplainWalker.rankLiteral)
                } else {
                    v.reason = "\(place) '\(ExplainWalker.show(element))' is not '\(ExplainWalker.show(literal))'"
                    return v
                }
            case .param:
                v.key.append(ranks[ParamRule().key] ?? ExplainWalker.rankParam)
                v.captures.append(Match.Param(name: names.next() ?? "", value: String(decoding: element.decoded, as: UTF8.self)))
            case .rule(let rule):
                let name = names.next() ?? ""
                if i == 0, let hostPort, rule.namesPort,
                   let range = hostPort.withUnsafeBufferPointer({ rule.value(in: $0.baseAddress, $0.count, fold: true) }) {
                    // As the walk: `host:port` first, for a rule that names a port.
                    v.key.append(ExplainWalker.rankHostPort + 1 + ((ranks[rule.key] ?? ExplainWalker.rankParam) - ExplainWalker.rankParam))
                    v.captures.append(Match.Param(name: name, value: String(decoding: hostPort[range.start..<range.end], as: UTF8.self)))
                    v.progress = i + 1
                    continue
                }
                guard let range = element.decoded.withUnsafeBufferPointer({ rule.value(in: $0.baseAddress, $0.count, fold: i == 0 && hostFirst) }) else {
                    v.reason = "\(place) '\(ExplainWalker.show(element))' does not fit '\(rule.written(name))'"
                    return v
                }
                v.key.append(ranks[rule.key] ?? ExplainWalker.rankParam)
                v.captures.append(Match.Param(name: name, value: String(decoding: element.decoded[range.start..<range.end], as: UTF8.self)))
            case .catchAll:
                break
            }
            v.progress = i + 1
        }
        guard pattern.segments.count >= elements.count else {
            let extra = elements[pattern.segments.count...].map { ExplainWalker.show($0) }.joined(separator: "/")
            v.reason = "the URL has \(elements.count) elements, the pattern only \(pattern.segments.count) (left over: '\(extra)')"
            return v
        }
        v.key.append(ExplainWalker.rankEnd)
        v.matched = true
        return v
    }

    /// Element i in words: "the host" or "segment 2" (the first path segment is 1).
    static func place(_ i: Int, _ hostFirst: Bool) -> String {
        hostFirst ? (i == 0 ? "the host" : "segment \(i)") : "segment \(i + 1)"
    }

    /// Why key `a` comes before key `b`, in words.
    static func why(_ a: [UInt32], beats b: [UInt32], _ hostFirst: Bool) -> String {
        var p = 0
        while p < a.count && p < b.count && a[p] == b[p] { p += 1 }
        guard p < a.count && p < b.count else { return "it is first by precedence" }
        if p == 0 { return "a scheme beats '*://'" }
        func kind(_ rank: UInt32, _ key: [UInt32], _ at: Int) -> String {
            if at == key.count - 1 && rank == rankEnd { return "a route that ends there" }
            switch rank {
            case rankHostPort: return "a host:port literal"
            case rankHostPort + 1 ..< rankLiteral: return "a parameter naming a port"
            case rankLiteral: return "a literal"
            case rankCatchAll: return "a catch-all"
            default: return "a :param"
            }
        }
        if a[p] >= rankParam && b[p] >= rankParam && a[p] != rankCatchAll && b[p] != rankCatchAll {
            return "at \(place(p - 1, hostFirst)), a parameter with more literal bytes or a narrower type beats the other"
        }
        let element = p - 1
        let what = kind(a[p], a, p) + " beats " + kind(b[p], b, p)
        return "at \(place(element, hostFirst)), \(what)"
    }

    /// Bytes as a message shows them (UTF-8 text; bytes that are not are shown as written).
    static func show(_ bytes: [UInt8]) -> String { excerpt(String(decoding: bytes, as: UTF8.self), limit: 60) }
    static func show(_ element: Element) -> String { show(element.decoded) }

    /// The query's pairs, decoded as the lookup decodes them.
    static func queryPairs(_ query: ByteSpan) -> [Match.Param] {
        var pairs: [Match.Param] = []
        for piece in Array(query.buffer).split(separator: ASCII.ampersand) {
            let bytes = Array(piece)
            let eq = bytes.firstIndex(of: ASCII.equals)
            let key = Array(bytes[..<(eq ?? bytes.count)])
            let value = eq.map { Array(bytes[($0 + 1)...]) } ?? []
            func decoded(_ b: [UInt8]) -> String {
                String(decoding: b.withUnsafeBufferPointer { decodedSegment(ByteSpan(start: $0.baseAddress, count: $0.count)) }, as: UTF8.self)
            }
            pairs.append(Match.Param(name: decoded(key), value: decoded(value)))
        }
        return pairs
    }

    /// extra > path > query, in `Match.orderedParams`' order: path parameters, query keys by first appearance
    /// (last value), then extras.
    static func merge(_ path: [Match.Param], query: [Match.Param], extra: [Match.Param]) -> [Match.Param] {
        // Names by bytes (`ExactKey`), as the lookup merges them.
        var order: [String] = []
        var merged: [ExactKey: String] = [:]
        func put(_ p: Match.Param) {
            if merged.updateValue(p.value, forKey: ExactKey(p.name)) == nil { order.append(p.name) }
        }
        path.forEach(put)
        let pathNames = Set(path.map { ExactKey($0.name) })
        for q in query where !pathNames.contains(ExactKey(q.name)) { put(q) }
        extra.forEach(put)
        return order.map { Match.Param(name: $0, value: merged[ExactKey($0)] ?? "") }
    }
}

extension Explanation {
    /// The explanation of `url` refused with `error` before any rule was tried (a URL over the length limit, or,
    /// in `linkrouter explain`, one that is not UTF-8): every rule of the router (`rules`) not tried.
    package static func refused(_ url: String, _ error: RouterError, rules: [(match: String, target: String)]) -> Explanation {
        let listed = rules.enumerated().map { i, rule in
            Rule(index: i, match: rule.match, target: rule.target, outcome: .notTried, indexed: false)
        }
        return Explanation(url: url, result: .error, error: error, rules: listed, routed: url, sequence: [], candidates: [],
                           candidatesOmitted: 0, otherSchemeRoutes: 0, route: nil, params: [])
    }
}

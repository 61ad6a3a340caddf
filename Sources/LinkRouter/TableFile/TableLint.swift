/// The warnings of `linkrouter check` for a router snapshot (its routes at `/routes/<i>` in insertion order,
/// as exported; rules at `/rewrites/<i>`):
/// - a route that is **shadowed**: a catch-all `…/n/*rest` is never the match when a route ends at `n` (it takes
///   URLs with nothing after `n`) and `n/:param` leads to routes that accept every longer sequence (a `:param`
///   beats a catch-all). Literals cannot shadow anything (a value that equals no literal gets through), and an
///   exact route always wins where it ends, so this is the only way a route becomes unreachable.
/// - a rewrite rule whose **target routes nowhere**: its literal start (up to the first `$`) already rules out
///   every route; a target with no `$` at all is matched as it is.
/// - **overlaps**: two routes that both match some URLs where a typed or in-segment parameter, or `*://`
///   against a scheme, decides (`TableOverlaps`), with an example URL and the route it goes to.
/// - **guards**: given the guards the app registers, those no route requires, and those a route requires that
///   are not registered.
enum TableLint {
    static func warnings(_ state: RouterState, knownGuards: [String]?) -> [TableWarning] {
        var work = CheckWork()
        return warnings(state, knownGuards: knownGuards, work: &work)
    }

    static func warnings(_ state: RouterState, knownGuards: [String]?, work: inout CheckWork) -> [TableWarning] {
        var warnings: [TableWarning] = []
        let routes: [(spec: RouteSpec, pattern: Pattern)] = state.table.blobs.compactMap { blob in
            let spec = blob.spec
            return Pattern.parseStored(spec.pattern).map { (spec, $0) }
        }
        shadowed(routes, &warnings)
        for o in TableOverlaps.find(state, work: &work) {
            warnings.append(TableWarning(pointer: "/routes/\(o.otherIndex)", kind: .overlap, reason: o.reason))
        }
        deadRewrites(state, routes, &warnings, &work)
        if let knownGuards {
            var used = Set<String>()
            for (i, route) in routes.enumerated() {
                for g in route.spec.requires {
                    used.insert(g)
                    if !knownGuards.contains(g) {
                        warnings.append(TableWarning(pointer: "/routes/\(i)/requires", kind: .unknownGuard,
                                                     reason: "requires guard '\(excerpt(g))', which is not among the registered guards"))
                    }
                }
            }
            for g in knownGuards where !used.contains(g) {
                warnings.append(TableWarning(pointer: "", kind: .unusedGuard, reason: "guard '\(excerpt(g))' is registered but no route requires it"))
            }
        }
        return warnings
    }

    /// The warnings of a merge (`check` with `.merge`), which are the merged router's, with pointers into the
    /// document: the router's own routes come first in the merged one, then the document's in order, and a rule
    /// is the document's when its regex is (same bytes); the others' warnings name the route or rule and have
    /// no pointer (found by review: a document's `/routes/1` was reported as `/routes/4`).
    static func inDocument(_ warnings: [TableWarning], before state: RouterState, after next: RouterState,
                           _ document: TableDocument) -> [TableWarning] {
        let existing = state.table.blobs
        let merged = next.rewrites.rules
        var ruleIndex: [[UInt8]: Int] = [:]
        for rule in document.rewrites { ruleIndex[Array(rule.match.utf8)] = rule.index }
        return warnings.map { w in
            // "/routes/<i>..." or "/rewrites/<i>...": the list, the index, and what follows it.
            let parts = w.pointer.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 3, parts[0].isEmpty, let i = Int(parts[2].prefix { $0 != "/" }) else { return w }
            let rest = parts[2].drop { $0 != "/" }
            switch parts[1] {
            case "routes" where i >= existing.count:
                return TableWarning(pointer: "/routes/\(i - existing.count)\(rest)", kind: w.kind, reason: w.reason)
            case "routes" where i >= 0:
                return TableWarning(pointer: "", kind: w.kind,
                                    reason: "existing route '\(excerpt(existing[i].spec.pattern))': \(w.reason)")
            case "rewrites" where i >= 0 && i < merged.count:
                if let at = ruleIndex[Array(merged[i].match.utf8)] {
                    return TableWarning(pointer: "/rewrites/\(at)\(rest)", kind: w.kind, reason: w.reason)
                }
                return TableWarning(pointer: "", kind: w.kind, reason: "existing rewrite rule '\(excerpt(merged[i].match))': \(w.reason)")
            default:
                return w
            }
        }
    }

    // MARK: Shadowed routes

    /// What the trie holds at one node, by the node's key (scheme and segment kinds/literals so far).
    private struct Node {
        var exact: Int?
        var catchAll: Int?
        var paramChild = false
    }

    private static func shadowed(_ routes: [(spec: RouteSpec, pattern: Pattern)], _ warnings: inout [TableWarning]) {
        var nodes: [[UInt8]: Node] = [:]
        var ends: [[UInt8]] = []
        for (i, route) in routes.enumerated() {
            let keys = prefixKeys(route.pattern)
            for (k, segment) in route.pattern.segments.enumerated() where segment == .param {
                nodes[keys[k], default: Node()].paramChild = true
            }
            if route.pattern.hasCatchAll {
                let end = keys[route.pattern.segments.count - 1]
                nodes[end, default: Node()].catchAll = i
                ends.append(end)
            } else {
                nodes[keys[route.pattern.segments.count], default: Node()].exact = i
                ends.append(keys[route.pattern.segments.count])
            }
        }
        /// The routes that, from `key` on, match every sequence of elements (nil when some sequence fails).
        func universal(_ key: [UInt8]) -> [Int]? {
            var key = key
            var witnesses: [Int] = []
            while let node = nodes[key] {
                if let c = node.catchAll { return witnesses + [c] }
                guard let exact = node.exact, node.paramChild else { return nil }
                witnesses.append(exact)
                key.append(2)
            }
            return nil
        }
        for (i, route) in routes.enumerated() where route.pattern.hasCatchAll {
            guard let node = nodes[ends[i]], let exact = node.exact, node.paramChild,
                  let longer = universal(ends[i] + [2]) else { continue }
            let others = ([exact] + longer).map { "'\(excerpt(routes[$0].spec.pattern))'" }.joined(separator: ", ")
            warnings.append(TableWarning(pointer: "/routes/\(i)", kind: .shadowed,
                                         reason: "'\(excerpt(route.spec.pattern))' never matches: \(others) take every URL it would "
                                            + "(a route that ends there, then a :param, beat a catch-all)"))
        }
    }

    /// The node keys along a pattern: `keys[k]` after k segments (catch-alls excluded), in the encoding of
    /// `TableLoader.conflictKey`.
    private static func prefixKeys(_ pattern: Pattern) -> [[UInt8]] {
        var key: [UInt8] = []
        func literal(_ bytes: [UInt8]) {
            key.append(1)
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: bytes.count).littleEndian) { key += $0 }
            key += bytes
        }
        if let scheme = pattern.scheme { literal(scheme) } else { key.append(2) }
        var keys = [key]
        for segment in pattern.segments {
            switch segment {
            case .literal(let bytes): literal(bytes)
            case .param: key.append(2)
            case .rule(let rule):
                key.append(4)
                withUnsafeBytes(of: UInt32(truncatingIfNeeded: rule.key.count).littleEndian) { key += $0 }
                key += rule.key
            case .catchAll: key.append(3)
            }
            keys.append(key)
        }
        return keys
    }

    // MARK: Rewrite targets

    private static func deadRewrites(_ state: RouterState, _ routes: [(spec: RouteSpec, pattern: Pattern)],
                                     _ warnings: inout [TableWarning], _ work: inout CheckWork) {
        let plain = state.with(rewrites: .empty)
        /// Whether a literal target routes (rules run once, so without them); nil when it is not a URL at all. A
        /// limit or any other refusal cannot be judged here: true, no warning.
        func routed(_ url: String) -> Bool? {
            do throws(RouterError) {
                return try url.withSpan { span throws(RouterError) in try plain.withResolution(span, query: false) { $0 != nil } }
            } catch {
                return error.code == .invalidURL ? nil : true
            }
        }
        // The routes' variants by scheme (nil: `*://`), then by their first literal (nil: none), so a target's
        // start is tested against the routes it can reach, not every route.
        var index: [[UInt8]?: [[UInt8]?: [Pattern]]] = [:]
        if !state.rewrites.rules.isEmpty {
            for route in routes {
                for variant in route.pattern.variants {
                    var first: [UInt8]?
                    if case .literal(let l)? = variant.segments.first { first = l }
                    index[variant.scheme, default: [:]][first, default: []].append(variant)
                }
            }
        }
        for (i, rule) in state.rewrites.rules.enumerated() {
            let (prefix, open) = literalStart(rule.target)
            let at = "/rewrites/\(i)/target"
            let bytes = Array(prefix.utf8)
            guard let sep = (0..<max(bytes.count - 2, 0)).first(where: { bytes[$0] == ASCII.colon && bytes[$0 + 1] == ASCII.slash && bytes[$0 + 2] == ASCII.slash }) else {
                // No "://": routed as it is, since a URL such as 'mailto:x' may still match ('mailto://x' does).
                if !open {
                    let outcome = routed(prefix)
                    if outcome == nil {
                        warnings.append(TableWarning(pointer: at, kind: .rewriteRoutesNowhere,
                                                     reason: "'\(excerpt(rule.target))' is not an absolute URL, so no route can match it"))
                    } else if outcome == false {
                        warnings.append(TableWarning(pointer: at, kind: .rewriteRoutesNowhere,
                                                     reason: "'\(excerpt(rule.target))' routes nowhere: no route matches it"))
                    }
                }
                continue
            }
            let scheme = Array(bytes[..<sep])
            guard let first = scheme.first, ASCII.isAlpha(first), scheme.allSatisfy(ASCII.isSchemeByte) else { continue }
            var rest = String(decoding: bytes[(sep + 3)...], as: UTF8.self)
            let closedPath = rest.contains("?") || rest.contains("#")
            if !open || closedPath {
                // The scheme, authority and path are all literal: route that URL as it is (rules run once).
                if let cut = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = String(rest[..<cut]) }
                let url = String(decoding: scheme, as: UTF8.self) + "://" + rest
                if routed(url) == false {
                    warnings.append(TableWarning(pointer: at, kind: .rewriteRoutesNowhere,
                                                 reason: "'\(excerpt(rule.target))' routes nowhere: no route matches '\(excerpt(url))'"))
                }
                continue
            }
            // The path goes on after the first `$`: the pieces before the last "/" are known elements.
            var pieces = rest.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            pieces.removeLast()
            let closed = pieces.enumerated().filter { $0.offset == 0 || !$0.element.isEmpty }.map(\.element)
            let known = start(closed)
            let lower = scheme.map(ASCII.lowercased)
            var reached = false
            for buckets in [index[lower], index[nil]] {
                guard let buckets, !reached else { continue }
                // A route whose first segment is another literal cannot match the first known element. (With no
                // known element, the first route tested matches.)
                let firsts: [[UInt8]?]
                if let e = known?.first { firsts = e.hostPort.map { [e.decoded, $0, nil] } ?? [e.decoded, nil] } else { firsts = Array(buckets.keys) }
                for first in firsts where !reached {
                    for variant in buckets[first] ?? [] where !reached {
                        work.rewriteRouteTests += 1
                        reached = compatible(variant, scheme: lower, elements: known)
                    }
                }
            }
            if !reached {
                let known = String(decoding: scheme, as: UTF8.self) + "://" + pieces.joined(separator: "/")
                warnings.append(TableWarning(pointer: at, kind: .rewriteRoutesNowhere,
                                             reason: "'\(excerpt(rule.target))' routes nowhere: no route starts like '\(excerpt(known))'"))
            }
        }
    }

    /// The target's text up to its first unescaped `$` (escapes `\$` and `\\` resolved), and whether a `$` was met.
    static func literalStart(_ target: String) -> (String, Bool) {
        var out: [UInt8] = []
        let bytes = Array(target.utf8)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == ASCII.dollar { return (String(decoding: out, as: UTF8.self), true) }
            if b == ASCII.backslash, i + 1 < bytes.count, bytes[i + 1] == ASCII.dollar || bytes[i + 1] == ASCII.backslash {
                out.append(bytes[i + 1])
                i += 2
                continue
            }
            out.append(b)
            i += 1
        }
        return (String(decoding: out, as: UTF8.self), false)
    }

    /// The decoded elements of a URL's start `closed` (the first is the authority; the host lower-cased, with
    /// its port when it has one); nil when the authority does not parse (then any route of the scheme may match).
    private static func start(_ closed: [String]) -> [(decoded: [UInt8], hostPort: [UInt8]?)]? {
        var elements: [(decoded: [UInt8], hostPort: [UInt8]?)] = []
        for (i, piece) in closed.enumerated() {
            var bytes = Array(piece.utf8)
            var hostPort: [UInt8]?
            if i == 0 {
                let url = Array("x://".utf8) + bytes
                let parts = url.withUnsafeBufferPointer { URLParts.parse(ByteSpan(start: $0.baseAddress, count: $0.count)) }
                guard let parts else { return nil }
                if parts.hostCount == 0 { continue }  // "x:///path": no host element
                let host = Array(url[parts.hostStart..<parts.hostEnd])
                bytes = host
                if parts.hasPort { hostPort = (decode(host) + [ASCII.colon] + Array(url[parts.portStart..<parts.portEnd])).map(ASCII.lowercased) }
                elements.append((decode(bytes).map(ASCII.lowercased), hostPort))
            } else if !bytes.isEmpty {
                elements.append((decode(bytes), nil))
            }
        }
        return elements
    }

    /// Whether a URL that starts with `scheme://` and `elements` (nil: a start that does not parse), then goes
    /// on with anything, could match `pattern`.
    private static func compatible(_ pattern: Pattern, scheme: [UInt8], elements: [(decoded: [UInt8], hostPort: [UInt8]?)]?) -> Bool {
        if let s = pattern.scheme, s != scheme { return false }
        guard let elements else { return true }
        for (i, segment) in pattern.segments.enumerated() {
            guard i < elements.count else { return true }  // the open part can supply the rest
            switch segment {
            case .catchAll: return true
            case .param: continue
            case .rule(let rule):
                let fits = elements[i].decoded.withUnsafeBufferPointer { rule.value(in: $0.baseAddress, $0.count, fold: i == 0) != nil }
                if !fits { return false }
            case .literal(let literal):
                if literal != elements[i].decoded && literal != elements[i].hostPort { return false }
            }
        }
        return pattern.segments.count >= elements.count
    }

    private static func decode(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBufferPointer { decodedSegment(ByteSpan(start: $0.baseAddress, count: $0.count)) }
    }
}

/// Applies a decoded table file to a router snapshot, all or nothing: it judges every route and rule (patterns,
/// conflicts within the file and with the router, duplicate names, regexes, templates) and either returns the
/// next snapshot or throws one `.table` error listing every problem. `Router.load` runs it inside one
/// `update`, so a concurrent resolve sees the old table or the new one, whole.
enum TableLoader {
    static func load(_ document: TableDocument, into state: RouterState, mode: TableLoadMode) throws(RouterError) -> RouterState {
        var problems = document.problems
        func problem(_ pointer: String, _ code: RouterError.Code, _ reason: @autoclosure () -> String) {
            problems.add(pointer, code, reason())
        }

        // Routes: inserted into a copy of the store (the first conflict in the file is found by its key, so the
        // message can point at both routes).
        let base = mode == .replace ? state.table.cleared : state.table
        var byKey: [[UInt8]: (index: Int, pattern: String)] = [:]
        // Names and regexes by their bytes, as the router compares them (a `String` key would take "é" precomposed
        // and decomposed for one name).
        var byName: [[UInt8]: (index: Int, pattern: String)] = [:]
        // The file's routes by sequence: a conflict with one (through an optional group's variant, which `byKey`
        // does not hold) points at it, not at an existing route.
        var bySequence: [Int: Int] = [:]
        let table = try base.updating { store in
            for route in document.routes {
                let at = JSONPointer.appending("/routes", route.index)
                var spec = route.spec
                let pattern: Pattern
                do throws(RouterError) {
                    try Limits.checkStorable(spec)  // as `add` does: a file's route is bounded the same way
                } catch {
                    problem(at, error.code, error.message)
                    continue
                }
                do throws(RouterError) {
                    pattern = try Pattern.parse(spec.pattern, limits: state.limits)
                } catch {
                    problem(at + "/pattern", error.code, error.message)
                    continue
                }
                if let name = spec.name {
                    if let other = byName[Array(name.utf8)] {
                        problem(at + "/name", .conflict, "route name '\(excerpt(name))' is already used by /routes/\(other.index) ('\(excerpt(other.pattern))')")
                        spec.name = nil
                    } else if case let id = store.routeNamed(name), id >= 0, let owner = store.blob(id) {
                        problem(at + "/name", .conflict, "route name '\(excerpt(name))' is already used by existing route '\(excerpt(owner.pattern.string))'")
                        spec.name = nil
                    }
                }
                let key = conflictKey(pattern)
                if let other = byKey[key] {
                    problem(at + "/pattern", .conflict, "pattern '\(excerpt(spec.pattern))' conflicts with /routes/\(other.index) "
                            + "('\(excerpt(other.pattern))'): both match exactly the same URLs")
                    continue
                }
                let sequence = store.nextSequence
                do throws(RouterError) {
                    try store.insert(spec, pattern) { bySequence[$0].map { "/routes/\($0)" } }
                } catch {
                    problem(error.code == .conflict ? at + "/pattern" : at, error.code, error.message)
                    continue
                }
                byKey[key] = (route.index, spec.pattern)
                bySequence[sequence] = route.index
                if let name = spec.name { byName[Array(name.utf8)] = (route.index, spec.pattern) }
            }
        }

        // Rewrite rules: each compiled and probed alone, so every bad one is reported.
        var seen: [[UInt8]: Int] = [:]
        var rules: [(match: String, target: String)] = []
        for rule in document.rewrites {
            let at = JSONPointer.appending("/rewrites", rule.index)
            do throws(RouterError) {
                try Limits.checkStorableRewrite(match: rule.match, target: rule.target)  // as addRewrite does
            } catch {
                problem(at, error.code, error.message)
                continue
            }
            if let first = seen[Array(rule.match.utf8)] {
                problem(at + "/match", .table, "the same regex as /rewrites/\(first) (one of the two would be lost)")
                continue
            }
            seen[Array(rule.match.utf8)] = rule.index
            do throws(RouterError) {
                try RewriteRule(match: rule.match, target: rule.target).probe()
                rules.append((rule.match, rule.target))
            } catch {
                problem(error.code == .pattern ? at + "/target" : at + "/match", error.code, error.message)
            }
        }

        guard problems.isEmpty else { throw TableProblem.error(problems, offset: document.syntaxErrorOffset) }
        let rewrites = try (mode == .replace ? RewriteRules.empty : state.rewrites).adding(rules, limits: state.limits)
        // Replacing the routes drops the old routes' own handlers; target handlers and guards stay, so the new
        // table's routes find their code by target.
        let dispatch = mode == .replace && !state.dispatch.byRoute.isEmpty ? state.dispatch.with { $0.byRoute = [:] } : nil
        return state.with(table: table, rewrites: rewrites, dispatch: dispatch)
    }

    /// Two patterns conflict exactly when these keys are equal: the scheme (or `*`), then each segment's kind and
    /// decoded literal (the host lower-cased), as the trie stores them.
    static func conflictKey(_ pattern: Pattern) -> [UInt8] {
        var key: [UInt8] = []
        func literal(_ bytes: [UInt8]) {
            key.append(1)
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: bytes.count).littleEndian) { key += $0 }
            key += bytes
        }
        if let scheme = pattern.scheme { literal(scheme) } else { key.append(2) }
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
        }
        return key
    }
}

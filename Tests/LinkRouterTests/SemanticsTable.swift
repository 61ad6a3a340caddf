import Foundation

/// Tests/Data/semantics.json: SPEC §2–4 as tables, shared with the Python suite so that both languages are held
/// to the same rows.
///
/// Read strictly: a missing file, JSON that does not parse, a row of the wrong shape or a table whose size differs
/// from the file's "counts" throws, and the test that asked fails — a table never quietly shrinks to nothing.
struct SemanticsTable {
    struct MatchRow {
        let group: String
        let url: String
        let target: String?
        let params: [String: String]
        let extra: [String: String]
        let fragment: String?
    }

    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    let routes: [(pattern: String, target: String)]
    let match: [MatchRow]
    let malformed: [(pattern: String, offset: Int, message: String)]
    let wellFormed: [String]
    /// `message` is the whole message of the conflict, nil when the two patterns do not conflict.
    let conflicts: [(existing: String, new: String, message: String?)]
    /// How many rows each table holds, as the file states: runners assert they ran exactly that many.
    let counts: [String: Int]

    /// The table, read once; `try SemanticsTable.shared.get()` in a test fails it when the file is bad.
    static let shared: Result<SemanticsTable, Malformed> = {
        do {
            return .success(try load())
        } catch let error as Malformed {
            return .failure(error)
        } catch {
            return .failure(Malformed(description: "\(error)"))
        }
    }()

    static var path: String {
        String(#filePath.dropLast("LinkRouterTests/SemanticsTable.swift".count)) + "Data/semantics.json"
    }

    static func load() throws -> SemanticsTable {
        func fail(_ why: String) -> Malformed { Malformed(description: "\(path): \(why)") }
        guard let data = FileManager.default.contents(atPath: path) else { throw fail("missing") }
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw fail("not an object") }
        func list(_ key: String) throws -> [Any] {
            guard let items = json[key] as? [Any] else { throw fail("no list \"\(key)\"") }
            return items
        }
        func row<T>(_ key: String, _ i: Int, _ value: T?) throws -> T {
            guard let value else { throw fail("\(key)[\(i)] is not of the expected shape") }
            return value
        }
        guard let counts = json["counts"] as? [String: Int] else { throw fail("no \"counts\"") }
        let routes = try list("routes").enumerated().map { i, item in
            try row("routes", i, (item as? [String]).flatMap { $0.count == 2 ? ($0[0], $0[1]) : nil })
        }
        let match = try list("match").enumerated().map { i, item -> MatchRow in
            let r = try row("match", i, item as? [String: Any])
            let known: Set = ["group", "url", "target", "params", "extra", "fragment", "nested"]
            // Optional keys may be absent, never of another type.
            guard Set(r.keys).isSubset(of: known), let url = r["url"] as? String, let group = r["group"] as? String,
                  r["target"] is String || r["target"] is NSNull, let params = r["params"] as? [String: String],
                  r["extra"] == nil || r["extra"] is [String: String], r["fragment"] == nil || r["fragment"] is String
            else { throw fail("match[\(i)] is not of the expected shape") }
            return MatchRow(group: group, url: url, target: r["target"] as? String, params: params,
                            extra: r["extra"] as? [String: String] ?? [:], fragment: r["fragment"] as? String)
        }
        let malformed = try list("malformed").enumerated().map { i, item in
            try row("malformed", i, (item as? [Any]).flatMap { t -> (String, Int, String)? in
                guard t.count == 3, let p = t[0] as? String, let o = t[1] as? Int, let m = t[2] as? String
                else { return nil }
                return (p, o, m)
            })
        }
        let wellFormed = try list("wellFormed").enumerated().map { i, item in try row("wellFormed", i, item as? String) }
        let conflicts = try list("conflicts").enumerated().map { i, item in
            try row("conflicts", i, (item as? [Any]).flatMap { t -> (String, String, String?)? in
                guard t.count == 4, let a = t[0] as? String, let b = t[1] as? String, let c = t[2] as? Bool,
                      c ? t[3] is String : t[3] is NSNull else { return nil }
                return (a, b, t[3] as? String)
            })
        }
        let table = SemanticsTable(routes: routes, match: match, malformed: malformed, wellFormed: wellFormed,
                                   conflicts: conflicts, counts: counts)
        let sizes = ["routes": routes.count, "match": match.count, "malformed": malformed.count,
                     "wellFormed": wellFormed.count, "conflicts": conflicts.count]
        guard sizes == counts else { throw fail("tables of \(sizes), but \"counts\" says \(counts)") }
        return table
    }
}

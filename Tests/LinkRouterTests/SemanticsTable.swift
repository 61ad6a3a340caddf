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
    let malformed: [(pattern: String, offset: Int)]
    let wellFormed: [String]
    let conflicts: [(existing: String, new: String, conflicts: Bool)]
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
            try row("malformed", i, (item as? [Any]).flatMap { pair -> (String, Int)? in
                guard pair.count == 2, let p = pair[0] as? String, let o = pair[1] as? Int else { return nil }
                return (p, o)
            })
        }
        let wellFormed = try list("wellFormed").enumerated().map { i, item in try row("wellFormed", i, item as? String) }
        let conflicts = try list("conflicts").enumerated().map { i, item in
            try row("conflicts", i, (item as? [Any]).flatMap { t -> (String, String, Bool)? in
                guard t.count == 3, let a = t[0] as? String, let b = t[1] as? String, let c = t[2] as? Bool else { return nil }
                return (a, b, c)
            })
        }
        let table = SemanticsTable(routes: routes, match: match, malformed: malformed, wellFormed: wellFormed,
                                   conflicts: conflicts, counts: counts)
        let sizes = ["routes": routes.count, "match": match.count, "malformed": malformed.count,
                     "wellFormed": wellFormed.count, "conflicts": conflicts.count]
        guard sizes == counts else { throw fail("tables of \(sizes), but \"counts\" says \(counts)") }
        return table
    }

    /// Tests/Data/semantics-messages.json: the exact message of each refusal in the table, row for row (shared with
    /// the Python suite): `malformed[i]` is the message of adding `malformed[i]`'s pattern, `conflicts[i]` the
    /// message of adding `conflicts[i]`'s new pattern after its existing one, nil for a row that does not conflict.
    struct Messages {
        let malformed: [String]
        let conflicts: [String?]
    }

    /// The messages, read once and strictly: each row must repeat its table row's patterns, in the table's order,
    /// with a message exactly for the rows that are refused; else `get()` throws and the test that asked fails.
    static let messages: Result<Messages, Malformed> = {
        do {
            return .success(try loadMessages(for: shared.get()))
        } catch let error as Malformed {
            return .failure(error)
        } catch {
            return .failure(Malformed(description: "\(error)"))
        }
    }()

    static func loadMessages(for table: SemanticsTable) throws -> Messages {
        let file = String(path.dropLast("semantics.json".count)) + "semantics-messages.json"
        func fail(_ why: String) -> Malformed { Malformed(description: "\(file): \(why)") }
        guard let data = FileManager.default.contents(atPath: file) else { throw fail("missing") }
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let malformed = json["malformed"] as? [[Any]], let conflicts = json["conflicts"] as? [[Any]]
        else { throw fail("not an object with the lists \"malformed\" and \"conflicts\"") }
        guard malformed.count == table.malformed.count, conflicts.count == table.conflicts.count else {
            throw fail("\(malformed.count) malformed and \(conflicts.count) conflict rows, semantics.json has "
                       + "\(table.malformed.count) and \(table.conflicts.count)")
        }
        let malformedMessages = try zip(malformed, table.malformed).enumerated().map { i, pair -> String in
            let (row, expected) = pair
            guard row.count == 2, row[0] as? String == expected.pattern, let message = row[1] as? String else {
                throw fail("malformed[\(i)] \(row) does not go with semantics.json's \(expected)")
            }
            return message
        }
        let conflictMessages = try zip(conflicts, table.conflicts).enumerated().map { i, pair -> String? in
            let (row, expected) = pair
            guard row.count == 3, row[0] as? String == expected.existing, row[1] as? String == expected.new,
                  expected.conflicts ? row[2] is String : row[2] is NSNull else {
                throw fail("conflicts[\(i)] \(row) does not go with semantics.json's \(expected)")
            }
            return row[2] as? String
        }
        return Messages(malformed: malformedMessages, conflicts: conflictMessages)
    }
}

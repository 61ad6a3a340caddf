import Foundation

/// Tests/Data/semantics.json: SPEC §2–4 as tables, shared with the Python suite so that both languages are held
/// to the same rows.
struct SemanticsTable {
    struct MatchRow {
        let group: String
        let url: String
        let target: String?
        let params: [String: String]
        let extra: [String: String]
        let fragment: String?
    }

    let routes: [(pattern: String, target: String)]
    let match: [MatchRow]
    let malformed: [(pattern: String, offset: Int)]
    let wellFormed: [String]
    let conflicts: [(existing: String, new: String, conflicts: Bool)]

    static let shared: SemanticsTable = {
        let path = String(#filePath.dropLast("LinkRouterTests/SemanticsTable.swift".count)) + "Data/semantics.json"
        guard let data = FileManager.default.contents(atPath: path),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return SemanticsTable(routes: [], match: [], malformed: [], wellFormed: [], conflicts: [])
        }
        func list(_ key: String) -> [Any] { json[key] as? [Any] ?? [] }
        return SemanticsTable(
            routes: list("routes").compactMap { ($0 as? [String]).map { ($0[0], $0[1]) } },
            match: list("match").compactMap { item in
                guard let row = item as? [String: Any], let url = row["url"] as? String else { return nil }
                return MatchRow(group: row["group"] as? String ?? "", url: url, target: row["target"] as? String,
                                params: row["params"] as? [String: String] ?? [:],
                                extra: row["extra"] as? [String: String] ?? [:], fragment: row["fragment"] as? String)
            },
            malformed: list("malformed").compactMap { item in
                guard let pair = item as? [Any], let p = pair.first as? String, let o = pair.last as? Int else { return nil }
                return (p, o)
            },
            wellFormed: list("wellFormed").compactMap { $0 as? String },
            conflicts: list("conflicts").compactMap { item in
                guard let t = item as? [Any], t.count == 3, let a = t[0] as? String, let b = t[1] as? String,
                      let c = t[2] as? Bool else { return nil }
                return (a, b, c)
            })
    }()
}

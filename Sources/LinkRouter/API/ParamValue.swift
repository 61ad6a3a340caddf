/// A parameter value in the nested view of a match (JSON, the Swift `Match.nestedParams`, Python's `params`).
///
/// Bracket keys nest, as in PHP and Rails: `info[nickname]=x` gives `{"info": {"nickname": "x"}}`,
/// `tags[]=a&tags[]=b` gives `{"tags": ["a", "b"]}`. A key that is not well formed (`a[b`, `a[b]c`, `[x]`)
/// or nests deeper than `Limits.maxNestingDepth` stays flat, as written. A later pair replaces an earlier
/// one with the same key; naming a key inside a list turns it into an object keyed "0", "1", ...
public indirect enum ParamValue: Sendable, Equatable {
    case string(String)
    case list([ParamValue])
    /// Keys in the order they first appeared.
    case object([(key: String, value: ParamValue)])

    public static func == (a: ParamValue, b: ParamValue) -> Bool {
        switch (a, b) {
        case let (.string(x), .string(y)): return x == y
        case let (.list(x), .list(y)): return x == y
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The value under `key`, compared by bytes as the router compares names.
    public subscript(key: String) -> ParamValue? {
        if case .object(let entries) = self { return entries.last { $0.key.utf8.elementsEqual(key.utf8) }?.value }
        return nil
    }
}

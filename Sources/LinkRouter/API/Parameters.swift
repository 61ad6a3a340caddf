/// The merged parameters of a `Match`: each name once, in order (path parameters, then query keys by first
/// appearance with their last value, then extras), read from the match's record without building a dictionary.
///
/// ```swift
/// match.params["id"]                  // "42", or nil
/// for p in match.params { print(p.name, p.value) }
/// match.params.dictionary             // ["id": "42", "tab": "posts"]
/// ```
public struct Parameters: RandomAccessCollection, @unchecked Sendable, Equatable, CustomStringConvertible {
    // SAFETY: `storage` is immutable once made (see MatchStorage).
    let storage: MatchStorage

    init(_ storage: MatchStorage) { self.storage = storage }

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.record.paramCount }

    /// The parameter at `position`, which must be in `indices` (as any collection's subscript: out of range
    /// traps, where reading on would go past the record's parameters). The C ABI does not come here: its
    /// `lr_match_param_name`/`_value` check the index themselves and return NULL.
    public subscript(position: Int) -> Match.Param {
        precondition(position >= 0 && position < endIndex, "Parameters index \(position) out of range 0..<\(endIndex)")
        let p = storage.record.param(position)
        return Match.Param(name: p.name.string, value: p.value.string)
    }

    /// The value of parameter `name`, or nil.
    public subscript(name: String) -> String? {
        let record = storage.record
        // A native string's bytes are borrowed as they are; a bridged one is copied once.
        let found = name.utf8.withContiguousStorageIfAvailable { record.paramIndex(ByteSpan(start: $0.baseAddress, count: $0.count)) }
        let index: Int?
        if let found {
            index = found
        } else {
            var copy = name
            index = copy.withUTF8 { record.paramIndex(ByteSpan(start: $0.baseAddress, count: $0.count)) }
        }
        return index.map { record.param($0).value.string }
    }

    /// The parameters as a dictionary. Names that differ in bytes can be one `String` key (canonically equivalent:
    /// "K" and U+212A KELVIN SIGN, "é" precomposed or not): the precedence of SPEC §4 decides between them as it does
    /// between equal names, so a query key never replaces a path parameter (the first kept: path parameters come
    /// first), and an extra replaces either.
    public var dictionary: [String: String] {
        let record = storage.record
        var d = Dictionary(map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        for i in 0..<record.extraCount { d[record.extra(i).name.string] = record.extra(i).value.string }
        return d
    }

    public var description: String { dictionary.description }

    public static func == (a: Parameters, b: Parameters) -> Bool { Array(a) == Array(b) }
}

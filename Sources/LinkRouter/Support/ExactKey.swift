/// A `String` compared and hashed by its UTF-8 bytes: a dictionary key for parameter names, which the router tells
/// apart by bytes. Swift's own `String ==` is canonical equivalence ("K" and U+212A KELVIN SIGN, "é" precomposed
/// and decomposed are equal), so a `[String: _]` would merge names that `lr_match_get`, the flat parameters and
/// every binding keep apart.
struct ExactKey: Hashable {
    let string: String

    init(_ string: String) { self.string = string }

    static func == (a: ExactKey, b: ExactKey) -> Bool { a.string.utf8.elementsEqual(b.string.utf8) }

    func hash(into hasher: inout Hasher) {
        hasher.combine(string.utf8.count)
        for b in string.utf8 { hasher.combine(b) }
    }
}

/// One `key=value` pair of a query, decoded (or as written when it does not decode cleanly).
package struct QueryPair: BitwiseCopyable {
    package var key: ByteSpan
    package var value: ByteSpan
}

/// Query strings: split on `&`, then on the first `=`; a bare `k` gives `""`; empty pieces are skipped;
/// keys and values are percent-decoded, `+` stays `+`.
package enum Query {
    /// How many pairs `parse` will produce.
    static func pairCount(_ query: ByteSpan) -> Int {
        guard let p = query.start else { return 0 }
        var pairs = 0, pieceLength = 0
        for i in 0..<query.count {
            if p[i] == ASCII.ampersand {
                if pieceLength > 0 { pairs &+= 1 }
                pieceLength = 0
            } else {
                pieceLength &+= 1
            }
        }
        return pieceLength > 0 ? pairs &+ 1 : pairs
    }

    /// Writes up to `capacity` pairs to `out` in order and returns how many were written.
    static func parse(_ query: ByteSpan, scratch: inout ByteWriter,
                      into out: UnsafeMutablePointer<QueryPair>, capacity: Int) -> Int {
        guard let p = query.start else { return 0 }
        var written = 0
        var i = 0
        let n = query.count
        while i < n && written < capacity {
            let start = i
            var eq = -1
            while i < n && p[i] != ASCII.ampersand {
                if eq < 0 && p[i] == ASCII.equals { eq = i }
                i &+= 1
            }
            if i > start {
                let keyEnd = eq < 0 ? i : eq
                let key = decodedOrRaw(ByteSpan(start: p + start, count: keyEnd &- start), &scratch)
                let value = eq < 0 ? ByteSpan.empty : decodedOrRaw(ByteSpan(start: p + eq + 1, count: i &- eq &- 1), &scratch)
                out[written] = QueryPair(key: key, value: value)
                written &+= 1
            }
            i &+= 1
        }
        return written
    }
}

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

    public subscript(key: String) -> ParamValue? {
        if case .object(let entries) = self { return entries.last { $0.key == key }?.value }
        return nil
    }
}

/// Builds the nested view of a match's parameters (see `Match.nestedParams` for the order of sources).
struct ParamTree {
    private final class Node {
        enum Kind { case string(String), list, object }
        var kind: Kind
        var keys: [String] = []
        var children: [String: Node] = [:]
        var items: [Node] = []

        init(_ kind: Kind) { self.kind = kind }

        var isContainer: Bool {
            if case .string = kind { return false }
            return true
        }

        var isList: Bool {
            if case .list = kind { return true }
            return false
        }

        func set(_ key: String, _ node: Node) {
            if children.updateValue(node, forKey: key) == nil { keys.append(key) }
        }

        /// Turns a list into an object keyed by position, so it can take a named key.
        func makeObject() {
            guard case .list = kind else { return }
            kind = .object
            for (i, item) in items.enumerated() { set(String(i), item) }
            items = []
        }

        func append(_ node: Node) {
            if case .list = kind {
                items.append(node)
                return
            }
            var index = keys.count
            while children[String(index)] != nil { index += 1 }
            set(String(index), node)
        }

        var value: ParamValue {
            switch kind {
            case .string(let s): return .string(s)
            case .list: return .list(items.map(\.value))
            case .object: return .object(keys.compactMap { k in children[k].map { (key: k, value: $0.value) } })
            }
        }
    }

    private let root = Node(.object)
    let maxDepth: Int

    init(maxDepth: Int) { self.maxDepth = maxDepth }

    /// `a[b][]` → ("a", ["b", ""]); nil when the key is flat or not well formed.
    static func split(_ key: String, maxDepth: Int) -> (String, [String])? {
        let bytes = Array(key.utf8)
        guard let open = bytes.firstIndex(of: ASCII.openBracket), open > 0, bytes.last == ASCII.closeBracket else {
            return nil
        }
        var path: [String] = []
        var i = open
        while i < bytes.count {
            guard bytes[i] == ASCII.openBracket else { return nil }
            var j = i + 1
            while j < bytes.count && bytes[j] != ASCII.closeBracket && bytes[j] != ASCII.openBracket { j += 1 }
            guard j < bytes.count && bytes[j] == ASCII.closeBracket else { return nil }
            path.append(String(decoding: bytes[(i + 1)..<j], as: UTF8.self))
            guard path.count <= maxDepth else { return nil }
            i = j + 1
        }
        return (String(decoding: bytes[0..<open], as: UTF8.self), path)
    }

    /// Adds one query pair, nesting bracket keys.
    func addQuery(_ key: String, _ value: String) {
        guard let (base, path) = ParamTree.split(key, maxDepth: maxDepth) else {
            root.set(key, Node(.string(value)))
            return
        }
        assign(root, [base] + path, value)
    }

    /// Stores `value` under `path` inside `node`: "" appends, a name sets (the last write wins).
    private func assign(_ node: Node, _ path: ArraySlice<String>, _ value: String) {
        guard let step = path.first else { return }
        let rest = path.dropFirst()
        let child: Node
        if let next = rest.first {
            if !step.isEmpty, let existing = node.children[step], existing.isContainer, !node.isList {
                child = existing
            } else {
                child = Node(next.isEmpty ? .list : .object)
                place(child, in: node, at: step)
            }
            assign(child, rest, value)
        } else {
            place(Node(.string(value)), in: node, at: step)
        }
    }

    private func place(_ child: Node, in node: Node, at step: String) {
        if step.isEmpty {
            node.append(child)
        } else {
            node.makeObject()
            node.set(step, child)
        }
    }

    /// A path parameter or an extra: a flat top-level key that replaces whatever was there.
    func set(_ key: String, _ value: String) {
        root.set(key, Node(.string(value)))
    }

    /// The top-level name a query key nests under (`info` for `info[nickname]`; the key itself when flat).
    static func topLevelKey(_ key: String, maxDepth: Int) -> String {
        split(key, maxDepth: maxDepth)?.0 ?? key
    }

    var value: ParamValue { root.value }
}

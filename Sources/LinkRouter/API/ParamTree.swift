/// Builds the nested view of a match's parameters (see `Match.nestedParams` for the order of sources).
///
/// No recursion follows the nesting: a tree is built (`assign`), read (`value`) and freed (`deinit`) with loops, so
/// its depth costs no stack. (A class, for the deinit: releasing the root would free the nodes recursively.)
final class ParamTree {
    private final class Node {
        enum Kind { case string(String), list, object }
        var kind: Kind
        var keys: [String] = []
        /// By bytes (`ExactKey`), as the router tells names apart.
        var children: [ExactKey: Node] = [:]
        var items: [Node] = []
        /// Where the next `append` to an object starts looking. Its position is the smallest number, at least
        /// `keys.count`, that is not a key yet; keys are only ever added, so that number never goes down and the
        /// search resumes here instead of starting over at `keys.count` (which made m appends after m numeric
        /// keys such as `a[m]`...`a[2m-1]` cost m² probes).
        var nextIndex = 0

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
            if children.updateValue(node, forKey: ExactKey(key)) == nil { keys.append(key) }
        }

        /// Turns a list into an object keyed by position, so it can take a named key.
        func makeObject() {
            guard case .list = kind else { return }
            kind = .object
            for (i, item) in items.enumerated() { set(String(i), item) }
            items = []
        }

        /// Appends `node`: a list's next item, or an object's value under the next free position. Returns how
        /// many positions were looked up (the work, for tests). `restart` searches from `keys.count` every time,
        /// as the code before `nextIndex` did (the reference for tests).
        func append(_ node: Node, restart: Bool = false) -> Int {
            if case .list = kind {
                items.append(node)
                return 0
            }
            var index = restart ? keys.count : max(nextIndex, keys.count)
            var probes = 1
            while children[ExactKey(String(index))] != nil {
                index += 1
                probes += 1
            }
            nextIndex = index + 1
            set(String(index), node)
            return probes
        }

        /// The children in order: the list's items, or the object's values with their keys.
        var ordered: [(key: String, node: Node)] {
            if isList { return items.map { (key: "", node: $0) } }
            return keys.compactMap { k in children[ExactKey(k)].map { (key: k, node: $0) } }
        }

        /// The node as a ParamValue, built bottom-up with an explicit stack (one entry per level).
        var value: ParamValue {
            if case .string(let s) = kind { return .string(s) }
            struct Level {
                let node: Node
                let children: [(key: String, node: Node)]
                var built: [(key: String, value: ParamValue)] = []
            }
            var stack = [Level(node: self, children: ordered)]
            // Indexes, not a copy of the last level: a copy would share `built`, and each append would copy it.
            while let top = stack.indices.last {
                let next = stack[top].built.count
                if next < stack[top].children.count {
                    let (key, child) = stack[top].children[next]
                    if case .string(let s) = child.kind {
                        stack[top].built.append((key, .string(s)))
                    } else {
                        stack.append(Level(node: child, children: child.ordered))
                    }
                    continue
                }
                let done = stack.removeLast()
                let v: ParamValue = done.node.isList ? .list(done.built.map(\.value)) : .object(done.built)
                guard let parent = stack.indices.last else { return v }
                let key = stack[parent].children[stack[parent].built.count].key  // the child just finished
                stack[parent].built.append((key, v))
            }
            return .object([])  // not reached: the loop returns when it finishes the node itself
        }
    }

    private let root = Node(.object)
    let maxDepth: Int
    /// Tests: append as the code before `Node.nextIndex` did (each search from `keys.count`).
    private let restartAppend: Bool
    /// Tests: positions looked up by appends so far.
    private(set) var appendProbes = 0

    init(maxDepth: Int, restartAppend: Bool = false) {
        self.maxDepth = maxDepth
        self.restartAppend = restartAppend
    }

    /// Frees the nodes one at a time: each is emptied before it goes, so no release recurses.
    deinit {
        var pending = [root]
        while let node = pending.popLast() {
            pending.append(contentsOf: node.items)
            pending.append(contentsOf: node.children.values)
            node.items = []
            node.children = [:]
        }
    }

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

    /// Stores `value` under `path` inside `node`: "" appends, a name sets (the last write wins). A loop, one
    /// level per step (the depth is at most maxNestingDepth + 1).
    private func assign(_ node: Node, _ path: ArraySlice<String>, _ value: String) {
        var node = node, path = path
        while let step = path.first {
            path = path.dropFirst()
            guard let next = path.first else {
                place(Node(.string(value)), in: node, at: step)
                return
            }
            if !step.isEmpty, let existing = node.children[ExactKey(step)], existing.isContainer, !node.isList {
                node = existing
            } else {
                let child = Node(next.isEmpty ? .list : .object)
                place(child, in: node, at: step)
                node = child
            }
        }
    }

    private func place(_ child: Node, in node: Node, at step: String) {
        if step.isEmpty {
            appendProbes += node.append(child, restart: restartAppend)
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

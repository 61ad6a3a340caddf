import LinkRouter

/// The routing tree of a set of routes as Graphviz dot, for `linkrouter graph`: the trie LinkRouter builds
/// (scheme, then one level per segment; a `:param` node shared by every parameter name at its place), children
/// in precedence order (literals in the order added, then typed and in-segment parameters by their precedence,
/// then the plain `:param`, then `*`), a box per route, under each route a pattern's optional groups make.
struct RouteGraph {
    final class Node {
        let label: String
        /// The rule of a typed or in-segment parameter node (its label is each name written with it).
        var rule: ParamRule?
        var children: [(key: String, node: Node)] = []
        var childIndex: [String: Int] = [:]  // by key: a node may have thousands of children
        var routes: [RouteSpec] = []
        var names: [String] = []  // parameter names seen at a :param or * node
        var nameSet: Set<String> = []

        init(_ label: String) { self.label = label }

        func child(_ key: String, _ label: String) -> Node {
            if let k = childIndex[key] { return children[k].node }
            let node = Node(label)
            childIndex[key] = children.count
            children.append((key, node))
            return node
        }

        func addName(_ name: String?) {
            // A bare `*` has no name to show ("*" is its own).
            if let name, name != "*", !name.isEmpty, nameSet.insert(name).inserted { names.append(name) }
        }
    }

    let root = Node("routes")

    init(_ routes: [RouteSpec]) {
        for route in routes {
            guard let parsed = try? Pattern.parse(route.pattern) else { continue }
            // Each route a pattern's optional groups stand for, as the router adds them.
            for pattern in parsed.variants { add(route, pattern) }
        }
    }

    private func add(_ route: RouteSpec, _ pattern: Pattern) {
        var node = root.child(pattern.scheme.map { "1" + String(decoding: $0, as: UTF8.self) } ?? "2*",
                              (pattern.scheme.map { String(decoding: $0, as: UTF8.self) } ?? "*") + "://")
        var names = pattern.paramNames.makeIterator()
        for segment in pattern.segments {
            switch segment {
            case .literal(let bytes):
                let text = String(decoding: bytes, as: UTF8.self)
                node = node.child("1" + text, text)
            case .param:
                node = node.child("3", ":")
                node.addName(names.next())
            case .rule(let rule):
                // Keyed by the rule's identity (hex: its key is bytes, not text).
                node = node.child("2" + rule.key.map { String($0, radix: 16) }.joined(separator: "."), "")
                node.rule = rule
                node.addName(names.next())
            case .catchAll:
                node = node.child("4", "*")
                node.addName(names.next())
            }
        }
        if !node.routes.contains(route) { node.routes.append(route) }
    }

    /// Children in precedence order: literals (order added), rules (`ParamRule.precedes`), `:param`, `*`.
    private static func ordered(_ children: [(key: String, node: Node)]) -> [Node] {
        children.enumerated().sorted { a, b in
            let ka = a.element.key.prefix(1), kb = b.element.key.prefix(1)
            if ka != kb { return ka < kb }
            if let ra = a.element.node.rule, let rb = b.element.node.rule { return ParamRule.precedes(ra, rb) }
            return a.offset < b.offset
        }.map(\.element.node)
    }

    var dot: String {
        var lines = ["digraph routes {", "  rankdir=LR;", "  node [shape=ellipse, fontname=\"Helvetica\"];",
                     "  edge [arrowsize=0.6];"]
        var next = 0
        func quoted(_ s: String) -> String {
            var out = "\""
            for c in s.unicodeScalars {
                switch c {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                default: out.unicodeScalars.append(c)
                }
            }
            return out + "\""
        }
        func visit(_ node: Node, _ id: String) {
            var label = node.label
            if let rule = node.rule {
                label = node.names.map { rule.written($0) }.joined(separator: "|")
            } else if label == ":" || label == "*" {
                label += node.names.joined(separator: "|")
            }
            lines.append("  \(id) [label=\(quoted(label))\(node === root ? ", shape=plaintext" : "")];")
            for route in node.routes {
                next += 1
                let rid = "r\(next)"
                let text = route.target + (route.name.map { "\n(\($0))" } ?? "")
                lines.append("  \(rid) [shape=box, label=\(quoted(text))];")
                lines.append("  \(id) -> \(rid) [style=dashed];")
            }
            for child in RouteGraph.ordered(node.children) {
                next += 1
                let cid = "n\(next)"
                lines.append("  \(id) -> \(cid);")
                visit(child, cid)
            }
        }
        visit(root, "n0")
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }
}

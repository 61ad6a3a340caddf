import LinkRouter

/// The routing tree of a set of routes as Graphviz dot, for `linkrouter graph`: the trie LinkRouter builds
/// (scheme, then one level per segment; a `:param` node shared by every parameter name at its place), children
/// in precedence order (literals in the order added, then `:param`, then `*`), a box per route.
struct RouteGraph {
    final class Node {
        let label: String
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
            if let name, nameSet.insert(name).inserted { names.append(name) }
        }
    }

    let root = Node("routes")

    init(_ routes: [RouteSpec]) {
        for route in routes {
            guard let pattern = try? Pattern.parse(route.pattern) else { continue }
            var node = root.child(pattern.scheme.map { "1" + String(decoding: $0, as: UTF8.self) } ?? "2*",
                                  (pattern.scheme.map { String(decoding: $0, as: UTF8.self) } ?? "*") + "://")
            var names = pattern.paramNames.makeIterator()
            for segment in pattern.segments {
                switch segment {
                case .literal(let bytes):
                    let text = String(decoding: bytes, as: UTF8.self)
                    node = node.child("1" + text, text)
                case .param:
                    node = node.child("2", ":")
                    node.addName(names.next())
                case .rule(let rule):
                    let shape = rule.written("")
                    node = node.child("2" + shape, shape)
                    node.addName(names.next())
                case .catchAll:
                    node = node.child("3", "*")
                    node.addName(names.next())
                }
            }
            node.routes.append(route)
        }
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
            if label == ":" || label == "*" { label += node.names.joined(separator: "|") }
            lines.append("  \(id) [label=\(quoted(label))\(node === root ? ", shape=plaintext" : "")];")
            for route in node.routes {
                next += 1
                let rid = "r\(next)"
                let text = route.target + (route.name.map { "\n(\($0))" } ?? "")
                lines.append("  \(rid) [shape=box, label=\(quoted(text))];")
                lines.append("  \(id) -> \(rid) [style=dashed];")
            }
            for (key, child) in node.children.sorted(by: { $0.key.prefix(1) < $1.key.prefix(1) }) {
                _ = key
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

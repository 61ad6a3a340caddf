/// Writes a router snapshot as a route table file: the format `TableDocument` reads, so load → export → load
/// gives the same router, and export → load → export the same bytes.
///
/// Keys in a fixed order (version, routes, rewrites; per route pattern, target, name, requires, meta), routes in
/// the order they were added, meta keys sorted, absent fields left out, two-space indentation, a final newline.
enum TableExport {
    static func json(_ state: RouterState) -> String {
        var w = JSONWriter(indent: 2)
        w.beginObject()
        w.key("version")
        w.raw(String(TableDocument.version))
        w.key("routes")
        w.beginArray()
        for blob in state.table.blobs {
            w.beginObject()
            w.key("pattern")
            w.string(blob.pattern)
            w.key("target")
            w.string(blob.target)
            if let name = blob.name {
                w.key("name")
                w.string(name)
            }
            if blob.requiresCount > 0 {
                w.key("requires")
                w.beginArray()
                for i in 0..<blob.requiresCount { w.string(blob.requires(i)) }
                w.endArray()
            }
            if blob.metaCount > 0 {
                w.key("meta")
                w.beginObject()
                for i in 0..<blob.metaCount {  // stored sorted by key
                    let (key, value) = blob.meta(i)
                    w.key(key.string)
                    w.string(value)
                }
                w.endObject()
            }
            w.endObject()
        }
        w.endArray()
        w.key("rewrites")
        w.beginArray()
        for rule in state.rewrites.rules {
            w.beginObject()
            w.key("match")
            w.string(rule.match)
            w.key("target")
            w.string(rule.target)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.text + "\n"
    }
}

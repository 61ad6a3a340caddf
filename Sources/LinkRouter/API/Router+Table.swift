/// Route tables as files (docs/TABLES.md): load, check and export the router's whole table as one JSON document.
///
/// ```swift
/// let router = try Router(tableFile: "examples/tables/shop.json")
/// try router.load(json: pushedFromServer, mode: .merge)      // all or nothing
/// let text = router.tableJSON                               // load → export → load is the identity
/// ```
extension Router {
    /// A router holding the table in `json` (a route table document). Throws `.table` listing every problem.
    public convenience init(json: String, limits: Limits = .default) throws(RouterError) {
        self.init(limits: limits)
        try load(json: json)
    }

    /// A router holding the table in the file at `path`. Throws `.io` when it cannot be read, `.table` listing
    /// every problem of its content.
    public convenience init(tableFile path: String, limits: Limits = .default) throws(RouterError) {
        self.init(limits: limits)
        try load(file: path)
    }

    /// Loads a route table document, atomically: when it has any problem nothing changes and the `.table` error
    /// lists them all (`error.problems`, and the message one per line); otherwise its routes and rewrite rules
    /// replace the router's (`.replace`) or join them (`.merge`). A resolve running meanwhile sees the old table
    /// or the new one, whole. Limits stay as they are.
    /// Throws `.invalidURL` for text with a NUL byte and `.limit` for text over 256 MiB, before reading it, as
    /// `lr_router_load_json` does (`refuseTableText`).
    public func load(json: String, mode: TableLoadMode = .replace) throws(RouterError) {
        try json.withSpan { span throws(RouterError) in
            try Router.refuseTableText(span)
            try load(jsonBytes: span, mode: mode)
        }
    }

    /// `load(json:mode:)` with the content of the file at `path`; `.io` when it cannot be read.
    public func load(file path: String, mode: TableLoadMode = .replace) throws(RouterError) {
        try load(filePath: Array(path.utf8), mode: mode)
    }

    /// `load(json:mode:)` on UTF-8 bytes (validated here).
    package func load(jsonBytes: ByteSpan, mode: TableLoadMode) throws(RouterError) {
        let document = TableDocument(json: jsonBytes)
        try update { state throws(RouterError) in try TableLoader.load(document, into: state, mode: mode) }
    }

    /// What loading `json` with `mode` would find, without changing anything: its problems, or, for a table that
    /// would load, its warnings (shadowed routes, rewrite targets that route nowhere, and, when `guards` lists
    /// the guards the app registers, guards no route uses or that are not registered). Text `load` refuses
    /// before reading it (a NUL byte, over 256 MiB) gives that error as the report's one problem.
    public func check(json: String, mode: TableLoadMode = .replace, guards: [String]? = nil) -> TableReport {
        let report = try? json.withSpan { span throws(RouterError) -> TableReport in
            do throws(RouterError) {
                try Router.refuseTableText(span)
            } catch {
                return TableReport(problems: [TableProblem(pointer: "", code: error.code, reason: error.message)],
                                   warnings: [], offset: error.offset)
            }
            return check(jsonBytes: span, mode: mode, guards: guards)
        }
        return report ?? TableReport(problems: [], warnings: [])
    }

    /// `check(json:mode:guards:)` on the file at `path`; `.io` when it cannot be read.
    public func check(file path: String, mode: TableLoadMode = .replace, guards: [String]? = nil) throws(RouterError) -> TableReport {
        try check(filePath: Array(path.utf8), mode: mode, guards: guards)
    }

    /// `load(file:mode:)` with the path as bytes (the C ABI's form: a path need not be UTF-8).
    package func load(filePath: [UInt8], mode: TableLoadMode) throws(RouterError) {
        let bytes = try TableFileReader.read(path: filePath)
        try bytes.withUnsafeBufferPointer { buf throws(RouterError) in
            try load(jsonBytes: ByteSpan(start: buf.baseAddress, count: buf.count), mode: mode)
        }
    }

    /// The bytes of the table file at `path`, read once (`.io`, `.limit`), for a caller that checks and then
    /// loads the same bytes (`linkrouter check`): a pipe or FIFO gives its content to one read only.
    package static func tableFileBytes(_ path: String) throws(RouterError) -> [UInt8] {
        try TableFileReader.read(path: Array(path.utf8))
    }

    /// `check(file:mode:guards:)` with the path as bytes.
    package func check(filePath: [UInt8], mode: TableLoadMode, guards: [String]?) throws(RouterError) -> TableReport {
        let bytes = try TableFileReader.read(path: filePath)
        return bytes.withUnsafeBufferPointer { buf in
            check(jsonBytes: ByteSpan(start: buf.baseAddress, count: buf.count), mode: mode, guards: guards)
        }
    }

    package func check(jsonBytes: ByteSpan, mode: TableLoadMode, guards: [String]?) -> TableReport {
        let document = TableDocument(json: jsonBytes)
        return withState { state in
            do throws(RouterError) {
                let next = try TableLoader.load(document, into: state, mode: mode)
                let warnings = TableLint.warnings(next, knownGuards: guards)
                return TableReport(problems: [], warnings: mode == .merge ? TableLint.inDocument(warnings, before: state, after: next, document) : warnings)
            } catch {
                return TableReport(problems: error.problems.isEmpty ? [TableProblem(pointer: "", code: error.code, reason: error.message)]
                                   : error.problems, warnings: [], offset: error.offset)
            }
        }
    }

    /// The router's table as a route table document (docs/TABLES.md): routes in the order added, then the
    /// rewrite rules in order; fixed key order, sorted meta keys, two-space indentation. Loading it gives the
    /// same table, and exporting that gives the same bytes.
    public var tableJSON: String {
        withState { TableExport.json($0) }
    }

    /// The warnings `check` would give for the router's current table.
    public func warnings(guards: [String]? = nil) -> [TableWarning] {
        withState { TableLint.warnings($0, knownGuards: guards) }
    }

    /// The pairs of routes that both match some URLs where precedence among parameters, or a scheme against
    /// `*://`, picks the winner: each with an example URL and the route it goes to (`RouteOverlap`). Adding such
    /// routes is allowed; this says where they meet. Ordered by the losing route's position.
    public func overlaps() -> [RouteOverlap] {
        withState { TableOverlaps.find($0) }
    }

    /// The route named `name`, or nil.
    public func route(named name: String) -> RouteSpec? {
        withState { $0.table.route(named: name)?.spec }
    }
}

extension Router {
    /// The most bytes a table document may have (256 MiB; a 100,000-route table is about 15 MB).
    package static var maxTableBytes: Int { TableDocument.maxBytes }

    /// Refuses a table text given as an argument (`load(json:)`, `lr_router_load_json`) before reading it: over
    /// `maxTableBytes` (`.limit`), or with a NUL byte (`.invalidURL`, at its offset), which no JSON document
    /// holds and which a C caller passes by counting a string's terminator. (A file's content is read as a
    /// document: a NUL there is a syntax error, `.table`.)
    package static func refuseTableText(_ text: ByteSpan) throws(RouterError) {
        guard text.count <= maxTableBytes else {
            throw RouterError(.limit, "the table text is \(text.count) bytes, more than a table may be (\(maxTableBytes) bytes, 256 MiB)")
        }
        if let offset = text.buffer.firstIndex(of: 0) {
            throw RouterError(.invalidURL, "the table text has a NUL byte at offset \(offset)", offset: offset)
        }
    }
}

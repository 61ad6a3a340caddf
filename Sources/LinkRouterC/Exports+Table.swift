import LinkRouter

/// Exports: route tables as files, URL building and explain (Include/linkrouter.h, "Route tables").

public typealias StringOut = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

/// LR_LOAD_REPLACE (0) or LR_LOAD_MERGE (1); any other value is misuse.
private func loadMode(_ flags: Int32, _ function: StaticString) throws(RouterError) -> TableLoadMode {
    switch flags {
    case 0: return .replace
    case 1: return .merge
    default: throw RouterError(.misuse, "\(function): flags \(flags) is neither LR_LOAD_REPLACE (0) nor LR_LOAD_MERGE (1)")
    }
}

/// The `len` bytes of a table document argument: at most TableDocument's size limit, no NUL, UTF-8.
private func tableText(_ text: CString?, _ len: UInt, _ function: StaticString) throws(RouterError) -> ByteSpan {
    // Checked before a span is made of it: a len too big for an Int is refused as too big.
    guard len <= UInt(Router.maxTableBytes) else {
        throw RouterError(.limit, "\(function): len \(len) is more than a table may be (\(Router.maxTableBytes) bytes, 256 MiB)")
    }
    let span = try bytes(text, length: Int(len), "text", function)
    do throws(RouterError) {
        try Router.refuseTableText(span)
    } catch {
        throw RouterError(error.code, "\(function): \(error.message)", offset: error.offset)
    }
    guard span.isValidUTF8 else { throw RouterError(.invalidURL, "\(function): text is not valid UTF-8") }
    return span
}

/// The bytes of a path argument, as the OS takes them.
private func pathBytes(_ path: CString?, _ function: StaticString) throws(RouterError) -> [UInt8] {
    Array(try bytes(path, "path", function).buffer)
}

/// Hands `text` to the caller through `out` (freed with lr_string_free).
private func give(_ text: String, _ out: StringOut, _ function: StaticString) throws(RouterError) {
    guard let s = ownedCString(text) else { throw RouterError(.noMemory, "\(function): out of memory") }
    out.pointee = s
}

@c(lr_router_load_json)
public func lr_router_load_json(_ r: Handle?, _ text: CString?, _ len: UInt, _ flags: Int32) -> Int32 {
    guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_load_json"
        let router = try router(r, f)
        let mode = try loadMode(flags, f)
        try router.load(jsonBytes: tableText(text, len, f), mode: mode)
        return 0
    }
}

@c(lr_router_load_file)
public func lr_router_load_file(_ r: Handle?, _ path: CString?, _ flags: Int32) -> Int32 {
    guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_load_file"
        let router = try router(r, f)
        let mode = try loadMode(flags, f)
        try router.load(filePath: pathBytes(path, f), mode: mode)
        return 0
    }
}

@c(lr_router_check_json)
public func lr_router_check_json(_ r: Handle?, _ text: CString?, _ len: UInt, _ flags: Int32, _ report: StringOut?) -> Int32 {
    report?.pointee = nil
    return guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_check_json"
        let router = try router(r, f)
        guard let report else { throw RouterError(.misuse, "\(f): report is NULL") }
        let mode = try loadMode(flags, f)
        return try finish(router.check(jsonBytes: tableText(text, len, f), mode: mode, guards: nil), report, f)
    }
}

@c(lr_router_check_file)
public func lr_router_check_file(_ r: Handle?, _ path: CString?, _ flags: Int32, _ report: StringOut?) -> Int32 {
    report?.pointee = nil
    return guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_check_file"
        let router = try router(r, f)
        guard let report else { throw RouterError(.misuse, "\(f): report is NULL") }
        let mode = try loadMode(flags, f)
        return try finish(router.check(filePath: pathBytes(path, f), mode: mode, guards: nil), report, f)
    }
}

/// A check's report to the caller: LR_OK when the table would load, else LR_ETABLE with the problems as the
/// message (one per line); the report JSON goes out either way.
private func finish(_ report: TableReport, _ out: StringOut, _ function: StaticString) throws(RouterError) -> Int32 {
    try give(report.json, out, function)
    guard report.isValid else {
        ThreadState.with { $0.setError(report.problems.map(\.description).joined(separator: "\n"), offset: report.offset) }
        return RouterError.Code.table.rawValue
    }
    return 0
}

@c(lr_router_to_json)
public func lr_router_to_json(_ r: Handle?, _ out: StringOut?) -> Int32 {
    out?.pointee = nil
    return guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_to_json"
        let router = try router(r, f)
        guard let out else { throw RouterError(.misuse, "\(f): out is NULL") }
        try give(router.tableJSON, out, f)
        return 0
    }
}

@c(lr_router_overlaps)
public func lr_router_overlaps(_ r: Handle?, _ out: StringOut?) -> Int32 {
    out?.pointee = nil
    return guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_overlaps"
        let router = try router(r, f)
        guard let out else { throw RouterError(.misuse, "\(f): out is NULL") }
        try give(RouteOverlap.json(router.overlaps()), out, f)
        return 0
    }
}

@c(lr_router_build_url)
public func lr_router_build_url(_ r: Handle?, _ name: CString?, _ names: UnsafePointer<CString?>?,
                                _ values: UnsafePointer<CString?>?, _ n: UInt, _ out: StringOut?) -> Int32 {
    out?.pointee = nil
    return guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_build_url"
        let router = try router(r, f)
        guard let out else { throw RouterError(.misuse, "\(f): out is NULL") }
        let routeName = try text(name, "name", f)
        let n = try count(n, f)
        let keys = try texts(names, n, "names", f, item: "parameter"), vals = try texts(values, n, "values", f, item: "parameter")
        try give(router.url(name: routeName, orderedParams: (0..<n).map { (name: keys[$0], value: vals[$0]) }), out, f)
        return 0
    }
}

@c(lr_router_explain)
public func lr_router_explain(_ r: Handle?, _ url: CString?, _ out: StringOut?) -> Int32 {
    explain(r, url, out, "lr_router_explain") { $0.json }
}

@c(lr_router_explain_text)
public func lr_router_explain_text(_ r: Handle?, _ url: CString?, _ out: StringOut?) -> Int32 {
    explain(r, url, out, "lr_router_explain_text") { $0.text }
}

private func explain(_ r: Handle?, _ url: CString?, _ out: StringOut?, _ f: StaticString,
                     _ render: (Explanation) -> String) -> Int32 {
    out?.pointee = nil
    return guarded { () throws(RouterError) in
        let router = try router(r, f)
        guard let out else { throw RouterError(.misuse, "\(f): out is NULL") }
        try give(render(router.explain(text(url, "url", f))), out, f)
        return 0
    }
}

import LinkRouter

/// Exports: the getters of `lr_match` (Include/linkrouter.h, "Matches"). A NULL match gives "" (or 0, NULL).

public typealias MatchHandle = UnsafeRawPointer

@inline(__always)
private func field(_ m: MatchHandle?, _ f: MatchBox.Field, _ function: StaticString) -> CString {
    guard let box = MatchBox.from(m) else {
        noteMisuse("\(function): the match is NULL")
        return emptyCString
    }
    return box.field(f)
}

@c(lr_match_target)
public func lr_match_target(_ m: MatchHandle?) -> CString { field(m, .target, "lr_match_target") }

@c(lr_match_pattern)
public func lr_match_pattern(_ m: MatchHandle?) -> CString { field(m, .pattern, "lr_match_pattern") }

@c(lr_match_url)
public func lr_match_url(_ m: MatchHandle?) -> CString { field(m, .url, "lr_match_url") }

@c(lr_match_rewritten)
public func lr_match_rewritten(_ m: MatchHandle?) -> CString { field(m, .rewritten, "lr_match_rewritten") }

@c(lr_match_scheme)
public func lr_match_scheme(_ m: MatchHandle?) -> CString { field(m, .scheme, "lr_match_scheme") }

@c(lr_match_host)
public func lr_match_host(_ m: MatchHandle?) -> CString { field(m, .host, "lr_match_host") }

@c(lr_match_port)
public func lr_match_port(_ m: MatchHandle?) -> CString { field(m, .port, "lr_match_port") }

@c(lr_match_path)
public func lr_match_path(_ m: MatchHandle?) -> CString { field(m, .path, "lr_match_path") }

@c(lr_match_fragment)
public func lr_match_fragment(_ m: MatchHandle?) -> CString { field(m, .fragment, "lr_match_fragment") }

@c(lr_match_name)
public func lr_match_name(_ m: MatchHandle?) -> CString? { MatchBox.from(m)?.name }

@c(lr_match_metadata)
public func lr_match_metadata(_ m: MatchHandle?) -> CString? { MatchBox.from(m)?.metadata }

@c(lr_match_param_count)
public func lr_match_param_count(_ m: MatchHandle?) -> UInt { UInt(MatchBox.from(m)?.paramCount ?? 0) }

@c(lr_match_param_name)
public func lr_match_param_name(_ m: MatchHandle?, _ i: UInt) -> CString? {
    MatchBox.from(m)?.param(i, name: true)
}

@c(lr_match_param_value)
public func lr_match_param_value(_ m: MatchHandle?, _ i: UInt) -> CString? {
    MatchBox.from(m)?.param(i, name: false)
}

@c(lr_match_get)
public func lr_match_get(_ m: MatchHandle?, _ name: CString?) -> CString? {
    guard let box = MatchBox.from(m), let name else { return nil }
    return box.value(named: name)
}

@c(lr_match_query_count)
public func lr_match_query_count(_ m: MatchHandle?) -> UInt { UInt(MatchBox.from(m)?.queryCount ?? 0) }

@c(lr_match_query_name)
public func lr_match_query_name(_ m: MatchHandle?, _ i: UInt) -> CString? {
    MatchBox.from(m)?.query(i, name: true)
}

@c(lr_match_query_value)
public func lr_match_query_value(_ m: MatchHandle?, _ i: UInt) -> CString? {
    MatchBox.from(m)?.query(i, name: false)
}

@c(lr_match_to_json)
public func lr_match_to_json(_ m: MatchHandle?, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    out?.pointee = nil
    return guarded { () throws(RouterError) in
        guard let box = MatchBox.from(m) else { throw RouterError(.misuse, "lr_match_to_json: the match is NULL") }
        guard let out else { throw RouterError(.misuse, "lr_match_to_json: out is NULL") }
        guard let json = ownedCString(box.match.json) else { throw RouterError(.noMemory, "lr_match_to_json: out of memory") }
        out.pointee = json
        return 0
    }
}

@c(lr_match_free)
public func lr_match_free(_ m: UnsafeMutableRawPointer?) {
    if let m { Unmanaged<MatchBox>.fromOpaque(m).release() }
}

@_spi(CExports) import LinkRouter

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Exports: the getters of `lr_match` (Include/linkrouter.h, "Matches"). An `lr_match` is a `MatchRecord`: one
/// block (malloc'd by lr_router_resolve, or lent to a handler), read in place. A NULL match gives "" (or 0, NULL).

public typealias MatchHandle = UnsafeRawPointer

@inline(__always)
private func record(_ m: MatchHandle?, _ function: StaticString) -> MatchRecord? {
    guard let m else {
        noteMisuse("\(function): the match is NULL")
        return nil
    }
    return MatchRecord(m)
}

@inline(__always)
private func field(_ m: MatchHandle?, _ f: MatchLayout.Field, _ function: StaticString) -> CString {
    guard let m else { return nullField(function) }
    return UnsafeRawPointer(MatchLayout.refStart(f.rawValue, in: m)).assumingMemoryBound(to: CChar.self)
}

/// Notes a NULL match given to `function`; "". Out of line, so that the getters that call it stay small.
@inline(never)
private func nullField(_ function: StaticString) -> CString {
    noteMisuse("\(function): the match is NULL")
    return emptyCString
}

@c(lr_match_target)
public func lr_match_target(_ m: MatchHandle?) -> CString { field(m, .target, "lr_match_target") }

@c(lr_match_pattern)
public func lr_match_pattern(_ m: MatchHandle?) -> CString { field(m, .pattern, "lr_match_pattern") }

@c(lr_match_url)
public func lr_match_url(_ m: MatchHandle?) -> CString { field(m, .url, "lr_match_url") }

@c(lr_match_rewritten)
public func lr_match_rewritten(_ m: MatchHandle?) -> CString { field(m, .routed, "lr_match_rewritten") }

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
public func lr_match_name(_ m: MatchHandle?) -> CString? {
    guard let r = record(m, "lr_match_name"), r.hasName else { return nil }
    return cString(r.field(.name))
}

@c(lr_match_metadata)
public func lr_match_metadata(_ m: MatchHandle?) -> CString? {
    guard let r = record(m, "lr_match_metadata"), r.hasMetadata else { return nil }
    return cString(r.field(.metadata))
}

@c(lr_match_route_id)
public func lr_match_route_id(_ m: MatchHandle?) -> UInt32 {
    guard let r = record(m, "lr_match_route_id") else { return 0 }
    return UInt32(truncatingIfNeeded: r.routeID)
}

@c(lr_match_param_count)
public func lr_match_param_count(_ m: MatchHandle?) -> UInt { count(m, .params, "lr_match_param_count") }

@c(lr_match_param_name)
public func lr_match_param_name(_ m: MatchHandle?, _ i: UInt) -> CString? { item(m, .params, i, "lr_match_param_name") }

@c(lr_match_param_value)
public func lr_match_param_value(_ m: MatchHandle?, _ i: UInt) -> CString? {
    item(m, .params, i, second: true, "lr_match_param_value")
}

@c(lr_match_get)
public func lr_match_get(_ m: MatchHandle?, _ name: CString?) -> CString? { value(m, name, .params, "lr_match_get") }

@c(lr_match_query_count)
public func lr_match_query_count(_ m: MatchHandle?) -> UInt { count(m, .query, "lr_match_query_count") }

@c(lr_match_query_name)
public func lr_match_query_name(_ m: MatchHandle?, _ i: UInt) -> CString? { item(m, .query, i, "lr_match_query_name") }

@c(lr_match_query_value)
public func lr_match_query_value(_ m: MatchHandle?, _ i: UInt) -> CString? {
    item(m, .query, i, second: true, "lr_match_query_value")
}

@c(lr_match_meta_count)
public func lr_match_meta_count(_ m: MatchHandle?) -> UInt { count(m, .meta, "lr_match_meta_count") }

@c(lr_match_meta_name)
public func lr_match_meta_name(_ m: MatchHandle?, _ i: UInt) -> CString? { item(m, .meta, i, "lr_match_meta_name") }

@c(lr_match_meta_value)
public func lr_match_meta_value(_ m: MatchHandle?, _ i: UInt) -> CString? {
    item(m, .meta, i, second: true, "lr_match_meta_value")
}

@c(lr_match_meta)
public func lr_match_meta(_ m: MatchHandle?, _ key: CString?) -> CString? { value(m, key, .meta, "lr_match_meta") }

@c(lr_match_requires_count)
public func lr_match_requires_count(_ m: MatchHandle?) -> UInt { count(m, .requires, "lr_match_requires_count") }

@c(lr_match_requires)
public func lr_match_requires(_ m: MatchHandle?, _ i: UInt) -> CString? { item(m, .requires, i, "lr_match_requires") }

/// The length of list `l` of `m` (0 for a NULL match, noted).
@inline(__always)
private func count(_ m: MatchHandle?, _ l: MatchLayout.List, _ function: StaticString) -> UInt {
    guard let m else { return nullCount(function) }
    return UInt(MatchLayout.count(l, in: m))
}

/// Item `i` of list `l` of `m` (`MatchLayout.item`); nil out of range, or for a NULL match (noted).
@inline(__always)
private func item(_ m: MatchHandle?, _ l: MatchLayout.List, _ i: UInt, second: Bool = false,
                  _ function: StaticString) -> CString? {
    guard let m else { return nullMatch(function) }
    return MatchLayout.item(l, i, second: second, in: m)
}

/// The value named `name` in list `l` of `m` (`MatchLayout.value`); nil when absent, for a NULL name, or for a
/// NULL match (noted).
@inline(__always)
private func value(_ m: MatchHandle?, _ name: CString?, _ l: MatchLayout.List, _ function: StaticString) -> CString? {
    guard let m else { return nullMatch(function) }
    guard let name else { return nil }
    return MatchLayout.value(named: name, in: l, of: m)
}

/// Notes a NULL match given to `function`; nil. Out of line, so that the getters that call it stay small.
@inline(never)
private func nullMatch(_ function: StaticString) -> CString? {
    noteMisuse("\(function): the match is NULL")
    return nil
}

/// `nullMatch` for a count: 0.
@inline(never)
private func nullCount(_ function: StaticString) -> UInt {
    noteMisuse("\(function): the match is NULL")
    return 0
}

@c(lr_match_to_json)
public func lr_match_to_json(_ m: MatchHandle?, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    out?.pointee = nil
    return guarded { () throws(RouterError) in
        guard let m else { throw RouterError(.misuse, "lr_match_to_json: the match is NULL") }
        guard let out else { throw RouterError(.misuse, "lr_match_to_json: out is NULL") }
        guard let json = ownedCString(MatchRecord(m).json) else { throw RouterError(.noMemory, "lr_match_to_json: out of memory") }
        out.pointee = json
        return 0
    }
}

@c(lr_match_clone)
public func lr_match_clone(_ m: MatchHandle?, _ out: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int32 {
    out?.pointee = nil
    return guarded { () throws(RouterError) in
        guard let m else { throw RouterError(.misuse, "lr_match_clone: the match is NULL") }
        guard let out else { throw RouterError(.misuse, "lr_match_clone: out is NULL") }
        let size = MatchRecord(m).size
        guard let copy = malloc(size) else { throw RouterError(.noMemory, "lr_match_clone: out of memory") }
        copy.copyMemory(from: m, byteCount: size)
        MatchRecord.setCapacity(copy, size)
        out.pointee = copy
        return 0
    }
}

@c(lr_match_free)
public func lr_match_free(_ m: UnsafeMutableRawPointer?) {
    guard let m else { return }
    freeCMatchBlock(m)
}

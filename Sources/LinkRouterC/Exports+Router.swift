import LinkRouter

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Exports: routers, routes, lookups and limits (Include/linkrouter.h, "Routers" and "Limits").

public typealias Handle = UnsafeMutableRawPointer
public typealias MatchOut = UnsafeMutablePointer<UnsafeMutableRawPointer?>

@c(lr_router_new)
public func lr_router_new(_ out: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int32 {
    guarded { () throws(RouterError) in
        guard let out else { throw RouterError(.misuse, "lr_router_new: out is NULL") }
        out.pointee = newRouterHandle()
        return 0
    }
}

@c(lr_router_free)
public func lr_router_free(_ r: Handle?) {
    if let r { releaseRouterHandle(r) }
}

@c(lr_router_add)
public func lr_router_add(_ r: Handle?, _ pattern: CString?, _ target: CString?) -> Int32 {
    guarded { () throws(RouterError) in try addRoute(r, pattern, target, nil, nil, "lr_router_add") }
}

@c(lr_router_add_route)
public func lr_router_add_route(_ r: Handle?, _ pattern: CString?, _ target: CString?, _ name: CString?,
                                _ metadata: CString?) -> Int32 {
    guarded { () throws(RouterError) in try addRoute(r, pattern, target, name, metadata, "lr_router_add_route") }
}

/// lr_router_add and lr_router_add_route, each reporting under its own name. A string longer than a route may
/// store is refused before it is copied.
private func addRoute(_ r: Handle?, _ pattern: CString?, _ target: CString?, _ name: CString?, _ metadata: CString?,
                      _ f: StaticString) throws(RouterError) -> Int32 {
    let router = try router(r, f)
    let limit = Limits.maxRouteText
    let meta = try optionalText(metadata, "metadata", f, maxLength: limit).map { json throws(RouterError) in
        try RouteSpec.meta(fromJSON: json)
    }
    try router.add(text(pattern, "pattern", f, maxLength: limit), target: text(target, "target", f, maxLength: limit),
                   name: optionalText(name, "name", f, maxLength: limit), meta: meta ?? [:])
    return 0
}

@c(lr_router_add_many)
public func lr_router_add_many(_ r: Handle?, _ patterns: UnsafePointer<CString?>?, _ targets: UnsafePointer<CString?>?,
                               _ n: UInt, _ failedIndex: UnsafeMutablePointer<UInt>?) -> Int32 {
    guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_add_many"
        let router = try router(r, f)
        try bulk(patterns, targets, n, failedIndex, f, item: "route", names: ("patterns", "targets"),
                 maxLength: Limits.maxRouteText) { ps, ts throws(RouterError) in
            try router.add(zip(ps, ts).map { RouteSpec($0, target: $1) })
        }
        return 0
    }
}

@c(lr_router_remove)
public func lr_router_remove(_ r: Handle?, _ pattern: CString?) -> Int32 {
    guarded { () throws(RouterError) in
        let router = try router(r, "lr_router_remove")
        try router.remove(text(pattern, "pattern", "lr_router_remove"))
        return 0
    }
}

@c(lr_router_clear)
public func lr_router_clear(_ r: Handle?) -> Int32 {
    guarded { () throws(RouterError) in
        try router(r, "lr_router_clear").removeAll()
        return 0
    }
}

@c(lr_router_count)
public func lr_router_count(_ r: Handle?, _ out: UnsafeMutablePointer<UInt>?) -> Int32 {
    guarded { () throws(RouterError) in
        let router = try router(r, "lr_router_count")
        guard let out else { throw RouterError(.misuse, "lr_router_count: out is NULL") }
        out.pointee = UInt(router.count)
        return 0
    }
}

@c(lr_router_can_route)
public func lr_router_can_route(_ r: Handle?, _ url: CString?) -> Int32 {
    guarded { () throws(RouterError) in
        let router = try router(r, "lr_router_can_route")
        return try router.canRoute(bytes: bytes(url, "url", "lr_router_can_route")) ? 1 : 0
    }
}

@c(lr_router_resolve)
public func lr_router_resolve(_ r: Handle?, _ url: CString?, _ out: MatchOut?) -> Int32 {
    // The quick lane first (Router.quickRecord), for arguments that are plainly right; the rest, errors included,
    // takes the general path, which words them.
    if let r, let url, let out {
        let count = strlen(url)
        let start = UnsafeRawPointer(url).assumingMemoryBound(to: UInt8.self)
        let noExtras = UnsafeBufferPointer<QueryPair>(start: nil, count: 0)
        switch Unmanaged<Router>.fromOpaque(r)._withUnsafeGuaranteedRef({ $0.quickRecord(start: start, count: count, extras: noExtras) }) {
        case .matched(let m):
            out.pointee = m
            return 0
        case .noMatch:
            out.pointee = nil
            return 1
        case .general:
            break
        }
        return resolve(r, url, nil, nil, 0, out, "lr_router_resolve", quick: false)
    }
    return resolve(r, url, nil, nil, 0, out, "lr_router_resolve")
}

@c(lr_router_resolve_with)
public func lr_router_resolve_with(_ r: Handle?, _ url: CString?, _ names: UnsafePointer<CString?>?,
                                   _ values: UnsafePointer<CString?>?, _ n: UInt, _ out: MatchOut?) -> Int32 {
    resolve(r, url, names, values, n, out, "lr_router_resolve_with")
}

/// lr_router_resolve and lr_router_resolve_with, each reporting under its own name.
/// `quick: false` when the caller has tried the quick lane already. Out of line: its error handling would widen
/// the callers' frames.
@inline(never)
private func resolve(_ r: Handle?, _ url: CString?, _ names: UnsafePointer<CString?>?, _ values: UnsafePointer<CString?>?,
                     _ n: UInt, _ out: MatchOut?, _ f: StaticString, quick: Bool = true) -> Int32 {
    out?.pointee = nil
    return guarded { () throws(RouterError) in
        guard let out else { throw RouterError(.misuse, "\(f): out is NULL") }
        let url = try bytes(url, "url", f)
        let n = try count(n, f)
        return try withRouter(r, f) { router throws(RouterError) in
            try withPairs(names, values, n, f) { extras throws(RouterError) in
                // The block is the thread's spare one when lr_match_free left one big enough (ThreadState).
                guard let m = try router.resolveRecord(bytes: url, extras: extras, quick: quick) else { return 1 }
                out.pointee = m
                return 0
            }
        }
    }
}

@c(lr_router_set_limit)
public func lr_router_set_limit(_ r: Handle?, _ limit: Int32, _ value: UInt) -> Int32 {
    guarded { () throws(RouterError) in
        let router = try router(r, "lr_router_set_limit")
        // Each limit's own range decides (Limits.ranges).
        try router.updateLimits { limits throws(RouterError) in try limits.set(limit, value, "lr_router_set_limit") }
        return 0
    }
}

@c(lr_router_get_limit)
public func lr_router_get_limit(_ r: Handle?, _ limit: Int32, _ out: UnsafeMutablePointer<UInt>?) -> Int32 {
    guarded { () throws(RouterError) in
        let router = try router(r, "lr_router_get_limit")
        guard let out else { throw RouterError(.misuse, "lr_router_get_limit: out is NULL") }
        out.pointee = UInt(try router.limits.get(limit, "lr_router_get_limit"))
        return 0
    }
}

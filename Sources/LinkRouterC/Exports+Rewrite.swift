import LinkRouter

/// Exports: rewrite rules (Include/linkrouter.h, "Rewrite rules").

@c(lr_router_add_rewrite)
public func lr_router_add_rewrite(_ r: Handle?, _ match: CString?, _ target: CString?) -> Int32 {
    guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_add_rewrite"
        // A string longer than a rule may store is refused before it is copied.
        let limit = Limits.maxRouteText
        try router(r, f).addRewrite(text(match, "match", f, maxLength: limit), target: text(target, "target", f, maxLength: limit))
        return 0
    }
}

@c(lr_router_add_rewrites)
public func lr_router_add_rewrites(_ r: Handle?, _ matches: UnsafePointer<CString?>?, _ targets: UnsafePointer<CString?>?,
                                   _ n: UInt, _ failedIndex: UnsafeMutablePointer<UInt>?) -> Int32 {
    guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_add_rewrites"
        let router = try router(r, f)
        try bulk(matches, targets, n, failedIndex, f, item: "rewrite rule", names: ("matches", "targets"),
                 maxLength: Limits.maxRouteText) { ms, ts throws(RouterError) in
            try router.addRewrites(zip(ms, ts).map { (match: $0, target: $1) })
        }
        return 0
    }
}

@c(lr_router_remove_rewrite)
public func lr_router_remove_rewrite(_ r: Handle?, _ match: CString?) -> Int32 {
    guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_remove_rewrite"
        try router(r, f).removeRewrite(text(match, "match", f))
        return 0
    }
}

@c(lr_router_clear_rewrites)
public func lr_router_clear_rewrites(_ r: Handle?) -> Int32 {
    guarded { () throws(RouterError) in
        try router(r, "lr_router_clear_rewrites").removeAllRewrites()
        return 0
    }
}

@c(lr_router_rewrite)
public func lr_router_rewrite(_ r: Handle?, _ url: CString?, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    out?.pointee = nil
    return guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_rewrite"
        let router = try router(r, f)
        guard let out else { throw RouterError(.misuse, "\(f): out is NULL") }
        guard let rewritten = try router.rewrite(bytes: bytes(url, "url", f)) else { return 1 }
        guard let s = ownedCString(rewritten) else { throw RouterError(.noMemory, "\(f): out of memory") }
        out.pointee = s
        return 0
    }
}

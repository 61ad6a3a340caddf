import CLinkRouter
import LinkRouter

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Exports: opening URLs (Include/linkrouter.h, "Opening URLs"). The open path is the core's
/// (Router.start); these check arguments and turn C callbacks into core handlers and guards.

@c(lr_router_handle)
public func lr_router_handle(_ r: Handle?, _ pattern: CString?, _ h: UnsafePointer<lr_handler>?) -> Int32 {
    guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_handle"
        let router = try router(r, f)
        let pattern = try text(pattern, "pattern", f)
        guard let h else { throw RouterError(.misuse, "\(f): handler is NULL") }
        let (handler, owner) = try handler(h.pointee, f)
        do throws(RouterError) {
            try router.handle(pattern, handler)
        } catch {
            owner.armed = false
            throw error
        }
        return 0
    }
}

@c(lr_router_add_routes)
public func lr_router_add_routes(_ r: Handle?, _ routes: UnsafePointer<lr_route>?, _ n: UInt,
                                 _ failedIndex: UnsafeMutablePointer<UInt>?) -> Int32 {
    guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_add_routes"
        let router = try router(r, f)
        let n = try count(n, f)
        guard n == 0 || routes != nil else { throw RouterError(.misuse, "\(f): routes is NULL") }
        var items: [(spec: RouteSpec, handler: Handler?)] = []
        var owners: [CUserData] = []
        do throws(RouterError) {
            for i in 0..<n {
                guard let route = routes?[i] else { break }
                do throws(RouterError) {
                    let pattern = try text(route.pattern, "pattern", f)
                    let requires = try texts(route.requires, try count(UInt(bitPattern: route.requires_count), f, "requires_count"), "requires", f, item: "guard")
                    let metaCount = try count(UInt(bitPattern: route.meta_count), f, "meta_count")
                    let keys = try texts(route.meta_keys, metaCount, "meta_keys", f, item: "meta")
                    let values = try texts(route.meta_values, metaCount, "meta_values", f, item: "meta")
                    var meta: [String: String] = [:]
                    for (k, v) in zip(keys, values) where meta.updateValue(v, forKey: k) != nil {
                        throw RouterError(.invalidURL, "\(f): meta key '\(k)' appears twice")
                    }
                    var handler: Handler?
                    if let h = route.handler {
                        let (made, owner) = try LinkRouterC.handler(h.pointee, f)
                        handler = made
                        owners.append(owner)
                    }
                    let spec = RouteSpec(pattern, target: try optionalText(route.target, "target", f) ?? pattern,
                                         name: try optionalText(route.name, "name", f), requires: requires, meta: meta)
                    items.append((spec, handler))
                } catch {
                    throw RouterError(error.code, "route \(i): \(error.message)", offset: error.offset, index: i)
                }
            }
            try router.add(items)
        } catch {
            for owner in owners { owner.armed = false }
            if let failedIndex, let i = error.index { failedIndex.pointee = UInt(i) }
            throw error
        }
        return 0
    }
}

@c(lr_router_handle_target)
public func lr_router_handle_target(_ r: Handle?, _ target: CString?, _ h: UnsafePointer<lr_handler>?) -> Int32 {
    guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_handle_target"
        let router = try router(r, f)
        let target = try text(target, "target", f)
        router.handle(target: target, try h.map { h throws(RouterError) in try handler(h.pointee, f).0 })
        return 0
    }
}

@c(lr_reply_send)
public func lr_reply_send(_ reply: UInt64, _ result: UnsafeMutableRawPointer?) -> Int32 {
    Replies.complete(reply, .success(CPointer(raw: result)))
}

@c(lr_reply_fail)
public func lr_reply_fail(_ reply: UInt64, _ code: Int32, _ text: CString?) -> Int32 {
    guard code < 0 else {
        ThreadState.with { $0.setError("lr_reply_fail: code \(code) is not negative") }
        return RouterError.Code.misuse.rawValue
    }
    let why = cMessage(text) ?? "the handler failed with status \(code)"
    return Replies.complete(reply, .failure(CStatusError(code: code, message: why)))
}

@c(lr_reply_drop)
public func lr_reply_drop(_ reply: UInt64) -> Int32 {
    Replies.complete(reply, .failure(CStatusError(code: RouterError.Code.handler.rawValue,
                                                  message: "the handler dropped its reply without answering")),
                     setsError: false)
}

@c(lr_router_set_unmatched)
public func lr_router_set_unmatched(_ r: Handle?, _ fn: lr_unmatched_fn?, _ userData: UnsafeMutableRawPointer?,
                                    _ release: lr_release_fn?) -> Int32 {
    guarded { () throws(RouterError) in
        let router = try router(r, "lr_router_set_unmatched")
        guard let fn else {
            router.onUnmatched(nil)
            release?(userData)  // nothing can call a handler that was not set: released at once
            return 0
        }
        let owner = CUserData(userData, release)
        router.onUnmatched { u in
            var result: UnsafeMutableRawPointer?
            var text: UnsafePointer<CChar>?
            let rc = u.url.withCString { fn($0, u.rawContext, owner.userData, &result, &text) }
            if rc >= 0 { return CPointer(raw: result) }
            throw CStatusError(code: rc, message: cMessage(text) ?? "the unmatched handler failed with status \(rc)")
        }
        return 0
    }
}

@c(lr_router_add_guard)
public func lr_router_add_guard(_ r: Handle?, _ name: CString?, _ flags: Int32, _ fn: lr_guard_fn?,
                                _ userData: UnsafeMutableRawPointer?, _ release: lr_release_fn?) -> Int32 {
    guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_add_guard"
        let router = try router(r, f)
        let name = try text(name, "name", f)
        guard let fn else { throw RouterError(.misuse, "\(f): fn is NULL") }
        guard flags & ~1 == 0 else { throw RouterError(.misuse, "\(f): unknown flags \(flags)") }
        let owner = CUserData(userData, release)
        do throws(RouterError) {
            try router.addGuard(name, global: flags & 1 != 0) { match in
                var text: UnsafePointer<CChar>?
                let verdict = fn(OpaquePointer(match.recordBase), match.rawContext, owner.userData, &text)
                switch verdict {
                case 0: return .allow
                case 1: return .deny(cMessage(text) ?? "")
                case 2: return .defer
                default: return .deny(cMessage(text) ?? "guard '\(name)' failed with status \(verdict)")
                }
            }
        } catch {
            owner.armed = false
            throw error
        }
        return 0
    }
}

@c(lr_router_remove_guard)
public func lr_router_remove_guard(_ r: Handle?, _ name: CString?) -> Int32 {
    guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_remove_guard"
        try router(r, f).removeGuard(text(name, "name", f))
        return 0
    }
}

@c(lr_router_open)
public func lr_router_open(_ r: Handle?, _ url: CString?, _ opts: UnsafePointer<lr_open_options>?,
                           _ result: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> Int32 {
    result?.pointee = nil
    return guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_open"
        // The router is borrowed without a retain, as the lookups do: the caller keeps the handle alive for the call.
        return try withRouter(r, f) { router throws(RouterError) in
            let o = opts?.pointee
            if o == nil || (o?.extra_count == 0 && o?.dispatch == nil && o?.timeout_ms == 0) {
                // A plain open (the URL and at most a context): the core makes a request only if it needs one.
                let bytes = try bytes(url, "url", f), context = o?.context
                return router.openPlain(bytes, rawContext: context, request: { plainRequest(bytes, context) },
                                        opened: { value in
                                            result?.pointee = value
                                            return 0
                                        }, otherwise: { cStatus($0, result) })
            }
            return cStatus(router.openResult(try openRequest(url, opts, f, borrowingURL: true)), result)
        }
    }
}

@c(lr_router_open_async)
public func lr_router_open_async(_ r: Handle?, _ url: CString?, _ opts: UnsafePointer<lr_open_options>?,
                                 _ done: lr_done_fn?, _ doneData: UnsafeMutableRawPointer?) -> Int32 {
    guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_open_async"
        let router = try router(r, f)
        guard let done else { throw RouterError(.misuse, "\(f): done is NULL") }
        let request = try openRequest(url, opts, f)
        let data = CPointer(raw: doneData)
        router.start(request) { result in report(result, url: request.url, context: request.rawContext, done, data.raw) }
        return 0
    }
}

@c(lr_router_resume)
public func lr_router_resume(_ r: Handle?, _ name: CString?, _ each: lr_done_fn?, _ data: UnsafeMutableRawPointer?,
                             _ replayed: UnsafeMutablePointer<UInt>?) -> Int32 {
    guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_resume"
        let router = try router(r, f)
        let name = try text(name, "name", f)
        // Each outcome is reported as soon as its replay is over, before the next one starts.
        let n = router.replay(name) { parked, result in
            if let each { report(result, url: parked.url, context: parked.request.rawContext, each, data) }
        }
        replayed?.pointee = UInt(n)
        return 0
    }
}

/// visit(url, context, data) for each of `opens`.
private func visitAll(_ opens: [ParkedOpen], _ visit: (@convention(c) (CString?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void)?,
                      _ data: UnsafeMutableRawPointer?) {
    guard let visit else { return }
    for p in opens { p.url.withCString { visit($0, p.request.rawContext, data) } }
}

@c(lr_router_pending)
public func lr_router_pending(_ r: Handle?, _ name: CString?,
                              _ visit: (@convention(c) (CString?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void)?,
                              _ data: UnsafeMutableRawPointer?, _ count: UnsafeMutablePointer<UInt>?) -> Int32 {
    guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_pending"
        let opens = try router(r, f).pending(text(name, "name", f))
        visitAll(opens, visit, data)
        count?.pointee = UInt(opens.count)
        return 0
    }
}

@c(lr_router_drop_pending)
public func lr_router_drop_pending(_ r: Handle?, _ name: CString?,
                                   _ visit: (@convention(c) (CString?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void)?,
                                   _ data: UnsafeMutableRawPointer?, _ dropped: UnsafeMutablePointer<UInt>?) -> Int32 {
    guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_drop_pending"
        let opens = try router(r, f).dropPending(text(name, "name", f))
        visitAll(opens, visit, data)
        dropped?.pointee = UInt(opens.count)
        return 0
    }
}

@c(lr_router_set_log)
public func lr_router_set_log(_ r: Handle?, _ level: Int32, _ fn: lr_log_fn?, _ userData: UnsafeMutableRawPointer?,
                              _ release: lr_release_fn?) -> Int32 {
    guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_set_log"
        let router = try router(r, f)
        guard let level = LogLevel(rawValue: Int(level)) else { throw RouterError(.misuse, "\(f): unknown level \(level)") }
        guard let fn, level != .off else {
            router.setLog(level: .off, nil)
            release?(userData)  // nothing will call fn: released at once
            return 0
        }
        let owner = CUserData(userData, release)
        router.setLog(level: level) { l, text in text.withCString { fn(Int32(l.rawValue), $0, owner.userData) } }
        return 0
    }
}

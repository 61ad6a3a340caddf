import CLinkRouter
import LinkRouter

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Exports: the zero-allocation lookup and the packed result (Include/linkrouter.h, "Zero-allocation lookups").

@c(lr_router_resolve_into)
public func lr_router_resolve_into(_ r: Handle?, _ url: CString?, _ urlLength: Int, _ res: UnsafeMutablePointer<lr_result>?,
                                   _ params: UnsafeMutablePointer<lr_param_ref>?, _ paramsCap: Int,
                                   _ scratch: UnsafeMutablePointer<CChar>?, _ scratchCap: Int) -> Int32 {
    // The quick lane first (RouterState.quickFlat), for arguments that are plainly right: it answers most lookups
    // with none of the general path's set-up. Whatever it does not answer, errors included, takes the general
    // path below, which words them.
    // A capacity beside a NULL array may only be 0 (each bound below is one unsigned compare).
    let paramsMax = params == nil ? 0 : UInt(Int.max / MemoryLayout<lr_param_ref>.stride)
    let scratchMax = scratch == nil ? 0 : UInt(Int.max)
    if let r, let res, let url, urlLength >= 0, UInt(bitPattern: paramsCap) <= paramsMax,
       UInt(bitPattern: scratchCap) <= scratchMax, pairLayoutMatches {
        let pairs = params.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: QueryPair.self) }
        let outcome = withUnsafeTemporaryAllocation(of: FlatMatch.self, capacity: 1) { found -> Int32 in
            guard let found = found.baseAddress else { return -1 }
            let quick = Unmanaged<Router>.fromOpaque(r)._withUnsafeGuaranteedRef {
                $0.quickFlat(url, urlLength, scratch: scratch, scratchCapacity: scratchCap, params: pairs,
                             capacity: paramsCap, into: found)
            }
            switch quick {
            case .matched:
                res.pointee = result(of: found.pointee)
                return 0
            case .noMatch:
                res.pointee = lr_result()
                return 1
            case .general:
                return -1
            }
        }
        if outcome >= 0 { return outcome }
    }
    return resolveIntoGeneral(r, url, urlLength, res, params, paramsCap, scratch, scratchCap)
}

/// The general path of `lr_router_resolve_into`, out of line: its error handling would otherwise widen the
/// quick lane's frame (more registers saved and restored on every lookup).
@inline(never)
private func resolveIntoGeneral(_ r: Handle?, _ url: CString?, _ urlLength: Int, _ res: UnsafeMutablePointer<lr_result>?,
                                _ params: UnsafeMutablePointer<lr_param_ref>?, _ paramsCap: Int,
                                _ scratch: UnsafeMutablePointer<CChar>?, _ scratchCap: Int) -> Int32 {
    return guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_resolve_into"
        return try withRouter(r, f) { router throws(RouterError) -> Int32 in
            guard let res else { throw RouterError(.misuse, "\(f): res is NULL") }
            res.pointee = lr_result()
            let url = try bytes(url, length: urlLength, "url", f)
            // A capacity is refused when no array of that size fits in memory (PTRDIFF_MAX bytes); below that it is
            // the caller's word, and only what the lookup needs is written.
            guard paramsCap >= 0, paramsCap <= Int.max / MemoryLayout<lr_param_ref>.stride, scratchCap >= 0 else {
                throw RouterError(.misuse, "\(f): capacity out of range")
            }
            // NULL goes with a zero capacity only: retrying with the needs reported would fail the same way.
            guard params != nil || paramsCap == 0 else { throw RouterError(.misuse, "\(f): params is NULL but params_cap is \(paramsCap)") }
            guard scratch != nil || scratchCap == 0 else { throw RouterError(.misuse, "\(f): scratch is NULL but scratch_cap is \(scratchCap)") }
            let pairs = try paramPairs(params, f)
            var writer = ByteWriter(base: scratch.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: UInt8.self) },
                                    capacity: scratchCap)
            var found = FlatMatch()
            switch router.resolveFlat(url, scratch: &writer, params: pairs, capacity: paramsCap, into: &found) {
            case .failed(let error):
                throw error
            case .noMatch:
                return 1
            case let .needsMemory(scratchSize, paramCount):
                res.pointee.needed_scratch = max(scratchSize, writer.count)
                res.pointee.needed_params = paramCount
                throw RouterError(.limit, "\(f): params (\(paramsCap)) or scratch (\(scratchCap) bytes) too small: "
                    + "need \(paramCount) params and \(res.pointee.needed_scratch) bytes")
            case .matched:
                res.pointee = result(of: found)
                return 0
            }
        }
    }
}

/// The `lr_result` of a match (nothing needed: `needed_params` and `needed_scratch` 0).
@inline(__always)
private func result(of m: FlatMatch) -> lr_result {
    lr_result(target: cString(m.target), target_len: m.target.count, pattern: cString(m.pattern), pattern_len: m.pattern.count,
              routed: cString(m.routed), routed_len: m.routed.count, route_id: UInt32(truncatingIfNeeded: m.sequence),
              rewritten: m.rewritten ? 1 : 0, path_param_count: m.pathCount, param_count: m.count,
              needed_params: 0, needed_scratch: 0)
}

/// `lr_result_get`: the caller's `lr_result` is checked, not trusted (it may be filled by hand, or stale): counts
/// that no lookup can produce are refused with NULL and a misuse message. The precedence is `lookupParam`'s.
@c(lr_result_get)
public func lr_result_get(_ res: UnsafePointer<lr_result>?, _ params: UnsafePointer<lr_param_ref>?, _ name: CString?,
                          _ valueLength: UnsafeMutablePointer<Int>?) -> CString? {
    let f: StaticString = "lr_result_get"
    guard let res, let params, let name else {
        noteMisuse("\(f): \(res == nil ? "res" : params == nil ? "params" : "name") is NULL")
        return nil
    }
    let path = res.pointee.path_param_count, count = res.pointee.param_count
    // What a lookup writes: at most maxRouteParams path parameters, then at most the largest maxParams pairs.
    guard path >= 0, path <= count, path <= Limits.maxRouteParams, count - path <= Limits.maxParamsCeiling else {
        noteMisuse("\(f): res holds path_param_count \(UInt(bitPattern: path)) and param_count \(UInt(bitPattern: count)), "
            + "which no lookup writes")
        return nil
    }
    guard let pairs = try? paramPairs(UnsafeMutablePointer(mutating: params), f) else { return nil }
    let key = name.withMemoryRebound(to: UInt8.self, capacity: 1) { ByteSpan(start: $0, count: strlen(name)) }
    guard let i = lookupParam(key, in: UnsafeBufferPointer(start: pairs, count: count), pathCount: path) else { return nil }
    valueLength?.pointee = params[i].value_len
    return params[i].value
}

@c(lr_router_resolve_packed)
public func lr_router_resolve_packed(_ r: Handle?, _ url: CString?, _ urlLength: Int, _ buf: UnsafeMutableRawPointer?,
                                     _ cap: Int, _ needed: UnsafeMutablePointer<Int>?) -> Int32 {
    // Set first, so that it is set on every return: 0 unless a buffer is asked for. An LR_ELIMIT that a limit
    // caused (no buffer cures it) leaves 0, which is <= cap: *needed > cap tells a short buffer apart.
    needed?.pointee = 0
    return guarded { () throws(RouterError) in
        let f: StaticString = "lr_router_resolve_packed"
        let url = try bytes(url, length: urlLength, "url", f)
        guard cap >= 0 else { throw RouterError(.misuse, "\(f): capacity out of range") }
        // As resolve_into's buffers: NULL goes with a zero capacity only (a size query).
        guard buf != nil || cap == 0 else { throw RouterError(.misuse, "\(f): buf is NULL but cap is \(cap)") }
        var out = ByteWriter(base: buf?.assumingMemoryBound(to: UInt8.self), capacity: cap)
        let matched = try withRouter(r, f) { router throws(RouterError) in try router.resolvePacked(url, into: &out) }
        guard matched else { return 1 }
        needed?.pointee = out.count
        if out.overflowed {
            throw RouterError(.limit, "\(f): buffer of \(cap) bytes too small: need \(out.count)")
        }
        return 0
    }
}

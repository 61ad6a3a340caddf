import LinkRouter

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Exports: versions and errors. Each export checks its arguments, calls the core and maps errors to codes.

@c(lr_version_number)
public func lr_version_number() -> Int32 { Int32(LinkRouterVersion.number) }

@c(lr_errstr)
public func lr_errstr(_ code: Int32) -> UnsafePointer<CChar> {
    let text: StaticString
    switch code {
    case 0: text = "ok"
    case 1: text = "no match"
    case -1: text = "misuse (NULL handle or argument, or an argument out of range)"
    case -2: text = "invalid URL or text (not an absolute URL, or not UTF-8)"
    case -3: text = "malformed pattern or template"
    case -4: text = "conflicting route"
    case -5: text = "invalid regex"
    case -6: text = "limit exceeded"
    case -7: text = "not found"
    case -8: text = "malformed route table"
    case -9: text = "I/O error"
    case -10: text = "out of memory"
    case 2: text = "deferred by a guard"
    case -11: text = "denied by a guard"
    case -12: text = "timed out waiting for the handler's reply"
    case -13: text = "reply already completed or unknown"
    case -14: text = "handler failed"
    default: text = "unknown status code"
    }
    return UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}

@c(lr_last_error)
public func lr_last_error() -> UnsafePointer<CChar> { ThreadState.lastError }

@c(lr_string_free)
public func lr_string_free(_ s: UnsafeMutablePointer<CChar>?) { free(s) }

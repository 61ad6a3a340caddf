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
    let text = RouterError.Code.text(ofStatus: code)
    return UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}

@c(lr_last_error)
public func lr_last_error() -> UnsafePointer<CChar> { ThreadState.lastError }

@c(lr_last_error_offset)
public func lr_last_error_offset() -> Int64 { Int64(ThreadState.lastErrorOffset) }

@c(lr_string_free)
public func lr_string_free(_ s: UnsafeMutablePointer<CChar>?) { free(s) }

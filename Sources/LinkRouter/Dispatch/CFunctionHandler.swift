#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A synchronous handler written in C (`lr_handler.call`), kept as its function pointer and called as it is:
/// the open passes the match's record (the `lr_match *`) and the caller's raw context and gets back a pointer
/// or a status. A closure returning `(any Sendable)?` would box the pointer, and the C skin would cast it back,
/// for every open; this way `lr_router_open` costs resolve plus the call (issue 11, the bench's open ÷ resolve).
package struct CFunctionHandler: @unchecked Sendable {
    // SAFETY: the function and its user data are the C caller's, who registers them to be called from any thread
    // (Include/linkrouter.h, "Opening URLs"); the library never dereferences the user data.
    package typealias Function = @convention(c) (
        OpaquePointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?,
        UnsafeMutablePointer<UnsafeMutableRawPointer?>?, UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Int32

    let function: Function
    let userData: UnsafeMutableRawPointer?
    /// Whatever must live while the handler can be called (the C skin's user data with its release function);
    /// nil when nothing does (no release function: the function and its user data outlive any registration).
    let owner: AnyObject?

    package init(_ function: @escaping Function, userData: UnsafeMutableRawPointer?, owner: AnyObject?) {
        self.function = function
        self.userData = userData
        self.owner = owner
    }

    /// Calls the function on `match`: its result, or its negative status with its message.
    @inline(__always)
    func call(_ record: UnsafeRawPointer, _ context: UnsafeMutableRawPointer?) -> Result<CPointer, CStatusError> {
        CFunctionHandler.call(function, userData, record, context)
    }

    @inline(__always)
    static func call(_ function: Function, _ userData: UnsafeMutableRawPointer?, _ record: UnsafeRawPointer,
                     _ context: UnsafeMutableRawPointer?) -> Result<CPointer, CStatusError> {
        let (rc, result, text) = callReturningStatus(function, userData, record, context)
        if rc >= 0 { return .success(CPointer(raw: result)) }
        return .failure(failure(rc, text))
    }

    /// Calls the function on `match`: its status, result and message, as it gave them.
    @inline(__always)
    static func callReturningStatus(_ function: Function, _ userData: UnsafeMutableRawPointer?, _ record: UnsafeRawPointer,
                                    _ context: UnsafeMutableRawPointer?) -> (Int32, UnsafeMutableRawPointer?, UnsafePointer<CChar>?) {
        var result: UnsafeMutableRawPointer?
        var text: UnsafePointer<CChar>?
        let rc = function(OpaquePointer(record), context, userData, &result, &text)
        return (rc, result, text)
    }

    /// The error of a negative status `rc` with the handler's message `text` (read now).
    static func failure(_ rc: Int32, _ text: UnsafePointer<CChar>?) -> CStatusError {
        CStatusError(code: rc, message: cMessage(text) ?? "the handler failed with status \(rc)")
    }

    /// This handler with its owner retained by hand, as plain values: the direct open carries it out of the
    /// snapshot it was found in without reference-counted copies, and releases the owner after the call. A
    /// handler with no owner costs no retain and no release.
    struct Retained {
        let function: Function
        let userData: UnsafeMutableRawPointer?
        let owner: Unmanaged<AnyObject>?

        @inline(__always)
        func callReturningStatus(_ record: UnsafeRawPointer, _ context: UnsafeMutableRawPointer?)
            -> (Int32, UnsafeMutableRawPointer?, UnsafePointer<CChar>?) {
            CFunctionHandler.callReturningStatus(function, userData, record, context)
        }
    }

    @inline(__always) var retained: Retained {
        Retained(function: function, userData: userData, owner: owner.map { .passRetained($0) })
    }

    /// This handler as plain values, its owner unretained: kept beside the handler (`TargetHandlers`), which
    /// holds the owner, so that the direct open reads it with no reference counting but the owner's retain.
    struct Unowned: @unchecked Sendable {
        // SAFETY: as the handler's: the function and user data are the C caller's, the owner is only retained.
        let function: Function
        let userData: UnsafeMutableRawPointer?
        let owner: Unmanaged<AnyObject>?

        @inline(__always) var retained: Retained { Retained(function: function, userData: userData, owner: owner?.retain()) }
    }

    var unowned: Unowned { Unowned(function: function, userData: userData, owner: owner.map { .passUnretained($0) }) }
}

/// A C pointer carried through Swift as a value: an open's context, a C handler's result. The library never
/// dereferences it.
package struct CPointer: @unchecked Sendable {
    // SAFETY: only handed back to C as it came; never dereferenced by the library.
    package let raw: UnsafeMutableRawPointer?

    package init(raw: UnsafeMutableRawPointer?) { self.raw = raw }
}

/// A negative status from a C handler or reply, kept as it came so that `lr_router_open` returns it.
package struct CStatusError: Error, CustomStringConvertible {
    package let code: Int32
    package let message: String
    package var description: String { message }

    package init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }
}

/// The C string a callback set through its `const char **message` argument, copied; nil when it set none.
package func cMessage(_ p: UnsafePointer<CChar>?) -> String? {
    guard let p else { return nil }
    let span = ByteSpan(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p))
    return span.isValidUTF8 ? span.string : "(a message that is not UTF-8)"
}

// MARK: - UTF-8

/// Strict UTF-8 validation (no overlong forms, no surrogates, nothing above U+10FFFF).
func isValidUTF8(_ p: UnsafePointer<UInt8>?, _ n: Int) -> Bool {
    guard let p else { return n == 0 }
    var i = 0
    // Eight ASCII bytes at a time: the common case for URLs.
    while i &+ 8 <= n && UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
        i &+= 8
    }
    var check = UTF8Check()
    while i < n {
        check.feed(p[i])
        i &+= 1
    }
    return check.isComplete
}

/// A streaming strict UTF-8 check (no overlong forms, no surrogates, nothing above U+10FFFF).
struct UTF8Check {
    private var need = 0
    private var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
    private var valid = true

    /// True when every byte fed so far forms complete, valid UTF-8.
    var isComplete: Bool { valid && need == 0 }
    /// False once a byte could not continue or start a sequence.
    var isValid: Bool { valid }

    mutating func feed(_ b: UInt8) {
        guard valid else { return }
        if need > 0 {
            guard b >= lo && b <= hi else { valid = false; return }
            lo = 0x80
            hi = 0xBF
            need &-= 1
            return
        }
        switch b {
        case 0x00...0x7F: return
        case 0xC2...0xDF: need = 1
        case 0xE0: need = 2; lo = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: need = 2
        case 0xED: need = 2; hi = 0x9F
        case 0xF0: need = 3; lo = 0x90
        case 0xF1...0xF3: need = 3
        case 0xF4: need = 3; hi = 0x8F
        default: valid = false
        }
    }
}

/// Where `p[0 ..< n]` stops being valid UTF-8: the offset of the first byte of the first sequence that is not
/// (a truncated one at the end included); nil when all of it is valid. For messages: not on a hot path.
func firstInvalidUTF8(_ p: UnsafePointer<UInt8>?, _ n: Int) -> Int? {
    guard let p else { return nil }
    var check = UTF8Check()
    var sequenceStart = 0
    for i in 0..<n {
        if check.isComplete { sequenceStart = i }
        check.feed(p[i])
        if !check.isValid { return sequenceStart }
    }
    return check.isComplete ? nil : sequenceStart
}

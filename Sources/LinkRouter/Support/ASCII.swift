enum ASCII {
    static let percent: UInt8 = 0x25  // %
    static let ampersand: UInt8 = 0x26  // &
    static let asterisk: UInt8 = 0x2A  // *
    static let plus: UInt8 = 0x2B  // +
    static let minus: UInt8 = 0x2D  // -
    static let dot: UInt8 = 0x2E  // .
    static let slash: UInt8 = 0x2F  // /
    static let zero: UInt8 = 0x30  // 0
    static let colon: UInt8 = 0x3A  // :
    static let equals: UInt8 = 0x3D  // =
    static let question: UInt8 = 0x3F  // ?
    static let at: UInt8 = 0x40  // @
    static let hash: UInt8 = 0x23  // #
    static let dollar: UInt8 = 0x24  // $
    static let backslash: UInt8 = 0x5C  // \
    static let openBracket: UInt8 = 0x5B  // [
    static let closeBracket: UInt8 = 0x5D  // ]
    static let openBrace: UInt8 = 0x7B  // {
    static let closeBrace: UInt8 = 0x7D  // }
    static let underscore: UInt8 = 0x5F  // _
    static let tilde: UInt8 = 0x7E  // ~

    @inline(__always) static func isAlpha(_ b: UInt8) -> Bool { (b | 0x20) &- 0x61 < 26 }
    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }
    @inline(__always) static func isAlphaNumeric(_ b: UInt8) -> Bool { isAlpha(b) || isDigit(b) }
    /// `name = 1*( ALPHA / DIGIT / "_" )` of a pattern parameter.
    @inline(__always) static func isNameByte(_ b: UInt8) -> Bool { isAlphaNumeric(b) || b == underscore }
    /// RFC 3986 scheme characters after the first letter (ALPHA / DIGIT / "+" / "-" / "."), as a bit test in a
    /// 128-bit set rather than five comparisons: every lookup's URL scan runs it on each byte of the scheme.
    @inline(__always) static func isSchemeByte(_ b: UInt8) -> Bool {
        let low: UInt64 = 0x03FF_6800_0000_0000  // "+" 0x2B, "-" 0x2D, "." 0x2E, "0"..."9" 0x30...0x39
        let high: UInt64 = 0x07FF_FFFE_07FF_FFFE  // "A"..."Z" 0x41...0x5A, "a"..."z" 0x61...0x7A
        return b < 128 && ((b < 64 ? low : high) &>> UInt64(b & 63)) & 1 != 0
    }
    /// RFC 3986 unreserved set: what `$$` leaves as it is.
    @inline(__always) static func isUnreserved(_ b: UInt8) -> Bool {
        isAlphaNumeric(b) || b == minus || b == dot || b == underscore || b == tilde
    }
    @inline(__always) static func lowercased(_ b: UInt8) -> UInt8 { b &- 0x41 < 26 ? b | 0x20 : b }

    /// The value of a hex digit, or 0xFF.
    @inline(__always) static func hexValue(_ b: UInt8) -> UInt8 {
        if b &- 0x30 < 10 { return b &- 0x30 }
        let l = b | 0x20
        if l &- 0x61 < 6 { return l &- 0x61 &+ 10 }
        return 0xFF
    }

    @inline(__always) static func upperHex(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 &+ nibble : 0x41 &+ (nibble &- 10)
    }
}

extension String {
    var lowercasedASCII: String {
        String(decoding: utf8.map(ASCII.lowercased), as: UTF8.self)
    }
}

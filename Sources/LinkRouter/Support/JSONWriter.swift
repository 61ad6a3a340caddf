/// A small JSON writer (no Foundation): objects, arrays and strings, written in one pass.
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []
    private var needsComma = false

    package init() {}

    package mutating func beginObject() { separator(); bytes.append(ASCII.openBrace); needsComma = false }
    package mutating func endObject() { bytes.append(ASCII.closeBrace); needsComma = true }
    package mutating func beginArray() { separator(); bytes.append(ASCII.openBracket); needsComma = false }
    package mutating func endArray() { bytes.append(ASCII.closeBracket); needsComma = true }

    package mutating func key(_ k: String) {
        separator()
        writeString(Array(k.utf8))
        bytes.append(ASCII.colon)
        needsComma = false
    }

    package mutating func string(_ s: String) { separator(); writeString(Array(s.utf8)); needsComma = true }

    package mutating func string(_ s: ByteSpan) { separator(); writeString(Array(s.buffer)); needsComma = true }

    package mutating func raw(_ text: String) { separator(); bytes.append(contentsOf: text.utf8); needsComma = true }

    /// Writes `v`, however deep, with an explicit stack of what is left to write (no recursion).
    package mutating func value(_ v: ParamValue) {
        enum Pending { case value(ParamValue), key(String), endArray, endObject }
        var pending: [Pending] = [.value(v)]
        while let next = pending.popLast() {
            switch next {
            case .key(let k): key(k)
            case .endArray: endArray()
            case .endObject: endObject()
            case .value(.string(let s)): string(s)
            case .value(.list(let items)):
                beginArray()
                pending.append(.endArray)
                for item in items.reversed() { pending.append(.value(item)) }
            case .value(.object(let entries)):
                beginObject()
                pending.append(.endObject)
                for (k, item) in entries.reversed() {
                    pending.append(.value(item))
                    pending.append(.key(k))
                }
            }
        }
    }

    package var text: String { String(decoding: bytes, as: UTF8.self) }

    private mutating func separator() {
        if needsComma { bytes.append(0x2C) }
    }

    /// Escapes `"`, `\` and control characters; other bytes are already valid UTF-8 and go as they are.
    private mutating func writeString(_ s: [UInt8]) {
        bytes.append(0x22)
        for b in s {
            switch b {
            case 0x22: bytes.append(contentsOf: [ASCII.backslash, 0x22])
            case ASCII.backslash: bytes.append(contentsOf: [ASCII.backslash, ASCII.backslash])
            case 0x0A: bytes.append(contentsOf: [ASCII.backslash, 0x6E])
            case 0x0D: bytes.append(contentsOf: [ASCII.backslash, 0x72])
            case 0x09: bytes.append(contentsOf: [ASCII.backslash, 0x74])
            case 0..<0x20, 0x7F:
                bytes.append(contentsOf: [ASCII.backslash, 0x75, 0x30, 0x30, ASCII.upperHex(b >> 4), ASCII.upperHex(b & 0xF)])
            default: bytes.append(b)
            }
        }
        bytes.append(0x22)
    }
}

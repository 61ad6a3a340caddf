/// A small JSON writer (no Foundation): objects, arrays and strings, written in one pass. Compact by default;
/// `JSONWriter(indent: 2)` writes one member or item per line, indented (exported route tables).
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []
    private var needsComma = false
    /// Spaces per level; 0: compact.
    private let indent: Int
    private var depth = 0
    /// Pretty mode: a key was just written (its value stays on its line), or a container is still empty.
    private var afterKey = false
    private var openEmpty = false

    package init(indent: Int = 0) { self.indent = indent }

    package mutating func beginObject() { open(ASCII.openBrace) }
    package mutating func endObject() { close(ASCII.closeBrace) }
    package mutating func beginArray() { open(ASCII.openBracket) }
    package mutating func endArray() { close(ASCII.closeBracket) }

    private mutating func open(_ bracket: UInt8) {
        separator()
        bytes.append(bracket)
        needsComma = false
        depth += 1
        openEmpty = true
    }

    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        if indent > 0 && !openEmpty { newline() }
        bytes.append(bracket)
        needsComma = true
        openEmpty = false
    }

    package mutating func key(_ k: String) {
        separator()
        writeString(Array(k.utf8))
        bytes.append(ASCII.colon)
        if indent > 0 {
            bytes.append(0x20)
            afterKey = true
        }
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
        if indent > 0 && afterKey {
            afterKey = false
            return
        }
        if needsComma { bytes.append(0x2C) }
        if indent > 0 && depth > 0 { newline() }
        openEmpty = false
    }

    private mutating func newline() {
        bytes.append(0x0A)
        bytes.append(contentsOf: repeatElement(0x20, count: indent * depth))
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

/// `text` kept on one line: control characters escaped (`\n`, `\r`, `\t`, else `\u00XX`; DEL too), so that
/// text for people (a table problem, an explanation, the CLI's lines) cannot break a line or forge the next one
/// with what a URL or a table file holds. Other characters, backslashes included, are kept as they are.
package func oneLine(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return text }
    var out = ""
    for scalar in text.unicodeScalars {
        switch scalar.value {
        case 0x0A: out += "\\n"
        case 0x0D: out += "\\r"
        case 0x09: out += "\\t"
        case 0..<0x20, 0x7F:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out
}

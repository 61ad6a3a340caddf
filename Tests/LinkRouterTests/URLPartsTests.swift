import XCTest
@testable import LinkRouter

#if canImport(Glibc)
import Glibc
#endif

/// `URLParts.scan` (eight bytes per step, bit tricks) against a byte-by-byte reference written from its contract,
/// on every field, over a table of URLs and seeded random URL-ish texts. Each text is placed against a no-access
/// page, once ending at it and once starting after it, so a read outside the URL's bytes crashes the test.
final class URLPartsTests: XCTestCase {
    /// Every field of `URLParts`, or nil for "no scheme and one was required".
    struct Fields: Equatable, CustomStringConvertible {
        var offsets: [Int]  // scheme, authority, host, port, path, query, fragment bounds
        var flags: [Bool]  // hasAuthority, hasQuery, hasFragment, isASCII, hostHasPercent, hostHasUppercase, schemeHasUppercase, pathSegmentsByBits
        var pathSlashes: UInt64

        init(_ p: URLParts) {
            offsets = [p.schemeEnd, p.authorityStart, p.authorityEnd, p.hostStart, p.hostEnd, p.portStart, p.portEnd,
                       p.pathStart, p.pathEnd, p.queryStart, p.queryEnd, p.fragmentStart, p.fragmentEnd]
            flags = [p.hasAuthority, p.hasQuery, p.hasFragment, p.isASCII, p.hostHasPercent, p.hostHasUppercase,
                     p.schemeHasUppercase, p.pathSegmentsByBits]
            pathSlashes = p.pathSlashes
        }

        init(offsets: [Int], flags: [Bool], pathSlashes: UInt64) {
            self.offsets = offsets
            self.flags = flags
            self.pathSlashes = pathSlashes
        }

        var description: String { "offsets \(offsets) flags \(flags.map { $0 ? 1 : 0 }) slashes \(String(pathSlashes, radix: 2))" }
    }

    /// The contract, one byte at a time.
    static func reference(_ b: [UInt8], requireScheme: Bool) -> Fields? {
        let n = b.count
        func isAlpha(_ c: UInt8) -> Bool { (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) }
        func isUpper(_ c: UInt8) -> Bool { c >= 0x41 && c <= 0x5A }
        func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        func isSchemeByte(_ c: UInt8) -> Bool { isAlpha(c) || isDigit(c) || c == 0x2B || c == 0x2D || c == 0x2E }
        func first(_ set: [Character], from: Int) -> Int {
            let bytes = set.map { $0.asciiValue! }
            var k = from
            while k < n && !bytes.contains(b[k]) { k += 1 }
            return k
        }
        if n == 0 {  // nothing scanned: every field as `URLParts()` has it
            return requireScheme ? nil : Fields(URLParts())
        }
        var schemeEnd = 0, i = 0, schemeUpper = false
        if n > 0 && isAlpha(b[0]) {
            var k = 1
            while k < n && isSchemeByte(b[k]) { k += 1 }
            if k < n && b[k] == 0x3A {
                schemeEnd = k
                schemeUpper = b[0..<k].contains(where: isUpper)
                i = k + 1
            }
        }
        if schemeEnd == 0 && requireScheme { return nil }
        var auth = (start: 0, end: 0, host: 0, hostEnd: 0, port: 0, portEnd: 0)
        var hasAuthority = false, hostPercent = false, hostUpper = false
        if i + 1 < n && b[i] == 0x2F && b[i + 1] == 0x2F {
            hasAuthority = true
            let start = i + 2, end = first(["/", "?", "#"], from: start)
            hostUpper = b[start..<end].contains(where: isUpper)
            var host = start
            if let at = b[start..<end].lastIndex(of: 0x40) { host = at + 1 }
            var hostEnd = end, port = end
            func digits(_ from: Int) -> Bool { b[from..<end].allSatisfy(isDigit) }
            if host < end && b[host] == 0x5B {
                if let close = b[host..<end].firstIndex(of: 0x5D) {
                    if close + 1 < end && b[close + 1] == 0x3A && digits(close + 2) {
                        hostEnd = close + 1
                        port = close + 2
                    }
                }
            } else if let colon = b[host..<end].lastIndex(of: 0x3A), digits(colon + 1) {
                hostEnd = colon
                port = colon + 1
            }
            hostPercent = b[host..<hostEnd].contains(0x25)
            auth = (start, end, host, hostEnd, port, end)
            i = end
        }
        let pathStart = i, pathEnd = first(["?", "#"], from: i)
        var slashes: UInt64 = 0
        for j in 0..<min(pathEnd - pathStart, 64) where b[pathStart + j] == 0x2F { slashes |= 1 << UInt64(j) }
        let byBits = pathEnd - pathStart < 64 && !b[pathStart..<pathEnd].contains(0x25)
        i = pathEnd
        var query = (0, 0), fragment = (0, 0), hasQuery = false, hasFragment = false
        if i < n && b[i] == 0x3F {
            hasQuery = true
            query = (i + 1, first(["#"], from: i + 1))
            i = query.1
        }
        if i < n && b[i] == 0x23 {
            hasFragment = true
            fragment = (i + 1, n)
        }
        let ascii = b.allSatisfy { $0 < 0x80 }
        return Fields(offsets: [schemeEnd, auth.start, auth.end, auth.host, auth.hostEnd, auth.port, auth.portEnd,
                                pathStart, pathEnd, query.0, query.1, fragment.0, fragment.1],
                      flags: [hasAuthority, hasQuery, hasFragment, ascii, hostPercent, hostUpper, schemeUpper, byBits],
                      pathSlashes: slashes)
    }

    /// Three pages, the outer two without access: a text placed at the end of the middle page, or at its start.
    final class Fence {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let base: UnsafeMutableRawPointer

        init() {
            base = mmap(nil, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            mprotect(base, page, PROT_NONE)
            mprotect(base + 2 * page, page, PROT_NONE)
        }

        deinit { munmap(base, 3 * page) }

        /// Scans `bytes` copied to `p`, into a `URLParts` that holds another URL's fields beforehand.
        func scan(_ bytes: [UInt8], atEnd: Bool, requireScheme: Bool, dirty: URLParts) -> Fields? {
            precondition(bytes.count <= page)
            let p = (base + (atEnd ? 2 * page - bytes.count : page)).assumingMemoryBound(to: UInt8.self)
            p.update(from: bytes, count: bytes.count)
            var parts = dirty
            let span = ByteSpan(start: bytes.isEmpty && atEnd ? nil : UnsafePointer(p), count: bytes.count)
            return parts.scan(span, requireScheme: requireScheme) ? Fields(parts) : nil
        }
    }

    /// A filled-in `URLParts` to scan over: `scan` must set every field, whatever was there.
    static let dirty: URLParts = {
        let text = Array("HTTPS://u@[::1]:80/a%2F/b/?q=1#f\u{e9}".utf8)
        return text.withUnsafeBufferPointer { URLParts.parse(ByteSpan(start: $0.baseAddress, count: $0.count))! }
    }()

    func check(_ bytes: [UInt8], _ fence: Fence, file: StaticString = #filePath, line: UInt = #line) {
        for requireScheme in [true, false] {
            let expected = Self.reference(bytes, requireScheme: requireScheme)
            for atEnd in [true, false] {
                for dirty in [URLParts(), Self.dirty] {
                    let got = fence.scan(bytes, atEnd: atEnd, requireScheme: requireScheme, dirty: dirty)
                    if got != expected {
                        XCTFail("\(bytes) requireScheme \(requireScheme): got \(got.map(\.description) ?? "nil"), "
                                + "expected \(expected.map(\.description) ?? "nil")", file: file, line: line)
                        return
                    }
                }
            }
        }
    }

    static let table: [String] = [
        "", "a", "a:", ":", "a:b", "1a:b", "ab", "//", "/", "?", "#", "a:/", "a://", "a:///", "a:////x",
        "app://module0/res0/4711/items/abc-123", "https://api.github.com/repos/octocat/hello/issues/42",
        "gh://get/repos/octocat/Hello-World/events", "bench://user/1234567",
        "HTTP://Example.COM/Path", "hTtP+s.v-1://x", "a+b://h", "x.y-z+1:rest", "a_b://h", "a b://h", "ab%3A://h",
        "https://user:pw@host:8080/p?q=1#frag", "https://u@h@g:x/p", "https://h:/p", "https://h:12a/p",
        "https://[::1]:8080/x", "https://[::1]/x", "https://[::1]x/x", "https://[::1:8080/x", "https://u@[v6]:9",
        "https://h%41st/x", "https://u%40@h/x", "https://H%41@h/x", "http://h?q", "http://h#f", "http://h?q#f?g#h",
        "app:?q", "app:#f", "app:path/no/authority", "www.example.com/a?b", "/relative/path?x#y", "?only", "#only",
        "app://h/a%20b", "app://h//double//", "app://h/trailing/", "app://h/caf\u{e9}", "app://h\u{e9}/x",
        "app://h/x?caf\u{e9}", "app://h/x#caf\u{e9}", "\u{e9}://h", "a\u{e9}://h", "app://h/x\0y", "a\0://h",
        "app://\0/x", "\0", "app:\0", "abcdefg:", "abcdefgh:", "abcdefghi://h/", "abcdefghijklmnop://h",
        "Abcdefghijklmnopq://h", "abcdefgH:x", "abcdefghI:x",
        "app://" + String(repeating: "a", count: 58) + "/x", "app://h/" + String(repeating: "b/", count: 40),
        "app://h" + String(repeating: "/c", count: 31) + "?q", "app://h" + String(repeating: "/c", count: 32) + "?q",
        "app://h/" + String(repeating: "d", count: 62) + "%", "app://h/" + String(repeating: "d", count: 63) + "%",
        "app://h/" + String(repeating: "d", count: 64) + "%",
    ]

    func testTable() {
        let fence = Fence()
        for url in Self.table { check(Array(url.utf8), fence) }
    }

    /// Lengths 0 ... 140 around each cut (8, 16, 64 bytes), with every delimiter the scan looks for.
    func testRandom() {
        let fence = Fence()
        var rng = SplitMix64(seed: 0x5CA9_1234)
        let pieces: [[UInt8]] = [
            "a", "z", "A", "Z", "0", "9", "-", ".", "+", "_", "~", ":", "/", "/", "/", "?", "#", "%", "@", "[", "]",
            " ", "\0", "\u{e9}", "://", "//", "http", "app", "HTTPS", "host", "8080", "%2F", "[::1]", "user@",
        ].map { Array($0.utf8) } + [[0xFF], [0x80], [0x7F], [0x60], [0x7B], [0x40], [0x5B], [0x2F, 0x2F]]
        for round in 0..<40_000 {
            var bytes: [UInt8] = []
            let target = Int(rng.next() % (round % 4 == 0 ? 141 : 40))
            if rng.next() % 2 == 0 { bytes += Array(["app://", "https://", "a:", "Ab+1.-://", "x//"][Int(rng.next() % 5)].utf8) }
            while bytes.count < target {
                if rng.next() % 3 == 0 {
                    bytes.append(UInt8(truncatingIfNeeded: 0x61 + rng.next() % 26))
                } else {
                    bytes += pieces[Int(rng.next() % UInt64(pieces.count))]
                }
            }
            check(bytes, fence)
        }
    }
}

/// A small seeded generator, so that a failure repeats.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

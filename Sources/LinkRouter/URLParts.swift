/// The components of a URL, as byte offsets into its UTF-8 text, found in one pass.
///
/// `scheme ":" ["//" authority] path ["?" query] ["#" fragment]` (RFC 3986 §3), parsed leniently:
/// spaces and raw UTF-8 are kept as they come from real apps, and a port that is not all digits is
/// taken as part of the host. Nothing is decoded or copied here.
package struct URLParts {
    /// Offsets are `Int` half-open ranges into the URL's bytes.
    package var schemeEnd = 0  // scheme = 0..<schemeEnd (0: none)
    package var hasAuthority = false
    package var hostStart = 0, hostEnd = 0
    package var portStart = 0, portEnd = 0
    package var pathStart = 0, pathEnd = 0
    package var hasQuery = false
    package var queryStart = 0, queryEnd = 0
    package var hasFragment = false
    package var fragmentStart = 0, fragmentEnd = 0

    package var hasScheme: Bool { schemeEnd > 0 }
    package var hostCount: Int { hostEnd &- hostStart }
    package var hasPort: Bool { portEnd > portStart }

    /// Parses `url`; nil when `requireScheme` and the text does not start with `scheme ":"`.
    /// Without `requireScheme` a text with no scheme is read as a relative reference (path, query, fragment),
    /// which is what the rewrite engine's `$path`, `$query`... see for a URL such as `www.example.com/a?b`.
    @inline(__always)
    package static func parse(_ url: ByteSpan, requireScheme: Bool = true) -> URLParts? {
        var parts = URLParts()
        let n = url.count
        guard let p = url.start, n > 0 else { return requireScheme ? nil : parts }

        // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"
        var i = 0
        if ASCII.isAlpha(p[0]) {
            i = 1
            while i < n && ASCII.isSchemeByte(p[i]) { i &+= 1 }
            if i < n && p[i] == ASCII.colon {
                parts.schemeEnd = i
                i &+= 1
            } else {
                i = 0
            }
        }
        if parts.schemeEnd == 0 && requireScheme { return nil }

        // "//" authority
        if i &+ 1 < n && p[i] == ASCII.slash && p[i &+ 1] == ASCII.slash {
            parts.hasAuthority = true
            let authorityStart = i &+ 2
            var end = authorityStart
            while end < n {
                let b = p[end]
                if b == ASCII.slash || b == ASCII.question || b == ASCII.hash { break }
                end &+= 1
            }
            parts.splitAuthority(p, authorityStart, end)
            i = end
        }

        parts.pathStart = i
        while i < n {
            let b = p[i]
            if b == ASCII.question || b == ASCII.hash { break }
            i &+= 1
        }
        parts.pathEnd = i

        if i < n && p[i] == ASCII.question {
            parts.hasQuery = true
            i &+= 1
            parts.queryStart = i
            while i < n && p[i] != ASCII.hash { i &+= 1 }
            parts.queryEnd = i
        }
        if i < n && p[i] == ASCII.hash {
            parts.hasFragment = true
            parts.fragmentStart = i &+ 1
            parts.fragmentEnd = n
        }
        return parts
    }

    /// `[ userinfo "@" ] host [ ":" port ]`, with `[v6]` hosts kept whole.
    @inline(__always)
    private mutating func splitAuthority(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) {
        var hostStart = start
        var k = end
        while k > start {  // the last "@" ends the userinfo
            k &-= 1
            if p[k] == ASCII.at {
                hostStart = k &+ 1
                break
            }
        }
        var hostEnd = end
        var portStart = end
        if hostStart < end && p[hostStart] == ASCII.openBracket {
            var j = hostStart
            while j < end && p[j] != ASCII.closeBracket { j &+= 1 }
            if j < end {
                hostEnd = j &+ 1
                if hostEnd < end && p[hostEnd] == ASCII.colon && allDigits(p, hostEnd &+ 1, end) {
                    portStart = hostEnd &+ 1
                } else {
                    hostEnd = end
                }
            }
        } else {
            var j = end
            while j > hostStart {
                j &-= 1
                if p[j] == ASCII.colon {
                    if allDigits(p, j &+ 1, end) {
                        hostEnd = j
                        portStart = j &+ 1
                    }
                    break
                }
            }
        }
        self.hostStart = hostStart
        self.hostEnd = hostEnd
        self.portStart = portStart
        self.portEnd = end
    }

    @inline(__always)
    private func allDigits(_ p: UnsafePointer<UInt8>, _ from: Int, _ to: Int) -> Bool {
        var j = from
        while j < to {
            if !ASCII.isDigit(p[j]) { return false }
            j &+= 1
        }
        return true
    }

    // MARK: Spans

    @inline(__always) package func scheme(in url: ByteSpan) -> ByteSpan { slice(url, 0, schemeEnd) }
    @inline(__always) package func host(in url: ByteSpan) -> ByteSpan { slice(url, hostStart, hostEnd) }
    @inline(__always) package func port(in url: ByteSpan) -> ByteSpan { slice(url, portStart, portEnd) }
    @inline(__always) package func path(in url: ByteSpan) -> ByteSpan { slice(url, pathStart, pathEnd) }
    @inline(__always) package func query(in url: ByteSpan) -> ByteSpan {
        hasQuery ? slice(url, queryStart, queryEnd) : .empty
    }
    @inline(__always) package func fragment(in url: ByteSpan) -> ByteSpan {
        hasFragment ? slice(url, fragmentStart, fragmentEnd) : .empty
    }

    @inline(__always) private func slice(_ url: ByteSpan, _ from: Int, _ to: Int) -> ByteSpan {
        guard to > from, let s = url.start else { return .empty }
        return ByteSpan(start: s + from, count: to &- from)
    }
}

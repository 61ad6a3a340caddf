import XCTest
@testable import LinkRouter

/// The direct match (Table/RouteTable+Direct.swift, with the quick lane's second try for a query) answers exactly
/// what the scan and the walk answer (route, values, URL parts), and answers nothing (nil) for every URL or route
/// it leaves to them.
final class DirectMatchTests: XCTestCase {
    static let routes = [
        "app://user/:id", "app://user/:id/posts", "app://user/me", "app://user/me/settings", "app://files/*rest",
        "app://n/:id<int>", "app://n/:name", "app://u/:id<uint>/x", "app://img/{name}.png", "app://:object/:id",
        "https://www.example.com/p/:id", "app://host:8080/port", "*://any/:thing", "app://a/b/c/d/e/f/g/h/i/j",
        "app://deep/*", "app://two/x", "app://two/y", "app://two/y/:z", "app://longhostname.example/aaaaaaaaaaaaaaaaaaaa/:v",
    ]

    /// (url, the target the direct match answers with, nil when it leaves the URL to the scan and the walk)
    static let cases: [(String, String?, UInt)] = [
        ("app://user/42", "app://user/:id", #line),
        ("app://user/me", "app://user/me", #line),  // a static route, reached by the descent
        ("app://user/me/settings", "app://user/me/settings", #line),
        ("app://user/42/posts", "app://user/:id/posts", #line),
        ("app://user/42/", "app://user/:id", #line),  // empty segments skipped, as the walk skips them
        ("app://user//42", "app://user/:id", #line),
        ("app://two/x", "app://two/x", #line),  // two literal children: hashed
        ("app://two/y/3", "app://two/y/:z", #line),
        ("app://n/12", "app://n/:id<int>", #line),  // the inline <int> check
        ("app://n/-12", "app://n/:id<int>", #line),
        ("app://u/7/x", "app://u/:id<uint>/x", #line),
        ("app://thing/9", "app://:object/:id", #line),  // the host as a parameter
        ("app://a/b/c/d/e/f/g/h/i/j", "app://a/b/c/d/e/f/g/h/i/j", #line),
        ("app://deep", "app://deep/*", #line),  // a catch-all that takes nothing
        ("https://www.example.com/p/7", "https://www.example.com/p/:id", #line),  // hashed host, 8+ byte key
        ("app://longhostname.example/aaaaaaaaaaaaaaaaaaaa/v", "app://longhostname.example/aaaaaaaaaaaaaaaaaaaa/:v", #line),
        ("app://n/x", nil, #line),  // <int> refuses: the next edge is checked out of line
        ("app://img/cat.png", nil, #line),  // an in-segment parameter
        ("app://files/a/b", nil, #line),  // a catch-all taking segments
        ("app://deep/x", nil, #line),
        ("app://user/42/nope", nil, #line),  // a dead end: the full search
        ("app://nope", nil, #line),
        ("ftp://any/x", nil, #line),  // no such scheme: `*://` is the walk's
        ("APP://user/42", nil, #line),  // upper case
        ("app://USER/42", nil, #line),
        ("app://host:8080/port", nil, #line),  // a port
        ("app://u@user/42", nil, #line),  // user info
        ("app://user/4%32", nil, #line),  // an escape
        // A query: a "?" ends the path, and the query must be ASCII without "#".
        ("app://user/42?tab=1", "app://user/:id", #line),
        ("app://user/42?", "app://user/:id", #line),
        ("app://user/42/?x=1", "app://user/:id", #line),
        ("app://user//42?x=1&y", "app://user/:id", #line),
        ("app://user/me?x", "app://user/me", #line),
        ("app://n/12?x=/a?b", "app://n/:id<int>", #line),
        ("app://deep/?x", "app://deep/*", #line),
        ("app://user/42?x=%41&b=c+d", "app://user/:id", #line),
        ("app://a/b/c/d/e/f/g/h/i/j?q=1", "app://a/b/c/d/e/f/g/h/i/j", #line),
        ("app://user/42?" + String(repeating: "k=v&", count: 30), "app://user/:id", #line),
        ("app://user/42?x#top", nil, #line),  // a fragment after the query
        ("app://user/42?x=é", nil, #line),  // a query not ASCII
        ("app://user/4%32?x", nil, #line),  // an escape before the "?"
        ("app://user?x", nil, #line),  // the "?" right after the host
        ("app://files/a/b?x", nil, #line),
        ("app://user/42/nope?x", nil, #line),
        ("app://user/42#top", nil, #line),  // a fragment
        ("app://user/a b", nil, #line),  // a space
        ("app://user/é", nil, #line),  // not ASCII
        ("app:user/42", nil, #line),  // no authority
        ("app:///42", nil, #line),  // an empty host
        ("applications://user/42", nil, #line),  // a scheme of more than seven letters
        ("app1://user/42", nil, #line),  // a digit in the scheme
        ("a://b", nil, #line),  // shorter than eight bytes
    ]

    func testDirectMatchAnswersAsTheWalk() throws {
        let r = Router()
        for pattern in Self.routes { try r.add(pattern, target: pattern) }
        for (url, expected, line) in Self.cases {
            try url.withSpan { span in
                r.withState { state in
                    let values = UnsafeMutablePointer<ByteSpan>.allocate(capacity: 32)
                    let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 4096)
                    defer { values.deallocate(); scratch.deallocate() }
                    var direct = URLParts()
                    let found = span.start.flatMap { state.directMatch($0, span.count, &direct, values: values) }
                    XCTAssertEqual(found?.target.string, expected, url, line: line)
                    guard let found else { return }
                    let directValues = (0..<found.paramCount).map { values[$0].string }
                    // The scan and the walk: the same route, values and parts.
                    var parts = URLParts()
                    XCTAssertTrue(parts.scan(span, requireScheme: true), url, line: line)
                    var writer = ByteWriter(base: scratch, capacity: 4096)
                    let walked = try? state.table.match(span, &parts, scratch: &writer, values: values)
                    XCTAssertEqual(walked?.target.string, expected, url, line: line)
                    XCTAssertEqual((0..<found.paramCount).map { values[$0].string }, directValues, url, line: line)
                    for (name, a, b) in [("scheme", direct.scheme(in: span), parts.scheme(in: span)),
                                         ("host", direct.host(in: span), parts.host(in: span)),
                                         ("port", direct.port(in: span), parts.port(in: span)),
                                         ("path", direct.path(in: span), parts.path(in: span)),
                                         ("query", direct.query(in: span), parts.query(in: span)),
                                         ("fragment", direct.fragment(in: span), parts.fragment(in: span))] {
                        XCTAssertEqual(a.string, b.string, "\(url): \(name)", line: line)
                    }
                    XCTAssertEqual(direct.authorityStart, parts.authorityStart, url, line: line)
                    XCTAssertEqual(direct.authorityEnd, parts.authorityEnd, url, line: line)
                    XCTAssertEqual(direct.hasAuthority, parts.hasAuthority, url, line: line)
                    XCTAssertEqual(direct.hasQuery, parts.hasQuery, url, line: line)
                    XCTAssertEqual(direct.hasFragment, parts.hasFragment, url, line: line)
                    XCTAssertEqual([direct.pathStart, direct.pathEnd, direct.queryStart, direct.queryEnd],
                                   [parts.pathStart, parts.pathEnd, parts.queryStart, parts.queryEnd], url, line: line)
                    XCTAssertEqual(direct.isASCII, parts.isASCII, url, line: line)
                    XCTAssertEqual(direct.hostHasUppercase, parts.hostHasUppercase, url, line: line)
                    XCTAssertEqual(direct.schemeHasUppercase, parts.schemeHasUppercase, url, line: line)
                }
            }
        }
    }

    /// Through the public API, every case gives what it gave before the direct match: the same target and
    /// parameters by `resolve` and by the flat lookup.
    func testResolveIsUnchanged() throws {
        let r = Router()
        for pattern in Self.routes { try r.add(pattern, target: pattern) }
        for (url, expected, line) in Self.cases where expected != nil {
            let m = try r.resolve(url)
            XCTAssertEqual(m?.target, expected, url, line: line)
        }
    }
}

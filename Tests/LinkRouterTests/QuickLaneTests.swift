import XCTest
@testable import LinkRouter

/// The quick lane (Lookup/RouterState+Quick.swift) answers exactly what the general pipeline answers, and hands
/// back (`.general`) every case it must: non-ASCII bytes, a rewrite rule, a refusal, too little room, and for
/// a record more than 16 query pairs.
final class QuickLaneTests: XCTestCase {
    static let routes = [
        "app://user/:id", "app://user/:id/posts", "app://user/me", "app://files/*rest", "app://n/:id<int>", "app://n/:name",
        "app://img/{name}.png", "https://www.example.com/p/:id", "app://host:8080/port", "*://any/:thing", "app://sp/a%2Fb",
    ]

    /// (url, whether the flat lane answers it, whether the record lane does)
    static let cases: [(String, Bool, Bool, UInt)] = [
        ("app://user/42", true, true, #line),
        ("app://user/me", true, true, #line),
        ("app://user/42/posts", true, true, #line),
        ("APP://USER/42", true, true, #line),
        ("app://user/4%32", true, true, #line),  // a value decoded into scratch
        ("app://sp/a%2Fb", true, true, #line),
        ("app://files/a//b/", true, true, #line),  // a catch-all joined into scratch
        ("app://files", true, true, #line),
        ("app://n/12", true, true, #line),
        ("app://n/x", true, true, #line),
        ("app://img/cat.png", true, true, #line),
        ("https://WWW.example.com/p/7#top", true, true, #line),
        ("App://%55Ser/42", true, true, #line),  // the scheme and a host with a `%` reported folded (foldHead)
        ("app://host:8080/port", true, true, #line),
        ("ftp://any/x", true, true, #line),
        ("app://nope/1", true, true, #line),  // no match: answered too
        ("app:user/42", true, true, #line),
        ("app://user/42?tab=1", true, true, #line),  // a query: both lanes parse it
        ("app://user/42?id=7&tab=a%20b&&x", true, true, #line),  // a path name wins; decoded; empty pairs
        ("app://user/42?", true, true, #line),
        ("app://nope/1?a=b", true, true, #line),
        ("app://user/42?tab=1#top", true, true, #line),
        ("app://user/42?&&", true, true, #line),  // a query of no pair: the path-only record
        ("app://user/42/?x=1", true, true, #line),
        ("app://user/me?x=%E2%82%AC&y=/a?b", true, true, #line),
        ("app://n/12?x=1", true, true, #line),
        ("app://img/cat.png?x=1", true, true, #line),
        ("app://files/a/b?x=1", true, true, #line),
        // 16 pairs: the record lane's most (the flat lookup here has room for 16 parameters in all); 17: neither.
        ("app://user/42?" + (0..<16).map { "k\($0)=\($0)" }.joined(separator: "&"), false, true, #line),
        ("app://user/42?" + (0..<17).map { "k\($0)=\($0)" }.joined(separator: "&"), false, false, #line),
        ("app://user/é", false, false, #line),  // not ASCII
        ("app://user/42?q=é", false, false, #line),
        ("user/42", false, false, #line),  // not absolute
        ("", false, false, #line),
    ]

    /// One flat lookup through the lane and through the general path, each in its own caller memory.
    struct Flat: Equatable {
        var outcome: String
        var target = "", pattern = "", routed = "", params: [String] = []
    }

    static func flat(_ state: RouterState, _ url: ByteSpan, quick: Bool, scratchCapacity: Int = 4096,
                     paramCapacity: Int = 16) -> Flat {
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: max(scratchCapacity, 1))
        let params = UnsafeMutablePointer<QueryPair>.allocate(capacity: max(paramCapacity, 1))
        let found = UnsafeMutablePointer<FlatMatch>.allocate(capacity: 1)
        defer { scratch.deallocate(); params.deallocate(); found.deallocate() }
        found.initialize(to: FlatMatch())
        var writer = ByteWriter(base: scratch, capacity: scratchCapacity)
        let outcome: String
        if quick {
            switch state.quickFlat(url, scratch: &writer, params: params, capacity: paramCapacity, into: found) {
            case .matched: outcome = "matched"
            case .noMatch: outcome = "noMatch"
            case .general: return Flat(outcome: "general")
            }
        } else {
            switch state.resolveFlat(url, scratch: &writer, params: params, capacity: paramCapacity, into: &found.pointee) {
            case .matched: outcome = "matched"
            case .noMatch: outcome = "noMatch"
            case .needsMemory: outcome = "needsMemory"
            case .failed(let error): outcome = "failed: \(error.message)"
            }
        }
        guard outcome == "matched" else { return Flat(outcome: outcome) }
        let m = found.pointee
        return Flat(outcome: outcome, target: m.target.string, pattern: m.pattern.string, routed: m.routed.string,
                    params: (0..<m.count).map { params[$0].key.string + "=" + params[$0].value.string })
    }

    func router(rewrite: Bool = false) throws -> Router {
        let r = Router()
        for pattern in Self.routes { try r.add(pattern, target: pattern) }
        if rewrite { try r.addRewrite("^old://(.*)$", target: "app://$1") }
        return r
    }

    func testLaneAnswersAsTheGeneralPath() throws {
        let r = try router()
        for (url, answers, _, line) in Self.cases {
            try url.withSpan { span in
                r.withState { state in
                    let quick = Self.flat(state, span, quick: true), general = Self.flat(state, span, quick: false)
                    if answers {
                        XCTAssertNotEqual(quick.outcome, "general", url, line: line)
                        XCTAssertEqual(quick, general, url, line: line)
                    } else {
                        XCTAssertEqual(quick.outcome, "general", url, line: line)
                    }
                }
            }
        }
    }

    /// Whatever the lane would answer, it hands back when the table has a rewrite rule, or the caller's memory is
    /// short (the general path then says what is needed).
    func testLaneHandsBack() throws {
        let plain = try router(), rewriting = try router(rewrite: true)
        for (url, answers, _, line) in Self.cases where answers {
            try url.withSpan { span in
                rewriting.withState { state in
                    XCTAssertEqual(Self.flat(state, span, quick: true).outcome, "general", url, line: line)
                }
                plain.withState { state in
                    let short = LR_SCRATCH(span.count) - 1
                    XCTAssertEqual(Self.flat(state, span, quick: true, scratchCapacity: short).outcome, "general", url, line: line)
                    XCTAssertEqual(Self.flat(state, span, quick: false, scratchCapacity: short).outcome, "needsMemory", url, line: line)
                    let general = Self.flat(state, span, quick: false)
                    if general.params.isEmpty { return }
                    let few = general.params.count - 1
                    XCTAssertEqual(Self.flat(state, span, quick: true, paramCapacity: few).outcome, "general", url, line: line)
                    XCTAssertEqual(Self.flat(state, span, quick: false, paramCapacity: few).outcome, "needsMemory", url, line: line)
                }
            }
        }
    }

    /// Tables the lane leaves alone: routes with 16 parameters or more, routes 16 levels deep or more.
    func testLaneLeavesLargeRoutesToTheGeneralPath() throws {
        let many = Router()
        try many.add("app://m/" + (0..<16).map { ":p\($0)" }.joined(separator: "/"), target: "M")
        let deep = Router()
        try deep.add("app://d/" + (0..<16).map { "s\($0)" }.joined(separator: "/"), target: "D")
        for (r, url) in [(many, "app://m/" + (0..<16).map(String.init).joined(separator: "/")),
                         (deep, "app://d/" + (0..<16).map { "s\($0)" }.joined(separator: "/"))] {
            try url.withSpan { span in
                r.withState { state in
                    XCTAssertEqual(Self.flat(state, span, quick: true).outcome, "general", url)
                    XCTAssertEqual(Self.flat(state, span, quick: false).outcome, "matched", url)
                }
            }
            XCTAssertNotNil(try r.resolve(url), url)
        }
    }

    /// The record lane (`quickRecord`, under `resolve` and the C ABI's `lr_router_resolve`) writes the record the
    /// general path writes: every field, compared through the match's JSON and accessors.
    func testRecordLaneWritesTheGeneralRecord() throws {
        let r = try router()
        try r.add("app://meta/:id", target: "T", name: "meta", requires: ["login"], meta: ["k": "v"])
        for (url, _, answers, line) in Self.cases + [("app://meta/9", true, true, #line), ("app://meta/9?k=w", true, true, #line)] {
            try url.withSpan { span in
                r.withState { state, thread in
                    let quick = state.quickCMatchRecord(span, extras: UnsafeBufferPointer(start: nil, count: 0), thread: thread)
                    let general = (try? state.cMatchRecord(span, extras: UnsafeBufferPointer(start: nil, count: 0), thread: thread)) ?? nil
                    defer { if let general { freeCMatchBlock(general) } }
                    switch quick {
                    case .general:
                        XCTAssertFalse(answers, url, line: line)
                    case .noMatch:
                        XCTAssertTrue(answers, url, line: line)
                        XCTAssertNil(general, url, line: line)
                    case .matched(let q):
                        XCTAssertTrue(answers, url, line: line)
                        let a = Match(MatchStorage.copy(of: MatchRecord(q)), rawContext: nil)
                        freeCMatchBlock(q)
                        guard let g = general else { return XCTFail("general path: no match for \(url)", line: line) }
                        let b = Match(MatchStorage.copy(of: MatchRecord(g)), rawContext: nil)
                        XCTAssertEqual(a.json, b.json, url, line: line)
                        XCTAssertEqual([a.url, a.rewritten, a.scheme, a.host, a.port, a.path, a.fragment],
                                       [b.url, b.rewritten, b.scheme, b.host, b.port, b.path, b.fragment], url, line: line)
                    }
                }
            }
        }
    }
}

/// LR_SCRATCH_SIZE of the C header: what `resolve` asks of the scratch when no rule fires.
private func LR_SCRATCH(_ n: Int) -> Int { 8 * n + 64 }

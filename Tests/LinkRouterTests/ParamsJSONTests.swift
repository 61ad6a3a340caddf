import XCTest
@testable import LinkRouter

/// The nested view of parameters (bracket keys) and the JSON a match writes.
final class ParamsJSONTests: XCTestCase {
    /// (query, expected JSON of params) for route app://x/:id resolved with /1.
    static let nesting: [(String, String, UInt)] = [
        ("info[nickname]=x&tags[]=a&tags[]=b", #"{"id":"1","info":{"nickname":"x"},"tags":["a","b"]}"#, #line),
        ("RAdapter=Model_RAdapter&info[nickname]=%E4%BD%93%E8%B4%B4&name[bb]=123&num=2",
         #"{"id":"1","RAdapter":"Model_RAdapter","info":{"nickname":"体贴"},"name":{"bb":"123"},"num":"2"}"#, #line),
        ("a[b][c]=1&a[b][d]=2", #"{"id":"1","a":{"b":{"c":"1","d":"2"}}}"#, #line),
        ("a[b]=1&a[b]=2", #"{"id":"1","a":{"b":"2"}}"#, #line),
        ("a=1&a[b]=2", #"{"id":"1","a":{"b":"2"}}"#, #line),
        ("a[b]=2&a=1", #"{"id":"1","a":"1"}"#, #line),
        ("a[]=1&a[x]=2", #"{"id":"1","a":{"0":"1","x":"2"}}"#, #line),
        ("a[][x]=1&a[][x]=2", #"{"id":"1","a":[{"x":"1"},{"x":"2"}]}"#, #line),
        ("a[b=1", #"{"id":"1","a[b":"1"}"#, #line),
        ("a[b]c=1", #"{"id":"1","a[b]c":"1"}"#, #line),
        ("[x]=1", #"{"id":"1","[x]":"1"}"#, #line),
        ("a[[b]]=1", #"{"id":"1","a[[b]]":"1"}"#, #line),
        ("id[x]=7&id=8", #"{"id":"1"}"#, #line),
        ("k=%22quoted%22%5C%0A", #"{"id":"1","k":"\"quoted\"\\\n"}"#, #line),
        ("t=%01", #"{"id":"1","t":"\u0001"}"#, #line),
    ]

    func testNesting() throws {
        let r = Router()
        try r.add("app://x/:id", target: "X")
        for (query, expected, line) in Self.nesting {
            let m = try XCTUnwrap(try r.resolve("app://x/1?" + query), line: line)
            var w = JSONWriter()
            w.value(m.nestedParams)
            XCTAssertEqual(w.text, expected, query, line: line)
        }
    }

    func testNestingDepthLimit() throws {
        let r = Router()
        try r.add("app://x", target: "X")
        let deep = "a" + String(repeating: "[b]", count: 40) + "=1"
        let m = try XCTUnwrap(try r.resolve("app://x?" + deep))
        XCTAssertEqual(m.nestedParams["a" + String(repeating: "[b]", count: 40)]?.stringValue, "1")
        let ok = "a" + String(repeating: "[b]", count: 32) + "=1"
        let n = try XCTUnwrap(try r.resolve("app://x?" + ok))
        var v: ParamValue? = n.nestedParams["a"]
        for _ in 0..<32 { v = v?["b"] }
        XCTAssertEqual(v?.stringValue, "1")
    }

    func testExtrasOverrideNestedQuery() throws {
        let r = Router()
        try r.add("app://x", target: "X")
        let m = try XCTUnwrap(try r.resolve("app://x?info[a]=1&keep[b]=2", extra: ["info": "extra"]))
        var w = JSONWriter()
        w.value(m.nestedParams)
        XCTAssertEqual(w.text, #"{"info":"extra","keep":{"b":"2"}}"#)
    }

    func testMatchJSON() throws {
        let r = Router()
        try r.add("app://user/:id", target: "UserPage")
        let m = try XCTUnwrap(try r.resolve("APP://User/42?tab=a&tab=b#top"))
        XCTAssertEqual(m.json, #"{"target":"UserPage","pattern":"app://user/:id","url":"APP://User/42?tab=a&tab=b#top","#
            + #""rewritten":"APP://User/42?tab=a&tab=b#top","scheme":"app","host":"user","port":"","path":"/42","#
            + #""fragment":"top","params":{"id":"42","tab":"b"},"query":[["tab","a"],["tab","b"]]}"#)
    }
}

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
        // An append to an object takes the smallest number, at least its key count, that is not a key yet.
        ("a[x]=1&a[]=2", #"{"id":"1","a":{"x":"1","1":"2"}}"#, #line),
        ("a[5]=p&a[]=q&a[]=r", #"{"id":"1","a":{"5":"p","1":"q","2":"r"}}"#, #line),
        ("a[1]=p&a[]=q&a[]=r", #"{"id":"1","a":{"1":"p","2":"q","3":"r"}}"#, #line),
        ("a[3]=&a[4]=&a[5]=&a[]=&a[]=&a[]=", #"{"id":"1","a":{"3":"","4":"","5":"","6":"","7":"","8":""}}"#, #line),
        ("a[x]=&a[]=&a[y]=&a[z]=&a[]=", #"{"id":"1","a":{"x":"","1":"","y":"","z":"","4":""}}"#, #line),
        ("a[x]=&a[2]=&a[]=&a[3]=&a[]=&a[]=", #"{"id":"1","a":{"x":"","2":"","3":"","4":"","5":""}}"#, #line),  // a[3] replaces
        ("a[]=1&a[x]=2&a[]=3", #"{"id":"1","a":{"0":"1","x":"2","2":"3"}}"#, #line),
        ("a[][]=1&a[x][]=2&a[x][]=3&a[]=4", #"{"id":"1","a":{"0":["1"],"x":["2","3"],"2":"4"}}"#, #line),
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

    /// m numeric keys a[m]...a[2m-1], then m appends a[]: each append resumes where the last one stopped (B41:
    /// each searched again from the key count, m + 1 lookups apiece, m(m + 1) in all: 20 s at m = 8,000).
    func testAppendsAfterNumericKeysAreLinear() throws {
        for (m, line) in [(1, #line), (10, #line), (300, #line)] as [(Int, UInt)] {
            let keys = (m..<2 * m).map { "a[\($0)]" } + Array(repeating: "a[]", count: m)
            let tree = ParamTree(maxDepth: 32)
            let reference = ParamTree(maxDepth: 32, restartAppend: true)
            for key in keys {
                tree.addQuery(key, "v")
                reference.addQuery(key, "v")
            }
            XCTAssertEqual(tree.appendProbes, 2 * m, line: line)  // m + 1 for the first append, 1 for each other
            XCTAssertEqual(reference.appendProbes, m * (m + 1), line: line)
            XCTAssertEqual(tree.value, reference.value, line: line)
            XCTAssertEqual(tree.value["a"].map { v -> [String] in
                if case .object(let entries) = v { return entries.map(\.key) }
                return []
            }, (m..<3 * m).map(String.init), line: line)
        }
        // Through a router, with the limits raised: the same keys, in order.
        var limits = Limits.default
        limits.maxParams = 4_000
        limits.maxURLLength = 1 << 20
        let r = Router(limits: limits)
        try r.add("app://x", target: "X")
        let m = 1_500
        let query = (m..<2 * m).map { "a[\($0)]=&" }.joined() + String(repeating: "a[]=&", count: m)
        let match = try XCTUnwrap(try r.resolve("app://x?" + query))
        guard case .object(let entries) = match.nestedParams["a"] else { return XCTFail("a is not an object") }
        XCTAssertEqual(entries.map(\.key), (m..<3 * m).map(String.init))
    }

    /// The resumed search gives what searching from the key count gave, on random small queries.
    func testAppendMatchesTheRestartingSearch() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            seed &+= 0x9E37_79B9_7F4A_7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(n))
        }
        let pieces = ["[]", "[0]", "[1]", "[2]", "[3]", "[5]", "[x]", "[y]", "[01]"]
        var probed = 0
        for _ in 0..<20_000 {
            let tree = ParamTree(maxDepth: 4)
            let reference = ParamTree(maxDepth: 4, restartAppend: true)
            for _ in 0..<(1 + next(12)) {
                var key = ["a", "b"][next(2)]
                for _ in 0..<(1 + next(3)) { key += pieces[next(pieces.count)] }
                if next(10) == 0 { key = ["a", "b"][next(2)] }
                let value = String(next(100))
                tree.addQuery(key, value)
                reference.addQuery(key, value)
            }
            XCTAssertEqual(tree.value, reference.value)
            if tree.appendProbes != reference.appendProbes { probed += 1 }
        }
        XCTAssertGreaterThan(probed, 100, "the inputs do make the two searches differ in work")
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

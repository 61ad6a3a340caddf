import XCTest
@testable import LinkRouter

/// The JSON reader behind route table files and route metadata: what it accepts, and where it says a document
/// is broken.
final class JSONValueTests: XCTestCase {
    /// (A computed table, not a static one: a static one's storage stays allocated at exit, which LeakSanitizer reports.)
    static var accepted: [(String, JSONValue, UInt)] { [
        (#"{}"#, .object([]), #line),
        (#" [ ] "#, .array([]), #line),
        (#"{"a":"b","a":"c"}"#, .object([JSONMember("a", .string("b")), JSONMember("a", .string("c"))]), #line),
        (#"[true,false,null,-0,1.5e+3,12]"#, .array([.bool(true), .bool(false), .null, .number("-0"), .number("1.5e+3"), .number("12")]), #line),
        (#""\u4f53\u8d34 \ud83c\udfaf \"\\\/\b\f\n\r\t""#, .string("体贴 🎯 \"\\/\u{8}\u{c}\n\r\t"), #line),
        ("\"原子弹\"", .string("原子弹"), #line),
        (#"{"routes":[{"pattern":"app://x"}]}"#,
         .object([JSONMember("routes", .array([.object([JSONMember("pattern", .string("app://x"))])]))]), #line),
    ] }

    func testAccepted() throws {
        for (text, expected, line) in Self.accepted {
            XCTAssertEqual(try JSONValue.parse(text), expected, text, line: line)
        }
    }

    /// (text, byte offset of the error, the message after "JSON syntax error at byte N (line L, column C): ", all on line 1)
    static let refused: [(String, Int, String, UInt)] = [
        ("", 0, "unexpected end of text", #line),
        ("{", 1, "expected a member name in double quotes", #line),
        (#"{"a" 1}"#, 5, "expected ':' after a member name", #line),
        (#"{"a":1,}"#, 7, "expected a member name in double quotes", #line),
        (#"[1,]"#, 3, "expected a JSON value", #line),
        (#"[1 2]"#, 3, "expected ',' or ']' in an array", #line),
        (#""abc"#, 4, "unterminated string", #line),
        ("\"a\nb\"", 2, "a control character must be escaped in a string", #line),
        (#""\x""#, 2, "an invalid escape in a string", #line),
        (#""\u12""#, 2, "\\u needs four hex digits", #line),
        (#""\ud800""#, 6, "a lone surrogate in \\u escapes", #line),
        (#""\udc00""#, 6, "a lone surrogate in \\u escapes", #line),
        ("01", 1, "unexpected text after the JSON value", #line),
        ("-", 1, "a number needs digits", #line),
        ("1.", 2, "a fraction needs digits", #line),
        ("1e", 2, "an exponent needs digits", #line),
        ("tru", 0, "expected a JSON value", #line),
        (#"{"a":1} {}"#, 8, "unexpected text after the JSON value", #line),
        (String(repeating: "[", count: 200), 128, "nested deeper than 128 levels", #line),
    ]

    func testRefusedWithOffset() {
        for (text, offset, reason, line) in Self.refused {
            do {
                _ = try JSONValue.parse(text)
                XCTFail("accepted \(text)", line: line)
            } catch {
                XCTAssertEqual(error.code, .table, text, line: line)
                XCTAssertEqual(error.offset, offset, "\(text): \(error.message)", line: line)
                XCTAssertEqual(error.message, "JSON syntax error at byte \(offset) (line 1, column \(offset + 1)): \(reason)", text,
                               line: line)
            }
        }
    }

    func testInvalidUTF8IsRefused() throws {
        let bytes: [UInt8] = [0x22, 0xFF, 0x22]
        try bytes.withUnsafeBufferPointer { buf in
            XCTAssertThrowsError(try JSONValue.parse(ByteSpan(start: buf.baseAddress, count: buf.count)))
        }
    }

    func testLineAndColumnInMessage() {
        XCTAssertThrowsError(try JSONValue.parse("{\n  \"a\": tru\n}")) { error in
            XCTAssertEqual((error as? RouterError)?.message, "JSON syntax error at byte 9 (line 2, column 8): expected a JSON value")
        }
    }

    /// Route metadata (`lr_router_add_route`): a JSON object of strings, nothing else.
    func testMetaFromJSON() throws {
        XCTAssertEqual(try RouteSpec.meta(fromJSON: #"{"transition":"push","class":"User"}"#),
                       ["transition": "push", "class": "User"])
        for bad in ["meta", "[]", #"{"a":1}"#, #"{"a":"b","a":"c"}"#, #"{"a":{"b":"c"}}"#] {
            XCTAssertThrowsError(try RouteSpec.meta(fromJSON: bad), bad) { error in
                XCTAssertEqual((error as? RouterError)?.code, .invalidURL, bad)
            }
        }
        XCTAssertEqual(RouteSpec("app://x", target: "X", meta: ["b": "2", "a": "\"1\""]).metaJSON, #"{"a":"\"1\"","b":"2"}"#)
    }

    /// Requires and meta survive the route block: read back as registered.
    func testRouteCarriesRequiresAndMeta() throws {
        let r = Router()
        let spec = RouteSpec("app://user/:id/*rest", target: "User", name: "user", requires: ["login", "adult"],
                             meta: ["transition": "push", "class": "UserViewController"])
        try r.add([spec, RouteSpec("app://plain", target: "P")])
        XCTAssertEqual(r.routes, [spec, RouteSpec("app://plain", target: "P")])
    }
}

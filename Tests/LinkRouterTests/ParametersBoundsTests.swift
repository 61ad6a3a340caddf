#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import LinkRouter

/// `Parameters` is a collection: its subscript takes the positions in `indices` and traps on others, as an
/// Array does (it read past the record's parameters). The C ABI never reaches it (lr_match_param_name/_value
/// check the index and return NULL).
@Suite struct ParametersBoundsTests {
    @Test func positionsInRange() throws {
        let r = Router()
        try r.add("app://x/:id", target: "X")
        let m = try #require(try r.resolve("app://x/1?q=2&q=3&k=4", extra: ["e": "5"]))
        #expect(m.params.indices == 0..<4)
        #expect(m.params.map { "\($0.name)=\($0.value)" } == ["id=1", "q=3", "k=4", "e=5"])
        #expect(m.params[3] == Match.Param(name: "e", value: "5"))
    }

    @Test(arguments: [4, 5, 1_000, -1])
    func positionOutOfRangeTraps(_ position: Int) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) { [position] in
            let r = Router()
            try r.add("app://x/:id", target: "X")
            let m = try #require(try r.resolve("app://x/1?q=2&q=3&k=4", extra: ["e": "5"]))
            let p = m.params[position]
            print(p.name, p.value)
        }
        // In a debug build the trap's line is "<file>:<line>: Precondition failed: <message>", then the runtime's
        // stack trace: the message, whole.
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        let failed = stderr.split(separator: "\n").compactMap { line in
            line.range(of: ": Precondition failed: ").map { String(line[$0.upperBound...]) }
        }
        #if DEBUG
        let expected = ["Parameters index \(position) out of range 0..<4"]
        #else
        let expected: [String] = []  // -O keeps the trap (the exit) but drops precondition's message
        #endif
        #expect(failed == expected, "\(stderr)")
        // A trap, not another failure (a throw, a failed #require): the process ends on the trap's signal.
        let trapped = [ExitStatus.signal(SIGILL), .signal(SIGTRAP)].contains(result?.exitStatus ?? .exitCode(0))
        #expect(trapped, "\(String(describing: result?.exitStatus))")
    }
}

import ArgumentParser
import LinkRouter

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `linkrouter`: the router from a shell (swift-argument-parser). Commands: Commands.swift and Table*.swift;
/// shared options and output: Options.swift.
///
/// Exit status 2 for usage errors, as before the tool used argument-parser (which would say 64).
///
/// `--rule MATCH TARGET` takes two values, which argument-parser options cannot: each is rewritten here into
/// `--rule MATCH --rule TARGET` and paired again by `RouterOptions`.
///
/// Arguments are read as bytes (CommandLine.unsafeArgv): one that is not valid UTF-8 becomes a stand-in
/// (RawArguments, Options.swift) rather than text with U+FFFD in it.
var given: [String] = []
for i in 1..<Int(CommandLine.argc) {
    guard let p = CommandLine.unsafeArgv[i] else { continue }
    let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p))
    if let text = String(validating: bytes, as: UTF8.self) {
        given.append(text)
    } else {
        let standIn = RawArguments.standIn(i)
        RawArguments.invalid[standIn] = Array(bytes)
        RawArguments.positions[standIn] = i
        given.append(standIn)
    }
}

/// Refuses the command when an argument that is not UTF-8 is anything but a URL of resolve, rewrite or explain.
func refuseInvalidArguments(except urls: [String]) {
    let accepted = Set(urls)
    guard let (standIn, bytes) = RawArguments.invalid.filter({ !accepted.contains($0.key) })
        .min(by: { RawArguments.positions[$0.key]! < RawArguments.positions[$1.key]! }) else { return }
    Output.error("linkrouter: argument \(RawArguments.positions[standIn]!) is not valid UTF-8: '\(excerpt(displayed(bytes)))'")
    exit(2)
}

var arguments: [String] = []
var rest = given[...]
while let arg = rest.popFirst() {
    if arg == "--rule", rest.count >= 2, let match = rest.popFirst(), let target = rest.popFirst() {
        arguments += ["--rule", match, "--rule", target]
    } else if arg == "--" {
        arguments.append(arg)
        arguments += rest
        break
    } else {
        arguments.append(arg)
    }
}
/// Exits with `status` once standard output is flushed. When it could not be written (a full disk, a closed
/// descriptor), a message on standard error and status 2, as coreutils do: a script must not take a lost output
/// for a success. A pipe whose reader has gone (`| head -1`) ends the tool with SIGPIPE at the failing write,
/// before this, as it ends `cat`.
func finish(_ status: Int32) -> Never {
    errno = 0
    let flushed = fflush(stdout) == 0
    if !flushed || ferror(stdout) != 0 {
        let reason = errno != 0 ? ": " + String(cString: strerror(errno)) : ""
        Output.error("linkrouter: error writing standard output\(reason)")
        exit(2)
    }
    exit(status)
}

/// Ends the tool after `error` (a parse error, help, or the status a command threw).
func exit(after error: Error) -> Never {
    let code = LinkRouterCommand.exitCode(for: error)
    let message = LinkRouterCommand.fullMessage(for: error)
    if code == .validationFailure {
        Output.error(message)
        finish(2)
    }
    if !message.isEmpty {
        if code == .success { print(message) } else { Output.error(message) }
    }
    finish(code.rawValue)
}

var command: ParsableCommand
do {
    command = try LinkRouterCommand.parseAsRoot(arguments)
} catch {
    if LinkRouterCommand.exitCode(for: error) != .success { refuseInvalidArguments(except: []) }
    exit(after: error)
}
refuseInvalidArguments(except: (command as? TakesURLs)?.urls ?? [])
do {
    try command.run()
} catch {
    exit(after: error)
}
finish(0)

import ArgumentParser
import LinkRouter

#if canImport(Glibc)
import Glibc
#endif

/// `linkrouter`: the router from a shell (swift-argument-parser). Commands: Commands.swift and Table*.swift;
/// shared options and output: Options.swift.
///
/// Exit status 2 for usage errors, as before the tool used argument-parser (which would say 64).
///
/// `--rule MATCH TARGET` takes two values, which argument-parser options cannot: each is rewritten here into
/// `--rule MATCH --rule TARGET` and paired again by `RouterOptions`.
var arguments: [String] = []
var rest = CommandLine.arguments.dropFirst()[...]
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
do {
    var command = try LinkRouterCommand.parseAsRoot(arguments)
    try command.run()
} catch {
    if LinkRouterCommand.exitCode(for: error) == .validationFailure {
        Output.error(LinkRouterCommand.fullMessage(for: error))
        exit(2)
    }
    LinkRouterCommand.exit(withError: error)
}

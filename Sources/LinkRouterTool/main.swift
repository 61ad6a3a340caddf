import ArgumentParser
import LinkRouter

/// `linkrouter`: the router from a shell (swift-argument-parser). Commands: Commands.swift and Table*.swift;
/// shared options and output: Options.swift.
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
LinkRouterCommand.main(arguments)

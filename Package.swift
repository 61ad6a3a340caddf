// swift-tools-version: 6.0
// LinkRouter: an embeddable URL router. A pure Swift core, a C ABI skin (liblinkrouter.so) and a CLI.
import PackageDescription

// The version script keeps every symbol but `lr_*` out of liblinkrouter.so's dynamic table.
let root = String(#filePath.dropLast("/Package.swift".count))

// The seed examples (mk/seeds.mk): examples/<seed>/swift/main.swift is the executable `seed-<seed>`. Listed, not
// read from the folder: SwiftPM caches this manifest and would not see a new folder.
let seeds = ["dcurlrouter", "ffrouter", "router-objc", "urlmediator", "xksquare"]

let package = Package(
    name: "LinkRouter",
    products: [
        .library(name: "LinkRouter", targets: ["LinkRouter"]),
        .library(name: "linkrouter", type: .dynamic, targets: ["LinkRouterC"]),
        // The product name `linkrouter` is taken by the library; the Makefile installs this as bin/linkrouter.
        .executable(name: "linkrouter-cli", targets: ["LinkRouterTool"]),
    ],
    dependencies: [
        // The CLI's argument parsing only: the library and liblinkrouter.so do not depend on it.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CPCRE2",
            pkgConfig: "libpcre2-8",
            providers: [.apt(["libpcre2-dev", "pkg-config"])]
        ),
        .systemLibrary(name: "CLinkRouter"),
        .target(name: "LinkRouter", dependencies: ["CPCRE2"]),
        .target(
            name: "LinkRouterC",
            dependencies: ["LinkRouter", "CLinkRouter"],
            exclude: ["exports.map"],
            linkerSettings: [.unsafeFlags(["-Xlinker", "--version-script=\(root)/Sources/LinkRouterC/exports.map"])]
        ),
        .executableTarget(name: "LinkRouterTool", dependencies: [
            "LinkRouter", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "swift-example", dependencies: ["LinkRouter"], path: "examples/swift",
                          exclude: ["swift-example.expected"]),
        .testTarget(name: "LinkRouterTests", dependencies: ["LinkRouter"]),
    ] + seeds.map { .executableTarget(name: "seed-\($0)", dependencies: ["LinkRouter"], path: "examples/\($0)/swift") }
)

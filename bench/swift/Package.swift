// swift-tools-version:5.10
//
// Router benchmark runners written in Swift (see bench/README.md).
//
//   peers-bench      vapor/routing-kit TrieRouter + a plain Dictionary<String, Int> baseline
//   linkrouter-bench LinkRouter's Swift API (LinkRouter slot, added by the lead):
//                    built only when Sources/linkrouter-bench/ exists, against the
//                    root package (path "../..", product "LinkRouter").
//
// Set BENCH_NO_LINKROUTER=1 to leave the LinkRouter target out even if its folder
// exists (bench/runners/swift-peers.sh does that when the root package does not build,
// so the peers can still be measured).
import PackageDescription
import Foundation

let here = String(#filePath.dropLast("/Package.swift".count))
let rootPath = URL(fileURLWithPath: here + "/../..").standardizedFileURL.path
// Identity of a path dependency = last path component of its folder.
let rootIdentity = URL(fileURLWithPath: rootPath).lastPathComponent.lowercased()

let wantLinkRouter =
    ProcessInfo.processInfo.environment["BENCH_NO_LINKROUTER"] == nil
    && FileManager.default.fileExists(atPath: here + "/Sources/linkrouter-bench")
    && FileManager.default.fileExists(atPath: rootPath + "/Package.swift")


var dependencies: [Package.Dependency] = [
    .package(url: "https://github.com/vapor/routing-kit.git", from: "4.9.3")
]
var products: [Product] = [
    .executable(name: "peers-bench", targets: ["peers-bench"])
]
var targets: [Target] = [
    .target(name: "BenchCore", path: "Sources/BenchCore"),
    .executableTarget(
        name: "peers-bench",
        dependencies: [
            "BenchCore",
            .product(name: "RoutingKit", package: "routing-kit"),
        ],
        path: "Sources/peers-bench"
    ),
]

if wantLinkRouter {
    dependencies.append(.package(path: rootPath))
    products.append(.executable(name: "linkrouter-bench", targets: ["linkrouter-bench"]))
    targets.append(
        .executableTarget(
            name: "linkrouter-bench",
            dependencies: [
                "BenchCore",
                .product(name: "LinkRouter", package: rootIdentity),
            ],
            path: "Sources/linkrouter-bench"
        ))
}

let package = Package(
    name: "linkrouter-bench-swift",
    products: products,
    dependencies: dependencies,
    targets: targets
)

// peers-bench: vapor/routing-kit's TrieRouter and a plain Dictionary<String, Int> baseline
// on the LinkRouter datasets. Prints one JSON line per (router, dataset); exits 1 if a
// router answered wrong (the wrong router is not timed).
//
// routing-kit mapping (the way Vapor itself routes: method first, then path segments):
//   pattern gh://get/repos/:owner/:repo -> [.constant("get"), .constant("repos"),
//                                           .parameter("owner"), .parameter("repo")]
//   URL     gh://get/repos/octocat/Hello-World -> "get/repos/octocat/Hello-World"
//           split on "/" into [String] inside the timed loop (Vapor splits the request
//           path per request the same way), then router.route(path:parameters:).
// Every captured parameter is read with parameters.get(name).
//
// Rows:
//   routing-kit            what Vapor does per request: split the path with
//                          String.split(separator: "/").map(String.init), a fresh
//                          `Parameters()` (which also builds a swift-log Logger), route,
//                          read the parameters.
//   routing-kit/pre-split  the router alone: the [String] components are split once before
//                          timing and `Parameters(logger)` reuses one Logger made up front.
//                          (String.split is Character-based and costs ~1.8 us for a
//                          7-segment path here; Foundation's removingPercentEncoding, which
//                          Parameters.set applies to every value, ~1.2 us per value.)
//   swift-dictionary       Dictionary<String, Int> keyed by the whole URL string: an
//                          exact-match lower bound, no parameters.
import BenchCore
import Foundation
import Logging
import RoutingKit

let routingKitVersion = "4.9.3"
var failures = 0

func segments(_ s: String) -> [PathComponent] {
    s.split(separator: "/").map { seg -> PathComponent in
        seg.hasPrefix(":") ? .parameter(String(seg.dropFirst())) : .constant(String(seg))
    }
}

func benchDictionary(_ ds: Dataset) {
    let t0 = Bench.nowNs()
    var dict: [String: Int] = [:]
    dict.reserveCapacity(ds.count)
    for (i, r) in ds.rows.enumerated() { dict[r.url] = i }
    let buildMs = Double(Bench.nowNs() - t0) / 1e6
    let urls = ds.rows.map(\.url)
    if let err = Bench.verify(ds, checkParams: false, lookup: { i in dict[urls[i]].map { ($0, [:]) } }) {
        Bench.log("swift-dictionary \(ds.name): VERIFICATION FAILED: \(err)")
        Bench.errorRow(router: "swift-dictionary", dataset: ds.name, routes: ds.count, wrongAnswer: true, error: err)
        failures += 1
        return
    }
    Bench.time(router: "swift-dictionary", dataset: ds,
               extra: ["note": "exact-match baseline: whole URL as key, no parameters",
                       "build_ms": (buildMs * 10).rounded() / 10]) { order, n in
        var acc: UInt64 = 0
        for k in 0..<n {
            if let v = dict[urls[order[k]]] { acc &+= UInt64(v) }
        }
        return acc
    }
}

func benchRoutingKit(_ ds: Dataset, preSplit: Bool) {
    let name = preSplit ? "routing-kit/pre-split" : "routing-kit"
    let t0 = Bench.nowNs()
    let router = TrieRouter(Int.self)
    var names: [[String]] = []
    names.reserveCapacity(ds.count)
    for (i, r) in ds.rows.enumerated() {
        router.register(i, at: segments(r.patternPath))
        names.append(r.patternParamNames)
    }
    let buildMs = Double(Bench.nowNs() - t0) / 1e6
    let paths = ds.rows.map(\.urlPath)
    let split = paths.map { $0.split(separator: "/").map(String.init) }
    let logger = Logger(label: "bench")

    let err = Bench.verify(ds) { i in
        var params = Parameters()
        let comps = paths[i].split(separator: "/").map(String.init)
        guard let r = router.route(path: comps, parameters: &params) else { return nil }
        var got: [String: String] = [:]
        for n in params.allNames { got[n] = params.get(n) }
        return (r, got)
    }
    if let err {
        Bench.log("\(name) \(ds.name): VERIFICATION FAILED: \(err)")
        Bench.errorRow(router: name, dataset: ds.name, routes: ds.count, wrongAnswer: true, error: err)
        failures += 1
        return
    }
    var extra: [String: Any] = ["version": routingKitVersion, "build_ms": (buildMs * 10).rounded() / 10]
    if preSplit {
        extra["note"] = "path components split before timing; Parameters(logger) with one shared Logger"
        Bench.time(router: name, dataset: ds, extra: extra) { order, n in
            var acc: UInt64 = 0
            for k in 0..<n {
                var params = Parameters(logger)
                if let r = router.route(path: split[order[k]], parameters: &params) {
                    acc &+= UInt64(r)
                    for nm in names[r] {
                        if let v = params.get(nm) { acc &+= UInt64(v.utf8.count) }
                    }
                }
            }
            return acc
        }
    } else {
        extra["note"] = "per lookup as Vapor does: path.split(\"/\").map(String.init) + Parameters() + route"
        Bench.time(router: name, dataset: ds, extra: extra) { order, n in
            var acc: UInt64 = 0
            for k in 0..<n {
                let comps = paths[order[k]].split(separator: "/").map(String.init)
                var params = Parameters()
                if let r = router.route(path: comps, parameters: &params) {
                    acc &+= UInt64(r)
                    for nm in names[r] {
                        if let v = params.get(nm) { acc &+= UInt64(v.utf8.count) }
                    }
                }
            }
            return acc
        }
    }
}

let only = Bench.env("BENCH_ROUTERS")?.split(separator: " ").map(String.init)
func wanted(_ r: String) -> Bool { only == nil || only!.contains(r) }

for name in Bench.datasetNames {
    let ds: Dataset
    do { ds = try Bench.load(name) } catch {
        Bench.errorRow(router: "routing-kit", dataset: name, routes: 0, wrongAnswer: false, error: "\(error)")
        failures += 1
        continue
    }
    if wanted("routing-kit") { benchRoutingKit(ds, preSplit: false) }
    if wanted("routing-kit/pre-split") { benchRoutingKit(ds, preSplit: true) }
    if wanted("swift-dictionary") { benchDictionary(ds) }
}
exit(failures == 0 ? 0 : 1)

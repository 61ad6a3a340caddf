// linkrouter-bench: LinkRouter's Swift API on the shared datasets (rows with lang "swift"), both on every dataset:
//
//   linkrouter/withMatch  Router.withMatch(url) { view in ... }: the zero-allocation path; the target read
//                         (view.target) and each parameter as a String with view[name] (routing-kit's runner
//                         reads parameters.get(name)).
//   linkrouter/resolve    Router.resolve(url) -> Match?, what a new user writes: m.target and m.params[name]
//                         for each parameter.
//
// The route's target is its row index; every URL must reach its own route with exactly the expected
// parameters before anything is timed.
import BenchCore
import Foundation
import LinkRouter

var failures = 0
let rowNames = ["linkrouter/withMatch", "linkrouter/resolve"]

for name in Bench.datasetNames {
    let ds: Dataset
    do {
        ds = try Bench.load(name)
    } catch {
        for r in rowNames { Bench.errorRow(router: r, dataset: name, routes: 0, wrongAnswer: false, error: "\(error)") }
        failures += 1
        continue
    }
    let router = Router()
    let t0 = Bench.nowNs()
    do {
        try router.add(ds.rows.enumerated().map { RouteSpec($1.pattern, target: String($0)) })
    } catch {
        for r in rowNames {
            Bench.errorRow(router: r, dataset: ds.name, routes: ds.count, wrongAnswer: false, error: error.message)
        }
        failures += 1
        continue
    }
    let buildMs = Double(Bench.nowNs() - t0) / 1e6
    let urls = ds.rows.map(\.url)
    let names = ds.rows.map { $0.params.map(\.name) }

    let viewError = Bench.verify(ds) { i in
        (try? router.withMatch(urls[i]) { v -> (row: Int, params: [String: String]) in
            var params: [String: String] = [:]
            for n in names[i] { params[n] = v[n] }
            return (Int(v.target) ?? -1, params)
        }) ?? nil
    }
    let matchError = Bench.verify(ds) { i in
        (try? router.resolve(urls[i])).flatMap { $0 }.map { (Int($0.target) ?? -1, $0.params.dictionary) }
    }
    if let err = viewError ?? matchError {
        Bench.log("linkrouter \(ds.name): VERIFICATION FAILED: \(err)")
        for r in rowNames { Bench.errorRow(router: r, dataset: ds.name, routes: ds.count, wrongAnswer: true, error: err) }
        failures += 1
        continue
    }
    let extra: [String: Any] = ["version": LinkRouterVersion.string, "build_ms": (buildMs * 10).rounded() / 10]
    var withMatchExtra = extra
    withMatchExtra["api"] = "Router.withMatch(url) { view in view.target, view[name] for every parameter }"
    Bench.time(router: "linkrouter/withMatch", dataset: ds, extra: withMatchExtra) { order, n in
        var acc: UInt64 = 0
        for k in 0..<n {
            let i = order[k]
            let got = try? router.withMatch(urls[i]) { v -> UInt64 in
                var a = UInt64(v.target.utf8.count)
                for name in names[i] { a &+= UInt64(v[name]?.utf8.count ?? 0) }
                return a
            }
            acc &+= (got ?? nil) ?? 0
        }
        return acc
    }
    var resolveExtra = extra
    resolveExtra["api"] = "Router.resolve(url) -> Match: m.target, m.params[name] for every parameter"
    Bench.time(router: "linkrouter/resolve", dataset: ds, extra: resolveExtra) { order, n in
        var acc: UInt64 = 0
        for k in 0..<n {
            let i = order[k]
            if let m = try? router.resolve(urls[i]) {
                acc &+= UInt64(m.target.utf8.count)
                for name in names[i] { acc &+= UInt64(m.params[name]?.utf8.count ?? 0) }
            }
        }
        return acc
    }
}
exit(failures == 0 ? 0 : 1)

#!/usr/bin/env python3
"""Times Router.resolve on the GitHub route set (or any route table in the same columns).

    python3 bindings/python/bench_resolve.py [--data FILE] [--runs N] [--run-ms MS] [--compare]

1. Loads the table (columns id, pattern, url, params ``name=value;...``), adds every route with add_many.
2. Checks that every URL resolves to its own pattern with exactly the expected params; exits 1 otherwise.
3. Times passes over all URLs in a fixed shuffled order (the LCG of bench/python/bench_common.py, seed 42):
   a warm-up of half a run, then --runs runs of about --run-ms each, the garbage collector off during runs (as
   timeit and the project's bench harness do). One lookup = ``m = resolve(url)``, then ``m.target`` and every
   value of ``m.params`` read, as the peer routers are timed. Prints the median, fastest and slowest run in
   ns per resolve, plus two reference lines: resolve alone, and the floor: the bare ctypes call into
   lr_router_resolve_packed with no parsing at all.
   --compare also times routrie (if importable, e.g. with bench/.venv/bin/python) on the same paths, in the
   same process and interleaved run by run, so a noisy machine affects both alike.
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from typing import Callable, Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import linkrouter  # noqa: E402
from linkrouter import _native  # noqa: E402  (only for the floor line)


def default_data() -> str:
    env = os.environ.get("LINKROUTER_DATA")
    if env:
        return os.path.join(env, "github-routes.tsv")
    for d in (os.path.join(HERE, "..", "..", "..", "shared", "data"), "/work/shared/data"):
        p = os.path.normpath(os.path.join(d, "github-routes.tsv"))
        if os.path.exists(p):
            return p
    return "/work/shared/data/github-routes.tsv"


def load(path: str) -> List[Tuple[str, str, str, Dict[str, str]]]:
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            params: Dict[str, str] = {}
            if len(cols) > 3 and cols[3]:
                for kv in cols[3].split(";"):
                    k, _, v = kv.partition("=")
                    params[k] = v
            rows.append((cols[0], cols[1], cols[2], params))
    return rows


def shuffled(n: int) -> List[int]:
    """The project's fixed shuffle (bench/python/bench_common.py order()): LCG, seed 42."""
    o = list(range(n))
    st = 42
    mask = (1 << 64) - 1
    for i in range(n, 1, -1):
        st = (st * 6364136223846793005 + 1442695040888963407) & mask
        j = (st >> 33) % i
        o[i - 1], o[j] = o[j], o[i - 1]
    return o


def time_passes(passes: Dict[str, Callable[[], int]], n: int, runs: int, run_ms: float) -> Dict[str, List[float]]:
    """Runs each pass function interleaved: warm-up, then `runs` runs of ~run_ms; ns per lookup per run."""
    reps: Dict[str, int] = {}
    for name, p in passes.items():
        total = count = 0
        while total < run_ms * 0.5e6:
            t0 = time.perf_counter_ns()
            p()
            total += time.perf_counter_ns() - t0
            count += 1
        reps[name] = max(1, round(run_ms * 1e6 / (total / count)))
    out: Dict[str, List[float]] = {name: [] for name in passes}
    gc.collect()
    gc.disable()
    try:
        for _ in range(runs):
            for name, p in passes.items():
                r = reps[name]
                t0 = time.perf_counter_ns()
                for _ in range(r):
                    p()
                out[name].append((time.perf_counter_ns() - t0) / (r * n))
    finally:
        gc.enable()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=default_data())
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--run-ms", type=float, default=200.0)
    ap.add_argument("--compare", action="store_true", help="also time routrie, interleaved")
    args = ap.parse_args()
    if args.runs < 5:
        ap.error("--runs must be at least 5")

    rows = load(args.data)
    router = linkrouter.Router()
    router.add_many([(pattern, rid) for rid, pattern, _, _ in rows])
    assert len(router) == len(rows)

    wrong = 0
    for rid, pattern, url, params in rows:
        m = router.resolve(url)
        if m is None or m.pattern != pattern or m.target != rid or m.params != params:
            wrong += 1
            print("WRONG %s: %r" % (url, m), file=sys.stderr)
    if wrong:
        print("%d of %d URLs resolved wrong: not timed" % (wrong, len(rows)), file=sys.stderr)
        return 1
    print("verified: %d URLs of %s resolve to their pattern with exactly the expected params"
          % (len(rows), os.path.basename(args.data)))

    order = shuffled(len(rows))
    urls = [rows[i][2] for i in order]
    resolve = router.resolve

    def full_pass() -> int:
        acc = 0
        for u in urls:
            m = resolve(u)
            acc += len(m.target)
            for v in m.params.values():
                acc += len(v)
        return acc

    def resolve_pass() -> int:
        for u in urls:
            resolve(u)
        return 0

    fast = _native.lib.resolve_packed_fast
    h = router._h
    buf, cap, need = _native.new_buffer(4096), 4096, _native.new_size_cell()
    encoded = [u.encode() for u in urls]

    def floor_pass() -> int:
        for b in encoded:
            fast(h, b, len(b), buf, cap, need)
        return 0

    passes: Dict[str, Callable[[], int]] = {
        "resolve + target + params read": full_pass,
        "resolve alone": resolve_pass,
        "floor: bare ctypes call, no parsing": floor_pass,
    }
    if args.compare:
        try:
            import routrie  # type: ignore
        except ImportError:
            print("routrie is not importable here: run with bench/.venv/bin/python for --compare", file=sys.stderr)
        else:
            rt = routrie.Router({"/" + p.split("://", 1)[1]: int(rid) for rid, p, _, _ in rows})
            find = rt._router.find
            paths = ["/" + rows[i][2].split("://", 1)[1] for i in order]

            def routrie_pass() -> int:
                acc = 0
                for k in paths:
                    m = find(k)
                    if m is not None:
                        acc += m[0]
                        for _name, v in m[1]:
                            acc += len(v)
                return acc

            passes["routrie (peer), params read"] = routrie_pass

    results = time_passes(passes, len(urls), args.runs, args.run_ms)
    print("ns per resolve over %d URLs, %d runs of ~%d ms (median, fastest-slowest run):"
          % (len(urls), args.runs, args.run_ms))
    for name, ns in results.items():
        print("  %-38s %7.1f  (%.1f-%.1f)" % (name, statistics.median(ns), min(ns), max(ns)))
    peer = "routrie (peer), params read"
    if peer in results:  # run by run, so that a noisy machine cancels out
        ratios = [a / b for a, b in zip(results["resolve + target + params read"], results[peer])]
        floor = [a / b for a, b in zip(results["floor: bare ctypes call, no parsing"], results[peer])]
        print("  ratio to routrie, run by run (median): resolve %.2f, floor %.2f"
              % (statistics.median(ratios), statistics.median(floor)))
    print("python %s, library %s (%s)" % (sys.version.split()[0], linkrouter.library_version(),
                                          linkrouter.library_path))
    return 0


if __name__ == "__main__":
    sys.exit(main())

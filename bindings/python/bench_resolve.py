"""Times one lookup as issue 10 defines it: ``Router.resolve(url)``, then ``m.target`` and every value of
``m.params`` read; through the C extension, through the ctypes path, and pymatchit (when importable) on the
same URLs. Not a test; the full comparison with every peer is bench/ (``make bench``).

    python3 bench_resolve.py [--data DIR] [--runs N] [--ms MS] [DATASET ...]   (github scale-10 scale-10000)

Each dataset's URLs are looked up in the shuffled order of bench/python/bench_common.py (seed 42). A run is as
many passes over them as fill about MS milliseconds of wall time; the figure is the median over N runs of the
nanoseconds per lookup, with the garbage collector off (as timeit). pymatchit gets the path without the scheme,
its pattern syntax (``/get/repos/{owner}/{repo}``), and its (value, params) answer read the same way.
"""
from __future__ import annotations

import argparse
import gc
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import linkrouter  # noqa: E402
from linkrouter import _router  # noqa: E402

DATA_DIRS = (os.path.join(HERE, "..", "..", "Tests", "Data"), os.path.join(HERE, "..", "..", "..", "shared", "data"),
             "/work/shared/data")


def load(name, data_dir):
    fname = "github-routes.tsv" if name == "github" else name + ".tsv"
    dirs = [data_dir] if data_dir else DATA_DIRS
    for d in dirs:
        path = os.path.join(d, fname)
        if os.path.exists(path):
            break
    else:
        sys.exit("bench_resolve: %s not found in %s" % (fname, ", ".join(dirs)))
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\r\n").split("\t")
            rows.append((cols[1], cols[2]))
    return rows


def order(n):
    """bench_common.order: the same shuffled order as every bench runner (LCG, seed 42)."""
    o = list(range(n))
    st = 42
    for i in range(n, 1, -1):
        st = (st * 6364136223846793005 + 1442695040888963407) & ((1 << 64) - 1)
        j = (st >> 33) % i
        o[i - 1], o[j] = o[j], o[i - 1]
    return o


def linkrouter_pass(router, urls):
    resolve = router.resolve

    def one_pass():
        acc = 0
        for u in urls:
            m = resolve(u)
            acc += len(m.target)
            for v in m.params.values():
                acc += len(v)
        return acc
    return one_pass


def pymatchit_pass(rows, urls):
    import pymatchit
    r = pymatchit.PyRouter()
    for i, (pattern, _) in enumerate(rows):
        path = "/" + pattern.split("://", 1)[1]
        r.insert(re.sub(r":(\w+)", r"{\1}", re.sub(r"\*(\w+)", r"{*\1}", path)), str(i))
    paths = ["/" + u.split("://", 1)[1] for u in urls]
    at = r.at

    def one_pass():
        acc = 0
        for p in paths:
            target, params = at(p)
            acc += len(target)
            for v in params.values():
                acc += len(v)
        return acc
    return one_pass


def time_pass(one_pass, n, runs, ms):
    one_pass()
    t0 = time.perf_counter_ns()
    one_pass()
    reps = max(1, round(ms * 1e6 / max(1, time.perf_counter_ns() - t0)))
    per = []
    gc.disable()
    try:
        for _ in range(runs):
            t0 = time.perf_counter_ns()
            for _ in range(reps):
                one_pass()
            per.append((time.perf_counter_ns() - t0) / (reps * n))
    finally:
        gc.enable()
    per.sort()
    return per[len(per) // 2], per[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("datasets", nargs="*", default=["github", "scale-10", "scale-10000"])
    ap.add_argument("--data", help="the folder of the .tsv route sets")
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--ms", type=float, default=100)
    args = ap.parse_args()
    print("linkrouter.binding = %s; Python %s" % (linkrouter.binding, sys.version.split()[0]))
    print("%-12s %8s  %-24s %10s %10s" % ("dataset", "routes", "router", "median ns", "min ns"))
    for name in args.datasets:
        rows = load(name, args.data)
        urls = [rows[i][1] for i in order(len(rows))]
        candidates = [("linkrouter " + linkrouter.binding, linkrouter.Router())]
        if linkrouter.binding != "ctypes":
            candidates.append(("linkrouter ctypes", _router.ctypes_router()))
        passes = []
        for label, router in candidates:
            router.add_many([(p, str(i)) for i, (p, _) in enumerate(rows)])
            for i, (_, url) in enumerate(rows):
                m = router.resolve(url)
                assert m is not None and m.target == str(i), (label, url)
            passes.append((label, linkrouter_pass(router, urls)))
        try:
            passes.append(("pymatchit", pymatchit_pass(rows, urls)))
        except ImportError:
            print("(pymatchit not importable: pip install pymatchit)")
        for label, one_pass in passes:
            median, low = time_pass(one_pass, len(urls), args.runs, args.ms)
            print("%-12s %8d  %-24s %10.0f %10.0f" % (name, len(rows), label, median, low), flush=True)


if __name__ == "__main__":
    main()

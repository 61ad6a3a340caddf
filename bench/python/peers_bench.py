"""Python router peers on the LinkRouter datasets: routrie, pymatchit, python-matchit, xrtr,
falcon, werkzeug and a plain dict baseline. One JSON line per (router, dataset) on stdout.

    python peers_bench.py --router NAME [--router NAME ...]   (default: all)

Exit status 1 if a router answered wrong (that router is not timed for that dataset) or
could not be imported; a router that fails to build its table for a dataset gets an
"error" row and the others go on.

Every router gets the same key: the URL without its scheme, host first, as a path
(gh://get/repos/octocat/Hello-World -> /get/repos/octocat/Hello-World), prepared before
timing. Patterns are converted the same way to each router's syntax:
    routrie   /get/repos/:owner/:repo         Router({path: idx}).find(path) -> (idx, [(k, v)])
    pymatchit /get/repos/{owner}/{repo}       PyRouter().insert(path, idx); at(path) -> (idx, {k: v}) or None
    python-matchit /get/repos/{owner}/{repo}  matchit.Router().insert(path, idx); at(path) -> MatchResult
                                              (.value, .params dict); a miss raises LookupError
    xrtr      /get/repos/:owner/:repo         RadixTree.insert(path, idx, ["GET"]); get(path, "GET")
    falcon    /get/repos/{owner}/{repo}       falcon.routing.CompiledRouter add_route/find
    werkzeug  /get/repos/<owner>/<repo>       Map([Rule(...)]).bind("bench.local").match(path)
    python-dict  {full URL: idx}              exact-match baseline, no parameters
"""
from __future__ import annotations

import argparse
import importlib.metadata
import re
import signal
import sys
import time

import bench_common as bc

SLUG = re.compile(r":([A-Za-z_][A-Za-z0-9_]*)")


def version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


# Each builder returns (lookup_for_verify, make_pass, extra) for a dataset.
# make_pass(order) returns a zero-argument function doing one timed pass.

def build_dict(ds):
    table = {r.url: i for i, r in enumerate(ds.rows)}
    urls = [r.url for r in ds.rows]

    def lookup(i):
        v = table.get(urls[i])
        return None if v is None else (v, {})

    def make_pass(order):
        keys = [urls[i] for i in order]

        def one_pass():
            acc = 0
            get = table.__getitem__
            for k in keys:
                acc += get(k)
            return acc
        return one_pass

    return lookup, make_pass, {"note": "exact-match baseline: whole URL as key, no parameters"}


def build_routrie(ds):
    from routrie import Router
    router = Router({"/" + r.pattern_path: i for i, r in enumerate(ds.rows)})
    paths = [r.url_path for r in ds.rows]

    def lookup(i):
        m = router.find(paths[i])
        return None if m is None else (m[0], dict(m[1]))

    def make_pass(order):
        keys = [paths[i] for i in order]
        find = router.find  # the public API (a thin Python wrapper over the Rust extension)

        def one_pass():
            acc = 0
            for k in keys:
                m = find(k)
                if m is not None:
                    acc += m[0]
                    for _name, v in m[1]:
                        acc += len(v)
            return acc
        return one_pass

    return lookup, make_pass, {"version": version("routrie")}


def build_pymatchit(ds):
    from pymatchit import PyRouter  # Rust matchit through PyO3
    router = PyRouter()
    for i, r in enumerate(ds.rows):
        router.insert("/" + SLUG.sub(r"{\1}", r.pattern_path), i)
    paths = [r.url_path for r in ds.rows]

    def lookup(i):
        return router.at(paths[i])

    def make_pass(order):
        keys = [paths[i] for i in order]
        at = router.at

        def one_pass():
            acc = 0
            for k in keys:
                m = at(k)
                if m is not None:
                    acc += m[0]
                    for v in m[1].values():
                        acc += len(v)
            return acc
        return one_pass

    return lookup, make_pass, {"version": version("pymatchit")}


def build_python_matchit(ds):
    from matchit import Router  # python-matchit: Rust matchit through PyO3
    router = Router()
    for i, r in enumerate(ds.rows):
        router.insert("/" + SLUG.sub(r"{\1}", r.pattern_path), i)
    paths = [r.url_path for r in ds.rows]

    def lookup(i):
        try:
            m = router.at(paths[i])
        except LookupError:
            return None
        return m.value, m.params

    def make_pass(order):
        keys = [paths[i] for i in order]
        at = router.at

        def one_pass():
            acc = 0
            for k in keys:
                m = at(k)  # every URL is known: a miss would raise
                acc += m.value
                for v in m.params.values():
                    acc += len(v)
            return acc
        return one_pass

    return lookup, make_pass, {"version": version("python-matchit")}


def build_xrtr(ds):
    from xrtr import RadixTree
    tree = RadixTree()
    for i, r in enumerate(ds.rows):
        tree.insert("/" + r.pattern_path, i, ["GET"])
    paths = [r.url_path for r in ds.rows]

    def lookup(i):
        handler, _mw, params = tree.get(paths[i], "GET")
        return None if handler is None else (handler, params)

    def make_pass(order):
        keys = [paths[i] for i in order]
        get = tree.get

        def one_pass():
            acc = 0
            for k in keys:
                handler, _mw, params = get(k, "GET")
                if handler is not None:
                    acc += handler
                    for v in params.values():
                        acc += len(v)
            return acc
        return one_pass

    return lookup, make_pass, {"version": version("xrtr")}


def build_falcon(ds):
    from falcon.routing import CompiledRouter

    class Resource:
        __slots__ = ("idx",)

        def __init__(self, idx):
            self.idx = idx

        def on_get(self, req, resp, **params):  # a responder, so add_route accepts it
            pass

    router = CompiledRouter()
    for i, r in enumerate(ds.rows):
        router.add_route("/" + SLUG.sub(r"{\1}", r.pattern_path), Resource(i))
    t0 = time.perf_counter()
    router.find("/")  # CompiledRouter compiles its generated code on the first find()
    compile_ms = (time.perf_counter() - t0) * 1e3
    paths = [r.url_path for r in ds.rows]

    def lookup(i):
        m = router.find(paths[i])
        return None if m is None else (m[0].idx, m[2])

    def make_pass(order):
        keys = [paths[i] for i in order]
        find = router.find

        def one_pass():
            acc = 0
            for k in keys:
                m = find(k)
                if m is not None:
                    acc += m[0].idx
                    for v in m[2].values():
                        acc += len(v)
            return acc
        return one_pass

    return lookup, make_pass, {"version": version("falcon"), "compile_ms": round(compile_ms, 1)}


def build_werkzeug(ds):
    from werkzeug.exceptions import HTTPException
    from werkzeug.routing import Map, Rule

    rules = [Rule("/" + SLUG.sub(r"<\1>", r.pattern_path), endpoint=i) for i, r in enumerate(ds.rows)]
    adapter = Map(rules).bind("bench.local")
    t0 = time.perf_counter()
    try:  # the matcher is compiled on the first match
        adapter.match("/")
    except HTTPException:
        pass
    compile_ms = (time.perf_counter() - t0) * 1e3
    paths = [r.url_path for r in ds.rows]

    def lookup(i):
        try:
            return adapter.match(paths[i])
        except HTTPException:
            return None

    def make_pass(order):
        keys = [paths[i] for i in order]
        match = adapter.match

        def one_pass():
            acc = 0
            for k in keys:
                endpoint, values = match(k)  # every URL is known: a miss would raise
                acc += endpoint
                for v in values.values():
                    acc += len(v)
            return acc
        return one_pass

    return lookup, make_pass, {"version": version("werkzeug"), "compile_ms": round(compile_ms, 1)}


ROUTERS = {
    "routrie": build_routrie,
    "pymatchit": build_pymatchit,
    "python-matchit": build_python_matchit,
    "xrtr": build_xrtr,
    "falcon": build_falcon,
    "werkzeug": build_werkzeug,
    "python-dict": build_dict,
}


# Tables these peers build too slowly for a suite of a few minutes (measured here with
# BENCH_BUILD_TIMEOUT_S=300). Skipped unless BENCH_PY_SLOW_BUILDS=1.
SLOW_BUILDS = {
    ("xrtr", 100_000): "xrtr's insert is quadratic (about 20 s for 10,000 routes here, so ~30 min for 100,000)",
    ("falcon", 100_000): "falcon's add_route is superlinear: 186 s to build 100,000 routes here "
                         "(then 43.5 us/lookup on a 22,444-URL prefix)",
    ("werkzeug", 100_000): "werkzeug's Map takes 79 s to build 100,000 rules here "
                           "(then 27.6 us/lookup on a 41,125-URL prefix)",
}


class BuildTimeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise BuildTimeout()


def run(name: str) -> int:
    """Every dataset for one router. Known too-slow builds (SLOW_BUILDS) are skipped with
    an error row; any other table build (insert + compile) that takes longer than
    BENCH_BUILD_TIMEOUT_S seconds (default 60) is aborted and reported the same way, and
    larger tables whose linear extrapolation exceeds the limit are not tried."""
    failures = 0
    build_timeout = bc.env_int("BENCH_BUILD_TIMEOUT_S", 60)
    slow_ok = bool(bc.env_int("BENCH_PY_SLOW_BUILDS", 0))
    signal.signal(signal.SIGALRM, _on_alarm)
    last_build = None  # (routes, seconds) of the last table that was built
    timed_out_at = None  # size of the smallest table whose build timed out
    for ds_name in bc.dataset_names():
        try:
            ds = bc.load(ds_name)
        except OSError as e:
            bc.error_row(name, ds_name, 0, f"dataset: {e}")
            failures += 1
            continue
        slow = SLOW_BUILDS.get((name, len(ds)))
        if slow and not slow_ok:
            bc.error_row(name, ds_name, len(ds), f"not timed by default: {slow}; BENCH_PY_SLOW_BUILDS=1 "
                         "BENCH_BUILD_TIMEOUT_S=300 includes it", version=version(name))
            continue
        if timed_out_at is not None and len(ds) >= timed_out_at:
            bc.error_row(name, ds_name, len(ds),
                         f"not timed: building {timed_out_at} routes already took over {build_timeout} s "
                         "(BENCH_BUILD_TIMEOUT_S)", version=version(name))
            continue
        if last_build and last_build[1] * len(ds) / last_build[0] > build_timeout:
            est = last_build[1] * len(ds) / last_build[0]
            bc.error_row(name, ds_name, len(ds),
                         f"not timed: building the table would take at least {est:.0f} s (linear from "
                         f"{last_build[1]:.1f} s for {last_build[0]} routes), over BENCH_BUILD_TIMEOUT_S={build_timeout}",
                         version=version(name))
            continue
        t0 = time.perf_counter()
        try:
            signal.alarm(build_timeout)
            try:
                lookup, make_pass, extra = ROUTERS[name](ds)
            finally:
                signal.alarm(0)
        except BuildTimeout:
            timed_out_at = len(ds) if timed_out_at is None else min(timed_out_at, len(ds))
            bc.error_row(name, ds_name, len(ds),
                         f"not timed: building the table took over {build_timeout} s (BENCH_BUILD_TIMEOUT_S), aborted",
                         version=version(name))
            continue
        except ImportError as e:
            bc.error_row(name, ds_name, len(ds), f"not installed: {e}")
            return 1
        except Exception as e:  # noqa: BLE001 - the router could not take this table
            bc.error_row(name, ds_name, len(ds), f"build failed: {type(e).__name__}: {e}")
            continue
        build_s = time.perf_counter() - t0
        extra["build_ms"] = round(build_s * 1e3, 1)
        if last_build is None or len(ds) >= last_build[0]:
            last_build = (len(ds), build_s)
        err = bc.verify(ds, lookup, check_params=(name != "python-dict"))
        if err is not None:
            bc.log(f"{name} {ds_name}: VERIFICATION FAILED: {err}")
            bc.error_row(name, ds_name, len(ds), err, wrong_answer=True,
                         **{k: v for k, v in extra.items() if k == "version"})
            failures += 1
            continue
        bc.time_router(name, ds, make_pass, **extra)
    return failures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--router", action="append", choices=sorted(ROUTERS), help="router(s) to run (default: all)")
    args = ap.parse_args()
    failures = 0
    for name in args.router or list(ROUTERS):
        failures += run(name)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

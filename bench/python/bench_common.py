"""Shared harness for the Python router benchmark runners.

Mirrors bench/c/bench_common.h and bench/swift/Sources/BenchCore: same datasets,
same shuffled lookup order, same calibration and the same JSON line.

Environment (set by bench/run.sh, all optional): LINKROUTER_DATA, BENCH_DATASETS,
BENCH_RUNS (11; 7 for >= 100000 routes), BENCH_RUN_MS (150; 100 for >= 100000 routes),
BENCH_MAX_PASS_MS (1000: if one pass over all URLs takes longer, time a prefix of the
shuffled order only, and say so in the row), BENCH_CLOCK (cpu: time.thread_time_ns, this
thread's CPU time, the default; wall: time.perf_counter_ns). Both clocks are read around
every run and both medians are in the row.
"""
from __future__ import annotations

import gc
import json
import os
import sys
import time
from dataclasses import dataclass, field

DEFAULT_DATASETS = "github scale-10 scale-1000 scale-10000 scale-100000"


@dataclass
class Row:
    id: int
    pattern: str        # gh://get/repos/:owner/:repo
    pattern_path: str   # get/repos/:owner/:repo  (scheme dropped, host first)
    url: str            # gh://get/repos/octocat/Hello-World
    url_path: str       # /get/repos/octocat/Hello-World
    params: dict = field(default_factory=dict)  # expected {name: value}, pattern order

    @property
    def segments(self) -> list[str]:
        return self.pattern_path.split("/")

    @property
    def param_names(self) -> list[str]:
        return [s[1:] for s in self.segments if s.startswith(":")]


@dataclass
class Dataset:
    name: str
    rows: list[Row]

    def __len__(self) -> int:
        return len(self.rows)


def data_dir() -> str:
    return os.environ.get("LINKROUTER_DATA") or "../shared/data"


def dataset_names() -> list[str]:
    s = os.environ.get("BENCH_DATASETS") or DEFAULT_DATASETS
    return [x for x in s.replace(",", " ").split() if x]


def env_int(name: str, default: int) -> int:
    v = os.environ.get(name)
    return int(v) if v else default


def load(name: str) -> Dataset:
    fname = "github-routes.tsv" if name == "github" else f"{name}.tsv"
    path = os.path.join(data_dir(), fname)
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) < 3:
                raise ValueError(f"{path}: bad line {line!r}")
            params = {}
            if len(cols) >= 4 and cols[3]:
                for kv in cols[3].split(";"):
                    k, _, v = kv.partition("=")
                    params[k] = v
            pat, url = cols[1], cols[2]
            rows.append(Row(int(cols[0]), pat, pat.split("://", 1)[-1], url, "/" + url.split("://", 1)[-1], params))
    return Dataset(name, rows)


def order(n: int) -> list[int]:
    """Deterministic shuffled order, identical in C, Swift and Python (LCG, seed 42)."""
    o = list(range(n))
    st = 42
    mask = (1 << 64) - 1
    for i in range(n, 1, -1):
        st = (st * 6364136223846793005 + 1442695040888963407) & mask
        j = (st >> 33) % i
        o[i - 1], o[j] = o[j], o[i - 1]
    return o


def verify(ds: Dataset, lookup, check_params: bool = True) -> str | None:
    """lookup(i) -> (row_index, {name: value}) or None. Returns None if every URL
    reaches its own route with exactly the expected parameters, else a message."""
    for i, r in enumerate(ds.rows):
        try:
            got = lookup(i)
        except Exception as e:  # noqa: BLE001 - any exception is a wrong answer
            return f"{r.url}: {type(e).__name__}: {e}"
        if got is None:
            return f"{r.url}: no match"
        idx, params = got
        if idx != i:
            other = ds.rows[idx].pattern if isinstance(idx, int) and 0 <= idx < len(ds) else repr(idx)
            return f"{r.url}: matched {other}, expected {r.pattern}"
        if check_params:
            params = {str(k): (v.decode() if isinstance(v, bytes) else v) for k, v in dict(params).items()}
            if params != r.params:
                return f"{r.url}: parameters {params}, expected {r.params}"
    return None


def emit(obj: dict) -> None:
    print(json.dumps(obj), flush=True)


def error_row(router: str, ds_name: str, routes: int, error: str, wrong_answer: bool = False,
              lang: str = "python", **extra) -> None:
    """A row for a router that could not be built (wrong_answer False) or that answered
    wrong in verification (wrong_answer True). Either way it is not timed."""
    row = {"router": router, "lang": lang, "dataset": ds_name, "routes": routes, "verified": False}
    if wrong_answer:
        row["wrong_answer"] = True
    row["error"] = error
    row.update(extra)
    emit(row)


def time_router(router: str, ds: Dataset, make_pass, lang: str = "python", **extra) -> dict:
    """make_pass(urls_in_order) must return a zero-argument function doing one pass:
    look up each URL of the list once, read every parameter value, return a checksum.
    (The list is prepared outside the timed loop so a pass is a plain for loop.)"""
    big = len(ds) >= 100_000
    runs = max(1, min(1000, env_int("BENCH_RUNS", 7 if big else 11)))
    run_ms = env_int("BENCH_RUN_MS", 100 if big else 150)
    max_pass_ms = env_int("BENCH_MAX_PASS_MS", 1000)
    ordr = order(len(ds))
    n = len(ds)
    sink = 0
    use_cpu = os.environ.get("BENCH_CLOCK", "cpu") != "wall"
    clk = time.thread_time_ns if use_cpu else time.perf_counter_ns
    wall_clk, cpu_clk = time.perf_counter_ns, time.thread_time_ns
    gc_was = gc.isenabled()
    gc.disable()  # like timeit: no collector pauses inside timed runs
    try:
        p = make_pass(ordr[:n])
        t0 = clk()
        sink += p()
        one = clk() - t0
        if one > max_pass_ms * 1e6:
            m = int(n * max_pass_ms * 1e6 / one)
            n = max(m, min(n, 1000))
            p = make_pass(ordr[:n])
        warm_total = warm_passes = 0
        while warm_total < run_ms * 0.5e6:
            t0 = clk()
            sink += p()
            warm_total += clk() - t0
            warm_passes += 1
        reps = max(1, round(run_ms * 1e6 / (warm_total / warm_passes)))
        cpu, wall = [], []
        for _ in range(runs):
            w0, c0 = wall_clk(), cpu_clk()
            for _ in range(reps):
                sink += p()
            c1, w1 = cpu_clk(), wall_clk()
            cpu.append((c1 - c0) / (reps * n))
            wall.append((w1 - w0) / (reps * n))
    finally:
        if gc_was:
            gc.enable()

    def median(v):
        v = sorted(v)
        return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2

    ns = sorted(cpu if use_cpu else wall)
    row = {"router": router, "lang": lang, "dataset": ds.name, "routes": len(ds),
           "ns_median": round(median(ns), 1), "ns_min": round(ns[0], 1), "ns_max": round(ns[-1], 1),
           "runs": runs, "lookups_per_run": reps * n, "urls_timed": n, "verified": True,
           "clock": "thread-cpu" if use_cpu else "wall",
           "cpu_ns_median": round(median(cpu), 1), "wall_ns_median": round(median(wall), 1)}
    notes = [extra.pop("note")] if "note" in extra else []
    if n < len(ds):
        notes.append(f"timed the first {n} URLs of the shuffled order per run")
    if notes:
        row["note"] = "; ".join(notes)
    row.update(extra)
    emit(row)
    if sink == -1:
        print("sink", file=sys.stderr)
    return row


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)

#!/usr/bin/env python3
"""Turns bench/results/latest.jsonl into docs/BENCHMARKS.md and docs/bench.png.

    python bench/report.py [--results bench/results/latest.jsonl]
                           [--out docs/BENCHMARKS.md] [--plot docs/bench.png]
                           [--reference ROUTER]

--reference names the router the ratio column is computed against (per dataset:
router median / reference median). Default: the first LinkRouter row (router name
starting with "linkrouter") if there is one, else matchit's published figure
(57 ns, GitHub set only). The plot needs matplotlib (bench/.venv has it); without it
the report is still written, with a note.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

DATASET_ORDER = ["github", "scale-10", "scale-1000", "scale-10000", "scale-100000"]
SCALE_SIZES = {"scale-10": 10, "scale-1000": 1000, "scale-10000": 10000, "scale-100000": 100000}

# From shared/data/README.md: measured on this kind of machine, GitHub set, median ns
# per lookup with parameters read. Not measured by this suite.
PUBLISHED = [
    ("matchit", "Rust", 57),
    ("httprouter", "Go", 62),
    ("libr3", "C", 146),
    ("find-my-way", "Node", 335),
    ("vapor/routing-kit", "Swift", 2254),
    ("routrie", "Python", 600),
    ("xrtr", "Python", 650),
    ("falcon", "Python", 725),
    ("werkzeug", "Python", 6300),
    ("Swift Dictionary<String, Int> (whole URL)", "Swift", 41),
    ("C hash lookup", "C", 18),
]
PUBLISHED_REFERENCE = ("matchit (published)", 57.0)

METRICS = {}  # metric rows ({"metric": name, "value": ...}) by name, filled by load()

# Issue 10, "Every API as fast as the fast path": each target computed from this run's rows. Kinds:
#   ratio   a's median / b's median on each dataset listed ("all": every dataset of the run);
#   growth  the median of `row` on d2 / on d1;
#   metric  a metric row's value.
FAST_C = ("linkrouter/resolve_into", "c")
ISSUE10_TARGETS = [
    {"what": "C `lr_router_resolve` (resolve, read target and every param, free) ÷ `lr_router_resolve_into`",
     "kind": "ratio", "a": ("linkrouter/resolve", "c"), "b": FAST_C, "datasets": ["github"], "cmp": "<=", "target": 1.5},
    {"what": "Swift `router.resolve` → `Match` ÷ `withMatch`",
     "kind": "ratio", "a": ("linkrouter/resolve", "swift"), "b": ("linkrouter/withMatch", "swift"),
     "datasets": ["github"], "cmp": "<=", "target": 2},
    {"what": "Swift: routing-kit as Vapor calls it ÷ `router.resolve` (speed-up)",
     "kind": "ratio", "a": ("routing-kit", "swift"), "b": ("linkrouter/resolve", "swift"),
     "datasets": ["github"], "cmp": ">=", "target": 10},
    {"what": "Python `Router.resolve` + `m.target` + every `m.params` value ÷ pymatchit",
     "kind": "ratio", "a": ("linkrouter/resolve", "python"), "b": ("pymatchit", "python"),
     "datasets": ["github", "scale-10", "scale-10000"], "cmp": "<=", "target": 1},
    {"what": "C fast path `lr_router_resolve_into` (URL parse included) ÷ Go httprouter",
     "kind": "ratio", "a": FAST_C, "b": ("httprouter", "go"), "datasets": "all", "cmp": "<=", "target": 1},
    {"what": "heap allocations per `lr_router_resolve_into`",
     "kind": "metric", "metric": "allocations_per_lookup", "cmp": "<=", "target": 0, "unit": "",
     "dataset": "github", "how": "counted over one pass, malloc interposed"},
    {"what": "growth from 10 to 10,000 routes, `lr_router_resolve_into`",
     "kind": "growth", "row": FAST_C, "d1": "scale-10", "d2": "scale-10000", "cmp": "<=", "target": 3},
    {"what": "heap allocations per `lr_router_resolve` + `lr_match_free` (a match is one allocation at most)",
     "kind": "metric", "metric": "allocations_per_resolve", "cmp": "<=", "target": 1, "unit": "",
     "dataset": "github", "how": "counted over one pass, malloc interposed"},
    {"what": "memory of the table at 10,000 routes",
     "kind": "metric", "metric": "bytes_per_route_10000", "cmp": "<=", "target": 200, "unit": "bytes/route",
     "dataset": "scale-10000", "how": "heap in use after the bulk build minus before"},
]
# Targets of other issues: table building and rewriting (earlier issues), opening (issue 11), typed parameters
# (issue 15).
EARLIER_TARGETS = [
    {"what": "`lr_router_open` (logging off, a handler reading what resolve reads) ÷ `lr_router_resolve`: "
             "open costs resolve plus the handler call, taken as ≤ 1.1×",
     "kind": "ratio", "a": ("linkrouter/open", "c"), "b": ("linkrouter/resolve", "c"), "datasets": ["github"],
     "cmp": "<=", "target": 1.1},
    {"what": "a typed parameter's check (`:id<int>` minus `:id`, same URL)", "kind": "metric",
     "metric": "typed_param_check_ns", "cmp": "<=", "target": 5, "unit": "ns", "dataset": "one route",
     "how": "the median of 15 paired differences"},
    {"what": "100,000 routes added in one bulk call", "kind": "metric", "metric": "bulk_add_100000_ms",
     "cmp": "<=", "target": 500, "unit": "ms", "dataset": "scale-100000", "how": "one build, wall time"},
    {"what": "10,000 single adds, in all", "kind": "metric", "metric": "single_adds_10000_ms",
     "cmp": "<=", "target": 200, "unit": "ms", "dataset": "scale-10000", "how": "one build, wall time"},
    {"what": "rewrite, 1,000 rules: regexes evaluated per URL", "kind": "metric",
     "metric": "rewrite_evaluations_per_url", "cmp": "<=", "target": 2, "unit": "", "dataset": "1,000 rules",
     "how": "counted"},
    {"what": "rewrite, 1,000 rules: a fired rewrite", "kind": "metric", "metric": "rewrite_fired_ns",
     "cmp": "<=", "target": 150, "unit": "ns", "dataset": "1,000 rules", "how": "median of 7 runs, `linkrouter bench rewrite`"},
]


def fmt_num(v):
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:,.2f}".rstrip("0").rstrip(".")


def fmt_cell(c):
    """median (min–max) ns of a timed row."""
    return f"{fmt_ns(c['ns_median'])} ({fmt_ns(c['ns_min'])}–{fmt_ns(c['ns_max'])}) ns"


def passes(v, cmp, target):
    return v <= target if cmp == "<=" else v >= target


def quotient(a, b):
    """a / b for two timed rows: the ratio of the medians, and its spread from the runs' extremes
    (a's fastest / b's slowest to a's slowest / b's fastest)."""
    return a["ns_median"] / b["ns_median"], a["ns_min"] / b["ns_max"], a["ns_max"] / b["ns_min"]


def evaluate(t, table, datasets):
    """[(dataset label, measured text, value, (lo, hi) or None)] for one target; value None = not measured."""
    def cell(key, d):
        c = table.get(key, {}).get(d)
        return c if c and "ns_median" in c else None

    def why_missing(key, d):
        c = table.get(key, {}).get(d)
        if c is None:
            return f"not measured: no {router_key(*key)} row"
        if c.get("wrong_answer"):
            return f"**WRONG answer**: {router_key(*key)}: {c.get('error', '')}"
        return f"not measured: {router_key(*key)}: {c.get('error', 'no figure')}"

    out = []
    if t["kind"] == "ratio":
        wanted = datasets if t["datasets"] == "all" else t["datasets"]
        for d in wanted:
            a, b = cell(t["a"], d), cell(t["b"], d)
            if not a or not b:
                out.append((d, why_missing(t["a"] if not a else t["b"], d), None, None))
                continue
            v, lo, hi = quotient(a, b)
            text = (f"{fmt_cell(a)} ÷ {fmt_cell(b)} = **{fmt_ratio(v)}** ({fmt_ratio(lo)}–{fmt_ratio(hi)})")
            out.append((d, text, v, (lo, hi)))
    elif t["kind"] == "growth":
        a, b = cell(t["row"], t["d1"]), cell(t["row"], t["d2"])
        label = f"{t['d1']} → {t['d2']}"
        if not a or not b:
            out.append((label, why_missing(t["row"], t["d1"] if not a else t["d2"]), None, None))
        else:
            v, lo, hi = quotient(b, a)
            out.append((label, f"{fmt_cell(b)} ÷ {fmt_cell(a)} = **{fmt_ratio(v)}** ({fmt_ratio(lo)}–{fmt_ratio(hi)})",
                        v, (lo, hi)))
    elif t["kind"] == "metric":
        m = METRICS.get(t["metric"])
        d = t.get("dataset", "—")
        if m is None or m.get("value") is None:
            out.append((d, f"not measured: no `{t['metric']}` metric row", None, None))
        else:
            v = m["value"]
            unit = f" {t['unit']}" if t["unit"] else ""
            out.append((d, f"**{fmt_num(v)}**{unit} ({t.get('how', 'one measurement')})", v, None))
    return out


def target_rows(targets, table, datasets):
    rows = []
    for t in targets:
        sign = "≤" if t["cmp"] == "<=" else "≥"
        unit = "×" if t["kind"] in ("ratio", "growth") else (f" {t['unit']}" if t.get("unit") else "")
        target_text = f"{sign} {fmt_num(t['target'])}{unit}"
        for d, text, v, spread in evaluate(t, table, datasets):
            if v is None:
                met = "**no**: wrong answer" if text.startswith("**WRONG") else "not measured"
            elif passes(v, t["cmp"], t["target"]):
                met = "yes"
                if spread and not passes(spread[0 if t["cmp"] == ">=" else 1], t["cmp"], t["target"]):
                    met += " (not at the worst of the spread)"
            else:
                met = "**no**"
                if spread and passes(spread[1 if t["cmp"] == ">=" else 0], t["cmp"], t["target"]):
                    met += " (met at the best of the spread)"
            rows.append(f"| {t['what']} | {d} | {text} | {target_text} | {met} |")
    return rows


def targets_section(table, datasets):
    out = ["## The targets of issue 10: every API as fast as the fast path\n",
           "Each figure from this run. Ratios are of the two rows' medians in this run; the range after a ratio "
           "is its spread (one row's fastest run over the other's slowest, and the reverse). **Met** is decided "
           "on the medians; a ratio whose spread crosses the target says so. A miss is a miss.\n",
           "| Target | Dataset | Measured: median (fastest–slowest run) | Target | Met |", "|---|---|---|---|---|"]
    out += target_rows(ISSUE10_TARGETS, table, datasets)
    out.append("")
    out.append("Targets of other issues (building the table, rewriting, opening, typed parameters):\n")
    out.append("| Target | Dataset | Measured | Target | Met |")
    out.append("|---|---|---|---|---|")
    out += target_rows(EARLIER_TARGETS, table, datasets)
    if METRICS:
        out.append("")
        out.append("Metric rows: " + "; ".join(f"`{m['metric']}` = {m['value']} {m.get('unit', '')} ({m.get('detail', '')})"
                                                for m in METRICS.values()) + ".")
    out.append("")
    return out


def load(path):
    meta, rows, skipped, runner_errors = {}, [], [], []
    global METRICS
    METRICS = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            obj = json.loads(line)
            if obj.get("meta"):
                meta = obj
            elif "metric" in obj:
                METRICS[obj["metric"]] = obj
            elif "skipped" in obj:
                skipped.append(obj)
            elif "router" in obj and "dataset" in obj:
                rows.append(obj)
            elif "error" in obj:
                runner_errors.append(obj)
    return meta, rows, skipped, runner_errors


def fmt_ns(x):
    if x is None:
        return "—"
    if x >= 1000:
        return f"{x:,.0f}"
    if x >= 100:
        return f"{x:.0f}"
    return f"{x:.1f}"


def fmt_ratio(r):
    if r >= 100:
        return f"{r:.0f}×"
    if r >= 10:
        return f"{r:.1f}×"
    return f"{r:.2f}×"


def router_key(name, lang):
    return f"{name} ({lang})"


def collect(rows):
    """{(router, lang): {dataset: row}} in first-seen order, plus the dataset list."""
    table = OrderedDict()
    datasets = []
    for r in rows:
        key = (r["router"], r.get("lang", "?"))
        table.setdefault(key, {})[r["dataset"]] = r
        if r["dataset"] not in datasets:
            datasets.append(r["dataset"])
    datasets.sort(key=lambda d: (DATASET_ORDER.index(d) if d in DATASET_ORDER else 99, d))
    return table, datasets


# The main table groups each LinkRouter API with the peers it is compared with: the C ABI with the C and Go
# routers, the Swift API with the Swift ones, the Python binding with the Python ones.
LANG_GROUPS = [({"c", "go"}, "C ABI, beside C and Go routers"), ({"swift"}, "Swift API, beside Swift routers"),
               ({"python"}, "Python binding, beside Python routers")]


def lang_group(lang):
    for i, (langs, _title) in enumerate(LANG_GROUPS):
        if lang in langs:
            return i
    return len(LANG_GROUPS)


def order_routers(table, datasets):
    def sort_key(item):
        (name, lang), cells = item
        is_lr = name.lower().startswith("linkrouter")
        timed = [c["ns_median"] for d in datasets for c in [cells.get(d)] if c and "ns_median" in c]
        first = next((cells[d]["ns_median"] for d in datasets if d in cells and "ns_median" in cells[d]), None)
        return (lang_group(lang), 0 if is_lr else 1, 0 if timed else 1, first if first is not None else 1e18, name)
    return OrderedDict(sorted(table.items(), key=sort_key))


def machine_info(meta):
    m = dict(meta.get("machine", {}))

    def first_line(cmd):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            return (out.stdout or out.stderr).strip().splitlines()[0]
        except Exception:  # noqa: BLE001
            return "not found"
    if not m:
        cpu = "unknown"
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("model name"):
                        cpu = line.split(":", 1)[1].strip()
                        break
        except OSError:
            pass
        m = {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
             "swift": first_line(["swift", "--version"]), "python": sys.version.split()[0],
             "cc": first_line(["cc", "--version"])}
    return m


def write_plot(path, table, datasets, reference):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        return f"plot not made: matplotlib is not importable ({e})"
    scale = [d for d in datasets if d in SCALE_SIZES]
    if not scale:
        return "plot not made: no scale-N dataset in the results"
    fig, ax = plt.subplots(figsize=(9, 6), dpi=110)
    markers = "os^vD<>phx*+"
    # One colour per router: the 10 strong hues, then their light variants (the default cycle repeats after 10).
    colors = list(plt.get_cmap("tab10").colors) + list(plt.get_cmap("tab20").colors[1::2])
    for i, ((name, lang), cells) in enumerate(table.items()):
        xs, ys, lo, hi = [], [], [], []
        for d in scale:
            c = cells.get(d)
            if c and "ns_median" in c:
                xs.append(SCALE_SIZES[d])
                ys.append(c["ns_median"])
                lo.append(c["ns_median"] - c["ns_min"])
                hi.append(c["ns_max"] - c["ns_median"])
        if not xs:
            continue
        is_lr = name.lower().startswith("linkrouter")
        baseline = any("baseline" in (c.get("note") or "") for c in cells.values())
        ax.errorbar(xs, ys, yerr=[lo, hi], marker=markers[i % len(markers)], capsize=3, color=colors[i % len(colors)],
                    linewidth=2.6 if is_lr else 1.4, linestyle="--" if baseline else "-",
                    label=router_key(name, lang) + (" — baseline" if baseline else ""))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks([SCALE_SIZES[d] for d in scale])
    ax.set_xticklabels([f"{SCALE_SIZES[d]:,}" for d in scale])
    ax.set_xlabel("routes in the table (scale-N datasets)")
    ax.set_ylabel("ns per lookup, parameters read (median; bars: min–max)")
    ax.set_title("Lookup cost against table size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", default=os.path.join(HERE, "results", "latest.jsonl"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "BENCHMARKS.md"))
    ap.add_argument("--plot", default=os.path.join(ROOT, "docs", "bench.png"))
    ap.add_argument("--reference", default=None, help="router name for the ratio column")
    ap.add_argument("--published", default=None, help="shared/data/README.md (only named in the text)")
    args = ap.parse_args()

    meta, rows, skipped, runner_errors = load(args.results)
    table, datasets = collect(rows)
    table = order_routers(table, datasets)

    # Reference for ratios.
    ref_cells, ref_label = None, None
    if args.reference:
        for (name, lang), cells in table.items():
            if name == args.reference or router_key(name, lang) == args.reference:
                ref_cells, ref_label = cells, router_key(name, lang)
                break
        if ref_cells is None:
            print(f"reference router {args.reference!r} not in the results; using the default", file=sys.stderr)
    if ref_cells is None and any("ns_median" in c for c in table.get(FAST_C, {}).values()):
        ref_cells, ref_label = table[FAST_C], router_key(*FAST_C)
    if ref_cells is None:
        for (name, lang), cells in table.items():
            if name.lower().startswith("linkrouter") and any("ns_median" in c for c in cells.values()):
                ref_cells, ref_label = cells, router_key(name, lang)
                break
    use_published = ref_cells is None

    def ratio(cells, d):
        c = cells.get(d)
        if not c or "ns_median" not in c:
            return None
        if use_published:
            return c["ns_median"] / PUBLISHED_REFERENCE[1] if d == "github" else None
        r = ref_cells.get(d)
        if not r or "ns_median" not in r:
            return None
        return c["ns_median"] / r["ns_median"]

    notes = OrderedDict()

    def note_ref(text):
        if text not in notes:
            notes[text] = len(notes) + 1
        return notes[text]

    out = []
    out.append("# Benchmarks\n")
    rel_results = os.path.relpath(os.path.abspath(args.results), ROOT)
    out.append(f"Generated by `bash bench/run.sh` (bench/report.py) from `{rel_results}`"
               + (f" on {meta['date']}" if meta.get("date") else "") + ". Do not edit by hand.\n")
    if meta.get("quick"):
        out.append("> **Quick run** (`--quick`): short runs, for checking the suite only — not figures to quote.\n")
    probe = meta.get("cpu_probe") or {}
    if probe:
        fastest = min(p["min_ms"] for p in probe.values())
        slowest_median = max(p["median_ms"] for p in probe.values())
        if slowest_median > 1.25 * fastest:
            out.append(f"> **Busy machine.** The CPU probe (a fixed loop timed before and after the runners) had a "
                       f"median wall time of {slowest_median} ms against a best of {fastest} ms "
                       f"({slowest_median / fastest:.1f}×): other processes were running. The table uses thread CPU "
                       "time, which leaves out the time spent waiting for the CPU, but caches and memory bandwidth "
                       "were shared too: re-run on a quiet machine before quoting figures.\n")
    out.append("## Lookup cost (ns per lookup, parameters read)\n")
    if use_published:
        ref_text = (f"ratio = median / matchit's published {PUBLISHED_REFERENCE[1]:.0f} ns "
                    "(GitHub set only; no LinkRouter row measured yet)")
    else:
        ref_text = f"ratio = median / the median of **{ref_label}** on the same dataset"
    out.append(f"Each cell: **median** of the runs' ns/lookup (fastest–slowest run) and the ratio; {ref_text}. "
               "Lower is better.\n")
    hdr = "| Router | Lang | " + " | ".join(datasets) + " |"
    out.append(hdr)
    out.append("|" + "---|" * (2 + len(datasets)))
    group_seen = set()
    for (name, lang), cells in table.items():
        g = lang_group(lang)
        if g not in group_seen and g < len(LANG_GROUPS):
            group_seen.add(g)
            out.append(f"| *{LANG_GROUPS[g][1]}* | | " + " | ".join("" for _ in datasets) + " |")
        tags = []
        for c in cells.values():
            if c.get("version") and f"v{c['version']}" not in tags:
                tags.append(f"v{c['version']}")
            if c.get("binding") and f"({c['binding']})" not in tags:
                tags.append(f"({c['binding']})")
        label = f"**{name}**" if name.lower().startswith("linkrouter") else name
        if tags:
            label += " " + " ".join(tags)
        row_notes = OrderedDict()
        for d in datasets:
            c = cells.get(d)
            if c and c.get("api") and "ns_median" in c:
                row_notes[f"one lookup = {c['api']}"] = True
            if c and c.get("note") and "ns_median" in c:
                row_notes[c["note"]] = True
        cols = []
        for d in datasets:
            c = cells.get(d)
            if c is None:
                cols.append("—")
            elif "ns_median" in c:
                s = f"**{fmt_ns(c['ns_median'])}** ({fmt_ns(c['ns_min'])}–{fmt_ns(c['ns_max'])})"
                r = ratio(cells, d)
                if r is not None:
                    s += f" {fmt_ratio(r)}"
                if c.get("urls_timed") and c["urls_timed"] < c.get("routes", 0):
                    s += f" [^{note_ref('Timed on a prefix of the shuffled URL order only (a full pass was too slow); see urls_timed in the JSON.')}]"
                cols.append(s)
            else:
                err = c.get("error", "no figure")
                kind = "WRONG" if c.get("wrong_answer") else "not run"
                cols.append(f"**{kind}** [^{note_ref(f'{name}, {d}: {err}')}]")
        for text in row_notes:
            label += f" [^{note_ref(f'{name}: {text}')}]"
        out.append(f"| {label} | {lang} | " + " | ".join(cols) + " |")
    out.append("")
    for text, n in notes.items():
        out.append(f"[^{n}]: {text}")
    out.append("")
    if skipped:
        out.append("Runners with nothing to run yet:\n")
        for s in skipped:
            out.append(f"- `{s.get('runner', '?')}`: {s['skipped']}")
        out.append("")
    if runner_errors:
        out.append("Runner failures:\n")
        for e in runner_errors:
            out.append(f"- `{e.get('runner', '?')}`: {e['error']}")
        out.append("")

    out += targets_section(table, datasets)
    plot_note = write_plot(args.plot, table, datasets, ref_label)
    rel_plot = os.path.relpath(os.path.abspath(args.plot), os.path.dirname(os.path.abspath(args.out)))
    out.append("## Cost against table size\n")
    if plot_note:
        out.append(f"({plot_note})\n")
    else:
        out.append(f"![ns per lookup against table size, log-log]({rel_plot})\n")
        out.append("ns per lookup (median, bars min–max) on the scale-N datasets, both axes logarithmic.\n")

    out.append("## Published figures (not measured here)\n")
    out.append("From `shared/data/README.md`: peers measured on this kind of machine, GitHub set, median ns "
               "per lookup with parameters read. Quoted for context; this suite did not produce them.\n")
    out.append("| Router | Lang | ns/lookup (GitHub set) |")
    out.append("|---|---|---|")
    for name, lang, ns in PUBLISHED:
        out.append(f"| {name} | {lang} | {ns:,} |")
    out.append("")

    s = meta.get("settings", {})
    run_ms_text = (f"~{s['BENCH_RUN_MS']} ms" if "BENCH_RUN_MS" in s
                   else "~150 ms (100 ms for 100,000 routes)")
    runs_text = (f"{s['BENCH_RUNS']} runs" if "BENCH_RUNS" in s
                 else "11 runs (7 for 100,000 routes)")
    clocks = {r.get("clock") for r in rows if "ns_median" in r}
    if clocks == {"wall"}:
        clock_text = "the ns figures are wall time (`BENCH_CLOCK=wall`: CLOCK_MONOTONIC, `time.perf_counter_ns`)"
    elif clocks <= {"thread-cpu"}:
        clock_text = ("the ns figures are the timing thread's CPU time (CLOCK_THREAD_CPUTIME_ID; "
                      "`time.thread_time_ns` in Python), so time spent descheduled while other processes ran "
                      "is not counted; `BENCH_CLOCK=wall` switches to wall time")
    else:
        clock_text = "mixed: each row's `clock` field says which clock its ns figures use"
    out.append("## Method\n")
    out.append(f"""\
- **Data**: `github` = the 203 GitHub API routes of go-http-routing-benchmark as LinkRouter patterns
  (`gh://get/repos/:owner/:repo`, the HTTP method as host); `scale-N` = N synthetic routes
  `app://moduleK/resI[/:id[/detail|/items/:item]]`. One URL per route, with the parameters it must yield.
- **Mapping**: every peer routes *host + path*: `gh://get/repos/:owner/:repo` becomes `/get/repos/{{owner}}/{{repo}}`
  (r3, chi, falcon, pymatchit, python-matchit), `/get/repos/:owner/:repo` (httprouter, routrie, xrtr),
  `/get/repos/<owner>/<repo>` (werkzeug), `[get, repos, :owner, :repo]` (routing-kit, as Vapor registers
  `[method] + path`); httprouter and chi get the method `GET`. The scheme is dropped before timing; LinkRouter
  takes the whole URL and parses it inside every lookup.
- **LinkRouter**: every API a user calls, each on every dataset, each reading the route's target and every
  parameter: C `lr_router_resolve_into` (the zero-allocation fast path) and `lr_router_resolve` +
  `lr_match_target` + `lr_match_get` per parameter + `lr_match_free` (the README's first example); Swift
  `withMatch` and `router.resolve` → `Match`; Python `Router.resolve` + `m.target` + every value of `m.params`
  (the row says which binding was loaded: `ctypes` or `c-extension`).
- **Verify first**: after building the table, every URL of the dataset is looked up once and must reach its
  own route with exactly the expected parameters (names and values). A router that answers wrong is not
  timed: its row is an error (`verified: false`) and the suite exits non-zero.
- **Timing**: lookups go through the URLs in one fixed shuffled order (a 64-bit LCG Fisher–Yates, seed 42,
  identical in C, Go, Swift and Python). A *pass* looks each URL up once and reads the route and every
  captured parameter as a string (C: the `char *` and its length; Go: each `string`; Swift:
  `parameters.get(name)` or `view[name]`; Python: each value of the params dict/list). After a warm-up of at least half a run, each *run* repeats the pass enough times to last
  {run_ms_text}, and {runs_text} are timed.
  A cell is the median of the runs' ns/lookup, with the fastest and slowest run.
- **Slow peers**: if one pass over all URLs takes more than {s.get('BENCH_MAX_PASS_MS', '1000')} ms, runs time a
  prefix of the shuffled order only (marked in the table). Python tables known to take minutes to build
  (xrtr, falcon, werkzeug at 100,000 routes) are "not run" by default, and any other Python table build
  over {s.get('BENCH_BUILD_TIMEOUT_S', '60')} s is abandoned (see the footnotes and `bench/README.md`).
- **Clock**: {clock_text}. Both clocks are read around every run; the JSON rows carry
  `cpu_ns_median` and `wall_ns_median`. On a quiet machine the two agree; on this shared machine
  (other builds running) wall time can be 2× the CPU time.
- **Process**: one process per runner (one per router for Python and Go), pinned to one CPU with `taskset`;
  Python runs with the garbage collector disabled during timed runs, as `timeit` does. Go keeps its collector
  on (httprouter 1.3 allocates its `Params` per lookup); the Go timing goroutine is locked to its OS thread, and
  the rows carry the process's CPU time too (`process_cpu_ns_median`), which counts collector work on other
  threads.
- **Baselines**: `swift-dictionary` and `python-dict` look the whole URL string up in a hash map: no
  parameters, an exact-match lower bound.
- Raw rows: `bench/results/latest.jsonl`; how to run and what each runner measures: `bench/README.md`.
""")
    m = machine_info(meta)
    out.append("## Machine\n")
    out.append(f"- CPU: {m.get('cpu', 'unknown')}, {m.get('cores', '?')} cores (vCPUs)")
    out.append(f"- Kernel: {m.get('kernel', 'unknown')}" + (f" ({m['os']})" if m.get("os") else ""))
    out.append(f"- Swift: {m.get('swift', 'unknown')}")
    out.append(f"- Python: {m.get('python', 'unknown')}")
    out.append(f"- C compiler: {m.get('cc', 'unknown')}")
    probe = meta.get("cpu_probe") or {}
    if probe:
        parts = [f"{when}: {p['min_ms']}–{p['max_ms']} ms wall (median {p['median_ms']}"
                 + (f", CPU time median {p['cpu_median_ms']}" if "cpu_median_ms" in p else "") + ")"
                 for when, p in probe.items()]
        out.append("- CPU steadiness: a fixed integer loop, 25 times on the pinned CPU, took " + "; ".join(parts)
                   + ". Wall time far above CPU time means other processes competed for the CPU during the run.")
    if meta.get("date"):
        out.append(f"- Date: {meta['date']}" + (f"; the whole suite took {meta['total_s']} s" if "total_s" in meta else ""))
    out.append("")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    print(f"wrote {args.out}" + ("" if plot_note else f" and {args.plot}"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

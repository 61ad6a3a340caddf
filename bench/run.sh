#!/usr/bin/env bash
# bench/run.sh - the router benchmark suite driver. Works from any directory:
#     bash bench/run.sh [options]
#
# Runs every bench/runners/*.sh in name order (each installs/builds what it needs and
# prints JSON lines), collects the lines into bench/results/latest.jsonl, then runs
# bench/report.py, which writes docs/BENCHMARKS.md and docs/bench.png.
#
# Options:
#   --only REGEX       run only the runners whose name (e.g. c-r3, python-peers) matches
#   --datasets "A B"   datasets (default: github scale-10 scale-1000 scale-10000 scale-100000)
#   --reference NAME   reference router for the ratio column (passed to report.py)
#   --quick            smoke test: github scale-10 scale-1000, 5 runs of 20 ms; writes
#                      bench/results/quick.jsonl and no report
#   --no-report        collect results only
# Environment: LINKROUTER_DATA, BENCH_RUNS, BENCH_RUN_MS, BENCH_MAX_PASS_MS, BENCH_CLOCK,
# BENCH_BUILD_TIMEOUT_S, BENCH_PY_SLOW_BUILDS, BENCH_CPU (see bench/README.md).
#
# Exit status: 0 if every runner exited 0, 1 if any runner failed (for example a router
# that answered wrong: its row says "verified": false and it was not timed). Peers that
# cannot be installed or built do not fail the suite: they get "error" rows.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

ONLY="" REFERENCE="" QUICK=0 REPORT=1
while [ $# -gt 0 ]; do
    case "$1" in
        --only) ONLY="$2"; shift 2 ;;
        --datasets) export BENCH_DATASETS="$2"; shift 2 ;;
        --reference) REFERENCE="$2"; shift 2 ;;
        --quick) QUICK=1; REPORT=0; shift ;;
        --no-report) REPORT=0; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) echo "unknown option: $1" >&2; exit 2 ;;
    esac
done
if [ "$QUICK" = 1 ]; then
    export BENCH_DATASETS="${BENCH_QUICK_DATASETS:-github scale-10 scale-1000}"
    export BENCH_RUNS="${BENCH_RUNS:-5}" BENCH_RUN_MS="${BENCH_RUN_MS:-20}"
fi

if [ ! -d "$LINKROUTER_DATA" ]; then
    echo "data folder not found: $LINKROUTER_DATA (set LINKROUTER_DATA)" >&2
    exit 2
fi

RESULTS="$BENCH_DIR/results"
LOGS="$RESULTS/logs"
mkdir -p "$RESULTS" "$LOGS"
OUT="$RESULTS/latest.jsonl"
[ "$QUICK" = 1 ] && OUT="$RESULTS/quick.jsonl"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# CPU steadiness probe (bench/c/noise_probe.c), before and after the runners.
noise_probe() {
    if [ ! -x "$BENCH_BUILD/noise_probe" ] || [ "$BENCH_DIR/c/noise_probe.c" -nt "$BENCH_BUILD/noise_probe" ]; then
        mkdir -p "$BENCH_BUILD"
        cc -O1 -o "$BENCH_BUILD/noise_probe" "$BENCH_DIR/c/noise_probe.c" 2>/dev/null || return 0
    fi
    bench_pin "$BENCH_BUILD/noise_probe" 2>/dev/null || true
}
export NOISE_BEFORE NOISE_AFTER
NOISE_BEFORE="$(noise_probe)"

START=$(date +%s)
: > "$TMP/rows.jsonl"
failed_runners=()

for runner in "$BENCH_DIR"/runners/*.sh; do
    [ -f "$runner" ] || continue
    name="$(basename "$runner" .sh)"
    if [ -n "$ONLY" ] && ! [[ "$name" =~ $ONLY ]]; then continue; fi
    bench_log "=== runner $name"
    t0=$(date +%s)
    # stdout: JSON lines; stderr: progress and build output, shown and kept in the log.
    bash "$runner" > "$TMP/$name.out" 2> >(tee "$LOGS/$name.log" >&2)
    rc=$?
    wait  # let tee finish writing the log
    dt=$(( $(date +%s) - t0 ))
    # Keep the lines that are JSON objects, tagged with the runner's name; others go to the log.
    python3 - "$name" "$TMP/$name.out" "$LOGS/$name.log" >> "$TMP/rows.jsonl" <<'PY'
import json, sys
name, out, log = sys.argv[1:4]
with open(out, encoding="utf-8", errors="replace") as f, open(log, "a") as lg:
    for line in f:
        s = line.strip()
        if not s:
            continue
        try:
            obj = json.loads(s)
            if not isinstance(obj, dict):
                raise ValueError
        except ValueError:
            lg.write("[stdout, not JSON] " + line)
            continue
        obj.setdefault("runner", name)
        print(json.dumps(obj))
PY
    n_rows=$(grep -c '"ns_median"' "$TMP/$name.out" || true)
    n_err=$(grep -c '"error"' "$TMP/$name.out" || true)
    if grep -q '"skipped"' "$TMP/$name.out"; then
        bench_log "--- $name: skipped: $(python3 -c 'import json,sys; [print(json.loads(l)["skipped"]) for l in open(sys.argv[1]) if "skipped" in l]' "$TMP/$name.out" 2>/dev/null | head -1)"
    fi
    if [ $rc -ne 0 ]; then
        failed_runners+=("$name")
        printf '{"runner": %s, "error": %s}\n' "$(bench_json_str "$name")" \
            "$(bench_json_str "runner exited with status $rc (see bench/results/logs/$name.log)")" >> "$TMP/rows.jsonl"
    fi
    bench_log "--- $name: exit $rc, $n_rows timed rows, $n_err error rows, ${dt}s"
done

END=$(date +%s)
NOISE_AFTER="$(noise_probe)"
# A first line describing the run and the machine, for the report.
python3 - "$START" "$END" "$QUICK" > "$OUT" <<'PY'
import json, os, platform, subprocess, sys, datetime
start, end, quick = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
def first_line(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except Exception:
        return "not found"
cpu = "unknown"
try:
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip(); break
except OSError:
    pass
py = os.environ.get("BENCH_PY", "")
meta = {
    "meta": True,
    "date": datetime.datetime.fromtimestamp(start, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    "total_s": end - start,
    "quick": quick,
    "cpu_probe": {k: json.loads(os.environ[v]) for k, v in (("before", "NOISE_BEFORE"), ("after", "NOISE_AFTER"))
                  if os.environ.get(v, "").startswith("{")},
    "datasets": os.environ.get("BENCH_DATASETS", "").split(),
    "settings": {k: os.environ[k] for k in ("BENCH_RUNS", "BENCH_RUN_MS", "BENCH_MAX_PASS_MS", "BENCH_CLOCK",
                                            "BENCH_BUILD_TIMEOUT_S", "BENCH_PY_SLOW_BUILDS", "BENCH_CPU") if os.environ.get(k)},
    "machine": {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "kernel": platform.release(),
        "os": first_line(["sh", "-c", ". /etc/os-release && echo $PRETTY_NAME"]),
        "swift": first_line(["swift", "--version"]),
        "python": first_line([py if py and os.path.exists(py) else "python3", "--version"]),
        "cc": first_line(["cc", "--version"]),
    },
}
print(json.dumps(meta))
PY
cat "$TMP/rows.jsonl" >> "$OUT"
bench_log "results: $OUT ($(( END - START ))s)"

status=0
if [ ${#failed_runners[@]} -gt 0 ]; then
    bench_log "FAILED runners: ${failed_runners[*]} (wrong answers or crashes: see bench/results/logs/)"
    status=1
fi

if [ "$REPORT" = 1 ]; then
    if ! bench_ensure_venv; then bench_log "no venv: the report is made without the plot"; fi
    PY="$BENCH_PY"; [ -x "$PY" ] || PY=python3
    args=(--results "$OUT" --out "$REPO_ROOT/docs/BENCHMARKS.md" --plot "$REPO_ROOT/docs/bench.png"
          --published "$LINKROUTER_DATA/README.md")
    [ -n "$REFERENCE" ] && args+=(--reference "$REFERENCE")
    "$PY" "$BENCH_DIR/report.py" "${args[@]}" || status=1
fi
exit $status

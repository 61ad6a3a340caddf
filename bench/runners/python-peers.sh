#!/usr/bin/env bash
# Runner: Python peers (routrie, pymatchit, python-matchit, xrtr, falcon, werkzeug) and a dict baseline, from
# bench/.venv. One process per router, so a crash or a memory-hungry table in one
# does not affect the others.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

ROUTERS="${BENCH_PY_ROUTERS:-routrie pymatchit python-matchit xrtr falcon werkzeug python-dict}"
if ! bench_ensure_venv; then
    for r in $ROUTERS; do bench_error_rows "$r" python "could not create the venv $BENCH_VENV"; done
    exit 0
fi
status=0
for r in $ROUTERS; do
    if reason="$(bench_pip_failure "$r")"; then
        bench_error_rows "$r" python "$reason"
        continue
    fi
    bench_log "python peers_bench.py --router $r"
    (cd "$BENCH_DIR/python" && bench_pin "$BENCH_PY" peers_bench.py --router "$r") || status=1
done
exit $status

#!/usr/bin/env bash
# LinkRouter's Python binding: bench/python/linkrouter_bench.py (rows linkrouter/resolve, lang "python", each
# with the binding it loaded) run with the bench venv's Python, bindings/python (and bindings/python/src) on
# PYTHONPATH and LINKROUTER_LIB_DIR set when a liblinkrouter.so is found (build/lib first), so the binding
# loads it without installing.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

SRC="$BENCH_DIR/python/linkrouter_bench.py"
if [ ! -f "$SRC" ]; then
    bench_skip linkrouter-python "bench/python/linkrouter_bench.py not written yet (LinkRouter Python runner slot)"
    exit 0
fi
if ! bench_ensure_venv; then
    bench_error_rows linkrouter/resolve python "could not create the venv $BENCH_VENV"
    exit 0
fi
for d in ${LINKROUTER_LIB_DIR:-} "$REPO_ROOT/build/lib" "$REPO_ROOT/.build/release" "$REPO_ROOT/build" "$REPO_ROOT/lib"; do
    if [ -n "$d" ] && [ -f "$d/liblinkrouter.so" ]; then export LINKROUTER_LIB_DIR="$d"; break; fi
done
export PYTHONPATH="$REPO_ROOT/bindings/python:$REPO_ROOT/bindings/python/src${PYTHONPATH:+:$PYTHONPATH}"
cd "$BENCH_DIR/python" && bench_pin "$BENCH_PY" "$SRC"

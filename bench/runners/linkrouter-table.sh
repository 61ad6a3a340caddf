#!/usr/bin/env bash
# Route tables as files: lr_router_load_file of a generated 10,000-route table file (also 1,000 and 100,000),
# lr_router_to_json and lr_router_check_file of it, as metric rows (bench/c/linkrouter_table_bench.c).
# Finds liblinkrouter.so as linkrouter-c.sh does (LINKROUTER_LIB_DIR, build/lib, .build/release).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

SRC="$BENCH_DIR/c/linkrouter_table_bench.c"
LIBDIR=""
for d in ${LINKROUTER_LIB_DIR:-} "$REPO_ROOT/build/lib" "$REPO_ROOT/.build/release" "$REPO_ROOT/build"; do
    if [ -n "$d" ] && [ -f "$d/liblinkrouter.so" ]; then LIBDIR="$d"; break; fi
done
if [ -z "$LIBDIR" ]; then
    bench_log "liblinkrouter.so not found: make lib"
    (cd "$REPO_ROOT" && make lib >&2) || true
    LIBDIR="$REPO_ROOT/build/lib"
fi
if [ ! -f "$LIBDIR/liblinkrouter.so" ]; then
    echo '{"runner": "linkrouter-table", "error": "liblinkrouter.so could not be built"}'
    exit 0
fi
mkdir -p "$BENCH_BUILD"
if ! cc -O2 -Wall -I"$REPO_ROOT/Include" -I"$BENCH_DIR/c" -o "$BENCH_BUILD/linkrouter_table_bench" "$SRC" \
        -L"$LIBDIR" -llinkrouter -Wl,-rpath,"$LIBDIR" >&2; then
    echo '{"runner": "linkrouter-table", "error": "bench/c/linkrouter_table_bench.c did not compile"}'
    exit 0
fi
bench_pin "$BENCH_BUILD/linkrouter_table_bench"

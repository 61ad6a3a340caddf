#!/usr/bin/env bash
# LinkRouter slot: the C ABI runner. Skips (with a note) until bench/c/linkrouter_bench.c
# exists. Then: finds liblinkrouter.so (LINKROUTER_LIB_DIR, else the usual build
# folders, else runs `swift build -c release -Xswiftc -static-stdlib` in the repo root
# and looks again), compiles against Include/linkrouter.h and runs the program.
# The program includes bench/c/bench_common.h and prints rows with router "linkrouter", lang "c".
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

SRC="$BENCH_DIR/c/linkrouter_bench.c"
if [ ! -f "$SRC" ]; then
    bench_skip linkrouter-c "bench/c/linkrouter_bench.c not written yet (LinkRouter C ABI runner slot)"
    exit 0
fi

find_lib() {
    local d
    for d in ${LINKROUTER_LIB_DIR:-} "$REPO_ROOT/.build/release" "$REPO_ROOT/.build/x86_64-unknown-linux-gnu/release" \
             "$REPO_ROOT/build" "$REPO_ROOT/lib" "$REPO_ROOT"; do
        if [ -n "$d" ] && [ -f "$d/liblinkrouter.so" ]; then echo "$d"; return 0; fi
    done
    return 1
}
if ! LIBDIR="$(find_lib)"; then
    bench_log "liblinkrouter.so not found: swift build -c release -Xswiftc -static-stdlib (repo root)"
    (cd "$REPO_ROOT" && swift build -c release -Xswiftc -static-stdlib >&2) || true
    if ! LIBDIR="$(find_lib)"; then
        bench_error_rows linkrouter c "liblinkrouter.so not found (set LINKROUTER_LIB_DIR) and the root package did not build it"
        exit 0
    fi
fi
mkdir -p "$BENCH_BUILD"
if ! cc -O2 -Wall -I"$REPO_ROOT/Include" -I"$BENCH_DIR/c" -I"$REPO_ROOT/Tests/C" -rdynamic -o "$BENCH_BUILD/linkrouter_bench" "$SRC" \
        -L"$LIBDIR" -llinkrouter -Wl,-rpath,"$LIBDIR" >&2; then
    bench_error_rows linkrouter c "bench/c/linkrouter_bench.c did not compile/link against $LIBDIR/liblinkrouter.so"
    exit 0
fi
bench_pin "$BENCH_BUILD/linkrouter_bench"

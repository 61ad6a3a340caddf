#!/usr/bin/env bash
# LinkRouter's C ABI: bench/c/linkrouter_bench.c (rows linkrouter/resolve_into and linkrouter/resolve, lang "c",
# plus metric rows). Finds liblinkrouter.so (LINKROUTER_LIB_DIR, else build/lib where `make lib` puts it, else
# the SwiftPM folders; when none has it, runs `make lib` and looks again), compiles against
# Include/linkrouter.h and runs the program.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

SRC="$BENCH_DIR/c/linkrouter_bench.c"
if [ ! -f "$SRC" ]; then
    bench_skip linkrouter-c "bench/c/linkrouter_bench.c not written yet (LinkRouter C ABI runner slot)"
    exit 0
fi

find_lib() {
    local d
    for d in ${LINKROUTER_LIB_DIR:-} "$REPO_ROOT/build/lib" "$REPO_ROOT/.build/release" "$REPO_ROOT/.build/x86_64-unknown-linux-gnu/release" \
             "$REPO_ROOT/build" "$REPO_ROOT/lib" "$REPO_ROOT"; do
        if [ -n "$d" ] && [ -f "$d/liblinkrouter.so" ]; then echo "$d"; return 0; fi
    done
    return 1
}
if ! LIBDIR="$(find_lib)"; then
    bench_log "liblinkrouter.so not found: make lib"
    (cd "$REPO_ROOT" && make lib >&2) || true
    if ! LIBDIR="$(find_lib)"; then
        for r in linkrouter/resolve_into linkrouter/resolve; do
            bench_error_rows "$r" c "liblinkrouter.so not found (set LINKROUTER_LIB_DIR) and make lib did not build it"
        done
        exit 0
    fi
fi
mkdir -p "$BENCH_BUILD"
if ! cc -O2 -Wall -I"$REPO_ROOT/Include" -I"$BENCH_DIR/c" -I"$REPO_ROOT/Tests/C" -rdynamic -o "$BENCH_BUILD/linkrouter_bench" "$SRC" \
        -L"$LIBDIR" -llinkrouter -Wl,-rpath,"$LIBDIR" >&2; then
    for r in linkrouter/resolve_into linkrouter/resolve; do
        bench_error_rows "$r" c "bench/c/linkrouter_bench.c did not compile/link against $LIBDIR/liblinkrouter.so"
    done
    exit 0
fi
bench_pin "$BENCH_BUILD/linkrouter_bench"

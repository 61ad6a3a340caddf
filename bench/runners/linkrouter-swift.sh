#!/usr/bin/env bash
# LinkRouter slot: the Swift API runner. Skips (with a note) until
# bench/swift/Sources/linkrouter-bench/ exists. Then bench/swift/Package.swift adds the
# executable target linkrouter-bench depending on the root package (path ../..,
# product LinkRouter) and BenchCore; this builds and runs it (its own .build folder).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

if [ ! -d "$BENCH_DIR/swift/Sources/linkrouter-bench" ]; then
    bench_skip linkrouter-swift "bench/swift/Sources/linkrouter-bench/ not written yet (LinkRouter Swift API runner slot)"
    exit 0
fi
SCRATCH="$BENCH_DIR/swift/.build"
bench_log "swift build -c release --product linkrouter-bench (bench/swift)"
if ! swift build -c release --package-path "$BENCH_DIR/swift" --scratch-path "$SCRATCH" \
        --manifest-cache none --product linkrouter-bench >&2; then
    bench_error_rows linkrouter swift "bench/swift linkrouter-bench did not build (see the runner log)"
    exit 0
fi
bench_pin "$SCRATCH/release/linkrouter-bench"

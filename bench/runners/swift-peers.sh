#!/usr/bin/env bash
# Runner: vapor/routing-kit TrieRouter and the Swift Dictionary baseline
# (bench/swift, product peers-bench). Built in its own scratch folder with the
# LinkRouter target left out (BENCH_NO_LINKROUTER=1), so the peers are measured even
# while the root package does not build.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

if ! command -v swift >/dev/null 2>&1; then
    for r in routing-kit routing-kit/pre-split swift-dictionary; do bench_error_rows "$r" swift "swift not found on PATH"; done
    exit 0
fi
SCRATCH="$BENCH_DIR/swift/.build-peers"
bench_log "swift build -c release --product peers-bench (bench/swift)"
if ! BENCH_NO_LINKROUTER=1 swift build -c release --package-path "$BENCH_DIR/swift" \
        --scratch-path "$SCRATCH" --manifest-cache none --product peers-bench >&2; then
    for r in routing-kit routing-kit/pre-split swift-dictionary; do
        bench_error_rows "$r" swift "bench/swift peers-bench did not build (see the runner log)"
    done
    exit 0
fi
bench_pin "$SCRATCH/release/peers-bench"

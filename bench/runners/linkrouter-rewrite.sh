#!/usr/bin/env bash
# LinkRouter's rewrite engine: `linkrouter bench rewrite --rules 1000` prints metric rows (regexes evaluated per
# URL, a fired and an unfired rewrite). Uses build/bin/linkrouter, building it when missing.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

CLI="$REPO_ROOT/build/bin/linkrouter"
if [ ! -x "$CLI" ]; then
    bench_log "build/bin/linkrouter not found: make lib"
    (cd "$REPO_ROOT" && make lib >&2) || true
fi
if [ ! -x "$CLI" ]; then
    echo '{"runner": "linkrouter-rewrite", "error": "build/bin/linkrouter could not be built"}'
    exit 0
fi
bench_pin "$CLI" bench rewrite --rules 1000

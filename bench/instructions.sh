#!/usr/bin/env bash
# Instructions per operation under callgrind (make bench-instructions): the figures the commit messages and notes
# quote for changes too small to see through this machine's wall-clock noise. Each mode runs twice, 2 and 12
# rounds, and the difference is divided by the operations in between (set-up cancels out).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
LIB="${LIB:-$ROOT/build/lib}"
OUT="$ROOT/build/bench"
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)"; exit 1; }
mkdir -p "$OUT"
cc -O2 -std=c99 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -I"$ROOT/Include" -I"$ROOT/bench/c" \
    "$ROOT/bench/c/instructions.c" -o "$OUT/instructions" -L"$LIB" -llinkrouter -Wl,-rpath,"$LIB"
export LINKROUTER_DATA="${LINKROUTER_DATA:-$ROOT/../shared/data}"

collected() {  # instructions of one run
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$OUT/instructions" "$@" 2>&1 >/dev/null \
        | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
rows() {  # lookups per round of a data set
    if [ "$1" = - ]; then echo 10000; return; fi
    local f="$LINKROUTER_DATA/$1.tsv"
    [ "$1" = github ] && f="$LINKROUTER_DATA/github-routes.tsv"
    [ -f "$f" ] || { echo "missing data file $f" >&2; exit 1; }
    grep -vc '^#' "$f"
}
printf '%-8s %-10s %s\n' mode set instructions/op
for spec in "plain -" "typed -" "into scale-10" "into github" "resolve github" "open github"; do
    set -- $spec
    a=$(collected "$1" "$2" 2); b=$(collected "$1" "$2" 12)
    printf '%-8s %-10s %d\n' "$1" "$2" $(( (b - a) / (10 * $(rows "$2")) ))
done

#!/usr/bin/env bash
# What lr_router_resolve costs beyond lr_router_resolve_into, step by step (make bench-steps): bench/c/resolve_steps.c
# on the GitHub set, or on the sets named as arguments. Wall-clock figures (thread CPU time): quote them only
# from a quiet machine, and compare two builds by running them alternately (LIB=... points at another build).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
LIB="${LIB:-$ROOT/build/lib}"
OUT="$ROOT/build/bench"
mkdir -p "$OUT"
cc -O2 -std=c99 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -I"$ROOT/Include" -I"$ROOT/bench/c" \
    "$ROOT/bench/c/resolve_steps.c" -o "$OUT/resolve_steps" -L"$LIB" -llinkrouter -Wl,-rpath,"$LIB"
export LINKROUTER_DATA="${LINKROUTER_DATA:-$ROOT/../shared/data}"
[ $# -gt 0 ] || set -- github
for set in "$@"; do
    taskset -c "$(( $(nproc) - 1 ))" "$OUT/resolve_steps" "$set"
done

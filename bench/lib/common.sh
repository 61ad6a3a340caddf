# bench/lib/common.sh - sourced by bench/run.sh and by every bench/runners/*.sh.
# Paths, the data folder, the Python venv, apt installs and the JSON rows a runner
# prints when it cannot measure anything.

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO_ROOT="$(cd "$BENCH_DIR/.." && pwd)"
export BENCH_DIR REPO_ROOT

# Data: $LINKROUTER_DATA, default ../shared/data relative to the repo root; made absolute.
: "${LINKROUTER_DATA:=$REPO_ROOT/../shared/data}"
if [ -d "$LINKROUTER_DATA" ]; then LINKROUTER_DATA="$(cd "$LINKROUTER_DATA" && pwd)"; fi
export LINKROUTER_DATA

: "${BENCH_DATASETS:=github scale-10 scale-1000 scale-10000 scale-100000}"
export BENCH_DATASETS

BENCH_VENV="${BENCH_VENV:-$BENCH_DIR/.venv}"
BENCH_BUILD="$BENCH_DIR/.build"          # C binaries (gitignored)
BENCH_PY="$BENCH_VENV/bin/python"
export BENCH_VENV BENCH_BUILD BENCH_PY

# Pin the measuring process to one CPU (the last one) when taskset exists, so the
# scheduler does not move it mid-run. BENCH_CPU overrides, BENCH_CPU=none disables.
bench_pin() {
    local cpu="${BENCH_CPU:-}"
    if [ "$cpu" = none ] || ! command -v taskset >/dev/null 2>&1; then "$@"; return; fi
    if [ -z "$cpu" ]; then cpu=$(( $(nproc 2>/dev/null || echo 1) - 1 )); fi
    taskset -c "$cpu" "$@"
}

bench_log() { echo "[bench] $*" >&2; }

# JSON string escaping for messages built in shell.
bench_json_str() {
    local s="$1"
    s="${s//\\/\\\\}"; s="${s//\"/\\\"}"
    s="${s//$'\n'/ }"; s="${s//$'\t'/ }"; s="${s//$'\r'/}"
    printf '"%s"' "$s"
}

# bench_error_rows ROUTER LANG MESSAGE: one error row per dataset of BENCH_DATASETS,
# for a router that could not be installed or built at all.
bench_error_rows() {
    local router="$1" lang="$2" msg="$3" ds
    for ds in $BENCH_DATASETS; do
        printf '{"router": %s, "lang": %s, "dataset": %s, "verified": false, "error": %s}\n' \
            "$(bench_json_str "$router")" "$(bench_json_str "$lang")" "$(bench_json_str "$ds")" \
            "$(bench_json_str "$msg")"
    done
}

# bench_skip RUNNER REASON: a runner with nothing to run (e.g. the LinkRouter runners
# before their sources exist). The driver shows it; the report lists it under notes.
bench_skip() {
    printf '{"runner": %s, "skipped": %s}\n' "$(bench_json_str "$1")" "$(bench_json_str "$2")"
}

bench_as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo -n "$@"
    else return 1; fi
}

# bench_apt_install PKG...: apt-get update (once per driver run) + install.
bench_apt_install() {
    if [ -z "${BENCH_APT_UPDATED:-}" ]; then
        bench_log "apt-get update"
        bench_as_root apt-get update -qq >&2 || return 1
        export BENCH_APT_UPDATED=1
    fi
    bench_log "apt-get install -y $*"
    DEBIAN_FRONTEND=noninteractive bench_as_root apt-get install -y -qq "$@" >&2
}

# bench_ensure_venv: bench/.venv with each line of bench/python/requirements.txt
# installed one by one, so one package that fails does not take the others with it.
# Failures are listed in $BENCH_VENV/.bench-failed as "name<TAB>reason" (the runners
# turn them into error rows); everything is retried on the next run until all install.
# Returns non-zero only if the venv itself cannot be made.
bench_ensure_venv() {
    local req="$BENCH_DIR/python/requirements.txt" stamp="$BENCH_VENV/.bench-requirements"
    local failed="$BENCH_VENV/.bench-failed" line name out
    if [ ! -x "$BENCH_PY" ]; then
        bench_log "creating $BENCH_VENV"
        "${PYTHON:-python3}" -m venv "$BENCH_VENV" >&2 || return 1
    fi
    if [ -f "$stamp" ] && cmp -s "$req" "$stamp"; then return 0; fi
    : > "$failed"
    while IFS= read -r line; do
        line="${line%%#*}"; line="$(echo "$line" | tr -d '[:space:]')"
        [ -n "$line" ] || continue
        name="${line%%[=<>!~]*}"
        bench_log "pip install $line"
        if ! out="$("$BENCH_PY" -m pip install -q --disable-pip-version-check "$line" 2>&1)"; then
            echo "$out" >&2
            printf '%s\t%s\n' "$name" "pip install $line failed: $(echo "$out" | grep -iE 'error' | tail -1)" >> "$failed"
        fi
    done < "$req"
    if [ ! -s "$failed" ]; then cp "$req" "$stamp"; fi
    return 0
}

# bench_pip_failure NAME: the recorded pip failure for NAME, if any.
bench_pip_failure() {
    [ -f "$BENCH_VENV/.bench-failed" ] || return 1
    awk -F'\t' -v n="$1" '$1 == n { print $2; found = 1 } END { exit !found }' "$BENCH_VENV/.bench-failed"
}

#!/usr/bin/env bash
# Runner: Go peers julienschmidt/httprouter and go-chi/chi (bench/go), from Debian's packages:
# golang-go, golang-github-julienschmidt-httprouter-dev, golang-github-go-chi-chi-dev (installed with
# apt-get when missing). Built in GOPATH mode (GO111MODULE=off, GOPATH=/usr/share/gocode, GOPROXY=off,
# GOFLAGS=-mod=mod unset): no network. One process per router, like the Python peers.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

ROUTERS="httprouter chi"
GOSRC=/usr/share/gocode/src
HTTPROUTER_DIR="$GOSRC/github.com/julienschmidt/httprouter"
CHI_DIR="$GOSRC/github.com/go-chi/chi"   # module .../chi/v5, imported without /v5 in GOPATH mode

all_error_rows() { local r; for r in $ROUTERS; do bench_error_rows "$r" go "$1"; done; }

if ! command -v go >/dev/null 2>&1 || [ ! -d "$HTTPROUTER_DIR" ] || [ ! -d "$CHI_DIR" ]; then
    if ! bench_apt_install golang-go golang-github-julienschmidt-httprouter-dev golang-github-go-chi-chi-dev; then
        all_error_rows "golang-go / httprouter / chi could not be installed with apt-get (see the runner log)"
        exit 0
    fi
fi
GO="$(command -v go || echo /usr/lib/go/bin/go)"
if [ ! -x "$GO" ] || [ ! -d "$HTTPROUTER_DIR" ] || [ ! -d "$CHI_DIR" ]; then
    all_error_rows "go, $HTTPROUTER_DIR or $CHI_DIR missing after apt-get install"
    exit 0
fi

pkg_version() { local v; v="$(dpkg-query -W -f='${Version}' "$1" 2>/dev/null)" || v=unknown; echo "${v%%-*}"; }
HTTPROUTER_VERSION="$(pkg_version golang-github-julienschmidt-httprouter-dev)"
CHI_VERSION="$(pkg_version golang-github-go-chi-chi-dev)"

mkdir -p "$BENCH_BUILD/go-cache"
BIN="$BENCH_BUILD/go_peers_bench"
bench_log "go build bench/go ($("$GO" version | awk '{print $3}'), httprouter $HTTPROUTER_VERSION, chi $CHI_VERSION, GOPATH mode)"
if ! (cd "$BENCH_DIR/go" && env GO111MODULE=off GOPATH=/usr/share/gocode GOPROXY=off GOFLAGS= \
        GOCACHE="$BENCH_BUILD/go-cache" CGO_ENABLED=0 \
        "$GO" build -o "$BIN" \
        -ldflags "-X main.httprouterVersion=$HTTPROUTER_VERSION -X main.chiVersion=$CHI_VERSION" . >&2); then
    all_error_rows "bench/go did not build (see the runner log)"
    exit 0
fi

status=0
for r in $ROUTERS; do
    bench_log "go peers_bench -router $r"
    bench_pin "$BIN" -router "$r" || status=1
done
exit $status

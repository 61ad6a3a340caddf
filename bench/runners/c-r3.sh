#!/usr/bin/env bash
# Runner: libr3 (C) from Debian's libr3-dev. Installs it when missing, compiles
# bench/c/r3_bench.c with cc -O2 and runs it. See bench/README.md for the contract.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

if ! { pkg-config --exists r3 2>/dev/null || [ -f /usr/include/r3/r3.h ]; }; then
    if ! bench_apt_install libr3-dev pkg-config; then
        bench_error_rows libr3 c "libr3-dev could not be installed with apt-get (see the runner log)"
        exit 0
    fi
fi
if pkg-config --exists r3 2>/dev/null; then
    R3_CFLAGS="$(pkg-config --cflags r3)"; R3_LIBS="$(pkg-config --libs r3)"   # -I/usr/include/r3 / -lr3 -lpcre
else
    R3_CFLAGS="-I/usr/include/r3"; R3_LIBS="-lr3 -lpcre"
fi
R3_VERSION="$(dpkg-query -W -f='${Version}' libr3-dev 2>/dev/null || echo unknown)"
R3_VERSION="${R3_VERSION%%-*}"

mkdir -p "$BENCH_BUILD"
# r3's headers need HAVE_STRNDUP/HAVE_STRDUP defined, or they declare their own strdup.
if ! cc -O2 -Wall -DHAVE_STRNDUP -DHAVE_STRDUP -DR3_VERSION="\"$R3_VERSION\"" $R3_CFLAGS \
        -I"$BENCH_DIR/c" -o "$BENCH_BUILD/r3_bench" "$BENCH_DIR/c/r3_bench.c" $R3_LIBS >&2; then
    bench_error_rows libr3 c "bench/c/r3_bench.c did not compile against libr3 $R3_VERSION (see the runner log)"
    exit 0
fi
bench_pin "$BENCH_BUILD/r3_bench"

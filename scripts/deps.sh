#!/usr/bin/env bash
# Installs what building LinkRouter needs when it is missing: PCRE2's headers and pkg-config (Debian/Ubuntu).
set -euo pipefail
if ! command -v swift >/dev/null 2>&1; then
    echo "deps: swift is not on PATH; install Swift 6 from https://swift.org/install first" >&2
    exit 1
fi
if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists libpcre2-8; then
    exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
echo "deps: installing libpcre2-dev and pkg-config" >&2
$sudo apt-get update -qq
$sudo apt-get install -y -qq libpcre2-dev pkg-config >/dev/null

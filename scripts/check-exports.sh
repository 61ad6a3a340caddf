#!/usr/bin/env bash
# Checks liblinkrouter.so: it exports exactly the functions Include/linkrouter.h declares (all lr_*),
# and it needs no Swift runtime library (libswift*.so) and no Foundation.
set -euo pipefail
lib=${1:?usage: check-exports.sh path/to/liblinkrouter.so}
header=${2:-Include/linkrouter.h}
fail=0

exported=$(nm -D --defined-only --extern-only "$lib" | awk '{print $3}' | sort)
declared=$(grep -oE '\blr_[a-z0-9_]+\(' "$header" | tr -d '(' | sort -u)

stray=$(echo "$exported" | grep -v '^lr_' || true)
if [ -n "$stray" ]; then echo "check-exports: symbols other than lr_* are exported:"; echo "$stray" | head; fail=1; fi
missing=$(comm -13 <(echo "$exported") <(echo "$declared"))
if [ -n "$missing" ]; then echo "check-exports: declared in $header but not exported: $missing"; fail=1; fi
undeclared=$(comm -23 <(echo "$exported") <(echo "$declared"))
if [ -n "$undeclared" ]; then echo "check-exports: exported but not declared in $header: $undeclared"; fail=1; fi

needed=$(readelf -d "$lib" | grep NEEDED || true)
if echo "$needed" | grep -qiE 'swift|foundation|dispatch'; then
    echo "check-exports: $lib needs a Swift runtime library:"; echo "$needed"; fail=1
fi
if [ "$fail" = 0 ]; then
    echo "check-exports: $(echo "$exported" | wc -l) lr_* symbols, no Swift runtime needed ($(echo "$needed" | grep -oE '\[[^]]+\]' | tr -d '[]' | tr '\n' ' '))"
fi
exit $fail

#!/usr/bin/env bash
# The linkrouter tool's commands, outputs and exit codes: each case runs the built tool (build/bin/linkrouter,
# or $LINKROUTER) from the repository root and compares its standard output (and, where the case says so, its
# standard error) with Tests/tool/expected/<case>.out, and its exit status with the case's.
#   bash Tests/tool/run.sh            run every case
#   UPDATE=1 bash Tests/tool/run.sh   rewrite the expected files (review the diff before committing)
set -uo pipefail
cd "$(dirname "$0")/../.."
TOOL=${LINKROUTER:-build/bin/linkrouter}
SHOP=examples/tables/shop.json
T=Tests/tool/tables
EXPECTED=Tests/tool/expected
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
passed=0 failed=0

# A URL over maxURLLength (65536 bytes): a://x/yyy...
LONG="a://x/$(printf 'y%.0s' $(seq 70000))"
# Help is laid out for 80 columns whatever the terminal running the tests (swift-argument-parser reads COLUMNS).
export COLUMNS=80

# case NAME STATUS [--stderr] [--stdin TEXT | --stdin-from PATH] [--stdout-full | --stdout-closed] [--squeeze] -- ARGS...
# --stdout-full sends standard output to /dev/full, --stdout-closed closes it; standard error is compared.
# --squeeze writes each run of 200 or more y's as <y...> in the output compared.
case_() {
    local name=$1 status=$2 stderr=0 stdin="" stdin_from="" stdout="" squeeze=0
    shift 2
    while [ "$1" != "--" ]; do
        case $1 in
            --stderr) stderr=1; shift ;;
            --stdin) stdin=$2; shift 2 ;;
            --stdin-from) stdin_from=$2; shift 2 ;;
            --stdout-full) stdout=full; shift ;;
            --stdout-closed) stdout=closed; shift ;;
            --squeeze) squeeze=1; shift ;;
        esac
    done
    shift
    local got rc cmd="$TOOL $*"
    [ ${#cmd} -le 300 ] || cmd="${cmd:0:300}..."
    if [ "$stdout" = full ]; then
        got=$(printf '%s' "$stdin" | "$TOOL" "$@" 2>&1 >/dev/full); rc=$?
    elif [ "$stdout" = closed ]; then
        got=$(printf '%s' "$stdin" | "$TOOL" "$@" 2>&1 >&-); rc=$?
    elif [ -n "$stdin_from" ]; then
        got=$("$TOOL" "$@" < "$stdin_from" 2>&1); rc=$?
    elif [ $stderr = 1 ]; then
        got=$(printf '%s' "$stdin" | "$TOOL" "$@" 2>&1); rc=$?
    else
        got=$(printf '%s' "$stdin" | "$TOOL" "$@" 2>/dev/null); rc=$?
    fi
    if [ $squeeze = 1 ]; then got=$(printf '%s\n' "$got" | sed -E 's/y{200,}/<y...>/g'); fi
    printf '%s\n' "$got" > "$OUT/$name.out"
    if [ "${UPDATE:-}" = 1 ]; then cp "$OUT/$name.out" "$EXPECTED/$name.out"; fi
    if [ "$rc" != "$status" ]; then
        echo "FAIL $name: exit status $rc, expected $status ($cmd)"; cat "$OUT/$name.out"; failed=$((failed + 1)); return
    fi
    if ! diff -u "$EXPECTED/$name.out" "$OUT/$name.out"; then
        echo "FAIL $name: output differs ($cmd)"; failed=$((failed + 1)); return
    fi
    passed=$((passed + 1))
}

# resolve, as before the table feature, and with a table; URLs from stdin
case_ resolve-route 0 -- resolve --route 'app://user/:id=UserPage' --extra from=push 'app://user/42?tab=a'
case_ resolve-rule 0 -- resolve --route 'app://search=Search' --rule '(?:https://)?www.jd.com/search/(.*)' 'app://search?q=$#1' \
    'https://www.jd.com/search/%E5%8E%9F'
case_ resolve-table 1 -- resolve --table $SHOP 'shop://product/42?ref=mail' 'shop://nothing'
case_ resolve-stdin 0 --stdin $'shop://cart\n\nhttp://oldshop.example.com/category/shoes\n' -- resolve --table $SHOP
case_ resolve-invalid 2 -- resolve --table $SHOP 'no scheme'
case_ resolve-bad-table 2 --stderr -- resolve --table $T/bad.json 'app://user/1'
case_ resolve-missing-table 2 --stderr -- resolve --table $T/none.json 'app://user/1'
# input that is not UTF-8 (B46): a URL is refused as the library refuses it (code -2), not repaired to U+FFFD;
# any other argument refuses the command
case_ resolve-not-utf8 2 -- resolve --route 'app://u/:id=U' $'app://u/\xff' 'app://u/1'
case_ resolve-not-utf8-stdin 2 --stdin $'app://u/\xff\r\napp://u/2\n\napp://u/\xc3' -- resolve --route 'app://u/:id=U'
case_ resolve-not-utf8-route 2 --stderr -- resolve --route $'app://u/\xff=U' 'app://u/x'
case_ explain-not-utf8 2 -- explain --route 'a://b=c' $'a://\xfe' 'a://b'
case_ explain-not-utf8-json 2 -- explain --json --route 'a://b=c' $'a://\xfe'
# --table repeated: every file loads, in order, merged (were all but the last ignored); --extra's usage error
# shows resolve's usage line (was the root's)
case_ resolve-tables 0 -- resolve --table $SHOP --table $T/warnings.json 'shop://cart' 'app://account'
case_ resolve-tables-missing 2 --stderr -- resolve --table $T/none.json --table $SHOP 'shop://cart'
case_ resolve-extra-usage 2 --stderr -- resolve --extra noeq --route 'a://b=c' 'a://b'
# rewrite
case_ rewrite 1 -- rewrite --rule '^old://(\w+)' 'app://$1' old://docs x://y
case_ rewrite-json 0 -- rewrite --json --table $SHOP 'http://www.oldshop.example.com/search?q=red%20shoes'
case_ rewrite-odd-rule 2 --stderr -- rewrite --rule '^x' 
# rewrite --json: one object per URL, a refused one included (B48); the error line without --json quotes a long
# URL in part
case_ rewrite-json-refused 2 --squeeze -- rewrite --json --rule '^a://(x)' 'b://$1' a://x "$LONG" $'a://\xff' a://y
case_ rewrite-refused 2 --stderr --squeeze -- rewrite --rule '^a://(x)' 'b://$1' a://x "$LONG" a://y
# explain
case_ explain-matched 0 -- explain --table $SHOP 'shop://product/42?ref=mail'
case_ explain-rewritten 0 -- explain --table $SHOP 'http://oldshop.example.com/item.php?id=7'
case_ explain-nomatch 1 -- explain --table $SHOP --limit 3 'shop://orders/12/x'
case_ explain-json 0 -- explain --json --table $SHOP 'shop://cart'
case_ explain-error 2 -- explain --table $SHOP 'not a url'
# check
case_ check-ok 0 -- check --guard login --guard fresh-session $SHOP
case_ check-guards 0 -- check --guard login --guard adult $SHOP
case_ check-strict 1 -- check --strict --guard login $SHOP
case_ check-problems 1 -- check $T/bad.json
case_ check-problems-json 1 -- check --json $T/bad.json
case_ check-warnings 0 -- check $T/warnings.json
case_ check-warnings-strict 1 -- check --strict $T/warnings.json
case_ check-missing 2 --stderr -- check $T/none.json
# routes, graph, url
case_ routes 0 -- routes $SHOP
case_ routes-json 0 -- routes --json $T/warnings.json
case_ graph 0 -- graph $T/warnings.json
case_ url 0 -- url --table $SHOP product id=42 '?ref=mail & push'
case_ url-catch-all 0 -- url --json --table $SHOP help 'topic=orders/late delivery'
case_ url-missing 2 --stderr -- url --table $SHOP product
case_ url-unknown-name 2 --stderr -- url --table $SHOP nobody
# standard output that cannot be written (B47): a message and exit status 2, whatever the command's status
case_ check-stdout-full 2 --stdout-full -- check $SHOP
case_ check-stdout-closed 2 --stdout-closed -- check $SHOP
case_ resolve-stdout-full 2 --stdout-full -- resolve --table $SHOP 'shop://nothing'
case_ resolve-stdin-stdout-full 2 --stdout-full --stdin "$(for i in $(seq 3000); do echo "shop://product/$i"; done)" -- resolve --table $SHOP
case_ routes-stdout-full 2 --stdout-full -- routes $SHOP
case_ graph-stdout-closed 2 --stdout-closed -- graph $SHOP
case_ explain-stdout-full 2 --stdout-full -- explain --table $SHOP 'shop://cart'
case_ rewrite-stdout-closed 2 --stdout-closed -- rewrite --rule '^old://(\w+)' 'app://$1' old://docs
case_ url-stdout-full 2 --stdout-full -- url --table $SHOP product id=42
case_ help-stdout-full 2 --stdout-full -- --help
# bench rewrite --rules is bounded (B49): a usage error, not a trap in the allocator
case_ bench-rules-huge 2 --stderr -- bench rewrite --rules 9223372036854775807
case_ bench-rules-zero 2 --stderr -- bench rewrite --rules 0
# from the second review of the tool (session 12): a table read once, so a pipe or FIFO can be checked; a
# failed read of standard input is an error, not an empty input; text output keeps each fact on its line (a
# decoded newline or NUL in a URL, a target or a rewritten URL escaped); a guard listed twice names the first
# one's place in the file; a URL refused before the rules lists them as not tried; graph in precedence order
case_ check-pipe 0 --stdin "$(cat $SHOP)" -- check /dev/stdin
case_ resolve-stdin-unreadable 2 --stdin-from Tests/tool -- resolve --table $SHOP
case_ explain-escaped 1 -- explain --table $SHOP --limit 1 'shop://nothing/x%0Aresult%20%20%20%20%20%20matched%20shop:%2F%2Fcart%00'
case_ rewrite-escaped 0 -- rewrite --rule '^j://s/(.*)' 'app://s?q=$#1' 'j://s/a%0Ab%00c' j://s/d
case_ routes-escaped 0 -- routes $T/controls.json
case_ check-requires-twice 1 -- check $T/requires-twice.json
case_ explain-refused-rules 2 --squeeze -- explain --table $SHOP "$LONG"
case_ graph-precedence 0 -- graph $T/precedence.json
# help, version, completion
case_ version 0 -- version
case_ help-url 0 -- url --help
# Every help page, as a reader sees it at 80 columns: prose reflowed, each example command whole (its long ones
# continued with a backslash), never broken mid-command
case_ help 0 -- --help
for sub in resolve rewrite explain check routes graph; do case_ help-$sub 0 -- help $sub; done
case_ completion 0 -- --generate-completion-script bash
case_ unknown-command 2 --stderr -- frobnicate

echo "tool tests: $passed passed, $failed failed"
[ "$failed" = 0 ]

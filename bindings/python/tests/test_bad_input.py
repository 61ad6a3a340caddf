"""Hostile input from Python: every row gets its exact outcome -- a Match, None, or a LinkRouterError subclass
with the C status code -- and a refused change leaves the router as it was. Work is bounded by counts (the
limits), never measured against a clock: a time budget only makes a suite flaky on a loaded machine.

The same tables as Tests/C/test_badinput.c and Tests/LinkRouterTests/BadInputTests.swift, through the API of
SPEC section 7 (Router.add/resolve/can_route/remove/add_rewrite/remove_rewrite/rewrite, close(), the context
manager), and this binding's extras (bytes URLs, add_many, set_limit), called directly: a row never skips.
"""
from __future__ import annotations

import asyncio
import collections
import json
import os
import threading
import tracemalloc

import pytest

import linkrouter
from linkrouter import DEFER, _router
from linkrouter import (
    ConflictError,
    InvalidURLError,
    LimitError,
    LinkRouterError,
    MisuseError,
    NotFoundError,
    PatternError,
    RegexError,
)

BASE_ROUTES = [
    ("app://user/:id", "User"),
    ("app://files/*path", "Files"),
    ("*://share/:id", "Share"),
    ("app://search", "Search"),
]
PROBES = [
    ("app://user/42", "User"),
    ("app://files/a/b", "Files"),
    ("x://share/1", "Share"),
    ("app://search", "Search"),
    ("old://user/7", "User"),  # through the rule
]

# Status codes, fixed forever (Include/linkrouter.h).
CODES = {InvalidURLError: -2, PatternError: -3, ConflictError: -4, RegexError: -5, LimitError: -6,
         NotFoundError: -7}


@pytest.fixture
def router():
    with linkrouter.Router() as r:
        for pattern, target in BASE_ROUTES:
            r.add(pattern, target)
        r.add_rewrite("^old://(.*)$", "app://$1")
        yield r


def assert_unchanged(r):
    assert len(r) == len(BASE_ROUTES)
    for url, target in PROBES:
        m = r.resolve(url)
        assert m is not None and m.target == target, url


def outcome(fn, *args):
    """("ok", value) or ("error", exception class) -- only LinkRouterError counts as a documented refusal."""
    try:
        return "ok", fn(*args)
    except LinkRouterError as e:
        assert type(e) in CODES and e.code == CODES[type(e)], (type(e), e.code)
        assert isinstance(e.message, str) and e.message, "an error without a message"
        assert len(e.message) < 4096, "a refusal quotes a huge input: %d chars" % len(e.message)
        return "error", type(e)


# ---- URLs --------------------------------------------------------------------------------------------------

INVALID_UTF8 = [
    ("lone continuation", b"\x80"), ("overlong / (2 bytes)", b"\xc0\xaf"), ("overlong C1", b"\xc1\xbf"),
    ("overlong (3 bytes)", b"\xe0\x80\xaf"), ("overlong (4 bytes)", b"\xf0\x80\x80\xaf"),
    ("surrogate D800", b"\xed\xa0\x80"), ("surrogate DFFF", b"\xed\xbf\xbf"), ("truncated 2-byte", b"\xc3"),
    ("truncated 3-byte", b"\xe4\xbd"), ("truncated 4-byte", b"\xf0\x9f\x98"), ("U+110000", b"\xf4\x90\x80\x80"),
    ("F5", b"\xf5\x80\x80\x80"), ("5-byte form", b"\xf8\x88\x80\x80\x80"), ("FE", b"\xfe"), ("FF", b"\xff"),
]
PLACES = [(b"app://user/", b""), (b"app://", b"/1"), (b"app://user/1?", b"=v"), (b"app://user/1#", b""),
          (b"old://user/", b"")]


@pytest.mark.parametrize("label,bad", INVALID_UTF8, ids=[x[0] for x in INVALID_UTF8])
def test_invalid_utf8_bytes_are_refused(router, label, bad):
    # This binding takes bytes URLs (a TypeError here fails the row: it is never a skip).
    for head, tail in PLACES:
        url = head + bad + tail
        assert outcome(router.resolve, url) == ("error", InvalidURLError), url
        assert outcome(router.can_route, url) == ("error", InvalidURLError), url
    assert_unchanged(router)


@pytest.mark.parametrize("url", ["app://user/\ud800", "app://user/1?q=\udfff", "app://\udc80/x", "\ud83d"])
def test_lone_surrogates_are_invalid_urls(router, url):
    # A str with lone surrogates (from a JSON "\ud800", say) cannot be UTF-8: InvalidURLError, not a
    # UnicodeEncodeError escaping from the binding.
    assert outcome(router.resolve, url) == ("error", InvalidURLError)
    assert outcome(router.can_route, url) == ("error", InvalidURLError)
    assert outcome(router.rewrite, url) == ("error", InvalidURLError)
    assert_unchanged(router)


# Each row: None (no match), the exception class, or the match's (target, params), exactly.
URLS = [
    ("empty", "", InvalidURLError),
    ("no scheme", "nourl", InvalidURLError),
    ("path only", "/just/a/path", InvalidURLError),
    ("empty scheme", "://x", InvalidURLError),
    ("digit scheme", "1a://x", InvalidURLError),
    ("scheme only", "app:", None),  # an empty match sequence: no route of the base table takes it
    ("slashes only", "app://////", None),
    # malformed escapes stay as written; a well-formed one is decoded, whatever bytes it gives
    ("lone %", "app://user/%", ("User", {"id": "%"})),
    ("% and one digit", "app://user/%4", ("User", {"id": "%4"})),
    ("%zz", "app://user/%zz", ("User", {"id": "%zz"})),
    ("escaped FF", "app://user/%FF", ("User", {"id": "%FF"})),
    ("escaped surrogate", "app://user/%ED%A0%80", ("User", {"id": "%ED%A0%80"})),
    ("escaped NUL", "app://user/%00", ("User", {"id": "\x00"})),
    ("malformed query", "app://user/1?%=%&%%=%4&a%zz=b%", ("User", {"id": "1", "%": "%", "%%": "%4", "a%zz": "b%"})),
    ("many @", "app://a@b@c@user/1", ("User", {"id": "1"})),
    ("unclosed [", "app://[::1/x", None),  # host "[::1", which no route names
    ("huge port", "app://user:99999999999999999999999/1", ("User", {"id": "1"})),
    ("CR LF", "app://user/1\r\nX-Injected: 1", ("User", {"id": "1\r\nX-Injected: 1"})),
    ("raw UTF-8 and spaces", "app://user/中 国?nation=中国", ("User", {"id": "中 国", "nation": "中国"})),
    ("emoji", "app://user/🦀?q=👍🏽", ("User", {"id": "🦀", "q": "👍🏽"})),
    ("U+10FFFF", "app://user/\U0010ffff", ("User", {"id": "\U0010ffff"})),
    ("NUL character", "app://user/4\x002", ("User", {"id": "4\x002"})),
    ("1 MiB", "app://user/" + "x" * (1 << 20), LimitError),
    ("1 MiB of UTF-8", "app://user/" + "体" * (1 << 18), LimitError),
    ("64 KiB exactly", "app://user/" + "y" * (65536 - 11), ("User", {"id": "y" * (65536 - 11)})),
    ("64 KiB + 1", "app://user/" + "y" * (65536 - 10), LimitError),
    ("100,000 segments", "app://files" + "/a" * 100_000, LimitError),
    ("100,000 query pairs", "app://user/1?" + "a=1&" * 100_000, LimitError),
    ("brackets 10,000 deep", "app://user/1?a" + "[b]" * 10_000 + "=1", ("User", {"id": "1", "a" + "[b]" * 10_000: "1"})),
    ("10,000 open brackets", "app://user/1?a" + "[" * 10_000 + "=1", ("User", {"id": "1", "a" + "[" * 10_000: "1"})),
    ("10,000 list levels", "app://user/1?a" + "[]" * 10_000 + "=1", ("User", {"id": "1", "a" + "[]" * 10_000: "1"})),
    ("10,000 malformed escapes", "app://user/" + "%" * 10_000, ("User", {"id": "%" * 10_000})),
]


@pytest.mark.parametrize("label,url,expected", URLS, ids=[x[0] for x in URLS])
def test_url_table(router, label, url, expected):
    kind, value = outcome(router.resolve, url)
    can_kind, can_value = outcome(router.can_route, url)
    if expected is None:
        assert (kind, value) == ("ok", None)
    elif isinstance(expected, tuple):
        assert kind == "ok" and value is not None, (kind, value)
        assert (value.target, value.params) == expected
        assert type(value.params) is dict
    else:
        assert (kind, value) == ("error", expected)
    # can_route agrees with resolve (True for a match, False for None, the same error).
    if kind == "ok":
        assert (can_kind, can_value) == ("ok", value is not None)
    else:
        assert (can_kind, can_value) == (kind, value)
    assert_unchanged(router)


def test_decoded_nul_and_nul_characters_keep_their_values(router):
    m = router.resolve("app://user/a%00b")
    assert m is not None and m.params["id"] == "a\x00b"
    m = router.resolve("app://user/4\x002?k=\x00")
    assert m is not None and m.params["id"] == "4\x002" and m.params["k"] == "\x00"


def test_a_nul_in_a_quoted_url_is_written_as_swift_and_c_write_it(router):
    # The same text as Swift's RouterError.message (BadInputTests) and lr_last_error() (test_badinput).
    with pytest.raises(InvalidURLError) as e:
        router.resolve("ap\x00p://user/1")
    assert e.value.message == "'ap\\u0000p://user/1' is not an absolute URL: it needs a scheme, as in 'app://...'"


def test_deep_brackets_stay_flat(router):
    key = "k" + "[x]" * 10_000
    m = router.resolve("app://user/1?%s=v" % key)
    # Beyond the nesting limit the key stays flat, as written: nothing is lost.
    assert m.params == {"id": "1", key: "v"}


# ---- Patterns ----------------------------------------------------------------------------------------------

PATTERNS = [
    ("", PatternError, 0), ("app", PatternError, 3), ("app:x", PatternError, 3), ("1app://x", PatternError, 0),
    ("app://a//b", PatternError, 8), ("app://:", PatternError, 7), ("app://:a-b", PatternError, 8),
    ("app://*rest/x", PatternError, 12), ("app://:id/:id", PatternError, 10), ("app://a?x", PatternError, 7),
    ("app://a#b", PatternError, 7), ("app:/x", PatternError, 3), ("://x", PatternError, 0),
    ("app://a/*/b", PatternError, 10), ("app:///a", PatternError, 6),
    ("app://user/:uid", ConflictError, None), ("APP://USER/:x/", ConflictError, None),
    ("app://files/*", ConflictError, None), ("*://share/:other", ConflictError, None),
    ("app://\ud800", InvalidURLError, None), ("app://a\x00b", InvalidURLError, None),
    ("app://a" + "/b" * 2000, LimitError, None),
]
# The route of BASE_ROUTES each conflicting pattern of PATTERNS conflicts with.
CONFLICTS_WITH = {"app://user/:uid": "app://user/:id", "APP://USER/:x/": "app://user/:id",
                  "app://files/*": "app://files/*path", "*://share/:other": "*://share/:id"}


@pytest.mark.parametrize("pattern,error,offset", PATTERNS, ids=[repr(p[0][:30]) for p in PATTERNS])
def test_pattern_table(router, pattern, error, offset):
    kind, value = outcome(router.add, pattern, "Bad")
    assert (kind, value) == ("error", error)
    if offset is not None:
        with pytest.raises(PatternError) as info:
            router.add(pattern, "Bad")
        assert info.value.offset == offset, info.value.message
    if error is ConflictError:
        with pytest.raises(ConflictError) as info:
            router.add(pattern, "Bad")
        assert info.value.message == ("pattern '%s' conflicts with existing route '%s': both match exactly the same "
                                      "URLs" % (pattern, CONFLICTS_WITH[pattern]))  # names the existing route
    assert_unchanged(router)


# add's pattern and target, each given a non-text value: a TypeError naming the argument and the type (the same
# text on both paths), or, for bytes, the route added as if given the str. (WRONG_TYPES below has a None pattern
# and an int target of add; these are the other combinations.)
NON_TEXT = [
    ((None, "T"), "pattern must be str or bytes-like (bytes, bytearray, memoryview), not NoneType"),
    (("app://typed", None), "target must be str or bytes-like (bytes, bytearray, memoryview), not NoneType"),
    ((42, "T"), "pattern must be str or bytes-like (bytes, bytearray, memoryview), not int"),
    (("app://typed", 42), "target must be str or bytes-like (bytes, bytearray, memoryview), not int"),
    ((["app://x"], "T"), "pattern must be str or bytes-like (bytes, bytearray, memoryview), not list"),
    (("app://typed", ["app://x"]), "target must be str or bytes-like (bytes, bytearray, memoryview), not list"),
    ((b"app://x", "T"), ("app://x", "T")),  # accepted: (the URL it routes, the target)
    (("app://typed", b"app://x"), ("app://typed", "app://x")),
]


@pytest.mark.parametrize("args, expected", NON_TEXT, ids=["%r, %r" % row[0] for row in NON_TEXT])
def test_non_text_patterns_and_targets(router, args, expected):
    if isinstance(expected, str):
        with pytest.raises(TypeError) as info:
            router.add(*args)
        assert type(info.value) is TypeError and str(info.value) == expected
    else:
        url, target = expected
        assert router.resolve(url) is None
        assert router.add(*args) is None
        m = router.resolve(url)
        assert (m.target, m.params) == (target, {})
        assert router.remove(url) is None
    assert_unchanged(router)


# ---- Rewrite rules -----------------------------------------------------------------------------------------

RULES = [
    ("(unclosed", "app://x", RegexError), ("[a-", "app://x", RegexError), ("*a", "app://x", RegexError),
    ("a{2,1}", "app://x", RegexError), ("\\", "app://x", RegexError), ("(?<n>a)(?<n>b)", "app://x", RegexError),
    ("(?<=a+)b", "app://x", RegexError), ("\\C", "app://x", RegexError), ("\\x{110000}", "app://x", RegexError),
    ("^a(b)", "$", PatternError), ("^a(b)", "${", PatternError), ("^a(b)", "${}", PatternError),
    ("^a(b)", "$nosuchword", PatternError), ("^a(b)", "$2", PatternError), ("^a(b)", "${nosuch}", PatternError),
    ("^a(b)", "$$", PatternError), ("^a(b)", "$#", PatternError),
    ("a\ud800", "app://x", InvalidURLError), ("a", "app://\udfff", InvalidURLError),
]


@pytest.mark.parametrize("match,target,error", RULES, ids=["%s->%s" % (r[0], r[1]) for r in RULES])
def test_rule_table(router, match, target, error):
    assert outcome(router.add_rewrite, match, target) == ("error", error)
    with pytest.raises(NotFoundError):
        router.remove_rewrite("never added")
    assert router.rewrite("old://a/b") == "app://a/b"
    assert router.rewrite("new://a/b") is None
    assert_unchanged(router)


# Catastrophic regexes against long subjects: every search ends within the router's limits (the PCRE2 match limit,
# regexMatchLimit 10,000; the JIT stack, and then at most 8,192 bytes for the interpreter), with one exact outcome
# per regex and subject. Which search hits the match limit, which overflows the JIT stack and
# which fails or matches first is PCRE2's doing: these rows are those of PCRE2 10.42 with its JIT (Debian 12's
# libpcre2-8-0 10.42-1+deb12u2); another PCRE2 release may need rows of its own.
#
# Every regex is taken by add_rewrite (none is refused at compile time); (*LIMIT_MATCH=4000000000) can only lower
# the match limit, never raise it above the router's, so that row hits the same 10,000.
SUBJECTS = {
    "30 a !": "a" * 30 + "!",
    "URL of 10,000 a !": "app://x/" + "a" * 10_000 + "!",
    "65,000 a": "a" * 65_000,
    "10,000 'a ' !": "a " * 10_000 + "!",
}
NOT_A_URL = "is not an absolute URL: it needs a scheme, as in 'app://...'"
# What resolve gives for a subject no rule rewrote: only the URL parses (and no route takes it).
AS_IS = {
    "30 a !": (InvalidURLError, -2, "'%s' %s" % ("a" * 30 + "!", NOT_A_URL)),
    "URL of 10,000 a !": ("ok", None),
    "65,000 a": (InvalidURLError, -2, "'%s... (65000 bytes)' %s" % ("a" * 100, NOT_A_URL)),
    "10,000 'a ' !": (InvalidURLError, -2, "'%s... (20001 bytes)' %s" % ("a " * 50, NOT_A_URL)),
}
CAUGHT, NO_MATCH, MATCH_LIMIT, JIT_STACK = "rewritten", "no match", "match limit", "JIT stack"
# regex, then its outcome for each subject, in the order of SUBJECTS
CATASTROPHIC = [
    ("(a+)+$", (MATCH_LIMIT, MATCH_LIMIT, CAUGHT, NO_MATCH)),
    ("(a|a)*b", (NO_MATCH, NO_MATCH, NO_MATCH, NO_MATCH)),
    ("(x+x+)+y", (NO_MATCH, NO_MATCH, NO_MATCH, NO_MATCH)),
    ("(a*)*b", (NO_MATCH, NO_MATCH, NO_MATCH, NO_MATCH)),
    ("(a|aa)+$", (MATCH_LIMIT, MATCH_LIMIT, JIT_STACK, NO_MATCH)),
    ("((a+)+)+b", (NO_MATCH, NO_MATCH, NO_MATCH, NO_MATCH)),
    ("(.*a){20}", (MATCH_LIMIT, MATCH_LIMIT, MATCH_LIMIT, MATCH_LIMIT)),
    ("^(\\w+\\s?)*$", (MATCH_LIMIT, NO_MATCH, CAUGHT, MATCH_LIMIT)),
    ("(a|a?)+b", (NO_MATCH, NO_MATCH, NO_MATCH, NO_MATCH)),
    ("(\\w|\\d)+$", (NO_MATCH, NO_MATCH, JIT_STACK, NO_MATCH)),
    ("(*LIMIT_MATCH=4000000000)(a+)+$", (MATCH_LIMIT, MATCH_LIMIT, CAUGHT, NO_MATCH)),
]
CATASTROPHIC_ROWS = [(regex, subject, result) for regex, results in CATASTROPHIC
                     for subject, result in zip(SUBJECTS, results)]


def exactly(fn, *args):
    """("ok", the value) -- a Match as (target, params) -- or (exception class, code, message) of a LinkRouterError
    (any other exception fails the caller)."""
    try:
        value = fn(*args)
    except LinkRouterError as e:
        return type(e), e.code, e.message
    if value is not None and not isinstance(value, str):
        value = (value.target, value.params)
    return "ok", value


def expected_outcomes(regex, subject, result):
    """What rewrite and resolve give for a row: the rewritten URL, or None and then the subject resolved as it is,
    or for both the same LimitError with its exact message."""
    size = len(SUBJECTS[subject].encode("utf-8"))
    if result == CAUGHT:
        return ("ok", "app://user/caught"), ("ok", ("User", {"id": "caught"}))
    if result == NO_MATCH:
        return ("ok", None), AS_IS[subject]
    if result == MATCH_LIMIT:
        message = "rewrite regex '%s' hit the PCRE2 match limit (regexMatchLimit 10000) on a URL of %d bytes" % (
            regex, size)
    else:
        assert result == JIT_STACK, result
        message = ("rewrite regex '%s' overflowed the PCRE2 JIT stack and a URL of %d bytes is too long for the "
                   "PCRE2 interpreter (at most 8192 bytes)" % (regex, size))
    return (LimitError, -6, message), (LimitError, -6, message)


@pytest.mark.parametrize("regex, subject, result", CATASTROPHIC_ROWS,
                         ids=["%s on %s" % (regex, subject) for regex, subject, _ in CATASTROPHIC_ROWS])
def test_catastrophic_regexes_are_bounded(regex, subject, result):
    with linkrouter.Router() as r:
        r.add("app://user/:id", "User")
        assert r.add_rewrite(regex, "app://user/caught") is None
        assert json.loads(r.to_json())["rewrites"] == [{"match": regex, "target": "app://user/caught"}]
        rewritten, resolved = expected_outcomes(regex, subject, result)
        assert exactly(r.rewrite, SUBJECTS[subject]) == rewritten
        assert exactly(r.resolve, SUBJECTS[subject]) == resolved


@pytest.mark.parametrize("regex", ["(\\w|\\d)+$", "(a|b|ab)+$"])
def test_jit_match_limit_bounds_the_whole_search(regex):
    # B9 (found here, fixed by LR_LIMIT_REGEX_START): 64 KiB of runs of 9,900 'a' between '!' kept each start
    # offset under the match limit of 10,000 while the whole search cost 1.2-2 s. Now the search stops at start
    # offset 1,024, none of which matches: no rewrite, after at most 1,024 x 10,000 steps.
    runs = "".join("!" if i % 9901 == 9900 or i == 65534 else "a" for i in range(65535))
    with linkrouter.Router() as r:
        r.add_rewrite(regex, "app://user/x")
        assert outcome(r.rewrite, runs) == ("ok", None)


# ---- Bulk adds ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad,error", [("bulk://a//b", PatternError), ("bulk://item/7/:other", ConflictError),
                                       ("app://user/:uid", ConflictError), ("", PatternError)])
def test_one_bad_route_among_five_thousand(router, bad, error):
    routes = [("bulk://item/%d/:id" % i, "Bulk") for i in range(5000)]
    routes[2500] = (bad, "Bad")
    with pytest.raises(error) as info:
        router.add_many(routes)
    assert info.value.index == 2500
    assert_unchanged(router)
    assert router.resolve("bulk://item/1/x") is None


# ---- Limits, lifetimes, threads ----------------------------------------------------------------------------

def test_limits_take_effect_and_refuse_nonsense(router):
    for limit, name, most in (("url_length", "URL_LENGTH", 1073741824), ("segments", "SEGMENTS", 1048576),
                              ("params", "PARAMS", 16777216), ("regex_match", "REGEX_MATCH", 4294967295),
                              ("regex_depth", "REGEX_DEPTH", 4294967295)):
        with pytest.raises(MisuseError) as info:
            router.set_limit(limit, 0)
        assert (type(info.value), info.value.code, info.value.message) == \
            (MisuseError, -1, "lr_router_set_limit: LR_LIMIT_%s = 0 is out of range 1...%d" % (name, most))
    with pytest.raises(MisuseError) as info:
        router.set_limit("no_such_limit", 5)
    assert (type(info.value), info.value.code, info.value.message) == \
        (MisuseError, -1, "unknown limit 'no_such_limit' (one of URL_LENGTH, SEGMENTS, PARAMS, NESTING, REGEX_MATCH, "
                          "REGEX_DEPTH, REGEX_START, PENDING, REPLY_TIMEOUT_MS)")
    router.set_limit("url_length", 20)
    assert router.resolve("app://user/" + "x" * 9) is not None
    with pytest.raises(LimitError):
        router.resolve("app://user/" + "x" * 10)
    router.set_limit("url_length", 65536)
    router.set_limit("params", 2)
    with pytest.raises(LimitError):
        router.resolve("app://user/1?a=1&b=2&c=3")
    router.set_limit("params", 1024)
    assert_unchanged(router)


# A URL over the router's URL limit is refused before anything is sized for it (the C path sized its buffers for
# up to 1 GiB first: about 40 bytes a byte of URL, a MemoryError where that could not be had). Each row: the
# limit set (None: the default), the URL, the outcome: LimitError's message or the match's target.
LONG_URLS = [
    (None, "app://" + "/" * 40_000_000, "URL of 40000006 bytes is longer than maxURLLength (LR_LIMIT_URL_LENGTH, 65536)"),
    (None, "app://user/" + "x" * 65526, "URL of 65537 bytes is longer than maxURLLength (LR_LIMIT_URL_LENGTH, 65536)"),
    (1000, "app://" + "/" * 2000, "URL of 2006 bytes is longer than maxURLLength (LR_LIMIT_URL_LENGTH, 1000)"),
    (300, "app://user/" + "x" * 290, "URL of 301 bytes is longer than maxURLLength (LR_LIMIT_URL_LENGTH, 300)"),
    (1000, "old://user/" + "y" * 500, "rewritten URL would be longer than maxURLLength (LR_LIMIT_URL_LENGTH, 1000 bytes); rule target "
     "'app://user/$1$1'"),
    (None, "app://user/" + "x" * 65525, "User"),  # at the limit: still resolved
    (300, "app://user/" + "x" * 289, "User"),
    (200_000, "app://user/" + "x" * 150_000, "User"),  # over the default, under the raised limit
]


@pytest.mark.parametrize("limit, url, outcome", LONG_URLS,
                         ids=["%s bytes, limit %s" % (len(url), limit or "default") for limit, url, _ in LONG_URLS])
def test_url_over_the_limit_is_refused_before_memory_is_sized_for_it(limit, url, outcome):
    answers = []
    for r in (linkrouter.Router(), _router.ctypes_router()):  # this run's path, then the ctypes one
        r.add("app://user/:id", "User")
        r.add_rewrite("^old://user/(.*)$", "app://user/$1$1")
        if limit is not None:
            r.set_limit("url_length", limit)
        tracemalloc.start()
        try:
            answers.append(r.resolve(url).target)
            grew = None
        except LimitError as e:
            answers.append(str(e))
            assert e.code == -6
            grew = tracemalloc.get_traced_memory()[1]  # peak bytes
        finally:
            tracemalloc.stop()
            r.close()
        # at most a copy of the URL (the ctypes path encodes it) and the exception
        assert grew is None or grew < len(url) + 16384, (type(r).__name__, grew)
    assert answers == [outcome, outcome]


def test_closed_router_refuses_without_crashing():
    r = linkrouter.Router()
    r.add("app://x", "X")
    r.close()
    r.close()  # twice is fine
    for call in (lambda: r.resolve("app://x"), lambda: r.add("app://y", "Y"), lambda: r.can_route("app://x"),
                 lambda: r.rewrite("app://x"), lambda: len(r)):
        with pytest.raises(ValueError) as info:
            call()
        assert (type(info.value), str(info.value)) == (ValueError, "the router is closed")


def test_matches_outlive_their_router():
    with linkrouter.Router() as r:
        r.add("app://user/:id", "User")
        m = r.resolve("app://user/7?x=%FF")
    assert m.target == "User" and m.params["id"] == "7" and m.params["x"] == "%FF"


def test_bad_input_from_many_threads_at_once(router):
    """Refusals, limits and catastrophic regexes in several threads while another changes the table."""
    router.add_rewrite("^evil://(a+)+$", "app://user/evil")
    bad = ["", "nourl", "app://user/\ud800", "app://user/" + "x" * 70_000, "app://files" + "/a" * 2000,
           "evil://" + "a" * 40 + "!", "app://user/%", "app://user/1?" + "a&" * 2000]
    errors = []
    stop = threading.Event()

    def hammer():
        try:
            while not stop.is_set():
                for url in bad:
                    outcome(router.resolve, url)
                    outcome(router.can_route, url)
                for url, target in PROBES:
                    m = router.resolve(url)
                    assert m is not None and m.target == target, url
        except Exception as e:  # noqa: BLE001 -- any failure of a thread is reported by the test
            errors.append(e)

    threads = [threading.Thread(target=hammer) for _ in range(4)]
    for t in threads:
        t.start()
    try:
        for i in range(300):
            router.add("app://churn/%d" % i, "C")
            outcome(router.add, "app://churn/%d//" % i, "Bad")
            router.remove("app://churn/%d" % i)
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert not errors, errors[:3]
    router.remove_rewrite("^evil://(a+)+$")
    assert_unchanged(router)


# -- route tables and opening (docs/TABLES.md, docs/OPENING.md) -------------------------------------------------

SHOP = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "..", "examples",
                    "tables", "shop.json")


def mutations(text, n, seed=11):
    """Documents near a valid one: bytes dropped, doubled or replaced (bounded by count)."""
    import random
    rnd = random.Random(seed)
    data = text.encode("utf-8")
    specials = [b"{", b"}", b"[", b"]", b'"', b"\\", b":", b",", b"\xff", b"\0", b"\\u0000", b"1e999", b"-0", b"\\ud800"]
    for _ in range(n):
        b = bytearray(data)
        for _ in range(rnd.randrange(1, 4)):
            i = rnd.randrange(len(b))
            op = rnd.randrange(3)
            if op == 0:
                del b[i:i + rnd.randrange(1, 8)]
            elif op == 1:
                b[i:i] = b[i:i + rnd.randrange(1, 8)]
            else:
                b[i:i + 1] = rnd.choice(specials)
        yield bytes(b)


def test_mangled_table_documents_are_refused_whole(router):
    with open(SHOP, encoding="utf-8") as f:
        text = f.read()
    before = router.to_json()
    outcomes = collections.Counter()
    for doc in mutations(text, 400):
        try:
            router.check_json(doc)
            router.load_json(doc, replace=False)
            outcomes["loaded"] += 1
            router.load_json(before)  # back to the base table
        except (linkrouter.TableError, InvalidURLError) as e:
            outcomes[type(e).__name__, e.code] += 1
            if isinstance(e, linkrouter.TableError):
                assert e.problems and all(p.code < 0 and p.reason for p in e.problems)
        assert router.to_json() == before
    # The documents come from a fixed seed and examples/tables/shop.json: always these counts (InvalidURLError: a
    # NUL byte, 22 times, or bytes that are not UTF-8, 13 times, put in the text by the mutation).
    assert outcomes == {"loaded": 66, ("TableError", -8): 299, ("InvalidURLError", -2): 35}


# Each document: the TableError's offset, how many problems it lists, its first problem and its last one.
HOSTILE_TABLES = [
    ("[" * 100000, 16, 1, ("", -8, "JSON syntax error at byte 16 (line 1, column 17): nested deeper than 16 levels"),
     None),
    ('{"version": 1, "routes": [' + "{}," * 5000 + "{}]}", None, 1001, ("/routes/0", -8, "missing key 'pattern'"),
     ("", -8, "... and 9002 more problems (only the first 1000 are listed)")),
    ('{"version": 1e999}', None, 1,
     ("/version", -8, "unsupported table format version 1e999 (this LinkRouter reads version 1)"), None),
    ('{"version": 1, "routes": [{"pattern": "app://' + "a/" * 5000 + '", "target": "T"}]}', None, 1,
     ("/routes/0/pattern", -6, "pattern '" + "app://" + "a/" * 47 + "... (10006 bytes)' has more than 1024 segments "
      "(limit maxSegments, LR_LIMIT_SEGMENTS)"), None),
    ('{"version": 1, "rewrites": [{"match": "(?<n>a)(?<n>b)", "target": "app://x"}]}', None, 1,
     ("/rewrites/0/match", -5, "invalid rewrite regex '(?<n>a)(?<n>b)' at byte 12: two named subpatterns have the "
      "same name (PCRE2_DUPNAMES not set) (PCRE2 error 143)"), None),
    ("\ufeff{}", 0, 1, ("", -8, "JSON syntax error at byte 0 (line 1, column 1): a byte-order mark (U+FEFF) starts "
                              "the text; JSON does not allow one: save it as UTF-8 without a BOM"), None),
    ("null", None, 1, ("", -8, "expected an object, found null"), None),
    ('"x"', None, 1, ("", -8, "expected an object, found a string"), None),
]


@pytest.mark.parametrize("doc, offset, count, first, last", HOSTILE_TABLES,
                         ids=[repr(row[0][:24]) for row in HOSTILE_TABLES])
def test_hostile_table_documents(router, doc, offset, count, first, last):
    with pytest.raises(linkrouter.TableError) as info:
        router.load_json(doc)
    e = info.value
    assert (type(e), e.code, e.offset, len(e.problems), e.problems[0]) == (linkrouter.TableError, -8, offset, count,
                                                                          first)
    assert e.problems[-1] == (last or first)
    assert_unchanged(router)


def test_hostile_url_for_and_open(router):
    router.add_route("app://named/:id", "N", name="named")
    for value, error in [("a\0b", InvalidURLError), ("\udc80", InvalidURLError), ("x" * 70000, LimitError),
                         ("", InvalidURLError)]:
        with pytest.raises(error):
            router.url_for("named", id=value)
    with pytest.raises(InvalidURLError):
        router.url_for("named\0")
    router.route("app://h/:id")(lambda m: m.params["id"])
    for url, error in [("nourl", InvalidURLError), ("app://h/" + "a/" * 2000, LimitError),
                       (b"app://h/\xff", InvalidURLError), ("app://h/x" * 10000, LimitError)]:
        with pytest.raises(error):
            router.open(url)
    router.guard("weird", global_=True)(lambda m: object())
    with pytest.raises(TypeError):
        router.open("app://h/1")
    router.remove_guard("weird")
    assert router.open("app://h/%00") == "\0"
    assert router.open(b"app://h/%E4%BD%93") == "体"


# ---- Argument types --------------------------------------------------------------------------------------------
# Every text argument (URL, pattern, target, name, table document) takes str or any bytes-like object, and the
# TypeError for anything else says so, whichever entry point and path (C extension or ctypes) refused it.

ACCEPTED = "str or bytes-like (bytes, bytearray, memoryview)"
WRONG_TYPES = [
    ("open", lambda r: r.open(None), "url must be %s, not NoneType" % ACCEPTED),
    ("open, an int", lambda r: r.open(5), "url must be %s, not int" % ACCEPTED),
    ("open_async", lambda r: asyncio.run(r.open_async(None)), "url must be %s, not NoneType" % ACCEPTED),
    ("resolve", lambda r: r.resolve(None), "url must be %s, not NoneType" % ACCEPTED),
    ("resolve_json", lambda r: r.resolve_json(None), "url must be %s, not NoneType" % ACCEPTED),
    ("can_route", lambda r: r.can_route(None), "url must be %s, not NoneType" % ACCEPTED),
    ("add: pattern", lambda r: r.add(None, "T"), "pattern must be %s, not NoneType" % ACCEPTED),
    ("add: target", lambda r: r.add("app://x", 5), "target must be %s, not int" % ACCEPTED),
    ("add_route: name", lambda r: r.add_route("app://x", "T", name=5), "name must be %s, not int" % ACCEPTED),
    ("add_rewrite", lambda r: r.add_rewrite(None, "app://y"), "match must be %s, not NoneType" % ACCEPTED),
    ("add_many", lambda r: r.add_many([(None, "T")]),
     "item 0: expected a (pattern, target) pair: pattern must be %s, not NoneType" % ACCEPTED),
    ("add_guard", lambda r: r.add_guard(None, lambda m: True), "guard name must be %s, not NoneType" % ACCEPTED),
    ("resume", lambda r: r.resume(5), "guard name must be %s, not int" % ACCEPTED),
    ("load_json", lambda r: r.load_json(5), "a table document must be %s, not int" % ACCEPTED),
]


@pytest.mark.parametrize("case, call, message", WRONG_TYPES, ids=[w[0] for w in WRONG_TYPES])
def test_a_wrong_argument_type_names_what_is_accepted(router, case, call, message):
    with pytest.raises(TypeError) as info:
        call(router)
    assert str(info.value) == message
    assert_unchanged(router)


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_every_text_argument_takes_bytes_like_objects(kind):
    r = linkrouter.Router()
    try:
        b = lambda s: kind(s.encode())  # noqa: E731
        r.add(b("app://b/:id"), b("B"))
        r.add_guard(b("g"), lambda m: DEFER)
        r.route(b("app://g/:id"), requires=[b("g")])(lambda m: m.params["id"])
        r.target(b("B"))(lambda m: "B " + m.params["id"])
        assert r.resolve(b("app://b/1")).target == "B" and r.can_route(b("app://b/1"))
        assert r.open(b("app://b/2")) == "B 2"
        assert r.open(b("app://g/3")) is DEFER and [p.url for p in r.pending(b("g"))] == ["app://g/3"]
    finally:
        r.close()

"""Rewrite rules (SPEC §5): FFRouter's examples, ordering, replacement, removal, errors and limits."""
from __future__ import annotations

import pytest

import linkrouter
from linkrouter import LimitError, NotFoundError, PatternError, RegexError

AMAZON = ("(?:https://)?www.amazon.com/search/(.*)", "protocol://page/routerDetails?product=$1")
TAOBAO = ("(?:https://)?www.taobao.com/search/(.*)", "protocol://page/routerDetails?product=$$1")
JD = ("(?:https://)?www.jd.com/search/(.*)", "protocol://page/routerDetails?product=$#1")
BAIDU = ("(?:https://)?www.baidu.com/wd/(\\d+)", "protocol://page/routerDetails?id=$1")
ALL = [AMAZON, TAOBAO, JD, BAIDU]

ROWS = [
    ("amazon", [AMAZON], "https://www.amazon.com/search/Atomic_bomb", "protocol://page/routerDetails?product=Atomic_bomb"),
    ("amazon without scheme", [AMAZON], "www.amazon.com/search/Atomic_bomb",
     "protocol://page/routerDetails?product=Atomic_bomb"),
    ("taobao $$1", [TAOBAO], "https://www.taobao.com/search/原子弹",
     "protocol://page/routerDetails?product=%E5%8E%9F%E5%AD%90%E5%BC%B9"),
    ("jd $#1", [JD], "https://www.jd.com/search/%E5%8E%9F%E5%AD%90%E5%BC%B9", "protocol://page/routerDetails?product=原子弹"),
    ("jd $#1 lower-case hex", [JD], "https://www.jd.com/search/%e5%8e%9f%e5%ad%90%e5%bc%b9",
     "protocol://page/routerDetails?product=原子弹"),
    ("baidu digits", [BAIDU], "https://www.baidu.com/wd/66666", "protocol://page/routerDetails?id=66666"),
    ("baidu no digits", [BAIDU], "https://www.baidu.com/wd/abc", None),
    ("demo set: taobao", ALL, "https://www.taobao.com/search/原子弹",
     "protocol://page/routerDetails?product=%E5%8E%9F%E5%AD%90%E5%BC%B9"),
    ("demo set: none", ALL, "https://www.example.com/search/x", None),
    ("${name}", [("/u/(?<id>\\d+)", "app://user/${id}")], "https://x.com/u/42", "app://user/42"),
    ("$host", [("x", "$host")], "https://user:pw@Example.COM:8080/x?q#f", "Example.COM"),
    ("$$query", [("x", "app://?u=$$query")], "https://h/x?a=1&b=2", "app://?u=a%3D1%26b%3D2"),
    ("\\$ is a dollar", [("(x)", "\\$1=$1")], "x", "$1=x"),
    ("first in order wins", [("a", "first"), ("ab", "second")], "xab", "first"),
    ("same match replaces target", [("a", "one"), ("b", "two"), ("a", "three")], "ab", "three"),
    ("replacement keeps position", [("a", "one"), ("b", "two"), ("a", "three")], "b a", "three"),
    ("search is unanchored", [("b/c", "hit")], "app://a/b/c/d", "hit"),
    ("anchored regex", [("^b", "hit")], "ab", None),
    ("empty target", [("x", "")], "x", ""),
]


@pytest.mark.parametrize("rules, url, expected", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_rewrite_rows(router, rules, url, expected):
    router.add_rewrites(rules)
    assert router.rewrite(url) == expected
    one_by_one = linkrouter.Router()
    for match, target in rules:
        one_by_one.add_rewrite(match, target)
    assert one_by_one.rewrite(url.encode()) == expected


def test_resolve_rewrites_first(router):
    router.add("protocol://page/routerDetails", "Details")
    router.add_rewrites([AMAZON, TAOBAO, JD])
    rows = [
        ("https://www.amazon.com/search/Atomic_bomb", "protocol://page/routerDetails?product=Atomic_bomb", "Atomic_bomb"),
        ("https://www.taobao.com/search/原子弹", "protocol://page/routerDetails?product=%E5%8E%9F%E5%AD%90%E5%BC%B9",
         "原子弹"),
        ("https://www.jd.com/search/%E5%8E%9F%E5%AD%90%E5%BC%B9", "protocol://page/routerDetails?product=原子弹",
         "原子弹"),
    ]
    for url, rewritten, product in rows:
        m = router.resolve(url)
        assert (m.url, m.rewritten, m.params["product"], m.target) == (url, rewritten, product, "Details")
        assert m.was_rewritten
        assert m.host == "page" and m.scheme == "protocol"
        assert router.can_route(url)
    direct = router.resolve("protocol://page/routerDetails?product=direct")
    assert direct.rewritten == direct.url and not direct.was_rewritten
    assert router.resolve("https://www.example.com/") is None


def test_remove_and_clear(router):
    router.add_rewrites([("a", "1"), ("b", "2")])
    router.remove_rewrite("a")
    assert router.rewrite("ab") == "2"
    with pytest.raises(NotFoundError):
        router.remove_rewrite("a")
    router.clear_rewrites()
    assert router.rewrite("ab") is None


def test_add_rewrites_is_all_or_none(router):
    with pytest.raises(RegexError) as info:
        router.add_rewrites([("x", "X"), ("y", "Y"), ("(", "bad")])
    assert info.value.index == 2
    assert router.rewrite("x") is None
    assert info.value.message == ("rewrite rule 2: invalid rewrite regex '(' at byte 1: missing closing parenthesis "
                                  "(PCRE2 error 114)")
    with pytest.raises(PatternError) as info:
        router.add_rewrites([("x", "X"), ("(?<n>y)", "${m}"), ("z", "Z")])
    assert info.value.index == 1
    assert info.value.message == ("rewrite rule 1: malformed rewrite target '${m}' at byte 0: the regex has no group "
                                  "named 'm'")
    with pytest.raises(linkrouter.InvalidURLError) as info:
        router.add_rewrites([("x", "X"), ("\udc80", "Y")])
    assert info.value.index == 1
    assert info.value.message == ("rewrite rule 1: match is not valid UTF-8 text: 'utf-8' codec can't encode character "
                                  "'\\udc80' in position 0: surrogates not allowed")
    assert router.rewrite("x") is None


TEMPLATE_ERRORS = [
    ("(x)", "app://$hots", 6,
     "malformed rewrite target 'app://$hots' at byte 6: unknown word '$hots' (expected a group number, ${name}, "
     "$scheme, $host, $port, $path, $query, $fragment or $url; write \\$ for a literal dollar)"),
    ("(x)", "app://x$", 7,
     "malformed rewrite target 'app://x$' at byte 7: '$' at the end of the target (write \\$ for a literal dollar)"),
    ("(x)", "$1$2", 2,
     "malformed rewrite target '$1$2' at byte 2: group 2 does not exist: the regex has 1 capture group"),
    ("(?<id>x)", "app://${ID}", 6,
     "malformed rewrite target 'app://${ID}' at byte 6: the regex has no group named 'ID'"),
]


@pytest.mark.parametrize("match, target, offset, text", TEMPLATE_ERRORS, ids=[row[1] for row in TEMPLATE_ERRORS])
def test_template_errors(router, match, target, offset, text):
    with pytest.raises(PatternError) as info:
        router.add_rewrite(match, target)
    assert (info.value.offset, info.value.message) == (offset, text)


# PCRE2's own texts (pcre2_get_error_message), with its error numbers
REGEX_ERRORS = [
    ("(abc", 4, "invalid rewrite regex '(abc' at byte 4: missing closing parenthesis (PCRE2 error 114)"),
    ("*a", 0, "invalid rewrite regex '*a' at byte 0: quantifier does not follow a repeatable item (PCRE2 error 109)"),
    ("[z-a]", 3, "invalid rewrite regex '[z-a]' at byte 3: range out of order in character class (PCRE2 error 108)"),
]


@pytest.mark.parametrize("match, offset, text", REGEX_ERRORS, ids=[m for m, _, _ in REGEX_ERRORS])
def test_regex_errors(router, match, offset, text):
    with pytest.raises(RegexError) as info:
        router.add_rewrite(match, "x")
    assert (info.value.offset, info.value.message, info.value.code) == (offset, text, -5)


def test_redos_ends_in_limit_and_the_router_keeps_working(router):
    router.add("app://x", "X")
    router.add_rewrite("(a+)+$", "app://x")
    long = "a" * 5_000 + "b"
    with pytest.raises(LimitError):
        router.rewrite(long)
    with pytest.raises(LimitError):
        router.resolve(long)
    with pytest.raises(LimitError):
        router.can_route(long)
    assert router.rewrite("aaa") == "app://x"
    assert router.resolve("aaa").target == "X"


def test_regex_limits_come_from_the_router(router):
    router.add_rewrite("^(a+)+$", "hit")
    url = "aaaaaaaaab"
    assert router.rewrite(url) is None
    router.set_limit(linkrouter.Limit.REGEX_MATCH, 5)
    with pytest.raises(LimitError):
        router.rewrite(url)
    assert router.rewrite("aaa") == "hit"
    router.set_limit(linkrouter.Limit.REGEX_MATCH, 10_000)
    assert router.rewrite(url) is None


def test_rewritten_url_longer_than_limit(router):
    router.set_limit("url_length", 100)
    router.add_rewrite("(.*)", "$$1$$1$$1")
    assert router.rewrite("abc") == "abcabcabc"
    with pytest.raises(LimitError):
        router.rewrite("/" * 40)


def test_rewrite_to_a_long_result_grows_the_buffer(router):
    router.add("app://p", "P")
    router.add_rewrite("^big:(.*)$", "app://p?q=$$1&r=$1")
    value = "é" * 5_000
    m = router.resolve("big:" + value)
    assert m.params == {"q": value, "r": value}  # query values are decoded
    assert m.query == [("q", value), ("r", value)]
    assert m.rewritten == "app://p?q=" + "%C3%A9" * 5_000 + "&r=" + value  # $$1 percent-encodes, $1 does not

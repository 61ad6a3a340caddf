"""Registration as tables (the malformed, well-formed and conflict rows are Tests/Data/semantics.json, shared with
Tests/LinkRouterTests/InsertRemoveTests.swift): malformed patterns (with
offsets), conflicts (naming the existing route), removal, bulk adds (all or none), refused URLs, limits."""
from __future__ import annotations

import pytest

import linkrouter
from conftest import semantics_table
from linkrouter import ConflictError, InvalidURLError, LimitError, MisuseError, NotFoundError, PatternError

# Tests/Data/semantics.json (each refusal with its whole message), shared with Tests/LinkRouterTests/InsertRemoveTests.swift.
_TABLE = semantics_table()
MALFORMED = [tuple(x) for x in _TABLE["malformed"]]  # (pattern, byte offset of the error, the whole message)
WELL_FORMED = list(_TABLE["wellFormed"])
CONFLICTS = [tuple(x) for x in _TABLE["conflicts"]]  # (existing, new, conflicts?, the whole message or None)


def test_every_row_runs():
    # One test per row of each table: exactly the rows the file declares (conftest checked their shape).
    counts = _TABLE["counts"]
    assert (len(MALFORMED), len(WELL_FORMED), len(CONFLICTS)) == (counts["malformed"], counts["wellFormed"],
                                                                  counts["conflicts"])


@pytest.mark.parametrize("pattern, offset, message", MALFORMED, ids=[repr(p) for p, _, _ in MALFORMED])
def test_malformed_pattern(router, pattern, offset, message):
    with pytest.raises(PatternError) as info:
        router.add(pattern, "T")
    e = info.value
    assert e.code == -3
    assert e.offset == offset, e.message
    assert e.message == message
    assert str(e) == e.message
    assert len(router) == 0



@pytest.mark.parametrize("pattern", WELL_FORMED)
def test_well_formed_pattern(router, pattern):
    router.add(pattern, pattern)
    assert len(router) == 1


def test_unusual_literals_match(router):
    for p in ["app://", "app://%3Aliteral", "app://x*y/z:w", "app://a b/c", "app://x:8080/y"]:
        router.add(p, p)
    for url, target in [("app://:literal", "app://%3Aliteral"), ("app://x*y/z:w", "app://x*y/z:w"),
                        ("app://a b/c", "app://a b/c"), ("app://a%20b/c", "app://a b/c"),
                        ("app://x:8080/y", "app://x:8080/y"), ("app://", "app://")]:
        assert router.resolve(url).target == target, url


@pytest.mark.parametrize("existing, new, conflicts, message", CONFLICTS,
                         ids=["%s+%s" % (a, b) for a, b, _, _ in CONFLICTS])
def test_conflicts(router, existing, new, conflicts, message):
    router.add(existing, "old")
    if conflicts:
        with pytest.raises(ConflictError) as info:
            router.add(new, "new")
        assert info.value.code == -4
        assert info.value.message == message
        assert len(router) == 1
    else:
        router.add(new, "new")
        assert len(router) == 2


def test_remove(router):
    router.add("app://u/:id", "A")
    router.add("app://u/me", "B")
    router.add("app://u/*rest", "C")
    assert router.resolve("app://u/me").target == "B"
    router.remove("app://u/me")
    assert router.resolve("app://u/me").target == "A"
    router.remove("app://u/:other")  # the same URLs as app://u/:id
    assert router.resolve("app://u/me").target == "C"
    with pytest.raises(NotFoundError) as info:
        router.remove("app://u/:id")
    assert info.value.code == -7 and isinstance(info.value, LookupError)
    with pytest.raises(NotFoundError):
        router.remove("app://nothing/here")
    with pytest.raises(PatternError):
        router.remove("bad")
    router.remove("app://u/*")
    assert router.resolve("app://u/me") is None
    assert len(router) == 0
    router.add("app://u/:id", "again")
    assert router.resolve("app://u/me").target == "again"
    router.clear()
    assert len(router) == 0
    assert router.resolve("app://u/me") is None


def test_churn(router):
    router.add("app://keep/:id", "keep")
    for rnd in range(3):
        for i in range(200):
            router.add("app://tmp/%d/%d" % (rnd, i), "t%d" % i)
        assert router.resolve("app://tmp/%d/7" % rnd).target == "t7"
        for i in range(200):
            router.remove("app://tmp/%d/%d" % (rnd, i))
    router.add("app://last", "last")
    assert len(router) == 2
    assert router.resolve("app://keep/1").params == {"id": "1"}
    assert router.resolve("app://tmp/0/1") is None


def test_add_many_is_all_or_none(router):
    router.add("app://existing", "E")
    specs = [("app://a", "A"), ("app://b/:x", "B"), ("app://b/:y", "dup"), ("app://c", "C")]
    with pytest.raises(ConflictError) as info:
        router.add_many(specs)
    assert info.value.index == 2
    # the conflict is with route 1 of the same batch, named by its index, not as an existing route
    assert info.value.message == ("route 2: pattern 'app://b/:y' conflicts with route 1 of this batch ('app://b/:x'): "
                                  "both match exactly the same URLs")
    assert len(router) == 1
    # a route that was in the router before is the existing route
    with pytest.raises(ConflictError) as info:
        router.add_many([("app://a", "A"), ("app://existing/", "dup")])
    assert info.value.index == 1
    assert info.value.message == ("route 1: pattern 'app://existing/' conflicts with existing route 'app://existing': "
                                  "both match exactly the same URLs")
    assert len(router) == 1
    assert router.resolve("app://a") is None
    router.add_many([s for s in specs if s[1] != "dup"])
    assert len(router) == 4
    assert [router.resolve(u).target for u in ("app://existing", "app://a", "app://b/1", "app://c")] == \
        ["E", "A", "B", "C"]


def test_add_many_malformed_and_generators(router):
    with pytest.raises(PatternError) as info:
        router.add_many(iter([("app://a", "A"), ("app://a//b", "B")]))
    assert info.value.index == 1 and info.value.offset == 8
    assert info.value.message == "route 1: malformed pattern 'app://a//b' at byte 8: empty segment ('//' in a pattern)"
    router.add_many(("app://%d" % i, str(i)) for i in range(50))
    assert len(router) == 50
    router.add_many([])
    assert len(router) == 50


def test_add_many_bad_items_say_which(router):
    with pytest.raises(InvalidURLError) as info:
        router.add_many([("app://a", "A"), ("app://\udc80", "B")])
    assert info.value.index == 1
    assert info.value.message == ("route 1: pattern is not valid UTF-8 text: 'utf-8' codec can't encode character "
                                  "'\\udc80' in position 6: surrogates not allowed")
    with pytest.raises(TypeError) as info:
        router.add_many([("app://a",)])
    assert str(info.value) == ("item 0: expected a (pattern, target) pair: not enough values to unpack (expected 2, "
                               "got 1)")
    with pytest.raises(TypeError) as info:
        router.add_many([("app://a", "A"), ("app://b", 3)])
    assert str(info.value) == ("item 1: expected a (pattern, target) pair: target must be str or bytes-like (bytes, "
                               "bytearray, memoryview), not int")
    assert len(router) == 0


BAD_URLS = [
    ("", InvalidURLError), ("nourl", InvalidURLError), ("://x", InvalidURLError), ("1a://x", InvalidURLError),
    ("/just/a/path", InvalidURLError), ("?q=1", InvalidURLError),
    ("a" * 70_000, LimitError), ("app://x/" + "a/" * 1_500, LimitError),
]


@pytest.mark.parametrize("url, error", BAD_URLS, ids=[u[:20] for u, _ in BAD_URLS])
def test_bad_urls(router, url, error):
    router.add("app://x/*rest", "X")
    with pytest.raises(error):
        router.resolve(url)
    with pytest.raises(error):
        router.can_route(url)
    with pytest.raises(error):
        router.resolve_json(url)


def test_limits_are_configurable(router):
    router.add("app://x/*rest", "X")
    router.set_limit(linkrouter.Limit.URL_LENGTH, 20)
    assert router.get_limit("url_length") == 20
    assert router.resolve("app://x/short") is not None
    with pytest.raises(LimitError):
        router.resolve("app://x/this-is-too-long")
    router.set_limit("URL_LENGTH", 65536)
    router.set_limit("LR_LIMIT_PARAMS", 2)
    assert router.resolve("app://x/?a=1&b=2") is not None
    with pytest.raises(LimitError) as info:
        router.resolve("app://x/?a=1&b=2&c=3")
    assert info.value.code == -6
    router.set_limit(linkrouter.Limit.SEGMENTS, 3)
    with pytest.raises(LimitError):
        router.add("app://a/b/c/d", "D")
    with pytest.raises(MisuseError) as info:
        router.set_limit(linkrouter.Limit.URL_LENGTH, 0)
    assert info.value.code == -1 and isinstance(info.value, ValueError)
    assert router.get_limit(linkrouter.Limit.URL_LENGTH) == 65536


def test_limit_enum_is_the_headers():
    # Every LR_LIMIT_* of Include/linkrouter.h, with its value, and nothing else (REGEX_START was missing).
    import os
    import re
    header = os.path.join(os.path.dirname(__file__), "..", "..", "..", "Include", "linkrouter.h")
    with open(header, encoding="utf-8") as f:
        declared = {m.group(1): int(m.group(2)) for m in re.finditer(r"\bLR_LIMIT_(\w+)\s*=\s*(\d+)", f.read())}
    assert len(declared) == 9
    assert {m.name: int(m) for m in linkrouter.Limit} == declared


def test_limit_defaults_and_names(router):
    defaults = {"URL_LENGTH": 65536, "SEGMENTS": 1024, "PARAMS": 1024, "NESTING": 32, "REGEX_MATCH": 10000,
                "REGEX_DEPTH": 1000, "REGEX_START": 1024, "PENDING": 64, "REPLY_TIMEOUT_MS": 10000}
    assert set(defaults) == set(linkrouter.Limit.__members__)
    for name, value in defaults.items():
        assert router.get_limit(name) == value
        assert router.get_limit(linkrouter.Limit[name]) == value
        assert router.get_limit(int(linkrouter.Limit[name])) == value
    with pytest.raises(MisuseError):
        router.get_limit("nope")
    with pytest.raises(MisuseError):
        router.get_limit(99)  # an unknown number: the library says so
    with pytest.raises(MisuseError):
        router.set_limit(99, 5)
    with pytest.raises(MisuseError):
        router.get_limit(1 << 40)
    with pytest.raises(MisuseError):
        router.set_limit("url_length", -1)
    with pytest.raises(TypeError):
        router.set_limit("url_length", 1.5)
    with pytest.raises(TypeError):
        router.get_limit(1.0)


def test_len_and_clear_keep_rewrites(router):
    router.add("app://a", "A")
    router.add_rewrite("^x$", "app://a")
    assert len(router) == 1
    router.clear()
    assert len(router) == 0
    assert router.rewrite("x") == "app://a"

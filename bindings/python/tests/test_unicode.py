"""Text: str in and out, URLs encoded as UTF-8; raw UTF-8 and percent-escapes; bytes URLs; NUL characters;
lone surrogates refused with InvalidURLError, never a crash."""
from __future__ import annotations

import pytest

import linkrouter


@pytest.fixture
def r(router):
    router.add("app://user/:id", "User")
    router.add("app://two/:a/:b", "Two")
    router.add("app://three/:a/:b/:c", "Three")
    router.add("app://four/:a/:b/:c/:d", "Four")
    router.add("app://files/*path", "Files")
    router.add("app://中文/:name", "Chinese")
    router.add("app://plain", "Plain")
    return router


# Each number of path parameters takes its own way through the packed result; each with ASCII and non-ASCII.
ROWS = [
    ("app://user/体", {"id": "体"}),
    ("app://user/%E4%BD%93", {"id": "体"}),
    ("app://two/é/x", {"a": "é", "b": "x"}),
    ("app://two/x/é", {"a": "x", "b": "é"}),
    ("app://two/ab/cde", {"a": "ab", "b": "cde"}),
    ("app://three/α/β/γ", {"a": "α", "b": "β", "c": "γ"}),
    ("app://three/a/bb/ccc", {"a": "a", "b": "bb", "c": "ccc"}),
    ("app://four/1/22/333/4444", {"a": "1", "b": "22", "c": "333", "d": "4444"}),
    ("app://four/1/😀/333/ü", {"a": "1", "b": "😀", "c": "333", "d": "ü"}),
    ("app://files/日本/語", {"path": "日本/語"}),
    ("app://中文/值", {"name": "值"}),
    ("app://%E4%B8%AD%E6%96%87/%E5%80%BC", {"name": "值"}),
    ("app://plain?名=值&k=%F0%9F%98%80", {"名": "值", "k": "😀"}),
    ("app://user/é?q=ü&x=1", {"id": "é", "q": "ü", "x": "1"}),
    ("app://two/é/ü?q=1", {"a": "é", "b": "ü", "q": "1"}),
    ("app://user/a b?q=c d", {"id": "a b", "q": "c d"}),
    ("app://user/%00", {"id": "\0"}),
]


@pytest.mark.parametrize("url, params", ROWS, ids=[u for u, _ in ROWS])
def test_unicode_rows(r, url, params):
    m = r.resolve(url)
    assert m.params == params
    assert m.url == url
    assert r.resolve(url.encode("utf-8")).params == params
    assert r.resolve(bytearray(url.encode("utf-8"))).params == params
    assert r.resolve(memoryview(url.encode("utf-8"))).params == params


def test_bytes_url_reports_str(r):
    m = r.resolve("app://user/é#frå".encode())
    assert m.url == "app://user/é#frå" and m.fragment == "frå" and m.rewritten == m.url


def test_lone_surrogates_are_invalid(r):
    for url in ("app://user/\udc80", "app://user/\ud800x", "\udfff"):
        with pytest.raises(linkrouter.InvalidURLError):
            r.resolve(url)
        with pytest.raises(linkrouter.InvalidURLError):
            r.can_route(url)
        with pytest.raises(linkrouter.InvalidURLError):
            r.resolve_json(url)
    with pytest.raises(linkrouter.InvalidURLError):
        r.add("app://\udc80/x", "X")


def test_nul_in_urls_is_consistent(r):
    # The packed call takes a length, so a NUL is just a byte of the URL; can_route agrees with resolve.
    m = r.resolve("app://user/4\x002")
    assert m.params == {"id": "4\x002"}
    assert r.can_route("app://user/4\x002") is True
    assert r.can_route("app://nothing/4\x002") is False
    with pytest.raises(linkrouter.InvalidURLError):
        r.resolve_json("app://user/4\x002")  # a C string cannot hold it


def test_bytes_like_url_is_copied(r):
    url = bytearray(b"app://user/1")
    m = r.resolve(url)
    url[-1:] = b"2"
    assert m.url == "app://user/1" and m.params == {"id": "1"}


def test_str_subclass(r):
    class S(str):
        pass
    assert r.resolve(S("app://user/1")).params == {"id": "1"}
    r.add(S("app://s/:x"), S("T"))
    assert r.resolve("app://s/y").target == "T"


def test_unicode_targets_and_metadata(router):
    router.add_route("app://x", "目标 🎯", name="名前", metadata='{"説明": "ü"}')
    m = router.resolve("app://x")
    assert (m.target, m.name, m.metadata) == ("目标 🎯", "名前", '{"説明":"ü"}')

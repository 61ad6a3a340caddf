"""SPEC §2-4 as a table, ported from Tests/LinkRouterTests/MatchTableTests.swift: (routes, url) -> (target,
params, extra, fragment). Every row runs twice, routes added in order and reversed: precedence must not depend
on registration order."""
from __future__ import annotations

import json
from typing import Dict, Optional

import pytest

import linkrouter

ROUTES = [
    ("protocol://page/routerDetails/:id", "Details"),
    ("protocol://page/routerObjectDetails", "ObjectDetails"),
    ("wildcard://*", "Wildcard"),
    ("app://user/:id", "User"),
    ("app://user/:id/posts", "UserPosts"),
    ("app://user/me", "Me"),
    ("app://:object/:id", "Object"),
    ("app://secret/:id/path", "Secret"),
    ("app://files/*path", "Files"),
    ("app://search", "Search"),
    ("*://share/:id", "AnyShare"),
    ("https://www.example.com/p/:id", "Product"),
    ("https://www.example.com:8080/p/:id", "ProductOn8080"),
    ("xksquare://com.dynamic", "Dynamic"),
    ("app://caf%C3%A9/:id", "Cafe"),
]


def row(url: str, target: Optional[str], params: Optional[Dict[str, str]] = None, extra=None, fragment=None):
    return pytest.param(url, target, params or {}, extra or {}, fragment, id=url)


ROWS = [
    # Literals, params, precedence (literal > :param > *), independent of order.
    row("app://user/42", "User", {"id": "42"}),
    row("app://user/me", "Me"),
    row("app://user/42/posts", "UserPosts", {"id": "42"}),
    row("app://user/me/posts", "UserPosts", {"id": "me"}),
    row("app://user", None),
    row("app://user/42/posts/more", None),
    # Case: scheme and host fold, path does not.
    row("APP://User/42", "User", {"id": "42"}),
    row("App://USER/me", "Me"),
    row("app://user/42/POSTS", None),
    row("app://user/ME", "User", {"id": "ME"}),
    # Empty segments are dropped, trailing slashes ignored; with no host the path comes first.
    row("app:///user//42/", "User", {"id": "42"}),
    row("app://user//42//", "User", {"id": "42"}),
    row("app:///User/42", "Object", {"object": "User", "id": "42"}),
    # Backtracking: app://secret/:id/path does not match two segments, app://:object/:id does.
    row("app://secret/978", "Object", {"object": "secret", "id": "978"}),
    row("app://secret/978/path", "Secret", {"id": "978"}),
    row("app://other/1", "Object", {"object": "other", "id": "1"}),
    # Decoding after splitting: %2F stays inside its segment; malformed or non-UTF-8 escapes stay as written.
    row("app://user/a%2Fb", "User", {"id": "a/b"}),
    row("app://user/%E4%BD%93", "User", {"id": "体"}),
    row("app://user/体", "User", {"id": "体"}),
    row("app://user/a b", "User", {"id": "a b"}),
    row("app://user/%ZZ", "User", {"id": "%ZZ"}),
    row("app://user/%FF", "User", {"id": "%FF"}),
    row("app://user/%4", "User", {"id": "%4"}),
    row("app://us%65r/42", "User", {"id": "42"}),
    row("app://%75ser/me", "Me"),
    row("app://user/m%65", "Me"),
    row("app://caf%C3%A9/1", "Cafe", {"id": "1"}),
    row("app://café/1", "Cafe", {"id": "1"}),
    # Path beats query; the last repeated key wins; bare keys; empty pieces; + stays +.
    row("app://user/42?id=7", "User", {"id": "42"}),
    row("app://user/42?tab=a&tab=b", "User", {"id": "42", "tab": "b"}),
    row("app://user/42?flag", "User", {"id": "42", "flag": ""}),
    row("app://user/42?flag=", "User", {"id": "42", "flag": ""}),
    row("app://user/42?a=1&&b=2&", "User", {"id": "42", "a": "1", "b": "2"}),
    row("app://user/42?q=a+b", "User", {"id": "42", "q": "a+b"}),
    row("app://user/42?q=a%20b", "User", {"id": "42", "q": "a b"}),
    row("app://user/42?q=x=y", "User", {"id": "42", "q": "x=y"}),
    row("app://user/42?nation=中国", "User", {"id": "42", "nation": "中国"}),
    row("app://user/42?nation=%E4%B8%AD%E5%9B%BD", "User", {"id": "42", "nation": "中国"}),
    row("app://user/42?%6B=v", "User", {"id": "42", "k": "v"}),
    row("app://user/42?bad=%G0", "User", {"id": "42", "bad": "%G0"}),
    # Python's params nest bracket keys (the Swift table checks the flat view here).
    row("app://user/42?info[nickname]=x", "User", {"id": "42", "info": {"nickname": "x"}}),
    # Extras outrank path and query.
    row("app://user/42?from=q&id=7", "User", {"id": "99", "from": "push"}, extra={"id": "99", "from": "push"}),
    row("app://user/42", "User", {"id": "42", "img": "<image>"}, extra={"img": "<image>"}),
    # The fragment is never routed, and reported as written.
    row("app://user/42#top", "User", {"id": "42"}, fragment="top"),
    row("app://user/42?x=1#frag?y=2", "User", {"id": "42", "x": "1"}, fragment="frag?y=2"),
    row("app://user/me#", "Me", fragment=""),
    row("app://user/42?a#b=c", "User", {"id": "42", "a": ""}, fragment="b=c"),
    # Catch-all: zero or more segments, undecoded, joined with "/".
    row("app://files", "Files", {"path": ""}),
    row("app://files/", "Files", {"path": ""}),
    row("app://files/a", "Files", {"path": "a"}),
    row("app://files/a/b/c.txt", "Files", {"path": "a/b/c.txt"}),
    row("app://files/a//b/", "Files", {"path": "a/b"}),
    row("app://files/a%2Fb/c", "Files", {"path": "a%2Fb/c"}),
    row("app://files/x?path=q", "Files", {"path": "x"}),
    row("wildcard://anything/at/all", "Wildcard", {"*": "anything/at/all"}),
    row("wildcard://", "Wildcard", {"*": ""}),
    row("wildcard:///a//b", "Wildcard", {"*": "a/b"}),
    row("wildcard://Host:99/a", "Wildcard", {"*": "Host/a"}),
    # A scheme beats *://, *:// takes the rest.
    row("http://share/9", "AnyShare", {"id": "9"}),
    row("myapp://share/9", "AnyShare", {"id": "9"}),
    row("app://share/9", "Object", {"object": "share", "id": "9"}),
    row("unknown://x", None),
    # Web links: host folds, port ignored unless the pattern names one, userinfo ignored.
    row("https://www.example.com/p/7", "Product", {"id": "7"}),
    row("https://WWW.Example.COM/p/7", "Product", {"id": "7"}),
    row("https://www.example.com:8080/p/7", "ProductOn8080", {"id": "7"}),
    row("https://www.example.com:9090/p/7", "Product", {"id": "7"}),
    row("https://user:pw@www.example.com/p/7?ref=mail", "Product", {"id": "7", "ref": "mail"}),
    row("http://www.example.com/p/7", None),
    row("https://www.example.com/P/7", None),
    # FFRouter's and XKRouter's own links.
    row("protocol://page/routerDetails/666?nickname=imlifengfeng", "Details", {"id": "666", "nickname": "imlifengfeng"}),
    row("protocol://page/routerObjectDetails", "ObjectDetails"),
    row("xksquare://com.dynamic?targetclass=RouterTestViewController&name=%E4%BD%93%E8%B4%B4&num=2", "Dynamic",
        {"targetclass": "RouterTestViewController", "name": "体贴", "num": "2"}),
    row("app://search?q=x", "Search", {"q": "x"}),
    row("app://search/", "Search"),
    row("app://search?", "Search"),
]


@pytest.fixture(scope="module", params=["in order", "reversed"])
def table(request):
    r = linkrouter.Router()
    for pattern, target in (ROUTES if request.param == "in order" else ROUTES[::-1]):
        r.add(pattern, target)
    yield r
    r.close()


def test_table_is_complete():
    assert len(ROWS) >= 70


@pytest.mark.parametrize("url, target, params, extra, fragment", ROWS)
def test_match_table(table, url, target, params, extra, fragment):
    m = table.resolve(url, extra=extra)
    assert (m.target if m else None) == target
    assert table.can_route(url) is (target is not None)
    if m is None:
        return
    assert m.params == params
    assert m.url == url
    assert m.rewritten == url
    assert not m.was_rewritten
    assert m.pattern == dict((t, p) for p, t in ROUTES)[target]
    if fragment is not None:
        assert m.fragment == fragment
    # The same row through bytes, and through the C library's own JSON (string extras only).
    assert table.resolve(url.encode(), extra=extra).params == params
    assert json.loads(table.resolve_json(url, extra=extra))["params"] == params


def test_match_reports_parts(router):
    router.add_route("https://www.example.com/p/:id", "Product", name="product", metadata='{"auth":true}')
    m = router.resolve("HTTPS://u@WWW.Example.com:8443/p/7?x=%41#Frag")
    assert m is not None
    assert (m.scheme, m.host, m.port, m.path, m.fragment) == ("https", "www.example.com", "8443", "/p/7", "Frag")
    assert (m.name, m.metadata) == ("product", '{"auth":true}')
    assert m.query == [("x", "A")]
    assert m.path_params == [("id", "7")]
    assert m.route_id == 0
    plain = router.resolve("https://www.example.com/p/8")
    assert plain.port == "" and plain.fragment == "" and plain.query == []


def test_name_and_metadata_absent(router):
    router.add("app://x", "X")
    router.add_route("app://y", "Y", name="why")
    router.add_route("app://z", "Z", metadata="meta")
    assert (router.resolve("app://x").name, router.resolve("app://x").metadata) == (None, None)
    assert (router.resolve("app://y").name, router.resolve("app://y").metadata) == ("why", None)
    assert (router.resolve("app://z").name, router.resolve("app://z").metadata) == (None, "meta")
    assert router.resolve("app://x").as_dict().keys() >= {"target", "pattern", "params", "query"}
    assert "name" not in router.resolve("app://x").as_dict()


def test_params_order_and_query_list(router):
    """Path parameters in pattern order, then query keys by first appearance, then extras (an extra taking
    a query key's place keeps that place) - the order of lr_match_param_name."""
    router.add("app://u/:id/:tab", "T")
    m = router.resolve("app://u/1/t?z=1&id=x&a=2&z=3", extra={"e": "9", "a": "8"})
    assert list(m.params.items()) == [("id", "1"), ("tab", "t"), ("z", "3"), ("a", "8"), ("e", "9")]
    assert m.query == [("z", "1"), ("id", "x"), ("a", "2"), ("z", "3")]
    assert m.path_params == [("id", "1"), ("tab", "t")]


def test_route_ids_are_insertion_numbers_never_reused(router):
    router.add("app://a", "A")
    router.add("app://b", "B")
    assert router.resolve("app://a").route_id == 0
    assert router.resolve("app://b").route_id == 1
    router.remove("app://a")
    router.add("app://a", "A2")
    m = router.resolve("app://a")
    assert (m.route_id, m.target) == (2, "A2")
    router.clear()
    router.add("app://b", "B2")
    m = router.resolve("app://b")
    assert m.target == "B2" and m.route_id == 3


def test_match_outlives_its_router():
    r = linkrouter.Router()
    r.add("app://user/:id", "User")
    m = r.resolve("app://user/7?x=1#f")
    r.close()
    del r
    assert (m.target, m.params, m.fragment, m.query, m.host) == ("User", {"id": "7", "x": "1"}, "f", [("x", "1")],
                                                                   "user")


def test_match_equality_and_repr(router):
    router.add("app://user/:id", "User")
    a = router.resolve("app://user/1")
    assert a == router.resolve("app://user/1")
    assert a != router.resolve("app://user/2")
    assert "User" in repr(a) and "'id': '1'" in repr(a)
    assert "1 routes" in repr(router)

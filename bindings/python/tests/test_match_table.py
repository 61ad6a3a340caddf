"""SPEC §2-4 as a table, Tests/Data/semantics.json, which Tests/LinkRouterTests/MatchTableTests.swift runs too: (routes, url) -> (target,
params, extra, fragment). Every row runs twice, routes added in order and reversed: precedence must not depend
on registration order."""
from __future__ import annotations

import json
import pytest

import linkrouter
from conftest import semantics_table

# Tests/Data/semantics.json: the same table the Swift suite runs (MatchTableTests.swift). `params` is the flat
# view; a row whose Python (nested) view differs gives it as `nested`.
_TABLE = semantics_table()
ROUTES = [tuple(r) for r in _TABLE["routes"]]
ROWS = [pytest.param(r["url"], r["target"], r.get("nested", r["params"]), r.get("extra", {}), r.get("fragment"),
                     id=r["url"]) for r in _TABLE["match"]]


@pytest.fixture(scope="module", params=["in order", "reversed"])
def table(request):
    r = linkrouter.Router()
    for pattern, target in (ROUTES if request.param == "in order" else ROUTES[::-1]):
        r.add(pattern, target)
    yield r
    r.close()


def test_every_row_runs():
    # One test per row, in order and reversed: exactly the rows the file declares (conftest checked the shape).
    assert len(ROWS) == _TABLE["counts"]["match"]


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


HOST_ROWS = [
    # The host the routes compared: decoded, lower-cased; as written (lower-cased) when its decoding is malformed,
    # not UTF-8 or holds a NUL.
    ("https://ads.example.net/landing", "Ads", "ads.example.net"),
    ("https://%61ds.example.net/landing", "Ads", "ads.example.net"),
    ("https://ADS%2Eexample.net/landing", "Ads", "ads.example.net"),
    ("https://%41ds.example.net/landing?x=1", "Ads", "ads.example.net"),
    ("https://u@%61ds.Example.net:8443/landing#f", "Ads", "ads.example.net"),
    ("https://good.com%00.evil.com/x", "Any", "good.com%00.evil.com"),
    ("https://%ZZ.com/x", "Any", "%zz.com"),
    ("https://%FF.com/x", "Any", "%ff.com"),
    ("https://%C3%A9T%C3%A9.fr/x", "Any", "\u00e9t\u00e9.fr"),
]


@pytest.mark.parametrize("url,target,host", HOST_ROWS)
def test_match_reports_the_host_the_routes_compared(router, url, target, host):
    router.add_route("https://ads.example.net/:page", "Ads")
    router.add_route("https://*rest", "Any")
    m = router.resolve(url)
    assert m is not None
    assert (m.target, m.host) == (target, host)


def test_match_reports_parts(router):
    router.add_route("https://www.example.com/p/:id", "Product", name="product", metadata='{"auth":"true"}')
    m = router.resolve("HTTPS://u@WWW.Example.com:8443/p/7?x=%41#Frag")
    assert m is not None
    assert (m.scheme, m.host, m.port, m.path, m.fragment) == ("https", "www.example.com", "8443", "/p/7", "Frag")
    assert (m.name, m.metadata) == ("product", '{"auth":"true"}')
    assert m.query == [("x", "A")]
    assert m.path_params == [("id", "7")]
    assert m.route_id == 0
    plain = router.resolve("https://www.example.com/p/8")
    assert plain.port == "" and plain.fragment == "" and plain.query == []


def test_name_and_metadata_absent(router):
    router.add("app://x", "X")
    router.add_route("app://y", "Y", name="why")
    router.add_route("app://z", "Z", metadata='{"m":"eta"}')
    assert (router.resolve("app://x").name, router.resolve("app://x").metadata) == (None, None)
    assert (router.resolve("app://y").name, router.resolve("app://y").metadata) == ("why", None)
    assert (router.resolve("app://z").name, router.resolve("app://z").metadata) == (None, '{"m":"eta"}')
    fields = {"fragment", "host", "params", "path", "path_params", "pattern", "port", "query", "rewritten", "route_id",
              "scheme", "target", "url"}  # and name, and meta (the metadata), when the route has them
    assert router.resolve("app://x").as_dict().keys() == fields
    assert router.resolve("app://y").as_dict().keys() == fields | {"name"}
    assert router.resolve("app://z").as_dict().keys() == fields | {"meta"}


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
    assert repr(a) == "Match(target='User', pattern='app://user/:id', url='app://user/1', params={'id': '1'})"
    assert repr(router) == "<linkrouter.Router with 1 route>"
    router.add("app://user/:id/posts", "Posts")
    assert repr(router) == "<linkrouter.Router with 2 routes>"
    router.clear()
    assert repr(router) == "<linkrouter.Router with 0 routes>"

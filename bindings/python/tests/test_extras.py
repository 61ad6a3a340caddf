"""Extra parameters: any Python objects (FFRouter passes a UIImage along), merged on the Python side, outranking
path and query parameters; the merged dict is new for every match."""
from __future__ import annotations

import json
import types

import pytest


@pytest.fixture
def r(router):
    router.add("app://user/:id", "User")
    router.add("app://plain", "Plain")
    return router


class Image:
    pass


@pytest.mark.parametrize("value", [Image(), None, 0, 3.5, b"bytes", ["a", "list"], {"a": "dict"}, ("t",),
                                   "str", True], ids=lambda v: type(v).__name__)
def test_extra_values_of_any_type(r, value):
    m = r.resolve("app://user/42?tab=a", extra={"img": value, "tab": value})
    assert m.params["img"] is value
    assert m.params["tab"] is value  # outranks the query
    assert m.params["id"] == "42"


def test_extras_outrank_path_and_query(r):
    m = r.resolve("app://user/42?from=q&id=7", extra={"id": 99, "from": "push"})
    assert m.params == {"id": 99, "from": "push"}
    assert list(m.params) == ["id", "from"]


def test_extras_on_each_path(r):
    # no params, one, query only, and nested: every way params is built takes extras
    assert r.resolve("app://plain", extra={"e": 1}).params == {"e": 1}
    assert r.resolve("app://plain?q=1", extra={"e": 1}).params == {"q": "1", "e": 1}
    assert r.resolve("app://plain?q[a]=1", extra={"e": 1}).params == {"q": {"a": "1"}, "e": 1}
    assert r.resolve("app://user/1", extra={"e": 1}).params == {"id": "1", "e": 1}


def test_extra_mappings_and_pairs(r):
    assert r.resolve("app://user/1", extra=types.MappingProxyType({"a": 1})).params == {"id": "1", "a": 1}
    assert r.resolve("app://user/1", extra=[("a", 1), ("b", 2)]).params == {"id": "1", "a": 1, "b": 2}
    assert r.resolve("app://user/1", extra={}).params == {"id": "1"}
    assert r.resolve("app://user/1", extra=None).params == {"id": "1"}
    # resolve_json takes the same (its values str, as the library's extras are)
    for extra in (types.MappingProxyType({"a": "1"}), [("a", "1"), ("b", "2")], {}, None):
        expected = {"id": "1", **dict(extra or {})}
        assert json.loads(r.resolve_json("app://user/1", extra=extra))["params"] == expected, extra


def test_extras_do_not_leak_between_matches(r):
    a = r.resolve("app://user/1", extra={"x": 1})
    b = r.resolve("app://user/1")
    assert "x" not in b.params
    a.params["mutated"] = True
    assert "mutated" not in r.resolve("app://user/1").params


def test_extras_do_not_change_matching(r):
    assert r.resolve("app://nothing", extra={"id": "1"}) is None

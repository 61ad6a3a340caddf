"""Copying. A Router owns its native table: copy.copy, copy.deepcopy and pickle refuse it on both paths (a copy
shared the handle and its finalizer, so it used freed memory once the original was collected). A Match is a
value: copy.copy gives an equal one sharing target and params, copy.deepcopy one with its own, on both paths;
neither path pickles it (its as_dict() pickles)."""
from __future__ import annotations

import copy
import functools
import gc
import pickle
import sys
import weakref

import pytest

import linkrouter
from linkrouter import _router

ROUTER_REFUSED = ("cannot copy or pickle a linkrouter.Router: it owns its native routing table (build another "
                  "Router, or load the same table file into a new one)")
MATCH_NOT_PICKLED = ("cannot pickle a linkrouter.Match (copy.copy and copy.deepcopy work; pickle its as_dict() to "
                     "store or send it)")

PICKLES = [("pickle %d" % p, functools.partial(pickle.dumps, protocol=p)) for p in range(pickle.HIGHEST_PROTOCOL + 1)]
ROUTER_COPIERS = [("copy", copy.copy), ("deepcopy", copy.deepcopy)] + PICKLES


@pytest.mark.parametrize("make", [linkrouter.Router, _router.ctypes_router], ids=["Router", "ctypes_router"])
@pytest.mark.parametrize("copier", [c for _, c in ROUTER_COPIERS], ids=[n for n, _ in ROUTER_COPIERS])
def test_router_refuses_to_be_copied(make, copier):
    r = make()
    r.add("app://user/:id", "User")
    with pytest.raises(TypeError) as info:
        copier(r)
    assert str(info.value) == ROUTER_REFUSED
    assert r.resolve("app://user/1").params == {"id": "1"}  # unharmed
    r.close()
    with pytest.raises(TypeError) as info:
        copier(r)
    assert str(info.value) == ROUTER_REFUSED


EXTRA_LIST = [1, 2]

# id, how the router is set up, the URL, the extra given to resolve
MATCHES = [
    ("path params", lambda r: r.add("app://user/:id", "User"), "app://user/42", None),
    ("many path params", lambda r: r.add("app://a/:p1/:p2/:p3/:p4/:p5/:p6", "A"), "app://a/1/2/3/4/5/6", None),
    ("no params", lambda r: r.add("app://home", "Home"), "app://home", None),
    ("query and fragment", lambda r: r.add("app://search", "Search"), "app://search?q=a&q=b&page=2#top", None),
    ("nested query", lambda r: r.add("app://search", "Search"), "app://search?info[name]=x&tags[]=a&tags[]=b", None),
    ("rewritten", lambda r: (r.add("app://user/:id", "User"), r.add_rewrite("^old://(.*)$", "app://$1")),
     "old://user/7", None),
    ("name, meta, requires", lambda r: r.add_route("app://acct/:id", "Acct", name="acct", meta={"k": "v"},
                                                   requires=["login"]), "app://acct/5", None),
    ("optional group", lambda r: r.add("app://item/:id(/:tab)", "Item"), "app://item/1/info", None),
    ("bytes URL", lambda r: r.add("app://user/:id", "User"), b"app://user/9?x=1", None),
    ("extra objects", lambda r: r.add("app://user/:id", "User"), "app://user/3", {"list": EXTRA_LIST, "n": 3}),
]
MATCH_IDS = [row[0] for row in MATCHES]


def resolved(setup, url, extra):
    r = linkrouter.Router()
    setup(r)
    m = r.resolve(url, extra)
    assert m is not None
    return r, m


@pytest.mark.parametrize("deep", [False, True], ids=["copy", "deepcopy"])
@pytest.mark.parametrize("_, setup, url, extra", MATCHES, ids=MATCH_IDS)
def test_match_copies_are_equal_values(_, setup, url, extra, deep):
    base = sys.getrefcount(EXTRA_LIST)
    r, m = resolved(setup, url, extra)
    fields = m.as_dict()
    c = (copy.deepcopy if deep else copy.copy)(m)
    assert type(c) is type(m) is linkrouter.Match and c is not m
    assert c == m and c.as_dict() == fields and repr(c) == repr(m)
    assert c.target is m.target  # a str: deepcopy keeps it too
    if deep:
        assert c.params == m.params and c.params is not m.params
        if extra:
            assert c.params["list"] == EXTRA_LIST and c.params["list"] is not EXTRA_LIST
    else:
        assert c.params is m.params
    c.target = "changed"  # the copy is its own object
    assert m.target == fields["target"]
    c.target = m.target
    r.close()  # a copy outlives its router and the original, as a match does
    del m
    gc.collect()
    assert c.as_dict() == fields
    gone = weakref.ref(c)
    del c, fields
    gc.collect()
    assert gone() is None
    assert sys.getrefcount(EXTRA_LIST) == base  # every reference a copy took is given back


def test_match_deepcopy_of_a_match_that_holds_itself():
    r, m = resolved(MATCHES[0][1], "app://user/1", None)
    m.params["self"] = m
    m.target = [m]
    c = copy.deepcopy(m)
    assert c is not m and c.params["self"] is c and c.target[0] is c
    assert c.params["id"] == "1" and c.pattern == m.pattern and c.route_id == m.route_id
    r.close()


@pytest.mark.parametrize("deep", [False, True], ids=["copy", "deepcopy"])
def test_match_copy_keeps_a_deleted_target_deleted(deep):
    r, m = resolved(MATCHES[0][1], "app://user/1", None)
    del m.target
    c = (copy.deepcopy if deep else copy.copy)(m)
    with pytest.raises(AttributeError):
        c.target
    assert c.params == {"id": "1"} and c.path == "/1"
    r.close()


@pytest.mark.parametrize("dumps", [d for _, d in PICKLES], ids=[n for n, _ in PICKLES])
def test_match_is_not_pickled_but_its_dict_is(dumps):
    r, m = resolved(MATCHES[6][1], "app://acct/5?x=1", None)
    with pytest.raises(TypeError) as info:
        dumps(m)
    assert str(info.value) == MATCH_NOT_PICKLED
    assert pickle.loads(dumps(m.as_dict())) == m.as_dict()
    r.close()

"""Handles: close(), the context manager and weakref.finalize free the lr_router; a closed router raises
ValueError from every method and never crashes."""
from __future__ import annotations

import gc
import json
import weakref

import pytest

import linkrouter
from conftest import run_python

CALLS = [
    ("add", lambda r: r.add("app://a", "A")),
    ("add_route", lambda r: r.add_route("app://a", "A", name="n")),
    ("add_many", lambda r: r.add_many([("app://a", "A")])),
    ("remove", lambda r: r.remove("app://a")),
    ("clear", lambda r: r.clear()),
    ("len", lambda r: len(r)),
    ("can_route", lambda r: r.can_route("app://a")),
    ("can_route with NUL", lambda r: r.can_route("app://a\0b")),
    ("resolve", lambda r: r.resolve("app://a")),
    ("resolve bytes", lambda r: r.resolve(b"app://a", extra={"x": 1})),
    ("resolve long", lambda r: r.resolve("app://a/" + "x" * 10_000)),
    ("resolve_json", lambda r: r.resolve_json("app://a")),
    ("add_rewrite", lambda r: r.add_rewrite("a", "b")),
    ("add_rewrites", lambda r: r.add_rewrites([("a", "b")])),
    ("remove_rewrite", lambda r: r.remove_rewrite("a")),
    ("clear_rewrites", lambda r: r.clear_rewrites()),
    ("rewrite", lambda r: r.rewrite("a")),
    ("set_limit", lambda r: r.set_limit("url_length", 10)),
    ("get_limit", lambda r: r.get_limit("url_length")),
    ("enter", lambda r: r.__enter__()),
]


@pytest.mark.parametrize("name, call", CALLS, ids=[n for n, _ in CALLS])
def test_closed_router_raises_value_error(name, call):
    r = linkrouter.Router()
    r.add("app://a", "A")
    r.close()
    assert r.closed
    with pytest.raises(ValueError) as info:
        call(r)
    assert str(info.value) == "the router is closed"
    assert repr(r) == "<linkrouter.Router closed>"


def test_close_twice_and_context_manager():
    with linkrouter.Router() as r:
        r.add("app://a", "A")
        assert r.resolve("app://a").target == "A"
        assert not r.closed
    assert r.closed
    r.close()
    r.close()


def test_context_manager_closes_on_error():
    with pytest.raises(KeyError):
        with linkrouter.Router() as r:
            raise KeyError("x")
    assert r.closed


def test_finalizer_frees_when_collected():
    r = linkrouter.Router()
    r.add("app://a", "A")
    finalizer = r._finalizer
    ref = weakref.ref(r)
    assert finalizer.alive
    del r
    gc.collect()
    assert ref() is None
    assert not finalizer.alive


def test_close_detaches_finalizer():
    r = linkrouter.Router()
    r.close()
    assert not r._finalizer.alive


def test_many_routers():
    routers = [linkrouter.Router() for _ in range(200)]
    for i, r in enumerate(routers):
        r.add("app://x/:id", str(i))
    assert [r.resolve("app://x/1").target for r in routers] == [str(i) for i in range(200)]
    for r in routers[::2]:
        r.close()
    del routers
    gc.collect()


def test_routers_do_not_share_route_caches():
    a, b = linkrouter.Router(), linkrouter.Router()
    a.add("app://x/:id", "A")
    b.add("app://y/:name", "B")  # also route id 0
    assert a.resolve("app://x/1").params == {"id": "1"}
    assert b.resolve("app://y/2").params == {"name": "2"}
    assert a.resolve("app://x/1").target == "A" and b.resolve("app://y/1").target == "B"


# A router in a reference cycle: the collector runs its finalizer (which frees the lr_router) before the __del__
# of an object in the cycle, which may still call the router and keep it alive. Once per row of CALLS, in a child
# process (a use of the freed router crashed it).
CYCLE_CHILD = r"""
import gc, json
import linkrouter
from test_handles import CALLS

def outcome(call, r):
    try:
        call(r)
        return "returned"
    except Exception as e:
        return "%s: %s" % (type(e).__name__, e)

outcomes, kept = {}, []

class Screen:
    def __init__(self, r, name, call):
        self.r, self.name, self.call = r, name, call
        r.screens = [self]

    def __del__(self):
        outcomes[self.name] = {"in __del__": [self.r.closed, outcome(self.call, self.r)]}
        kept.append((self.name, self.call, self.r))  # the router lives on

for name, call in CALLS:
    r = linkrouter.Router()
    for i in range(2000):  # a table big enough that the freed memory does not stay as it was
        r.add("app://u%d/:id" % i, "T")
    r.add("app://a", "A")
    Screen(r, name, call)
    del r
    gc.collect()
    print(name, flush=True)  # the last row printed before a crash names the row after it
for name, call, r in kept:
    outcomes[name]["after"] = [r.closed, repr(r), outcome(call, r), outcome(lambda r: r.close(), r)]
print(json.dumps(outcomes))
"""


def test_router_freed_by_the_collector_is_closed_for_the_rest_of_its_cycle():
    p = run_python(CYCLE_CHILD)
    status = p.returncode
    assert status == 0, "after rows %s:\n%s" % (p.stdout.split(), p.stderr[-3000:])
    closed = "ValueError: the router is closed"
    assert json.loads(p.stdout.splitlines()[-1]) == {
        name: {"in __del__": [True, closed], "after": [True, "<linkrouter.Router closed>", closed, "returned"]}
        for name, _ in CALLS}

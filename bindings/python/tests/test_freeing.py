"""Freeing what Python code can link together or re-enter: a long chain of Matches is freed without one C call
per link, and a router's route cache is emptied or changed safely while a destructor it triggers runs Python
code. Crashes are run in a child process (conftest.run_python), so that one fails its test only."""
from __future__ import annotations

import json

import pytest

import linkrouter
from conftest import run_python

# Each Match holds the one made before it, through the writable target or params, directly or in a container.
CHAIN_CHILD = r"""
import sys, weakref
import linkrouter
link, count = sys.argv[1], int(sys.argv[2])
r = linkrouter.Router()
r.add("app://u/:id", "U")
m = prev = None
for i in range(count):
    m = r.resolve("app://u/1")
    if link == "target":
        m.target = prev
    elif link == "params":
        m.params = prev
    elif link == "params dict":
        m.params = {"prev": prev}
    elif link == "target list":
        m.target = [prev]
    if i == 0:
        first = weakref.ref(m)
    prev = m
del m, prev  # frees the chain from its newest Match
print("freed", count, first() is None)
"""

# Before match_dealloc had a trashcan, a chain of about 47,700 Matches linked by target or params overflowed an
# 8 MiB C stack (the C path's; containers have their own trashcan): four times that, with the stack capped at 8 MiB.
CHAIN = 200_000


@pytest.mark.parametrize("link", ["target", "params", "params dict", "target list"])
def test_a_long_chain_of_matches_is_freed(link):
    p = run_python(CHAIN_CHILD, link, str(CHAIN), stack_bytes=8 << 20)
    status = p.returncode
    assert status == 0, p.stderr[-3000:]
    assert p.stdout == "freed %d True\n" % CHAIN


# The route cache (`_routes`, private) may be given route constants holding any object: releasing one may run a
# destructor, which may read or set `_routes` or resolve. The cache must be detached (emptied), or the new entry
# in place, before anything is released. Each destructor records what `_routes` held when it ran.
CACHE_CHILD = r"""
import json, sys
import linkrouter
trigger, action = sys.argv[1], sys.argv[2]
r = linkrouter.Router()
r.add("app://u/:id", "U")
rid = r.resolve("app://u/1").route_id
real = r._routes[rid]  # the route's constants, as this path caches them
r._routes = {}
base = sys.getrefcount(real)
seen = []

class Bomb(str):
    def __del__(self):
        if action == "resolve":
            seen.append(r.resolve("app://u/2").params)
        elif action == "clear":
            r._routes = {}
        elif action == "refill":
            r._routes = {rid: real}
        seen.append(sorted(r._routes))

if trigger == "set":  # r._routes = {} releases the entries it had (cache_clear)
    r._routes = {rid: (Bomb("B"),) + real[1:], rid + 1: ("b",) + real[1:]}
    r._routes = {}
    result = None
else:  # a resolve replaces a cached entry that does not fit its result (cache_place): C only
    r._routes = {rid: (Bomb("B"),) + real[1:4] + ((),) + real[5:]}
    m = r.resolve("app://u/1")
    result = [m.target, m.params]
    del m
after = sorted(r._routes)
r._routes = {}
print(json.dumps([seen, after, result, sys.getrefcount(real) - base]))
"""

CACHE_CASES = [
    # trigger, action: what the destructor saw, the cache's route ids after, what the resolve gave
    ("set", "read", [[]], [], None),
    ("set", "clear", [[]], [], None),
    ("set", "refill", [[0]], [0], None),
    ("set", "resolve", [{"id": "2"}, [0]], [0], None),
    ("resolve", "read", [[0]], [0], ["U", {"id": "1"}]),
    ("resolve", "clear", [[]], [], ["U", {"id": "1"}]),
    ("resolve", "refill", [[0]], [0], ["U", {"id": "1"}]),
    ("resolve", "resolve", [{"id": "2"}, [0]], [0], ["U", {"id": "1"}]),
]


@pytest.mark.parametrize("trigger, action, seen, after, result", CACHE_CASES,
                         ids=["%s-%s" % case[:2] for case in CACHE_CASES])
def test_route_cache_released_while_a_destructor_uses_it(trigger, action, seen, after, result):
    if trigger == "resolve" and linkrouter.binding != "c-extension":
        pytest.skip("only the C route cache checks an entry against the result (the ctypes one is a dict)")
    p = run_python(CACHE_CHILD, trigger, action)
    status = p.returncode
    assert status == 0, p.stderr[-3000:]
    # ... and `real` has as many references as before: none was dropped twice
    assert json.loads(p.stdout) == [seen, after, result, 0]


# A resolve may run Python code inside its library call: the call can let go of an old snapshot this thread
# cached (of another router: here `a`'s, from before a route was removed, evicted from the library's small
# per-thread cache by lookups through other routers), and a handler's release callback then drops a Python object
# whose __del__ closes the router being resolved. The C path kept the router pointer it read before the call and
# called the library on it again (the first lookup of a route: lr_router_resolve_packed): a call on a freed
# router. Now it reads the handle again before each call, and raises ValueError when it is closed. Prints [the router resolved when the __del__ ran, what that resolve gave, closed after].
RELEASE_IN_RESOLVE_CHILD = r"""
import json, sys
import linkrouter
url, warm = "app://u/42?z=1", sys.argv[1] == "warm"
routers = [linkrouter.Router() for _ in range(12)]
for i, b in enumerate(routers):
    b.add("app://u/:id", "U%d" % i)
    if warm:
        assert b.resolve(url).target == "U%d" % i  # the route's constants cached: the C path needs one call
current = [-1]
closed_in = []

class Handler:
    def __call__(self, m):
        return 1

    def __del__(self):
        if current[0] >= 0:
            closed_in.append(current[0])
            routers[current[0]].close()

a = linkrouter.Router()
a.route("app://h")(Handler())
assert a.open("app://h") == 1
a.remove("app://h")  # the snapshot this thread cached still holds the handler
for k in range(len(routers)):
    current[0] = k
    try:
        m = routers[k].resolve(url)
        got = [m.target, sorted(m.params)]
    except ValueError as e:
        got = "ValueError: %s" % e
    if closed_in:
        break
current[0] = -1
print(json.dumps([closed_in, got, routers[closed_in[0]].closed if closed_in else None]))
"""

CLOSED = "ValueError: the router is closed"
# case, warm: what the resolve gives on the C path, on the ctypes path (whose one call had completed)
RELEASE_CASES = [
    ("first lookup of the route", "cold", CLOSED, ["U", ["id", "z"]]),
    ("route cached", "warm", ["U", ["id", "z"]], ["U", ["id", "z"]]),
]


@pytest.mark.parametrize("case, warm, c_path, ctypes_path", RELEASE_CASES, ids=[c[0] for c in RELEASE_CASES])
def test_a_destructor_run_inside_resolve_closes_the_router(case, warm, c_path, ctypes_path):
    p = run_python(RELEASE_IN_RESOLVE_CHILD, warm)
    assert p.returncode == 0, p.stderr[-3000:]
    closed_in, got, closed = json.loads(p.stdout)
    assert len(closed_in) == 1 and closed is True  # the __del__ ran inside one resolve, and closed its router
    expected = c_path if linkrouter.binding == "c-extension" else ctypes_path
    if isinstance(expected, list):
        expected = [expected[0] + str(closed_in[0]), expected[1]]
    assert got == expected

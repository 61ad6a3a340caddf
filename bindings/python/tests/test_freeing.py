"""Freeing what Python code can link together or re-enter: a long chain of Matches is freed without one C call
per link, and a router's route cache is emptied or changed safely while a destructor it triggers runs Python
code. Crashes are run in a child process (conftest.run_python), so that one fails its test only."""
from __future__ import annotations

import json
import sys
import threading

import pytest

import linkrouter
from conftest import run_python
from linkrouter import _dispatch

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


# A lookup may let go of an old table this thread cached (of another router: here `a`'s, from before a route was
# removed, evicted from the library's small per-thread cache by lookups through other routers), and the release
# callback of its handler runs inside that lookup. It used to drop the handler there, whose __del__ closed the
# router being looked up: a call on a router freed during the call itself. The C path crashed (SIGSEGV) where the
# lookup went on using the freed router (a URL too long for the stack's scratch memory, route cached), and so did
# open through ctypes; elsewhere the __del__ merely ran inside the call. Now the release only moves the handler to
# _dispatch.RELEASED, and it is dropped at the entry of the binding's next call, before the handle is read: that
# call finds its router closed. Prints [the lookup the __del__ ran in, whether it ran inside the release callback,
# what each lookup gave].
RELEASE_IN_LOOKUP_CHILD = r"""
import json, sys
import linkrouter
from linkrouter import _router
path, call, url, warm = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "warm"
make = linkrouter.Router if path == "Router" else _router.ctypes_router
routers = [make() for _ in range(12)]
for i, b in enumerate(routers):
    if call == "open bare":  # a route without a handler: open raises NotFoundError
        b.add("app://u/:id", "U%d" % i)
    else:
        b.route("app://u/:id", target="U%d" % i)(lambda m, i=i: "U%d" % i)
    if warm:
        assert b.resolve(url).target == "U%d" % i  # the route's constants cached: the C path needs one call
current = [-1]
deleted = []

def inside_release():
    f = sys._getframe(1)
    while f is not None and f.f_code.co_name != "_on_release":
        f = f.f_back
    return f is not None

class Handler:
    def __call__(self, m):
        return 1

    def __del__(self):
        if current[0] >= 0:
            deleted.append([current[0], inside_release()])
            routers[current[0]].close()

a = linkrouter.Router()
a.route("app://h")(Handler())
assert a.open("app://h") == 1
a.remove("app://h")  # the table this thread cached still holds the handler
got = []
for k in range(len(routers)):
    current[0] = k
    try:
        if call == "resolve":
            got.append(routers[k].resolve(url).target)
        else:
            got.append(routers[k].open(url))
    except ValueError as e:
        got.append("ValueError: %s" % e)
    except linkrouter.NotFoundError:
        got.append("U%d has no handler" % k)
    if deleted:
        break
current[0] = -1
print(json.dumps([deleted, got]))
"""

LONG_URL = "app://u/" + "x" * 3000  # more scratch than the C path's stack memory: heap memory sized ahead
MANY_PARAMS = "app://u/42?" + "&".join("q%d=%d" % (i, i) for i in range(40))  # more than its 32 stack params
# call, url, warm. The old code crashed (SIGSEGV) in resolve of LONG_URL on the C path, and in "open bare" (both
# paths: open is ctypes); in the other cases it ran the __del__ inside the release callback.
RELEASE_CASES = [
    ("resolve", "app://u/42?z=1", "cold"),  # the first lookup of the route (the C path then calls twice)
    ("resolve", "app://u/42?z=1", "warm"),  # route cached
    ("resolve", LONG_URL, "warm"),  # result too big for the stack (its scratch on the heap): C path crashed
    ("resolve", LONG_URL, "cold"),
    ("resolve", MANY_PARAMS, "warm"),  # result too big for the stack's params: a second call with heap memory
    ("open", "app://u/42?z=1", "warm"),
    ("open", LONG_URL, "warm"),
    ("open bare", "app://u/42?z=1", "cold"),  # NotFoundError after the lookup: crashed (SIGSEGV or abort)
    ("open bare", "app://u/42?z=1", "warm"),
]


@pytest.mark.parametrize("path", ["Router", "ctypes_router"])
@pytest.mark.parametrize("call, url, warm", RELEASE_CASES,
                         ids=["%s-%s-%s" % (c[0].replace(" ", "-"), "long" if c[1] == LONG_URL else "params" if c[1] == MANY_PARAMS
                                            else "short", c[2]) for c in RELEASE_CASES])
def test_a_handler_let_go_inside_a_lookup_is_dropped_after_it(path, call, url, warm):
    p = run_python(RELEASE_IN_LOOKUP_CHILD, path, call, url, warm)
    assert p.returncode == 0, p.stderr[-3000:]
    deleted, got = json.loads(p.stdout)
    assert len(deleted) == 1
    k, inside = deleted[0]
    assert inside is False  # not run by the release callback, inside the library's call
    # Let go inside an earlier lookup, dropped at the entry of the next call ...: the library's per-thread cache
    # holds 4 tables (ThreadState.slots), so the lookup through routers[3] evicts a's, and routers[4]'s call drops
    # the handler.
    assert k == 4
    assert got[k] == "ValueError: the router is closed"  # ... before it read the handle: that router is closed
    answer = "U%d has no handler" if call == "open bare" else "U%d"
    assert got[:k] == [answer % i for i in range(k)]  # every lookup before it answered


def _inside_release_callback() -> bool:
    """Whether the caller runs inside the library's release callback (_dispatch._on_release), i.e. inside a call of
    the library."""
    f = sys._getframe(1)
    while f is not None and f.f_code.co_name != "_on_release":
        f = f.f_back
    return f is not None


class _Released:
    """A handler, guard, unmatched handler or log sink that records, as it is freed, whether that happened inside
    the release callback and whether a handler of the test was running."""

    def __init__(self, log, value=True):
        self.log = log
        self.value = value
        self.busy = [False]

    def __call__(self, *args):
        return self.value

    def __del__(self):
        self.log.append({"inside release": _inside_release_callback(), "in a handler": self.busy[0],
                         "thread": threading.current_thread().name})


def _let_go_by_remove(r, probe):
    r.route("app://h")(probe)
    assert r.open("app://h") is True
    r.remove("app://h")


def _let_go_by_close(r, probe):
    r.route("app://h")(probe)
    assert r.open("app://h") is True
    r.close()


def _let_go_by_target(r, probe):
    r.add("app://t", "T")
    r.target("T")(probe)
    assert r.open("app://t") is True
    r.target("T")(lambda m: 2)


def _let_go_by_unmatched(r, probe):
    r.unmatched(probe)
    assert r.open("app://nothing") is True
    r.unmatched(None)


def _let_go_by_guard(r, probe):
    r.add_guard("g", probe, True)
    r.route("app://h")(lambda m: 1)
    assert r.open("app://h") == 1
    r.add_guard("g", lambda m: True, True)


def _let_go_by_log(r, probe):
    r.set_log(probe, linkrouter.LogLevel.DEBUG)
    r.route("app://h")(lambda m: 1)
    assert r.open("app://h") == 1
    r.set_log(None)


def _let_go_on_another_thread(r, probe):
    r.route("app://h")(probe)
    t = threading.Thread(target=lambda: r.open("app://h"), name="opener")  # the thread caches the table
    t.start()
    t.join()
    r.remove("app://h")
    return t


# Each way to let go, and how many lookups after it free the callable: none after close(), which frees it itself;
# else two, the first letting go of the old table this thread cached, the second freeing at its entry what that
# let go.
LET_GO = [(_let_go_by_remove, 2), (_let_go_by_close, 0), (_let_go_by_target, 2), (_let_go_by_unmatched, 2),
          (_let_go_by_guard, 2), (_let_go_by_log, 2)]
FREED_HERE = {"inside release": False, "in a handler": False, "thread": "MainThread"}


@pytest.mark.parametrize("let_go, lookups", LET_GO, ids=[f.__name__[len("_let_go_"):] for f, _ in LET_GO])
def test_a_released_callable_is_never_freed_inside_a_library_call(let_go, lookups):
    """Whatever lets a registered callable go, it is freed outside the library's calls: by close() itself, else at
    the entry of a later call (after the lookup whose per-thread table cache let go of the old table). It used to
    be freed in the release callback, inside the library's call."""
    assert threading.current_thread() is threading.main_thread()
    log = []
    r = linkrouter.Router()
    r.add("app://x", "X")
    let_go(r, _Released(log))
    seen = [len(log)]  # how many were freed, after the let-go and after each lookup
    for _ in range(lookups):
        r.resolve("app://x")
        seen.append(len(log))
    assert seen == [0] * lookups + [1]
    assert log == [FREED_HERE]
    assert not _dispatch.RELEASED
    r.close()


# The table another thread cached is let go when that thread ends: in C, after join() returned, so the child waits
# for the kernel to have ended the thread (an event, not a time: a thread that never ends hangs the child, which
# run_python's timeout ends). Then one lookup frees the callable, at its entry, on this thread.
OTHER_THREAD_CHILD = r"""
import json, os
import linkrouter
from test_freeing import _Released, _let_go_on_another_thread
log = []
r = linkrouter.Router()
r.add("app://x", "X")
opener = _let_go_on_another_thread(r, _Released(log))
while os.path.exists("/proc/self/task/%d" % opener.native_id):
    os.sched_yield()
seen = [len(log)]
r.resolve("app://x")
seen.append(len(log))
print(json.dumps([seen, log]))
"""


def test_a_callable_another_thread_let_go_is_freed_on_the_next_call():
    p = run_python(OTHER_THREAD_CHILD)
    assert p.returncode == 0, p.stderr[-3000:]
    assert json.loads(p.stdout) == [[0, 1], [FREED_HERE]]


def test_a_callable_let_go_while_a_handler_runs_is_freed_after_the_open():
    """A call into the binding from a handler (inside lr_router_open) does not free what the library let go: that
    would run its finalizers inside the open. The next call outside every library call does."""
    log = []
    r = linkrouter.Router()
    probe = _Released(log)
    r.route("app://h")(probe)
    freed_in_handler = []

    @r.route("app://n")
    def nested(m):
        probe_busy[0] = True
        try:
            r.resolve("app://h")  # a call into the library from inside another: no drain here
            freed_in_handler.append(list(log))
            return "n"
        finally:
            probe_busy[0] = False

    probe_busy = probe.busy
    assert r.open("app://h") is True
    r.remove("app://h")
    del probe
    assert r.open("app://n") == "n"  # its lookup lets go of the old table, with the handler, before `nested` runs
    assert freed_in_handler == [[]] and log == []  # let go, not freed while the handler ran ...
    assert len(_dispatch.RELEASED) == 1  # ... but kept
    len(r)  # a call at depth 0
    assert log == [{"inside release": False, "in a handler": False, "thread": threading.current_thread().name}]
    assert not _dispatch.RELEASED
    r.close()


def test_a_refused_reply_keeps_its_message_when_a_finalizer_calls_the_library():
    """Reply.send drops what the library let go after its call: a finalizer run there may call the library and set
    this thread's last error, so the refusal's message is read first (it once read the finalizer's)."""
    kept = []

    class Handler:
        def __call__(self, m, reply):
            reply.send(1)
            kept.append(reply)

        def __del__(self):
            try:
                linkrouter.Router().add("app://a//b", "x")  # refused: this thread's last error is a PatternError's
            except linkrouter.PatternError:
                pass

    r = linkrouter.Router()
    r.add("app://x", "X")
    r.route("app://cb", callback=True)(Handler())
    assert r.open("app://cb") == 1
    r.remove("app://cb")
    r.resolve("app://x")  # lets go of the table this thread cached, which held the handler: released, kept
    assert len(_dispatch.RELEASED) == 1
    with pytest.raises(linkrouter.ReplyError) as info:
        kept[0].send(2)
    assert str(info.value) == "reply %d was completed before, or is unknown" % kept[0]._id
    assert not _dispatch.RELEASED
    r.close()


def test_a_router_closed_inside_a_callback_is_freed_after_it():
    """close() run inside one of the library's callbacks (here a handler; a finalizer the garbage collector runs in
    a release callback is the same case) closes the handle at once but frees the router only at the next call
    outside every library call: the callback may run inside a lookup on that very router (found by the review of
    this session's change). Its handlers are released by that free, so they show when it happened."""
    log = []
    other = linkrouter.Router()
    other.route("app://o")(_Released(log))
    r = linkrouter.Router()

    @r.route("app://n")
    def closes_other(m):
        other.close()
        return (other.closed, len(log), [type(x).__name__ for x in _dispatch.RELEASED])

    # Closed, not freed: the library has not let go of its handler (a free would have put a _Callback there).
    assert r.open("app://n") == (True, 0, ["_DeferredFree"])
    with pytest.raises(ValueError) as info:
        other.resolve("app://o")  # a call at depth 0: drains first, then finds the handle closed
    assert str(info.value) == "the router is closed"
    assert [e["inside release"] for e in log] == [False] and not _dispatch.RELEASED
    other.close()  # closing twice is fine
    r.close()


_CLOSED_BY_A_COLLECTED_CYCLE = """
import gc, json, sys
import linkrouter

call = sys.argv[1]
rows = []
for threshold in range(1, 41):
    r = linkrouter.Router()
    r.route("app://h")(lambda m: "handled")
    r.add("app://r/:id", "T")
    calls_at_close = []

    class Owner:  # in a cycle: only the collector frees it, at an allocation the threshold picks
        def __init__(self, router):
            self.me, self.router = self, router

        def __del__(self):
            calls_at_close.append(self.router._calls)
            self.router.close()

    gc.collect()
    gc.set_threshold(threshold)
    Owner(r)
    try:
        value = {"open": lambda: r.open("app://h"), "resolve_json": lambda: r.resolve_json("app://r/1"),
                 "add": lambda: r.add("app://x/:y", "X"), "resolve": lambda: r.resolve("app://r/1").target}[call]()
        outcome = "ok" if value in ("handled", "T", None) or "app://r/:id" in value else repr(value)
    except ValueError as e:
        outcome = "%s: %s" % (type(e).__name__, e)
    gc.set_threshold(700)
    gc.collect()
    rows.append([outcome, calls_at_close, r.closed, r._calls, bool(r._close_pending)])
print(json.dumps(rows))
"""


@pytest.mark.parametrize("call", ["open", "resolve_json", "add", "resolve"])
def test_a_router_closed_by_a_collected_cycle_during_a_call_is_freed_after_it(call):
    """A finalizer the garbage collector runs while ctypes converts a call's arguments (or in a callback's
    prologue) that closes the router: the call completes on the router, or raises ValueError when the close came
    before it read the handle, never anything else, and the router is freed when the call ends (B91: it was freed under the call,
    SIGSEGV, or the call raised MisuseError 'the router is NULL'). The thresholds 1 to 40 move the collection
    through the call; some must land inside it (a close with a call under way)."""
    done = run_python(_CLOSED_BY_A_COLLECTED_CYCLE, call)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert len(rows) == 40
    for outcome, calls_at_close, closed, calls, pending in rows:
        assert calls_at_close in ([0], [1]), rows
        # A close during the call: the call completes, or raises ValueError when its handle was not read yet.
        assert outcome in ("ok", "ValueError: the router is closed"), rows
        assert (closed, calls, pending) == (True, 0, False), rows
    assert sum(row[1] == [1] for row in rows) >= 1, rows  # the collection landed inside a call at least once

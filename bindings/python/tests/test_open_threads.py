"""Opening URLs from many threads, re-entrant handlers and guards, logging, and the binding's registries (every
token dropped once its open or registration is over). Work is bounded by counts, never by time."""
from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import random
import sys
import threading
import weakref

import pytest

import linkrouter
from linkrouter import DEFER, LogLevel, _dispatch


@pytest.fixture
def r():
    router = linkrouter.Router()
    yield router
    router.close()


# -- re-entrancy ------------------------------------------------------------------------------------------------

def test_handlers_and_guards_may_call_back_into_the_router(r):
    state = {"logged_in": False}

    @r.guard("login")
    def login(m):
        r.can_route(m.url)                                  # a guard that reads the router
        assert r.open("app://inner") == "inner"             # and opens another URL
        return True if state["logged_in"] else DEFER

    @r.route("app://outer/:n")
    def outer(m):
        inner = r.open("app://inner")                       # open another URL
        r.route("app://added/" + m.params["n"])(lambda m2: "added")  # add a route with its handler
        state["logged_in"] = True
        resumed = r.resume("login")                         # resume a queue
        return inner, resumed

    r.route("app://inner")(lambda m: "inner")
    r.route("app://late", requires=["login"])(lambda m: "late")
    assert r.open("app://late") is DEFER
    assert r.open("app://outer/1") == ("inner", ["late"])
    assert r.open("app://added/1") == "added"


def test_nested_opens_on_executors(r):
    depth = 12

    @r.route("app://nest/:n")
    def nest(m):
        n = int(m.params["n"])
        if n == depth:
            return [threading.current_thread().name]
        with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="nest%d" % n) as pool:
            return [threading.current_thread().name] + r.open("app://nest/%d" % (n + 1), executor=pool)

    names = r.open("app://nest/0")
    assert len(names) == depth + 1 and names[0] == threading.current_thread().name
    assert names[1:] == ["nest%d_0" % i for i in range(depth)]  # each pool's one thread: its prefix, then _0


def test_a_handler_error_inside_a_nested_open_reaches_the_outer_handler(r):
    class Inner(Exception):
        pass

    r.route("app://inner")(lambda m: (_ for _ in ()).throw(Inner("inner")))

    @r.route("app://outer")
    def outer(m):
        try:
            r.open("app://inner")
        except Inner as e:
            return "caught " + str(e)
        return "not raised"

    assert r.open("app://outer") == "caught inner"


# -- threads ----------------------------------------------------------------------------------------------------

def test_opens_from_many_threads_while_guards_flip_and_routes_change(r):
    """Every open ends in one of the outcomes its URL allows; every login-guarded open is answered exactly once,
    directly or by a resume."""
    r.set_limit(linkrouter.Limit.PENDING, 1 << 20)
    session = {"in": False}
    r.guard("login")(lambda m: True if session["in"] else DEFER)
    r.route("app://free/:n")(lambda m: ("free", m.params["n"], m.context))
    r.route("app://auth/:n", requires=["login"])(lambda m: ("auth", m.params["n"], m.context))
    r.target("Churn")(lambda m: ("churn", m.params["n"]))
    threads, rounds = 4, 150
    bad, auth_opened, auth_answered = [], [], []
    pool = concurrent.futures.ThreadPoolExecutor(3)

    def opener(t):
        rnd = random.Random(t)
        for i in range(rounds):
            kind = rnd.choice(["free", "auth", "churn"])
            url = "app://%s/%d" % (kind, i)
            ctx = (t, i)
            try:
                result = r.open(url, context=ctx, executor=pool if i % 3 == 0 else None)
            except linkrouter.NotFoundError:
                result = "notfound"
            if kind == "free" and result != ("free", str(i), ctx):
                bad.append((url, result))
            elif kind == "auth":
                auth_opened.append(ctx)
                if result is DEFER:
                    continue
                if result != ("auth", str(i), ctx):
                    bad.append((url, result))
                auth_answered.append(ctx)
            elif kind == "churn" and result not in ("notfound", ("churn", str(i))):
                bad.append((url, result))

    def flipper():
        for i in range(rounds):
            session["in"] = i % 2 == 0
            for value in r.resume("login"):
                if value is DEFER:
                    continue
                if not (isinstance(value, tuple) and value[0] == "auth"):
                    bad.append(("resume", value))
                else:
                    auth_answered.append(value[2])

    def churner():
        for i in range(rounds):
            try:
                r.add("app://churn/:n", "Churn")
            except linkrouter.ConflictError:
                pass
            r.remove("app://churn/:x")

    workers = [threading.Thread(target=opener, args=(t,)) for t in range(threads)]
    workers += [threading.Thread(target=flipper), threading.Thread(target=churner)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    session["in"] = True
    for value in r.resume("login"):
        auth_answered.append(value[2])
    pool.shutdown()
    assert bad == []
    assert sorted(auth_answered) == sorted(auth_opened)  # each exactly once
    assert r.pending("login") == [] and not r._opens


def test_callback_replies_from_many_threads(r):
    pool = concurrent.futures.ThreadPoolExecutor(4)
    r.route("app://cb/:n", callback=True)(lambda m, reply: pool.submit(reply.send, int(m.params["n"]) * 2))
    results = {}

    def opener(t):
        for i in range(100):
            n = t * 1000 + i
            results[n] = r.open("app://cb/%d" % n)

    workers = [threading.Thread(target=opener, args=(t,)) for t in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    pool.shutdown()
    assert results == {n: 2 * n for n in results} and len(results) == 400


# -- closing a router with opens in flight ------------------------------------------------------------------------
# Closing forgets only the opens parked in guard queues (the library drops those without a callback); an open in
# flight keeps its Python side (context, extras, value) until its outcome arrives. Each case closes the router
# while one open is in flight, and gives what the open came to; a case's handler returns what it got as context.

HANG = 10  # seconds: only so that a lost outcome fails its case instead of hanging (never reached when it works)


def close_in_a_log_sink_before_the_handler_runs():
    r = linkrouter.Router()
    r.route("app://a")(lambda m: ("a", m.context))
    r.set_log(lambda level, message: r.close() if message.startswith("matched") else None, LogLevel.DEBUG)
    return r.open("app://a", context="ctx")


def close_in_the_handler():
    r = linkrouter.Router()

    @r.route("app://a")
    def a(m):
        r.close()
        return "a", m.context
    return r.open("app://a", context="ctx")


def close_while_an_async_def_handler_awaits():
    r = linkrouter.Router()

    async def main():
        started, go = asyncio.Event(), asyncio.Event()

        @r.route("app://a")
        async def a(m):
            started.set()
            await go.wait()
            return "a", m.context
        t = asyncio.ensure_future(r.open_async("app://a", context="ctx"))
        await asyncio.wait_for(started.wait(), HANG)
        r.close()
        go.set()
        return await asyncio.wait_for(t, HANG)
    return asyncio.run(main())


def close_before_a_callback_handler_replies():
    r = linkrouter.Router()
    replies = []
    r.route("app://a", callback=True)(lambda m, reply: replies.append((reply, m.context)))

    async def main():
        t = asyncio.ensure_future(r.open_async("app://a", context="ctx"))
        while not replies and not t.done():
            await asyncio.sleep(0)
        r.close()
        reply, context = replies[0]
        worker = threading.Thread(target=reply.send, args=(("a", context),))
        worker.start()
        worker.join(HANG)
        return await asyncio.wait_for(t, HANG)
    return asyncio.run(main())


def close_before_a_reply_that_never_comes():
    r = linkrouter.Router()
    replies = []
    r.route("app://a", callback=True)(lambda m, reply: replies.append(reply))

    async def main():
        t = asyncio.ensure_future(r.open_async("app://a", context="ctx", timeout=0.05))
        while not replies and not t.done():
            await asyncio.sleep(0)
        r.close()
        try:
            return await asyncio.wait_for(t, HANG)
        except linkrouter.TimeoutError as e:
            return "TimeoutError: %s" % e
    return asyncio.run(main())


def close_in_a_replayed_handler():
    r = linkrouter.Router()
    st = {"in": False}
    r.guard("g")(lambda m: True if st["in"] else DEFER)

    @r.route("app://z/:n", requires=["g"])
    def z(m):
        if m.params["n"] == "1":
            r.close()
        return "z" + m.params["n"], m.context
    assert [r.open("app://z/%d" % i, context=i) for i in range(4)] == [DEFER] * 4
    st["in"] = True
    return r.resume("g")


CLOSE_CASES = [
    ("a log sink closes the router before the handler runs", close_in_a_log_sink_before_the_handler_runs,
     ("a", "ctx")),
    ("the handler closes its router", close_in_the_handler, ("a", "ctx")),
    ("open_async: closed while an async def handler awaits", close_while_an_async_def_handler_awaits,
     ("a", "ctx")),
    ("open_async: closed before a callback handler replies", close_before_a_callback_handler_replies,
     ("a", "ctx")),
    ("open_async: closed before a reply that never comes", close_before_a_reply_that_never_comes,
     "TimeoutError: 'app://a': the handler did not reply within 0.05 seconds"),
    ("a replayed handler closes the router mid-resume", close_in_a_replayed_handler,
     [("z0", 0), ("z1", 1), ("z2", 2), ("z3", 3)]),
]


@pytest.mark.parametrize("case, run, expected", CLOSE_CASES, ids=[c[0] for c in CLOSE_CASES])
def test_closing_a_router_keeps_its_opens_in_flight(case, run, expected):
    before = set(_dispatch._OPENS)
    assert run() == expected
    assert set(_dispatch._OPENS) == before  # and each was forgotten once its outcome came


def test_closing_a_router_forgets_its_parked_opens_whenever_it_happens():
    """No entry outlives its router and its outcome: parked in queues, deferred again by a resume the router was
    closed in, deferred by a guard that closed the router, or in flight when it was closed."""
    class Context:
        pass

    before = set(_dispatch._OPENS)
    contexts = []

    def ctx():
        c = Context()
        contexts.append(weakref.ref(c))
        return c

    async def in_flight(r):
        replies = []
        r.route("app://cb", callback=True)(lambda m, reply: replies.append(reply))
        t = asyncio.ensure_future(r.open_async("app://cb", context=ctx()))
        while not replies and not t.done():
            await asyncio.sleep(0)
        r.close()
        replies[0].send("late")
        return await asyncio.wait_for(t, HANG)

    for i in range(40):
        r = linkrouter.Router()
        st = {"in": False, "close": None}

        def g(m):
            if st["close"] == m.url:
                r.close()
            return True if st["in"] and m.params["n"] != "again" else DEFER
        r.guard("g")(g)
        r.guard("h")(lambda m: DEFER)

        @r.route("app://g/:n", requires=["g"])
        def routed(m):
            if m.params["n"] == "closer":
                r.close()
            return m.params["n"]
        r.route("app://h/:n", requires=["h"])(lambda m: m.params["n"])
        opened = [r.open(u, context=ctx()) for u in ("app://g/1", "app://g/again", "app://h/1", "app://h/2")]
        assert opened == [DEFER] * 4
        end = i % 4
        if end == 0:  # closed with four parked opens in two queues
            r.close()
        elif end == 1:  # closed by a replayed handler: the open deferred again, and the other queue's, dropped after
            r.open("app://g/closer", context=ctx())
            st["in"] = True
            assert r.resume("g") == ["1", DEFER, "closer"]
        elif end == 2:  # a guard closes the router and defers: nothing can hand that open back
            st["close"] = "app://g/3"
            assert r.open("app://g/3", context=ctx()) is DEFER
        else:  # closed with an open_async in flight (its outcome comes later) beside the parked ones
            assert asyncio.run(in_flight(r)) == "late"
        assert r.closed
        del r, routed, g
    gc.collect()
    assert set(_dispatch._OPENS) == before
    assert [c for c in contexts if c() is not None] == []


# -- logging ----------------------------------------------------------------------------------------------------

def test_logging_says_what_happened_and_is_off_by_default(r):
    log = []
    session = {"in": False}
    r.add_rewrite("^https://old\\.example\\.com/(\\d+)$", "app://item/$1")
    r.route("app://item/:id", requires=["login"])(lambda m: None)
    r.guard("login")(lambda m: True if session["in"] else DEFER)
    r.open("https://old.example.com/1")  # off: nothing recorded
    r.drop_pending("login")
    r.set_log(lambda level, message: log.append((level, message)))  # INFO by default
    r.open("https://old.example.com/2")
    session["in"] = True
    r.resume("login")
    assert log == [(LogLevel.INFO, m) for m in [
        "rewrote https://old.example.com/2 to app://item/2",
        "matched https://old.example.com/2 to app://item/:id (target app://item/:id)",
        "guard login: defer https://old.example.com/2",
        "parked https://old.example.com/2 in login (1 of 64)",
        "resume login: replaying 1 parked open(s)",
        "replay https://old.example.com/2 from login",
        "rewrote https://old.example.com/2 to app://item/2",
        "matched https://old.example.com/2 to app://item/:id (target app://item/:id)",
        "guard login: allow https://old.example.com/2",
    ]]
    r.set_log(None)
    r.open("https://old.example.com/3")
    assert len(log) == 9
    r.set_log(lambda level, message: log.append((level, message)), LogLevel.OFF)
    r.open("https://old.example.com/3")
    assert len(log) == 9


def test_log_levels(r):
    log = []
    r.route("app://ok")(lambda m: "ok")
    r.route("app://fail")(lambda m: (_ for _ in ()).throw(ValueError("bad")))
    r.set_log(lambda level, message: log.append((level, message)), LogLevel.ERROR)
    r.open("app://ok")
    assert log == []
    with pytest.raises(ValueError):
        r.open("app://fail")
    assert log == [(LogLevel.ERROR, "open app://fail: the handler failed: ValueError: bad")]
    r.set_log(lambda level, message: log.append(level), LogLevel.DEBUG)
    r.open("app://ok")
    assert LogLevel.DEBUG in log
    with pytest.raises(linkrouter.MisuseError):
        r.set_log(print, 7)
    with pytest.raises(TypeError):
        r.set_log(print, "info")
    with pytest.raises(TypeError):
        r.set_log(5)


# Exceptions with nobody to raise them to go to sys.unraisablehook; with the default hook (which takes only its
# own argument type) they are printed to sys.stderr as CPython prints them. Each case makes one such exception (an
# executor raising after it ran the work is another: test_open.py, in a child process).
def raising_log_sink(r):
    calls = []

    def sink(level, message):
        if not calls:
            calls.append(message)
            raise RuntimeError("sink broke")
    r.route("app://ok")(lambda m: "ok")
    r.set_log(sink, LogLevel.DEBUG)
    return r.open("app://ok")


def callback_raising_after_its_reply(r):
    @r.route("app://cb", callback=True)
    def cb(m, reply):
        reply.send("sent")
        raise KeyError("after reply")
    return r.open("app://cb")


REPORTS = [
    ("a log sink that raises", raising_log_sink, "ok", "the log callback raised",
     RuntimeError, "RuntimeError: sink broke"),
    ("a callback handler that raises after replying", callback_raising_after_its_reply, "sent",
     "a callback handler raised after replying", KeyError, "KeyError: 'after reply'"),
]


@pytest.mark.parametrize("case, make, value, what, exc_type, last_line", REPORTS, ids=[c[0] for c in REPORTS])
def test_an_exception_nobody_can_get_goes_to_a_custom_unraisable_hook(r, monkeypatch, case, make, value, what,
                                                                       exc_type, last_line):
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append((u.exc_type, u.err_msg, u.object)))
    assert make(r) == value
    assert seen == [(exc_type, "linkrouter: " + what, None)]


@pytest.mark.parametrize("case, make, value, what, exc_type, last_line", REPORTS, ids=[c[0] for c in REPORTS])
def test_an_exception_nobody_can_get_is_printed_with_the_default_unraisable_hook(r, monkeypatch, capsys, case, make,
                                                                                  value, what, exc_type, last_line):
    monkeypatch.setattr(sys, "unraisablehook", sys.__unraisablehook__)  # (pytest installs its own)
    capsys.readouterr()
    assert make(r) == value
    lines = capsys.readouterr().err.splitlines()
    assert lines[:2] == ["Exception ignored in: linkrouter: " + what, "Traceback (most recent call last):"]
    assert lines[-1] == last_line
    assert sum(line.startswith("Exception ignored in") for line in lines) == 1


# -- registries -------------------------------------------------------------------------------------------------

def flush_thread_cache():
    """Makes the library drop the router snapshots this thread cached. It keeps the snapshot a thread last used
    per router in a small per-thread cache (Sources/LinkRouter/Support/ThreadState.swift, 4 entries), and a
    snapshot holds the router's handlers: a closed router's callbacks are released once no thread caches it any
    more (or the thread ends). Lookups through other routers evict it."""
    for i in range(16):
        other = linkrouter.Router()
        other.add("app://flush", "F")
        assert other.resolve("app://flush") is not None and other.can_route("app://flush")
        other.close()


def test_every_token_is_released_once_the_router_is_closed():
    before = set(_dispatch._CALLBACKS)

    def use():
        r = linkrouter.Router()
        r.route("app://a")(lambda m: "a")
        r.route("app://cb", callback=True)(lambda m, reply: reply.send("cb"))
        r.target("T")(lambda m: "t")
        r.add("app://t", "T")
        r.guard("g", global_=True)(lambda m: True)
        r.guard("login")(lambda m: DEFER)
        r.route("app://parked", requires=["login"])(lambda m: None)
        r.unmatched(lambda q: "u")
        r.set_log(lambda level, message: None)
        assert [r.open(u) for u in ("app://a", "app://cb", "app://t", "app://nowhere")] == ["a", "cb", "t", "u"]
        assert r.open("app://parked", context=object()) is DEFER
        assert len(set(_dispatch._CALLBACKS) - before) == 8 and len(r._opens) == 1
        return r

    r = use()
    mine = set(_dispatch._CALLBACKS) - before
    r.close()
    flush_thread_cache()
    assert not mine & set(_dispatch._CALLBACKS)
    assert not [e for e in _dispatch._OPENS.values() if e.owner is r._opens]


def test_a_router_garbage_collected_is_freed_with_its_parked_opens():
    import gc
    import weakref

    class Context:
        pass

    before = set(_dispatch._CALLBACKS)

    def use():
        r = linkrouter.Router()
        r.guard("login")(lambda m: DEFER)
        r.route("app://x", requires=["login"])(lambda m: None)
        ctx = Context()
        assert r.open("app://x", context=ctx) is DEFER
        return weakref.ref(r), weakref.ref(ctx), set(_dispatch._CALLBACKS) - before

    router_ref, ctx_ref, mine = use()
    assert len(mine) == 2
    gc.collect()
    flush_thread_cache()
    assert router_ref() is None and ctx_ref() is None
    assert not mine & set(_dispatch._CALLBACKS)  # released by the library


def test_replacing_registrations_releases_the_old_ones(r):
    before = set(_dispatch._CALLBACKS)

    def use():
        for i in range(5):
            r.guard("g")(lambda m: True)
            r.target("T")(lambda m: i)
            r.unmatched(lambda q: i)
            r.set_log(lambda level, message: None)
        r.set_log(None)
        r.unmatched(None)
        r.remove_guard("g")
        r.remove_target("T")

    use()
    flush_thread_cache()
    assert not set(_dispatch._CALLBACKS) - before

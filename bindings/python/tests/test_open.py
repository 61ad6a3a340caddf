"""Opening URLs from Python (docs/OPENING.md): handler kinds, replies, timeouts, unmatched and target handlers,
errors, executors, asyncio. Guards and deferred opens: test_guards.py; threads, logging, re-entrancy and the
registries: test_open_threads.py. Every timeout here is a value given to the library, never a time a test
measures."""
from __future__ import annotations

import asyncio
import concurrent.futures
import json
import threading

import pytest

import linkrouter
from linkrouter import _dispatch

from conftest import run_python


class Failure(Exception):
    """A handler's own exception: it must reach the caller as the very same object."""


@pytest.fixture
def r():
    router = linkrouter.Router()
    yield router
    router.close()


def no_open_left(router):
    return not router._opens and not any(e.owner is router._opens for e in _dispatch._OPENS.values())


# -- handler kinds ------------------------------------------------------------------------------------------------

def reply_from_thread(m, reply):
    threading.Thread(target=reply.send, args=("callback " + m.params["id"],)).start()


def reply_at_once(m, reply):
    reply.send("callback now " + m.params["id"])


async def async_handler(m):
    await asyncio.sleep(0)
    return "async " + m.params["id"]


# (name, handler, callback, expected value for app://k/7)
KINDS = [
    ("plain", lambda m: "plain " + m.params["id"], False, "plain 7"),
    ("plain returning None", lambda m: None, False, None),
    ("callback replying from another thread", reply_from_thread, True, "callback 7"),
    ("callback replying at once", reply_at_once, True, "callback now 7"),
    ("async def", async_handler, False, "async 7"),
]


@pytest.mark.parametrize("name, handler, callback, expected", KINDS, ids=[k[0] for k in KINDS])
def test_every_handler_kind_returns_its_value(r, name, handler, callback, expected):
    r.route("app://k/:id", callback=callback)(handler)
    assert r.open("app://k/7") == expected
    assert asyncio.run(r.open_async("app://k/7")) == expected
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        assert r.open("app://k/7", executor=pool) == expected
    assert no_open_left(r)


def test_decorators_return_the_function(r):
    def h(m):
        return 1
    assert r.route("app://a")(h) is h
    assert r.target("T")(h) is h
    assert r.guard("g")(h) is h
    assert r.unmatched(h) is h


def test_the_match_a_handler_gets(r):
    seen = []
    image = object()
    r.add_rewrite("^https://old\\.example\\.com/u/(\\d+)$", "app://user/$1?from=web")
    r.route("app://user/:id", target="UserPage", name="user", meta={"transition": "push", "a": "b"},
            requires=["login"])(lambda m: seen.append(m) or "ok")
    r.add_guard("login", lambda m: True)
    url = "https://old.example.com/u/42"
    context = {"nav": "stack"}
    assert r.open(url, extra={"image": image, "from": "push", "id": 5}, context=context) == "ok"
    m = seen[0]
    assert isinstance(m, linkrouter.OpenMatch)
    # extra > path > query: the str extra "from" and the non-str extra "id" both win
    assert m.params == {"id": 5, "from": "push", "image": image}
    assert m.context is context
    assert m.extra == {"image": image, "from": "push", "id": 5}
    assert (m.target, m.pattern, m.name, m.meta, m.requires) == (
        "UserPage", "app://user/:id", "user", {"a": "b", "transition": "push"}, ["login"])
    assert m.metadata == '{"a":"b","transition":"push"}'
    assert (m.url, m.rewritten, m.was_rewritten) == (url, "app://user/42?from=web", True)
    assert (m.scheme, m.host, m.port, m.path, m.fragment) == ("app", "user", "", "/42", "")
    assert m.query == [("from", "web")]
    assert m.route_id == 0
    # Every field equals the library's JSON of the match with the str extras, the other extras on top.
    ref = json.loads(r.resolve_json(url, extra={"from": "push"}))
    ref["params"].update(id=5, image=image)
    ref["query"] = [tuple(p) for p in ref["query"]]
    mine = m.as_dict()
    del mine["route_id"]
    assert mine == ref
    assert repr(m) == ("OpenMatch(target='UserPage', pattern='app://user/:id', url='https://old.example.com/u/42', "
                       "params={'id': 5, 'from': 'push', 'image': %r}, context={'nav': 'stack'})" % image)


def test_params_merge_extras_of_any_type_over_path_and_query(r):
    r.route("app://p/:id")(lambda m: m.params)
    token = object()
    cases = [
        ("app://p/1?q=2", None, {"id": "1", "q": "2"}),
        ("app://p/1?id=9&q=2", None, {"id": "1", "q": "2"}),                   # path > query
        ("app://p/1?q=2", {"q": "extra"}, {"id": "1", "q": "extra"}),           # extra > query
        ("app://p/1?q=2", {"id": token}, {"id": token, "q": "2"}),              # any extra > path
        ("app://p/1?q=2", {"q": 3, "n": None}, {"id": "1", "q": 3, "n": None}),
        ("app://p/1?info[nick]=x", {"z": [1]}, {"id": "1", "info": {"nick": "x"}, "z": [1]}),  # brackets nest
    ]
    for url, extra, expected in cases:
        assert r.open(url, extra=extra) == expected, url


def test_bytes_url_and_text_that_cannot_cross(r):
    r.route("app://x")(lambda m: m.url)
    assert r.open(b"app://x") == "app://x"
    for bad in ("app://x\0", "app://\udc80"):
        with pytest.raises(linkrouter.InvalidURLError):
            r.open(bad)
    with pytest.raises(linkrouter.InvalidURLError):
        r.open("not absolute")
    with pytest.raises(TypeError):
        r.open(5)
    r.route("app://e")(lambda m: m.params)
    assert r.open("app://e", extra=[("a", "b"), ("n", 1)]) == {"a": "b", "n": 1}  # what dict() takes, as resolve
    with pytest.raises(TypeError):
        r.open("app://x", extra={1: "b"})
    with pytest.raises(TypeError):
        r.open("app://x", executor=object())
    for bad_timeout in (0, -1, float("nan")):
        with pytest.raises(ValueError):
            r.open("app://x", timeout=bad_timeout)
    with pytest.raises(TypeError):
        r.open("app://x", timeout="1")
    assert no_open_left(r)


def test_a_closed_router_refuses(r):
    r.route("app://x")(lambda m: 1)
    r.close()
    with pytest.raises(ValueError):
        r.open("app://x")
    with pytest.raises(ValueError):
        r.route("app://y")(lambda m: 1)
    with pytest.raises(ValueError):
        r.resume("login")
    with pytest.raises(ValueError):
        asyncio.run(r.open_async("app://x"))


# -- replies ------------------------------------------------------------------------------------------------------

def test_a_reply_completes_exactly_once(r):
    refused = []

    def twice(m, reply):
        reply.send(1)
        for again in (lambda: reply.send(2), lambda: reply.fail(Failure("late"))):
            with pytest.raises(linkrouter.ReplyError) as info:
                again()
            refused.append((info.value.code, reply.done))

    r.route("app://twice", callback=True)(twice)
    assert r.open("app://twice") == 1
    assert refused == [(-13, True), (-13, True)]


def test_fail_takes_an_exception(r):
    errors = []

    def bad(m, reply):
        try:
            reply.fail("not an exception")
        except TypeError as e:
            errors.append(e)
        reply.fail(Failure("real"))

    r.route("app://f", callback=True)(bad)
    with pytest.raises(Failure) as info:
        r.open("app://f")
    assert str(info.value) == "real"
    assert len(errors) == 1


def test_a_reply_that_never_comes_times_out_and_a_late_one_is_refused(r):
    held = []
    r.route("app://silent", callback=True)(lambda m, reply: held.append(reply))
    with pytest.raises(linkrouter.TimeoutError) as info:
        r.open("app://silent", timeout=0.03)
    e = info.value
    assert isinstance(e, TimeoutError) and isinstance(e, linkrouter.LinkRouterError) and e.code == -12
    assert e.message == "'app://silent': the handler did not reply within 0.03 seconds"
    with pytest.raises(linkrouter.TimeoutError) as info:
        held[0].send("late")
    assert str(info.value) == "reply %d came after its open stopped waiting (timeout)" % held[0]._id
    with pytest.raises(linkrouter.ReplyError):
        held[0].send("again")
    r.route("app://fine")(lambda m: "fine")
    assert r.open("app://fine") == "fine"
    assert no_open_left(r)


def test_the_timeout_defaults_to_the_limit(r):
    held = []
    r.set_limit(linkrouter.Limit.REPLY_TIMEOUT_MS, 20)
    assert r.get_limit("reply_timeout_ms") == 20
    r.route("app://silent", callback=True)(lambda m, reply: held.append(reply))
    with pytest.raises(linkrouter.TimeoutError):
        r.open("app://silent")
    with pytest.raises(linkrouter.TimeoutError):
        asyncio.run(r.open_async("app://silent"))
    assert no_open_left(r)


def test_a_dropped_reply_fails_the_open_at_once(r):
    r.route("app://drop", callback=True)(lambda m, reply: None)
    # A timeout of an hour: only the dropped reply can end this open (a timeout would be TimeoutError).
    with pytest.raises(linkrouter.HandlerError) as info:
        r.open("app://drop", timeout=3600)
    assert str(info.value) == "the handler dropped its reply without answering"


def test_a_dropped_reply_leaves_this_threads_error_alone(r):
    # The collector may finalize a dropped Reply between another call's failure and the read of its error: the
    # finalizer's lr_reply_drop must not replace that error (lr_reply_fail, refused for a reply that timed out,
    # did: "reply N came after its open stopped waiting").
    import gc
    from linkrouter import _native

    held = []
    r.route("app://silent", callback=True)(lambda m, reply: held.append(reply))
    with pytest.raises(linkrouter.TimeoutError):
        r.open("app://silent", timeout=0.02)
    unknown = 1 << 40
    assert _native.lib.lr_reply_send(unknown, None) == -13  # LR_EREPLIED, with its message
    expected = "reply %d was completed before, or is unknown" % unknown
    assert _native.last_error() == expected
    reply = held.pop()
    assert not reply.done
    del reply
    gc.collect()
    assert _native.last_error() == expected
    assert _native.last_error_offset() is None


def test_a_sync_handler_on_an_executor_that_misses_its_timeout(r):
    release = threading.Event()
    finished = []

    def slow(m):
        release.wait()
        finished.append(m.url)
        return "too late"

    r.route("app://slow")(slow)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        with pytest.raises(linkrouter.TimeoutError):
            r.open("app://slow", executor=pool, timeout=0.02)
        release.set()
    assert finished == ["app://slow"]
    assert no_open_left(r)


def test_an_async_handler_that_misses_its_timeout_is_cancelled(r):
    cancelled = []

    async def forever(m):
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(m.url)
            raise

    r.route("app://forever")(forever)

    async def main():
        with pytest.raises(linkrouter.TimeoutError):
            await r.open_async("app://forever", timeout=0.02)
        for _ in range(100):  # let the cancellation run (bounded by steps, not time)
            if cancelled:
                break
            await asyncio.sleep(0)

    asyncio.run(main())
    assert cancelled == ["app://forever"]


def test_cancelling_open_async_cancels_the_handler(r):
    started, cancelled = [], []

    async def forever(m):
        started.append(1)
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(1)
            raise

    r.route("app://forever")(forever)

    async def main():
        task = asyncio.ensure_future(r.open_async("app://forever", timeout=3600))
        while not started:
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        for _ in range(100):
            if cancelled:
                break
            await asyncio.sleep(0)

    asyncio.run(main())
    assert cancelled == [1]
    assert no_open_left(r)


# -- unmatched, no handler, target handlers ---------------------------------------------------------------------

def test_unmatched_handler(r):
    with pytest.raises(linkrouter.NotFoundError) as info:
        r.open("app://nowhere")
    assert str(info.value) == "no route matches 'app://nowhere' and there is no unmatched handler"
    seen = []
    context = object()

    @r.unmatched
    def fallback(request):
        seen.append(request)
        return "unmatched " + request.url

    assert r.open("app://nowhere", extra={"k": 3}, context=context) == "unmatched app://nowhere"
    assert isinstance(seen[0], linkrouter.OpenRequest)
    assert (seen[0].url, seen[0].extra, seen[0].context) == ("app://nowhere", {"k": 3}, context)
    assert r.can_route("app://nowhere") is False and len(seen) == 1  # can_route never calls it
    r.unmatched(None)
    with pytest.raises(linkrouter.NotFoundError):
        r.open("app://nowhere")
    with pytest.raises(TypeError):
        r.unmatched(5)


def test_unmatched_handler_errors_reach_the_caller(r):
    boom = Failure("unmatched")

    @r.unmatched
    def fallback(request):
        raise boom

    with pytest.raises(Failure) as info:
        r.open("app://nowhere")
    assert info.value is boom


def test_routes_without_handlers_and_target_handlers(r):
    r.add("app://user/:id", "UserPage")
    r.add_route("https://www.example.com/u/:id", "UserPage", name="web.user")
    with pytest.raises(linkrouter.NotFoundError) as info:
        r.open("app://user/1")
    assert str(info.value) == "route 'app://user/:id' (target 'UserPage') has no handler"

    @r.target("UserPage")
    def user_page(m):
        return "user %s (%s)" % (m.params["id"], m.name)

    assert r.open("app://user/1") == "user 1 (None)"
    assert r.open("https://www.example.com/u/2") == "user 2 (web.user)"
    # A route's own handler comes before its target's.
    r.route("app://user/me", target="UserPage")(lambda m: "me")
    assert r.open("app://user/me") == "me"
    # Registering again replaces; removing leaves the routes without a handler.
    r.target("UserPage")(lambda m: "second")
    assert r.open("app://user/1") == "second"
    r.remove_target("UserPage")
    with pytest.raises(linkrouter.NotFoundError):
        r.open("app://user/1")
    r.target("UserPage", callback=True)(lambda m, reply: reply.send("by callback"))
    assert r.open("app://user/1") == "by callback"


def test_removing_a_route_removes_its_handler(r):
    r.route("app://a/:x")(lambda m: "first")
    r.remove("app://a/:y")
    r.add("app://a/:z", "A")
    with pytest.raises(linkrouter.NotFoundError):
        r.open("app://a/1")


def test_route_registration_errors_keep_nothing(r):
    before = len(_dispatch._CALLBACKS)
    r.route("app://dup")(lambda m: 1)
    for bad, error, message in [
        (lambda: r.route("app://dup")(lambda m: 2), linkrouter.ConflictError,
         "pattern 'app://dup' conflicts with existing route 'app://dup': both match exactly the same URLs"),
        (lambda: r.route("app://a//b")(lambda m: 2), linkrouter.PatternError,
         "malformed pattern 'app://a//b' at byte 8: empty segment ('//' in a pattern)"),
        (lambda: r.route("app://n1", name="n")(lambda m: 2) and r.route("app://n2", name="n")(lambda m: 2),
         linkrouter.ConflictError, "route name 'n' is already used by route 'app://n1'"),
        (lambda: r.route("app://x", requires="login")(lambda m: 1), TypeError,  # one str is not a list of guards
         "requires must be a sequence of guard names, not a single str"),
        (lambda: r.route("app://x", meta={"k": 1})(lambda m: 1), TypeError, "meta keys and values must be str: 'k': 1"),
        (lambda: r.route("app://x")(5), TypeError, "a handler must be callable, not int"),
    ]:
        with pytest.raises(error) as info:
            bad()
        assert (type(info.value), str(info.value)) == (error, message)
    assert r.open("app://dup") == 1
    assert len(_dispatch._CALLBACKS) == before + 2  # app://dup's handler and app://n1's


def test_add_route_with_requires_and_meta(r):
    r.add_route("app://a", "A", name="a", requires=["login", "age"], meta={"k": "v"})
    r.add_route("app://b", "B", metadata='{"x": "1"}', requires=["login"])
    m = r.resolve("app://a")
    assert (m.name, m.requires, m.meta, m.metadata) == ("a", ["login", "age"], {"k": "v"}, '{"k":"v"}')
    assert (r.resolve("app://b").meta, r.resolve("app://b").requires) == ({"x": "1"}, ["login"])
    with pytest.raises(linkrouter.InvalidURLError):
        r.add_route("app://c", "C", metadata='{"x": 1}', requires=["login"])
    with pytest.raises(linkrouter.InvalidURLError):
        r.add_route("app://c", "C", metadata='{"x": 1}')
    with pytest.raises(TypeError):
        r.add_route("app://c", "C", metadata="{}", meta={})


# -- errors -------------------------------------------------------------------------------------------------------

def raise_in_callback(m, reply):
    raise Failure("callback")


def fail_in_callback(m, reply):
    threading.Thread(target=reply.fail, args=(Failure("callback fail"),)).start()


async def raise_in_async(m):
    await asyncio.sleep(0)
    raise Failure("async")


ERRORS = [
    ("plain", lambda m: (_ for _ in ()).throw(Failure("plain")), False, "plain"),
    ("callback raising", raise_in_callback, True, "callback"),
    ("callback failing from a thread", fail_in_callback, True, "callback fail"),
    ("async def", raise_in_async, False, "async"),
]


@pytest.mark.parametrize("name, handler, callback, text", ERRORS, ids=[e[0] for e in ERRORS])
def test_a_handler_error_reaches_the_caller_unchanged_and_the_router_keeps_working(r, name, handler, callback,
                                                                                   text):
    r.route("app://fail", callback=callback)(handler)
    r.route("app://ok")(lambda m: "ok")
    for attempt in range(3):
        with pytest.raises(Failure) as info:
            r.open("app://fail")
        assert str(info.value) == text
        with pytest.raises(Failure) as info:
            asyncio.run(r.open_async("app://fail"))
        assert str(info.value) == text
        with concurrent.futures.ThreadPoolExecutor(1) as pool, pytest.raises(Failure) as info:
            r.open("app://fail", executor=pool)
        assert str(info.value) == text
        assert r.open("app://ok") == "ok"
    assert no_open_left(r)


def test_the_very_exception_object_and_base_exceptions(r):
    boom = Failure("same")
    r.route("app://same")(lambda m: (_ for _ in ()).throw(boom))
    with pytest.raises(Failure) as info:
        r.open("app://same")
    assert info.value is boom
    stop = KeyboardInterrupt()
    r.route("app://interrupt")(lambda m: (_ for _ in ()).throw(stop))
    with pytest.raises(KeyboardInterrupt) as info2:
        r.open("app://interrupt")
    assert info2.value is stop
    r.route("app://fine")(lambda m: "fine")
    assert r.open("app://fine") == "fine"


# -- executors and asyncio --------------------------------------------------------------------------------------

def test_a_handler_runs_on_the_executor_chosen(r):
    r.route("mediator://One/push/:p")(lambda m: (threading.current_thread().name, m.params["p"]))
    caller = threading.current_thread().name
    assert r.open("mediator://One/push/1") == (caller, "1")
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="mediator") as pool:
        name, p = r.open("mediator://One/push/2", executor=pool)
    assert (name, p) == ("mediator_0", "2")  # the pool's one thread: its prefix, then _0


def test_an_executor_that_refuses_the_work(r):
    ran = []
    r.route("app://x")(lambda m: ran.append(1))
    pool = concurrent.futures.ThreadPoolExecutor(1)
    pool.shutdown()
    with pytest.raises(RuntimeError) as info:
        r.open("app://x", executor=pool)
    assert str(info.value) == "cannot schedule new futures after shutdown"  # the executor's own message
    assert ran == []
    assert no_open_left(r)


# An executor whose submit() raises after it ran the work, or queued it (to run later): the library's work must
# run once only (a second run crashed the process), and the open fails with the executor's exception only when
# the work had not run. Run in a child process so that a crash fails its case only. Each case prints
# [what open gave, how many times the handler ran once the queued work was run too, the unraisable reports].
EXECUTOR_CHILD = r"""
import json, sys, threading
import linkrouter
case = sys.argv[1]
reports = []
sys.unraisablehook = lambda u: reports.append(u.err_msg)
ran = []
r = linkrouter.Router()
r.route("app://e/:id")(lambda m: ran.append(m.params["id"]) or "e" + m.params["id"])
queued = []

class Executor:
    def submit(self, fn):
        if case == "runs, then raises":
            fn()
        elif case == "runs on its thread, then raises":
            t = threading.Thread(target=fn)
            t.start()
            t.join(60)
        elif case == "runs twice, then raises":
            fn()
            fn()
        elif case == "queues, then raises":
            queued.append(fn)
        raise RuntimeError("can't start new thread")

try:
    got = r.open("app://e/1", executor=Executor())
except RuntimeError as e:
    got = "RuntimeError: %s" % e
for fn in queued:  # what the executor queued runs later, on its own thread (a ThreadPoolExecutor's worker)
    t = threading.Thread(target=fn)
    t.start()
    t.join(60)
print(json.dumps([got, len(ran), reports]))
"""

AFTER_RAISE = "linkrouter: the executor raised after it took an open's work (which ran once, there)"
EXECUTOR_CASES = [
    ("runs, then raises", "e1", 1, [AFTER_RAISE]),
    ("runs on its thread, then raises", "e1", 1, [AFTER_RAISE]),
    ("runs twice, then raises", "e1", 1, [AFTER_RAISE]),
    ("queues, then raises", "RuntimeError: can't start new thread", 0, []),
    ("raises", "RuntimeError: can't start new thread", 0, []),
]


@pytest.mark.parametrize("case, got, runs, reports", EXECUTOR_CASES, ids=[c[0] for c in EXECUTOR_CASES])
def test_an_executor_that_raises_after_taking_the_work_runs_it_once(case, got, runs, reports):
    p = run_python(EXECUTOR_CHILD, case)
    assert p.returncode == 0, p.stderr[-3000:]
    assert json.loads(p.stdout) == [got, runs, reports]


def test_open_async_with_plain_and_async_handlers(r):
    @r.route("app://plain")
    def plain(m):
        return threading.current_thread() is threading.main_thread()

    @r.route("app://coro")
    async def coro(m):
        return asyncio.get_running_loop()

    async def main():
        loop = asyncio.get_running_loop()
        assert await r.open_async("app://plain") is True  # runs in the loop's thread
        assert await r.open_async("app://coro") is loop   # runs on this loop
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            assert await r.open_async("app://plain", executor=pool) is False
            assert await r.open_async("app://coro", executor=pool) is loop
        results = await asyncio.gather(*(r.open_async("app://coro") for _ in range(20)))
        assert all(x is loop for x in results)
        return True

    assert asyncio.run(main())
    assert no_open_left(r)


def test_a_loop_in_another_thread_as_the_executor(r):
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever)
    thread.start()
    try:
        @r.route("app://on-loop")
        def on_loop(m):
            return asyncio.get_running_loop() is loop

        @r.route("app://coro-on-loop")
        async def coro_on_loop(m):
            return asyncio.get_running_loop() is loop

        assert r.open("app://on-loop", executor=loop) is True
        assert r.open("app://coro-on-loop", executor=loop) is True
        assert r.open("app://coro-on-loop") is False  # no loop given: a new event loop on this thread
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()
    # The loop is closed: the open fails with the loop's own error, and the router keeps working.
    with pytest.raises(RuntimeError) as info:
        r.open("app://coro-on-loop", executor=loop)
    assert str(info.value) == "Event loop is closed"
    assert r.open("app://coro-on-loop") is False
    assert no_open_left(r)


def test_async_def_from_a_blocking_open_inside_a_running_loop_fails_clearly(r):
    @r.route("app://coro")
    async def coro(m):
        return 1

    async def main():
        with pytest.raises(RuntimeError) as info:
            r.open("app://coro")  # blocking, from the loop's own thread, with no loop given to run the coroutine
        assert str(info.value) == ("an async def handler was opened from a running event loop's own thread with a "
                                   "blocking open: use open_async, or give an asyncio loop as the executor")

    asyncio.run(main())

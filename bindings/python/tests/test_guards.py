"""Guards and deferred opens from Python: order, verdicts, parking, resume, pending, drop_pending, full queues, and
the xksquare login flow end to end (docs/OPENING.md)."""
from __future__ import annotations

import asyncio
import gc
import weakref

import pytest

import linkrouter
from linkrouter import DEFER, _dispatch


class Failure(Exception):
    pass


class Session:
    def __init__(self):
        self.user = None

    @property
    def logged_in(self):
        return self.user is not None


@pytest.fixture
def r():
    router = linkrouter.Router()
    yield router
    router.close()


def test_guards_run_global_first_then_required_in_route_order(r):
    ran = []
    for name in ("g1", "g2"):
        r.add_guard(name, lambda m, name=name: ran.append(name) or True, global_=True)
    for name in ("login", "adult", "unused"):
        r.guard(name)(lambda m, name=name: ran.append(name) or True)
    r.route("app://x", requires=["adult", "login", "g1"])(lambda m: "ok")  # g1 runs once, as a global guard
    r.route("app://free")(lambda m: "ok")
    assert r.open("app://x") == "ok"
    assert ran == ["g1", "g2", "adult", "login"]
    assert r.open("app://free") == "ok"
    assert ran == ["g1", "g2", "adult", "login", "g1", "g2"]


class Verdicts:
    """A guard per name whose verdict the test sets; records the order guards ran in."""

    def __init__(self, router, names):
        self.verdict = {n: True for n in names}
        self.ran = []
        for n in names:
            router.add_guard(n, self.make(n), global_=(n == "global"))

    def make(self, name):
        def check(m):
            self.ran.append(name)
            v = self.verdict[name]
            if isinstance(v, BaseException):
                raise v
            return v
        return check


BOOM = Failure("guard failed")

# (verdicts of global, login, adult; the outcome: a value, DEFER, or (exception class, text); the guards that ran)
VERDICTS = [
    ({}, "opened", ["global", "login", "adult"]),
    ({"global": False}, (linkrouter.DeniedError, "denied by guard 'global'"), ["global"]),
    ({"login": False}, (linkrouter.DeniedError, "denied by guard 'login'"), ["global", "login"]),
    ({"adult": "adults only"}, (linkrouter.DeniedError, "adults only"), ["global", "login", "adult"]),
    ({"login": ""}, (linkrouter.DeniedError, "denied by guard 'login'"), ["global", "login"]),
    ({"login": DEFER}, DEFER, ["global", "login"]),
    ({"global": DEFER, "login": False}, DEFER, ["global"]),
    ({"adult": BOOM}, (Failure, "guard failed"), ["global", "login", "adult"]),
    ({"login": None}, (TypeError, "guard 'login' returned None: a guard returns True, False, a message (str) or "
                                  "linkrouter.DEFER"), ["global", "login"]),
    ({"login": 1}, (TypeError, "guard 'login' returned 1: a guard returns True, False, a message (str) or "
                               "linkrouter.DEFER"), ["global", "login"]),
]


@pytest.mark.parametrize("verdicts, outcome, ran", VERDICTS, ids=[str(v[0]) for v in VERDICTS])
def test_verdicts(r, verdicts, outcome, ran):
    g = Verdicts(r, ["global", "login", "adult"])
    g.verdict.update(verdicts)
    opened = []
    r.route("app://page", requires=["login", "adult"])(lambda m: opened.append(m.url) or "opened")
    if isinstance(outcome, tuple):
        cls, text = outcome
        with pytest.raises(cls) as info:
            r.open("app://page")
        assert (type(info.value), str(info.value)) == (cls, text)
        if cls is linkrouter.DeniedError:
            assert info.value.code == -11 and info.value.message == text
        if cls is Failure:
            assert info.value is BOOM
        assert opened == []
    else:
        assert r.open("app://page") == outcome
        assert opened == (["app://page"] if outcome == "opened" else [])
        parked = r.pending("login") + r.pending("global")
        assert [p.url for p in parked] == (["app://page"] if outcome is DEFER else [])
    assert g.ran == ran


def test_a_required_guard_that_is_not_registered_denies(r):
    r.route("app://secret", requires=["login"])(lambda m: "secret")
    with pytest.raises(linkrouter.DeniedError) as info:
        r.open("app://secret")
    assert str(info.value) == "guard 'login' required by route 'app://secret' is not registered"
    r.guard("login")(lambda m: True)
    assert r.open("app://secret") == "secret"
    r.remove_guard("login")
    with pytest.raises(linkrouter.DeniedError):
        r.open("app://secret")
    with pytest.raises(linkrouter.NotFoundError):
        r.remove_guard("login")


def test_a_guard_sees_the_match_with_context_and_extras(r):
    seen = []
    r.guard("look", global_=True)(lambda m: seen.append((m.params, m.context, m.requires, m.name)) or True)
    r.route("app://u/:id", name="u", requires=["look"])(lambda m: None)
    ctx = object()
    r.open("app://u/1?q=2", extra={"o": ctx}, context=ctx)
    assert seen == [({"id": "1", "q": "2", "o": ctx}, ctx, ["look"], "u")]


def test_registering_a_guard_again_replaces_it(r):
    r.guard("g", global_=True)(lambda m: False)
    r.route("app://x")(lambda m: "x")
    with pytest.raises(linkrouter.DeniedError):
        r.open("app://x")
    r.guard("g", global_=True)(lambda m: True)
    assert r.open("app://x") == "x"
    with pytest.raises(TypeError):
        r.add_guard("h", "not callable")


# -- deferred opens ---------------------------------------------------------------------------------------------

def test_the_xksquare_login_flow(r):
    """com.authDynamic links wait while logged out and open after login, in order, with their extras and context;
    com.dynamic links open at once."""
    session = Session()
    opened = []
    r.guard("login")(lambda m: True if session.logged_in else DEFER)

    def page(m):
        line = "%s name=%s from=%s ctx=%s" % (m.params.get("targetclass"), m.params.get("name", ""),
                                             m.params.get("from", ""), m.context)
        opened.append(line)
        return line

    r.route("xksquare://com.dynamic")(page)
    r.route("xksquare://com.authDynamic", requires=["login"])(page)

    assert r.open("xksquare://com.dynamic?targetclass=Public&name=%E4%BD%93%E8%B4%B4") == \
        "Public name=体贴 from= ctx=None"
    contexts = [["orders"], ["wallet"], ["profile"]]
    for i, cls in enumerate(["Orders", "Wallet", "Profile"]):
        assert r.open("xksquare://com.authDynamic?targetclass=" + cls, extra={"from": "push%d" % i},
                      context=contexts[i]) is DEFER
    pending = r.pending("login")
    assert [p.url for p in pending] == ["xksquare://com.authDynamic?targetclass=Orders",
                                        "xksquare://com.authDynamic?targetclass=Wallet",
                                        "xksquare://com.authDynamic?targetclass=Profile"]
    assert [p.context for p in pending] == contexts and all(p.context is c for p, c in zip(pending, contexts))
    assert [p.extra for p in pending] == [{"from": "push0"}, {"from": "push1"}, {"from": "push2"}]
    assert len(opened) == 1

    session.user = "lili"
    assert r.resume("login") == ["Orders name= from=push0 ctx=['orders']", "Wallet name= from=push1 ctx=['wallet']",
                                 "Profile name= from=push2 ctx=['profile']"]
    assert r.pending("login") == [] and r.resume("login") == []
    assert not r._opens


def test_resume_returns_every_outcome_in_order(r):
    session = Session()
    boom = Failure("orders failed")
    r.guard("login")(lambda m: True if session.logged_in else DEFER)
    r.route("app://orders", requires=["login"])(lambda m: (_ for _ in ()).throw(boom))
    r.route("app://wallet", requires=["login"])(lambda m: "wallet " + str(m.context))
    r.route("app://gone", requires=["login"])(lambda m: "gone")
    r.route("app://nohandler/:x", requires=["login"])(lambda m: "x")
    for url, ctx in [("app://orders", 1), ("app://wallet", 2), ("app://gone", 3), ("app://nohandler/1", 4)]:
        assert r.open(url, context=ctx) is DEFER
    r.remove("app://gone")
    r.remove("app://nohandler/:y")
    r.add("app://nohandler/:z", "Z")  # routes again, but without a handler
    session.user = "u"
    results = r.resume("login")
    assert len(results) == 4
    assert results[0] is boom
    assert results[1] == "wallet 2"
    assert (type(results[2]), str(results[2])) == (
        linkrouter.NotFoundError, "no route matches 'app://gone' and there is no unmatched handler")
    assert (type(results[3]), str(results[3])) == (
        linkrouter.NotFoundError, "route 'app://nohandler/:z' (target 'Z') has no handler")
    # A URL that no longer routes goes to the unmatched handler when there is one.
    session.user = None
    r.open("app://wallet", context=5)
    r.remove("app://wallet")
    r.unmatched(lambda req: "unmatched %s %s" % (req.url, req.context))
    session.user = "u"
    assert r.resume("login") == ["unmatched app://wallet 5"]
    assert not r._opens


def test_deferred_again_is_parked_again_after_the_others(r):
    defer = {"app://a": True, "app://b": False}
    r.guard("login")(lambda m: DEFER if defer[m.url] else True)
    r.route("app://a", requires=["login"])(lambda m: "a")
    r.route("app://b", requires=["login"])(lambda m: "b")
    defer["app://b"] = True
    assert r.open("app://a", context="A") is DEFER and r.open("app://b", context="B") is DEFER
    defer["app://b"] = False
    assert r.resume("login") == [DEFER, "b"]
    assert [(p.url, p.context) for p in r.pending("login")] == [("app://a", "A")]
    assert r.resume("login") == [DEFER]
    dropped = r.drop_pending("login")
    assert [(p.url, p.context) for p in dropped] == [("app://a", "A")]
    assert r.pending("login") == [] and r.drop_pending("login") == []
    assert not r._opens


def test_a_full_queue_refuses_the_new_open_and_loses_nothing(r):
    r.set_limit(linkrouter.Limit.PENDING, 3)
    assert r.get_limit("pending") == 3
    warnings = []
    r.set_log(lambda level, message: warnings.append((level, message)), linkrouter.LogLevel.WARN)
    r.guard("login")(lambda m: DEFER)
    r.route("app://p/:n", requires=["login"])(lambda m: None)
    for n in range(3):
        assert r.open("app://p/%d" % n, context=n) is DEFER
    with pytest.raises(linkrouter.LimitError) as info:
        r.open("app://p/3", context=3)
    full = "the queue of guard 'login' is full (3 opens, limit maxPending, LR_LIMIT_PENDING): 'app://p/3' was not parked"
    assert str(info.value) == full
    assert [(p.url, p.context) for p in r.pending("login")] == [("app://p/0", 0), ("app://p/1", 1), ("app://p/2", 2)]
    assert len(warnings) == 1 and warnings[0][0] is linkrouter.LogLevel.WARN
    assert warnings[0][1] == full
    assert len(r._opens) == 3  # the refused open is forgotten


def test_parked_contexts_live_until_resumed_dropped_or_closed():
    class Context:
        pass

    for end in ("resume", "drop", "close"):
        r = linkrouter.Router()
        r.guard("login")(lambda m: DEFER if not r.logged_in else True)
        r.logged_in = False
        r.route("app://x", requires=["login"])(lambda m: "x")
        ctx, extra_value = Context(), Context()
        refs = [weakref.ref(ctx), weakref.ref(extra_value)]
        assert r.open("app://x", extra={"v": extra_value}, context=ctx) is DEFER
        del ctx, extra_value
        gc.collect()
        assert all(ref() is not None for ref in refs), end  # kept while parked
        if end == "resume":
            r.logged_in = True
            assert r.resume("login") == ["x"]
        elif end == "drop":
            assert len(r.drop_pending("login")) == 1
        r.close()
        gc.collect()
        assert all(ref() is None for ref in refs), end


def test_open_async_parks_and_resume_async_replays_on_the_loop(r):
    session = Session()
    r.guard("login")(lambda m: True if session.logged_in else DEFER)

    @r.route("app://orders/:id", requires=["login"])
    async def orders(m):
        await asyncio.sleep(0)
        return "orders %s %s" % (m.params["id"], asyncio.get_running_loop() is m.context)

    async def main():
        loop = asyncio.get_running_loop()
        assert await r.open_async("app://orders/1", context=loop) is DEFER
        assert await r.open_async("app://orders/2", context=loop) is DEFER
        session.user = "u"
        # resume_async replays on a worker thread, so the coroutines can run on this loop meanwhile
        return await r.resume_async("login")

    assert asyncio.run(main()) == ["orders 1 True", "orders 2 True"]


def test_pending_of_an_unknown_guard_is_empty(r):
    assert r.pending("nobody") == [] and r.drop_pending("nobody") == [] and r.resume("nobody") == []
    with pytest.raises(linkrouter.InvalidURLError):
        r.resume("a\0b")
    with pytest.raises(TypeError):
        r.pending(None)
    assert _dispatch._COLLECTORS == {}


def test_an_open_async_parked_then_resumed_after_its_loop_closed(r):
    session = Session()
    r.guard("login")(lambda m: True if session.logged_in else DEFER)

    @r.route("app://later", requires=["login"])
    async def later(m):
        return "later %s" % (asyncio.get_running_loop() is not m.context)

    async def park():
        return await r.open_async("app://later", context=asyncio.get_running_loop())

    assert asyncio.run(park()) is DEFER  # that loop is closed now
    session.user = "u"
    assert r.resume("login") == ["later True"]  # run in a new event loop on the resuming thread

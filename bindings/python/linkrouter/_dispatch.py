"""The machinery under Router.open: registries of Python objects by token, the C callbacks (trampolines), replies,
and the Python views of what the library hands to handlers and guards.

The library calls back through the C ABI's "Opening URLs" section (Include/linkrouter.h); all the rules (rewrite,
resolve, guard order, queues, timeouts) are the library's. This module only carries Python objects across:

- Every C callback is one module-level ctypes function object (``_HANDLER``, ``_GUARD``, ...), alive for the
  process. What the C side holds is never the address of a Python object but a token, a small integer: a
  handler's or guard's ``user_data`` is a key of ``_CALLBACKS`` (taken out by the release callback the library
  calls once nothing can call it any more, and dropped later, outside the library's calls: see ``RELEASED``), an
  open's ``context`` (and its executor) a key of ``_OPENS``. A callback whose token is gone does nothing harmful;
  nothing can call a collected Python object.
- An open's Python side (:class:`_Open`: extras, context, executor, loop, the handler's value or exception) lives
  in ``_OPENS`` from the open until its outcome, or, when a guard parks it, until ``resume`` or ``drop_pending``
  hands it back or its router is closed.
- Closing a router forgets only its *parked* opens: the library drops those with the router, without a callback.
  An open in flight (its handler running or its reply awaited, on any thread) keeps its entry until its outcome
  arrives, which the library always delivers (the reply, a failure or the timeout); its handler still gets its
  context and ``open`` or ``open_async`` still gets its value. An entry is marked parked when its outcome is
  LR_DEFERRED (:func:`outcome`). While a ``resume`` of the router runs, the opens it replays are still marked
  parked but are in flight, so a close then drops nothing: the router's :class:`OpenSet` counts its resumes in
  progress, and the last one to end on a closed router drops what is still parked (opens deferred again, and
  those of other queues). An open deferred on a router already closed (the guard closed it) is forgotten at
  once. Each side writes its mark before it reads the other's (the GIL orders them), so one of them drops it:
  no entry stays in ``_OPENS`` once its router is closed and its outcome is known.
- A release does not drop its Python object inside the library's call (see ``RELEASED``); at exit, a hook keeps
  the library's timer thread out of Python once the interpreter finalizes (see ``_Exit``).
- No exception ever leaves a trampoline: a Python error is kept on its open and a failure status returned to C;
  the caller of ``open`` gets the very exception object back.
"""
from __future__ import annotations

import asyncio
import atexit
import enum
import functools
import inspect
import itertools
import json
import sys
import threading
import time
import traceback
import types
import weakref
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from . import _native
from ._errors import HandlerError, LinkRouterError, error_for_code
from ._native import (LR_DEFERRED, LR_EDENIED, LR_EHANDLER, LR_ENOTFOUND, LR_ETIMEOUT, LR_NOMATCH, LR_OK,
                      check, lib)

__all__ = ["DEFER", "LogLevel", "OpenMatch", "OpenRequest", "Reply"]


class _Defer:
    """The type of :data:`DEFER`."""

    _instance: Optional["_Defer"] = None

    def __new__(cls) -> "_Defer":
        if cls._instance is None:
            cls._instance = object.__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "linkrouter.DEFER"

    def __reduce__(self) -> str:
        return "DEFER"


#: What a guard returns to park the open in its queue, and what ``open`` returns for an open a guard parked.
DEFER = _Defer()

# Guard verdicts (enum lr_verdict).
_ALLOW, _DENY, _DEFER = 0, 1, 2


class LogLevel(enum.IntEnum):
    """Log levels (enum lr_log_level); each includes those above it."""

    OFF = 0
    ERROR = 1
    WARN = 2
    INFO = 3
    DEBUG = 4
    WARNING = 2  # an alias of WARN, as in the logging module


class OpenRequest:
    """An open as the caller made it: what the unmatched handler gets, and what ``pending`` and ``drop_pending``
    list. ``extra`` is the dict of extras given (every value, str or not), ``context`` the object given."""

    __slots__ = ("url", "extra", "context")

    def __init__(self, url: str, extra: Dict[str, Any], context: Any) -> None:
        self.url = url
        self.extra = extra
        self.context = context

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OpenRequest):
            return NotImplemented
        return (self.url, self.extra, self.context) == (other.url, other.extra, other.context)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "OpenRequest(url=%r, extra=%r, context=%r)" % (self.url, self.extra, self.context)


class OpenMatch:
    """The match a handler or guard receives: the fields of :class:`linkrouter.Match` (but ``path_params``), read
    from the match the library lends for the call, plus ``context`` and ``extra``.

    ``params`` is the library's merge (extra > path > query, bracket keys nested, the ``str`` extras included) with
    the extras that are not ``str`` applied on top, so every extra outranks path and query parameters whatever its
    type. ``meta`` is {} and ``requires`` [] when the route has none. ``was_rewritten`` is ``rewritten != url``.
    """

    __slots__ = ("target", "pattern", "name", "metadata", "meta", "requires", "route_id", "url", "rewritten",
                 "scheme", "host", "port", "path", "fragment", "params", "query", "context", "extra")

    target: str
    pattern: str
    name: Optional[str]
    metadata: Optional[str]
    meta: Dict[str, str]
    requires: List[str]
    route_id: int
    url: str
    rewritten: str
    scheme: str
    host: str
    port: str
    path: str
    fragment: str
    params: Dict[str, Any]
    query: List[Tuple[str, str]]
    context: Any
    extra: Dict[str, Any]

    @property
    def was_rewritten(self) -> bool:
        return self.rewritten != self.url

    def as_dict(self) -> Dict[str, Any]:
        """The fields of the library's JSON of the match (lr_match_to_json), plus route_id."""
        d: Dict[str, Any] = {
            "target": self.target, "pattern": self.pattern, "url": self.url, "rewritten": self.rewritten,
            "scheme": self.scheme, "host": self.host, "port": self.port, "path": self.path,
            "fragment": self.fragment,
        }
        if self.name is not None:
            d["name"] = self.name
        if self.metadata is not None:
            d["meta"] = dict(self.meta)
        if self.requires:
            d["requires"] = list(self.requires)
        d["params"] = self.params
        d["query"] = self.query
        d["route_id"] = self.route_id
        return d

    def __repr__(self) -> str:
        return "OpenMatch(target=%r, pattern=%r, url=%r, params=%r, context=%r)" % (
            self.target, self.pattern, self.url, self.params, self.context)


def _open_match(m: int, entry: Optional["_Open"]) -> OpenMatch:
    """The OpenMatch of the lr_match lent to a callback: everything copied out during the call."""
    out = _native.void_out()
    check(lib.lr_match_to_json(m, _native.byref(out)))
    d = json.loads(_native.take_string(out.value) or "{}")
    om = OpenMatch.__new__(OpenMatch)
    om.target = d["target"]
    om.pattern = d["pattern"]
    om.name = d.get("name")
    raw = lib.lr_match_metadata(m)
    om.metadata = raw.decode("utf-8") if raw is not None else None
    om.meta = d.get("meta", {})
    om.requires = d.get("requires", [])
    om.route_id = lib.lr_match_route_id(m)
    om.url = d["url"]
    om.rewritten = d["rewritten"]
    om.scheme = d["scheme"]
    om.host = d["host"]
    om.port = d["port"]
    om.path = d["path"]
    om.fragment = d["fragment"]
    params = d["params"]
    extra = entry.extra if entry is not None else {}
    for k, v in extra.items():
        if not isinstance(v, str):
            params[k] = v
    om.params = params
    om.query = [(k, v) for k, v in d["query"]]
    om.context = entry.context if entry is not None else None
    om.extra = extra
    return om


# -- registries -------------------------------------------------------------------------------------------------

_SYNC, _CALLBACK, _ASYNC = "sync", "callback", "async"


class _Callback:
    """A registered Python callable: a handler (of a kind), a guard, the unmatched handler or a log sink."""

    __slots__ = ("fn", "kind", "name")

    def __init__(self, fn: Callable[..., Any], kind: str = _SYNC, name: str = "") -> None:
        self.fn = fn
        self.kind = kind
        self.name = name


class OpenSet(set):  # type: ignore[type-arg]  (set[int] cannot be subclassed before Python 3.9)
    """A router's open tokens (in flight or parked), and what closing it must know: ``closed`` once its router
    is freed, ``resumes`` the number of its resumes in progress (see the module's docstring)."""

    __slots__ = ("closed", "resumes", "_lock")

    def __init__(self) -> None:
        super().__init__()
        self.closed = False
        self.resumes = 0
        self._lock = threading.Lock()  # for the count only: += is not atomic between threads

    def resume_started(self) -> None:
        with self._lock:
            self.resumes += 1

    def resume_ended(self) -> None:
        """After a resume: when it was the last in progress on a router closed meanwhile, drops the parked opens
        that close left (replayed opens deferred again, the other queues')."""
        with self._lock:
            self.resumes -= 1
            last = self.resumes == 0
        if last and self.closed:
            _drop_parked(self)


class _Open:
    """The Python side of one open, from ``open`` to its outcome (parked opens included)."""

    __slots__ = ("token", "url", "extra", "context", "executor", "loop", "result", "error", "dispatch_error",
                 "future", "task", "owner", "parked", "timed")

    def __init__(self, token: int, url: str, extra: Dict[str, Any], context: Any, executor: Any,
                 loop: Optional[asyncio.AbstractEventLoop], owner: OpenSet) -> None:
        self.token = token
        self.url = url
        self.extra = extra
        self.context = context
        self.executor = executor
        self.loop = loop
        self.result: Any = None  # the handler's value (the handler sets it before replying)
        self.error: Optional[BaseException] = None  # the exception of a handler, guard or reply.fail
        self.dispatch_error: Optional[BaseException] = None  # the executor refused the work
        self.future: Optional[asyncio.Future[Any]] = None  # open_async's
        self.task: Any = None  # the concurrent future of an async def handler run on a loop
        self.owner = owner  # the router's set of live open tokens
        self.parked = False  # its outcome was LR_DEFERRED: in a guard's queue (or being replayed by a resume)
        self.timed = False  # its handler was handed a reply or an executor: the library may time it out later


_tokens = itertools.count(1)  # next() is atomic under the GIL; 0 would be NULL
_CALLBACKS: Dict[int, _Callback] = {}
_OPENS: Dict[int, _Open] = {}
_COLLECTORS: Dict[int, Tuple[List[Any], bool]] = {}  # resume/pending/drop_pending: (results, drop the entries)
_tls = threading.local()  # .message: the bytes last handed to C as a callback's message, alive until the next


def register(fn: Callable[..., Any], kind: str = _SYNC, name: str = "") -> int:
    """A token for ``fn``, the user_data of a registration; ``release`` drops it."""
    token = next(_tokens)
    _CALLBACKS[token] = _Callback(fn, kind, name)
    return token


def release(token: int) -> None:
    """Drops a registration's token: when the registration failed (the library keeps nothing then)."""
    _CALLBACKS.pop(token, None)


def new_open(owner: OpenSet, url: str, extra: Optional[Dict[str, Any]], context: Any, executor: Any,
             loop: Optional[asyncio.AbstractEventLoop]) -> _Open:
    """``extra``: the open's own copy (``Router._prepare`` makes it), kept as it is."""
    token = next(_tokens)
    entry = _Open(token, url, extra if extra is not None else {}, context, executor, loop, owner)
    _OPENS[token] = entry
    owner.add(token)
    return entry


def finish(entry: _Open) -> None:
    """Forgets an open whose outcome is known (or that a drop, a close or a failed call ended)."""
    _OPENS.pop(entry.token, None)
    entry.owner.discard(entry.token)


def free_router(handle: Any, opens: OpenSet) -> None:
    """Frees a router (its finalizer) and forgets its parked opens: the library drops them with the router
    without handing their contexts back (unless a resume is in progress: it drops them as it ends). Opens in
    flight stay until their outcomes. The handlers and guards are released by the library itself."""
    # Marked closed before it is freed: the garbage collector runs this before the __del__ of an object in the
    # router's cycle, which may still call the router (or keep it alive); every use then raises instead.
    address = handle.value
    handle.value = None
    opens.closed = True  # (before reading resumes and the parked marks: see the module's docstring)
    if _depth.n:
        # Inside one of the library's callbacks on this thread (a finalizer the garbage collector ran there, say):
        # a lookup on this very router may be under way, and the header forbids freeing a router there. Freed at
        # the next drain, outside the library's calls; the handle is closed already.
        RELEASED.append(_DeferredFree(address))
    else:
        lib.lr_router_free(address)
    if not opens.resumes:
        _drop_parked(opens)


class _DeferredFree:
    """A router closed inside a library callback (see free_router): freed when :data:`RELEASED` drops it."""

    __slots__ = ("address",)

    def __init__(self, address: Optional[int]) -> None:
        self.address = address

    def __del__(self) -> None:
        lib.lr_router_free(self.address)


def calls_library(method: Callable[..., Any]) -> Callable[..., Any]:
    """A Router method counted as a call on its router (``_enter``, ``_leave``) from before it reads the handle
    until it returns: a ``close()`` meanwhile (a finalizer the garbage collector runs on this thread while ctypes
    converts the call's arguments, or in a callback's prologue, before :func:`_inside` counts it) then waits for
    the call to end (``_finish_close``) instead of freeing the router under it."""
    @functools.wraps(method)
    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        self._enter()
        try:
            return method(self, *args, **kwargs)
        finally:
            if self._leave():
                self._finish_close()
    return counted


def _drop_parked(opens: OpenSet) -> None:
    for token in list(opens):
        entry = _OPENS.get(token)
        if entry is None or entry.parked:
            _OPENS.pop(token, None)
            opens.discard(token)


def handler_kind(fn: Any, callback: bool) -> str:
    if not callable(fn):
        raise TypeError("a handler must be callable, not %s" % type(fn).__name__)
    if callback:
        return _CALLBACK
    return _ASYNC if _is_async(fn) else _SYNC


def _is_async(fn: Any) -> bool:
    while isinstance(fn, functools.partial):
        fn = fn.func
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))


def handler_struct(fn: Callable[..., Any], callback: bool) -> Tuple[Any, int]:
    """An lr_handler for ``fn`` and its token (to drop with :func:`release` if the registration fails)."""
    kind = handler_kind(fn, callback)
    token = register(fn, kind)
    h = _native.Handler()
    if kind == _SYNC:
        h.call = _HANDLER
    else:
        h.call_async = _ASYNC_HANDLER
    h.user_data = token
    h.release = _RELEASE
    return h, token


# -- outcomes ---------------------------------------------------------------------------------------------------

def outcome(entry: Optional[_Open], status: int, message: str, url: str) -> Tuple[Any, Optional[BaseException]]:
    """What an open came to, as (value, None) or (None, exception): the handler's value, DEFER (the entry stays,
    marked parked, unless its router is closed and no resume of it is in progress: nothing can hand it back
    then), or the exception to raise. Forgets the entry otherwise."""
    if status == LR_DEFERRED:
        if entry is not None:
            entry.parked = True
            owner = entry.owner
            if owner.closed and not owner.resumes:  # (read after the mark: see the module's docstring)
                finish(entry)
        return DEFER, None
    if status == LR_ETIMEOUT:
        _exit.timed_out()
    if entry is not None:
        finish(entry)
        if status == LR_ETIMEOUT and entry.task is not None:
            entry.task.cancel()  # the coroutine of an async def handler that missed its timeout
    if status == LR_OK:
        return (entry.result if entry is not None else None), None
    if status == LR_NOMATCH:
        return None, error_for_code(LR_ENOTFOUND, "no route matches '%s' and there is no unmatched handler" % url)
    if entry is not None and entry.error is not None and status in (LR_EHANDLER, LR_EDENIED):
        return None, entry.error  # a Python handler's, guard's or reply's exception, unchanged
    if status >= 0:  # not a status an open returns
        return None, LinkRouterError("open of '%s' returned status %d" % (url, status), status)
    if not message:
        raw = lib.lr_errstr(status)
        message = raw.decode("utf-8", "replace") if raw else "status %d" % status
    return None, error_for_code(status, message)


def _decode(raw: Optional[bytes]) -> str:
    return raw.decode("utf-8", "replace") if raw else ""


# -- the trampolines --------------------------------------------------------------------------------------------
# Each catches every exception: one escaping would be printed by ctypes and turned into a zero return, which for a
# guard would mean "allow".

def _message(cell: Any, text: str) -> None:
    """Hands ``text`` to C through a ``const char **message``; the bytes stay alive until this thread's next
    callback (the library copies a message as soon as the callback returns, on the same thread)."""
    b = text.encode("utf-8", "replace").replace(b"\0", b" ")
    _tls.message = b
    _native.set_out(cell, b)


def _describe(e: BaseException) -> str:
    try:
        text = str(e)
    except BaseException:  # a broken __str__ must not break the report
        text = ""
    name = type(e).__name__
    return "%s: %s" % (name, text) if text else name


def _failed(e: BaseException, entry: Optional[_Open], cell: Any) -> int:
    if entry is not None:
        entry.error = e
    _message(cell, _describe(e))
    return LR_EHANDLER


def _entry(context: Optional[int]) -> Optional[_Open]:
    return _OPENS.get(context) if context else None


def _on_handler(m: int, context: Optional[int], user_data: Optional[int], result: Any, cell: Any) -> int:
    entry = None
    try:
        entry = _entry(context)
        if entry is not None and entry.dispatch_error is not None:
            raise entry.dispatch_error
        value = _CALLBACKS[user_data or 0].fn(_open_match(m, entry))
        if entry is not None:
            entry.result = value
        return LR_OK
    except BaseException as e:
        return _failed(e, entry, cell)


def _on_async_handler(m: int, context: Optional[int], user_data: Optional[int], reply_id: int) -> None:
    entry = None
    reply = None
    try:
        entry = _entry(context)
        reply = Reply(reply_id, entry)
        if entry is not None:
            entry.timed = True
            if entry.dispatch_error is not None:
                raise entry.dispatch_error
        callback = _CALLBACKS[user_data or 0]
        match = _open_match(m, entry)
        if callback.kind == _CALLBACK:
            callback.fn(match, reply)
        else:
            _run_coroutine(callback.fn(match), reply, entry)
    except BaseException as e:
        if reply is None:
            lib.lr_reply_fail(reply_id, LR_EHANDLER, _describe(e).encode("utf-8", "replace").replace(b"\0", b" "))
        elif not reply._settle(error=e):
            _report(e, "a callback handler raised after replying")


def _run_coroutine(coro: Any, reply: "Reply", entry: Optional[_Open]) -> None:
    """Runs an async def handler's coroutine and replies with its outcome: on the open's event loop (open_async's,
    or an asyncio loop given as the executor), else (none, or closed since: a parked open resumed later) to
    completion in a new event loop on this thread."""
    loop = entry.loop if entry is not None else None
    if loop is None or loop.is_closed():
        if _running_loop() is not None:
            coro.close()
            raise RuntimeError("an async def handler was opened from a running event loop's own thread with a "
                               "blocking open: use open_async, or give an asyncio loop as the executor")
        try:
            value = asyncio.run(coro)
        except BaseException as e:
            reply._settle(error=e)
        else:
            reply._settle(value=value)
        return
    try:
        fut = asyncio.run_coroutine_threadsafe(coro, loop)
    except BaseException:
        coro.close()  # never scheduled (the loop is closed): no "never awaited" warning
        raise
    if entry is not None:
        entry.task = fut
    fut.add_done_callback(lambda f: _settle_from(reply, f))


def _running_loop() -> Optional[asyncio.AbstractEventLoop]:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _settle_from(reply: "Reply", fut: Any) -> None:
    try:
        value = fut.result()
    except BaseException as e:  # CancelledError included
        reply._settle(error=e)
    else:
        reply._settle(value=value)


def _on_unmatched(url: Optional[bytes], context: Optional[int], user_data: Optional[int], result: Any,
                  cell: Any) -> int:
    entry = None
    try:
        entry = _entry(context)
        if entry is not None and entry.dispatch_error is not None:
            raise entry.dispatch_error
        request = OpenRequest(_decode(url), entry.extra if entry is not None else {},
                              entry.context if entry is not None else None)
        value = _CALLBACKS[user_data or 0].fn(request)
        if entry is not None:
            entry.result = value
        return LR_OK
    except BaseException as e:
        return _failed(e, entry, cell)


def _on_guard(m: int, context: Optional[int], user_data: Optional[int], cell: Any) -> int:
    entry = None
    try:
        entry = _entry(context)
        callback = _CALLBACKS[user_data or 0]
        verdict = callback.fn(_open_match(m, entry))
        if verdict is True:
            return _ALLOW
        if verdict is DEFER:
            return _DEFER
        if verdict is False:
            return _DENY
        if isinstance(verdict, str):
            _message(cell, verdict)
            return _DENY
        raise TypeError("guard '%s' returned %r: a guard returns True, False, a message (str) or linkrouter.DEFER"
                        % (callback.name, verdict))
    except BaseException as e:
        return _failed(e, entry, cell)  # a negative status: the library denies


class _Work:
    """The work a dispatch function was handed, runnable at most once whoever calls it: the executor (once or
    more), or ``_on_dispatch`` when ``submit`` raised. An executor may run the work, or queue it and run it
    later, and still raise (a ThreadPoolExecutor that queued the item, then could not start its thread): the
    library's work must not run twice (its second run reads what the first freed). The lock guards only the
    claim; the work runs outside it, so a handler never runs holding it."""

    __slots__ = ("_work", "_arg", "_lock", "_taken")

    def __init__(self, work: int, arg: Optional[int]) -> None:
        self._work = work
        self._arg = arg
        self._lock = threading.Lock()
        self._taken = False

    def take(self) -> bool:
        """True for the first caller only: it (and nobody else) runs the work."""
        with self._lock:
            if self._taken:
                return False
            self._taken = True
            return True

    def run_taken(self) -> None:
        _native.call_work(self._work, self._arg)

    def __call__(self) -> None:
        if self.take():
            self.run_taken()


def _on_dispatch(executor: Optional[int], work: int, arg: Optional[int]) -> None:
    """Hands the work to the open's executor, as a :class:`_Work` that runs at most once. When ``submit`` (or
    ``call_soon_threadsafe``) raises, the work is run here if the executor has not taken it (run it, or begun
    to): the handler then fails the open with the executor's exception instead of running, and a run the executor
    queued finds it taken and does nothing. If the executor took it before raising, its run is the open's, and
    the exception only goes to sys.unraisablehook."""
    run = _Work(work, arg)
    entry = _entry(executor)
    if entry is not None:
        entry.timed = True
    try:
        target = entry.executor if entry is not None else None
        if isinstance(target, asyncio.AbstractEventLoop):
            target.call_soon_threadsafe(run)
        elif target is not None:
            target.submit(run)
        else:
            run()
    except BaseException as e:
        if not run.take():
            _report(e, "the executor raised after it took an open's work (which ran once, there)")
            return
        if entry is not None:
            entry.dispatch_error = e
        try:
            run.run_taken()
        except BaseException as again:
            _report(again, "running an open's handler after its executor refused it")


def _on_done(outcome_p: Any, data: Optional[int]) -> None:
    """lr_router_open_async's done: settles open_async's future on its loop."""
    try:
        o = outcome_p.contents
        entry = _entry(data)
        value, error = outcome(entry, o.status, _decode(o.message), _decode(o.url))
        if entry is None or entry.future is None or entry.loop is None:
            return
        try:
            entry.loop.call_soon_threadsafe(_settle_future, entry.future, value, error)
        except RuntimeError:
            pass  # the loop is closed: nobody is waiting any more
    except BaseException as e:
        _report(e, "settling an open_async")


def _settle_future(fut: "asyncio.Future[Any]", value: Any, error: Optional[BaseException]) -> None:
    if fut.done():
        return
    if error is not None:
        fut.set_exception(error)
    else:
        fut.set_result(value)


def _on_each(outcome_p: Any, data: Optional[int]) -> None:
    """lr_router_resume's each: one result per replayed open, in order (an exception is a result too)."""
    try:
        o = outcome_p.contents
        value, error = outcome(_entry(o.context), o.status, _decode(o.message), _decode(o.url))
        _COLLECTORS[data or 0][0].append(error if error is not None else value)
    except BaseException as e:
        _report(e, "collecting a resumed open")


def _on_visit(url: Optional[bytes], context: Optional[int], data: Optional[int]) -> None:
    """lr_router_pending's and lr_router_drop_pending's visit."""
    try:
        entry = _entry(context)
        results, drop = _COLLECTORS[data or 0]
        if entry is None:
            results.append(OpenRequest(_decode(url), {}, None))
            return
        results.append(OpenRequest(_decode(url), entry.extra, entry.context))
        if drop:
            finish(entry)
    except BaseException as e:
        _report(e, "listing parked opens")


def _on_log(level: int, message: Optional[bytes], user_data: Optional[int]) -> None:
    try:
        callback = _CALLBACKS.get(user_data or 0)
        if callback is not None:
            try:
                lvl: Any = LogLevel(level)
            except ValueError:
                lvl = level
            callback.fn(lvl, _decode(message))
    except BaseException as e:
        _report(e, "the log callback raised")


def _on_release(user_data: Optional[int]) -> None:
    """The library let go of a registration: its Python object is not dropped here, where its finalizers would
    run inside the library's call, but kept in RELEASED until drain_released()."""
    callback = _CALLBACKS.pop(user_data or 0, None)
    if callback is not None:
        RELEASED.append(callback)


# -- what the library let go ------------------------------------------------------------------------------------

#: The registrations (:class:`_Callback`: a handler, guard, unmatched handler or log sink) the library has let go,
#: not yet dropped. A release may run inside a lookup on any router of its thread (the per-thread table cache lets
#: go of an old table there), and the header forbids freeing a router from it; but dropping the last reference to
#: a Python callable can run any code (its ``__del__``, a weakref callback), which can close that very router
#: under the lookup. So ``_on_release`` only moves the object here, and :func:`drain_released` drops it at a safe
#: point. Appends and ``clear`` are atomic under the GIL: releases on any thread, drains on any thread.
#:
#: Bounded: it holds only what the library let go since the last drain, never more than the program registered. A
#: program that makes no more calls into the binding keeps those objects until it exits (the atexit hook drains).
RELEASED: List[Any] = []  # _Callback objects, and _DeferredFree


class _Depth(threading.local):
    """How many of the library's callbacks are running on this thread: more than 0 means inside a library call."""

    n = 0


_depth = _Depth()


def drain_released() -> None:
    """Drops what the library let go (:data:`RELEASED`), running their finalizers here, unless this thread is
    inside a library call (one of its callbacks, a handler say, is running on this thread): the next call at depth
    0, on any thread, does it then. Called at the entry of the binding's calls into the library (Router._handle,
    both resolve paths) before the handle is read, by Router.close(), after a reply is sent or failed, and at exit.
    A finalizer may close any router, this one included: callers read the handle after this returns."""
    if _depth.n:
        return
    while RELEASED:
        # Empties the list before it drops anything: a finalizer that releases more (by closing a router) appends
        # to the emptied list, and the next round drops that.
        RELEASED.clear()


def _inside(fn: Callable[..., Any], timer: bool = False) -> Callable[..., Any]:
    """``fn``, a callback of the library, counted in this thread's depth while it runs (see drain_released); with
    ``timer``, one the library may call on its own timer thread, also counted in ``_exit.busy`` (see _Exit)."""
    if timer:
        def callback(*args: Any) -> Any:
            depth = _depth
            depth.n += 1
            _exit.enter()
            try:
                return fn(*args)
            finally:
                _exit.leave()
                depth.n -= 1
    else:
        def callback(*args: Any) -> Any:
            depth = _depth
            depth.n += 1
            try:
                return fn(*args)
            finally:
                depth.n -= 1
    callback.__name__ = fn.__name__
    callback.__doc__ = fn.__doc__
    return callback


# -- exit -------------------------------------------------------------------------------------------------------

class _Exit:
    """What the atexit hook needs to keep the library's timer thread out of Python once the interpreter finalizes.

    An open whose handler has not replied is timed out by a libdispatch timer, on a thread of libdispatch's, which
    then calls into Python: the open_async's done, the log sink's timeout warning, a release. A thread that wants
    the GIL after the interpreter began finalizing is ended by CPython (pthread_exit), and libdispatch traps on
    that: SIGILL. Nothing in Python can refuse such a callback (ctypes takes the GIL before any of its code runs),
    so the hook makes sure none is due or running when it returns (finalizing begins after the atexit hooks)."""

    #: Waits at most this long for opens in flight (their timeouts end them sooner), and for the timer's
    #: callbacks in progress to return.
    WAIT = 10.0
    #: The timer's callbacks must have been idle this long: between those of one timeout (its done, its log
    #: warning, a release) none is running.
    QUIET = 0.05
    #: Whether a timeout that recent may still have its log warning or release to come.
    RECENT = 2.0

    def __init__(self) -> None:
        self.replies: "weakref.WeakSet[Reply]" = weakref.WeakSet()  # callback and async def handlers' replies
        self.busy = 0  # timer-capable callbacks running, on every thread
        self.last_timeout = -1e9  # time.monotonic() of the last LR_ETIMEOUT outcome
        self._lock = threading.Lock()

    def enter(self) -> None:
        with self._lock:
            self.busy += 1

    def leave(self) -> None:
        with self._lock:
            self.busy -= 1

    def timed_out(self) -> None:
        self.last_timeout = time.monotonic()

    def __call__(self) -> None:
        """The atexit hook: fails the replies no handler answered (the program ends: nobody will), which ends
        their opens now rather than at their timeouts; waits for the opens still in flight whose timeout may
        come (an executor never ran their work, say) until their outcome arrives; waits for the timer's callbacks
        in progress to return; then drops what the library let go. Costs nothing unless an open is in flight or
        timed out in the last RECENT seconds."""
        try:
            while True:  # a WeakSet may change size under list() (a daemon thread making a Reply): try again
                try:
                    replies = list(self.replies)
                    break
                except RuntimeError:
                    continue
            for reply in replies:
                if not reply.done:
                    reply._settle(error=HandlerError("the handler had not replied when the interpreter exited",
                                                     LR_EHANDLER))
            end = time.monotonic() + self.WAIT
            while time.monotonic() < end and any(e.timed and not e.parked for e in list(_OPENS.values())):
                time.sleep(0.005)  # (the GIL is free meanwhile: the opens' threads finish them)
            if self.busy or time.monotonic() - self.last_timeout < self.RECENT:
                quiet_since = time.monotonic()
                while time.monotonic() < end:
                    time.sleep(0.005)
                    now = time.monotonic()
                    if self.busy:
                        quiet_since = now
                    elif now - quiet_since >= self.QUIET:
                        break
        finally:
            drain_released()


_exit = _Exit()
# At exit: usually after weakref.finalize's exit hook (registered later, with the first Router), which frees the
# routers still open, and with them lets their handlers go.
atexit.register(_exit)


def _report(e: BaseException, what: str) -> None:
    """An exception with nobody to raise it to, as CPython reports such errors: a custom sys.unraisablehook gets
    it (err_msg "linkrouter: <what>"); with the default hook, which takes only its own argument type (it rejects
    any other object with a TypeError), the same text is printed to sys.stderr as CPython prints it."""
    try:
        hook = getattr(sys, "unraisablehook", None)
        if hook is None or hook is getattr(sys, "__unraisablehook__", None):
            stderr = sys.stderr
            if stderr is not None:
                stderr.write("Exception ignored in: linkrouter: %s\n" % what)
                traceback.print_exception(type(e), e, e.__traceback__, file=stderr)
                stderr.flush()
        else:
            hook(types.SimpleNamespace(exc_type=type(e), exc_value=e, exc_traceback=e.__traceback__,
                                       err_msg="linkrouter: " + what, object=None))
    except BaseException:
        pass


# One C function object per callback kind, alive for the process, each counted as inside a library call (_inside);
# those the library's timer thread may call also for the exit hook (_Exit).
_HANDLER = _native.HANDLER_FN(_inside(_on_handler))
_ASYNC_HANDLER = _native.ASYNC_HANDLER_FN(_inside(_on_async_handler))
_UNMATCHED = _native.UNMATCHED_FN(_inside(_on_unmatched))
_GUARD = _native.GUARD_FN(_inside(_on_guard))
_DISPATCH = _native.DISPATCH_FN(_inside(_on_dispatch))
_DONE = _native.DONE_FN(_inside(_on_done, timer=True))
_EACH = _native.DONE_FN(_inside(_on_each))
_VISIT = _native.VISIT_FN(_inside(_on_visit))
_LOG = _native.LOG_FN(_inside(_on_log, timer=True))
_RELEASE = _native.RELEASE_FN(_inside(_on_release, timer=True))


def collect(drop: bool = False) -> int:
    token = next(_tokens)
    _COLLECTORS[token] = ([], drop)
    return token


def collected(token: int) -> List[Any]:
    return _COLLECTORS.pop(token)[0]


# -- replies ----------------------------------------------------------------------------------------------------

class Reply:
    """The reply of a ``callback=True`` handler (an ``lr_reply``): complete it exactly once, now or later, from
    any thread, with :meth:`send` or :meth:`fail`. A second completion raises ReplyError; one after the open
    stopped waiting raises linkrouter.TimeoutError (the value is not delivered). A reply dropped unanswered (no
    reference left) fails its open at once with HandlerError, rather than at the timeout."""

    __slots__ = ("_id", "_entry", "_lock", "_done", "__weakref__")

    def __init__(self, reply_id: int, entry: Optional[_Open]) -> None:
        self._id = reply_id
        self._entry = entry
        self._lock = threading.Lock()
        self._done = False
        _exit.replies.add(self)

    @property
    def done(self) -> bool:
        """True once send or fail was called."""
        return self._done

    def send(self, value: Any = None) -> None:
        """Completes the open with ``value`` (what ``open`` returns)."""
        with self._lock:  # held through the C call: a second completion must not overtake the first
            if not self._done:
                self._done = True
                if self._entry is not None:
                    self._entry.result = value
            rc = lib.lr_reply_send(self._id, None)
        self._after(rc)

    def fail(self, error: BaseException) -> None:
        """Completes the open with ``error`` (an exception instance), which ``open`` raises unchanged."""
        if not isinstance(error, BaseException):
            raise TypeError("fail() takes an exception instance, not %s" % type(error).__name__)
        with self._lock:
            if not self._done:
                self._done = True
                if self._entry is not None:
                    self._entry.error = error
            rc = lib.lr_reply_fail(self._id, LR_EHANDLER,
                                   _describe(error).encode("utf-8", "replace").replace(b"\0", b" "))
        self._after(rc)

    @staticmethod
    def _after(rc: int) -> None:
        """After lr_reply_send or lr_reply_fail: raises a refusal, its message read first; drops what the library
        let go (the handler, when its route went while the reply was in flight)."""
        error = _native.error(rc) if rc != LR_OK else None  # (before a finalizer's library call can overwrite it)
        if RELEASED:
            drain_released()
        if error is not None:
            raise error

    def _settle(self, value: Any = None, error: Optional[BaseException] = None) -> bool:
        """send or fail, for the binding's own replies: False when it was completed before; a refusal (timeout)
        is not an error here."""
        if self._done:
            return False
        try:
            if error is not None:
                self.fail(error)
            else:
                self.send(value)
        except LinkRouterError:
            pass
        return True

    def __del__(self) -> None:
        # The garbage collector may run this between another call's failure and the read of its error, on that
        # thread: lr_reply_drop completes the reply without touching the thread's last error (lr_reply_fail,
        # refused for a reply that timed out, replaced it).
        if self._done:
            return
        try:
            with self._lock:
                if self._done:
                    return
                self._done = True
                if self._entry is not None:
                    self._entry.error = HandlerError("the handler dropped its reply without answering", LR_EHANDLER)
                lib.lr_reply_drop(self._id)
            if RELEASED:
                drain_released()
        except BaseException:
            pass

    def __repr__(self) -> str:
        return "<linkrouter.Reply %d%s>" % (self._id, " done" if self._done else "")


def split_extra(extra: Optional[Mapping[str, Any]], convert: Callable[[Any, str], bytes]) -> Tuple[List[bytes], List[bytes]]:
    """The str extras as (names, values) for the C ABI; every key must be a str."""
    names: List[bytes] = []
    values: List[bytes] = []
    if not extra:
        return names, values
    for k, v in extra.items():
        if not isinstance(k, str):
            raise TypeError("extra keys must be str, not %s" % type(k).__name__)
        if isinstance(v, str):
            names.append(convert(k, "extra name"))
            values.append(convert(v, "extra value"))
    return names, values


def timeout_ms(timeout: Optional[float]) -> int:
    """A timeout in seconds as lr_open_options.timeout_ms: 0 (the router's LR_LIMIT_REPLY_TIMEOUT_MS) for None;
    at least 1 ms; at most 2**32 - 1 ms (about 49 days)."""
    if timeout is None:
        return 0
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError("timeout must be a number of seconds, not %s" % type(timeout).__name__)
    if not timeout > 0:  # also NaN
        raise ValueError("timeout must be positive, not %r" % timeout)
    ms = timeout * 1000.0
    if ms >= 0xFFFFFFFF:
        return 0xFFFFFFFF
    return max(1, int(-(-ms // 1)))


def check_executor(executor: Any) -> None:
    if executor is None or isinstance(executor, asyncio.AbstractEventLoop):
        return
    if not callable(getattr(executor, "submit", None)):
        raise TypeError("executor must be an asyncio event loop or a concurrent.futures.Executor (an object with "
                        "submit()), not %s" % type(executor).__name__)


def loop_of(executor: Any) -> Optional[asyncio.AbstractEventLoop]:
    return executor if isinstance(executor, asyncio.AbstractEventLoop) else None


def options(entry: _Open, names: List[bytes], values: List[bytes], timeout: Optional[float]) -> Tuple[Any, List[Any]]:
    """The lr_open_options of an open, and what must stay alive while the library reads it."""
    opts = _native.OpenOptions()
    keep: List[Any] = []
    if names:
        n, v = _native.string_array(names), _native.string_array(values)
        keep += [n, v]
        opts.extra_names, opts.extra_values, opts.extra_count = n, v, len(names)
    opts.context = entry.token
    if entry.executor is not None:
        opts.dispatch = _DISPATCH
        opts.executor = entry.token
    opts.timeout_ms = timeout_ms(timeout)
    return opts, keep


def pending_list(fn: Any, handle: Any, name: bytes, drop: bool) -> List[OpenRequest]:
    token = collect(drop)
    try:
        rc = fn(handle, name, _VISIT, token, None)
    finally:
        results = collected(token)
    check(rc)
    return results


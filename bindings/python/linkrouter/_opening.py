"""Router's methods for opening URLs: handlers, guards, the unmatched handler, open / open_async, deferred opens,
logging. Each is a call of the C ABI's "Opening URLs" section; ``_dispatch`` carries the Python objects across."""
from __future__ import annotations

import asyncio
import json
from typing import Any, Callable, List, Mapping, Optional, Sequence, TypeVar, Union

from . import _dispatch, _native
from ._convert import text
from ._dispatch import LogLevel, OpenRequest
from ._errors import InvalidURLError, error_for_code
from ._native import LR_GUARD_GLOBAL, check, lib

_BATCH_OF_ONE = "route 0: "

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["Opening"]


def _guard_names(requires: Any) -> List[bytes]:
    if isinstance(requires, (str, bytes)):
        raise TypeError("requires must be a sequence of guard names, not a single %s" % type(requires).__name__)
    return [text(g, "guard name") for g in requires]


def _meta_pairs(meta: Optional[Mapping[str, str]]) -> List[Any]:
    if meta is None:
        return [[], []]
    if not isinstance(meta, Mapping):
        raise TypeError("meta must be a mapping of str to str, not %s" % type(meta).__name__)
    keys, values = [], []
    for k, v in meta.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise TypeError("meta keys and values must be str: %r: %r" % (k, v))
        keys.append(text(k, "meta key"))
        values.append(text(v, "meta value"))
    return [keys, values]


def meta_from_metadata(metadata: str) -> Mapping[str, str]:
    """``metadata`` text as the meta dict of lr_router_add_routes (a JSON object of strings, as
    lr_router_add_route takes it); InvalidURLError (LR_EINVAL) otherwise."""
    try:
        meta = json.loads(metadata)
    except (TypeError, ValueError) as e:
        raise InvalidURLError("metadata is not JSON: %s" % e) from None
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        raise InvalidURLError("metadata must be a JSON object whose values are strings")
    return meta


_counted = _dispatch.calls_library  # a method counted as a call on its router (see Router.close)


class Opening:
    """Opening URLs: mixed into :class:`linkrouter.Router`. See docs/OPENING.md for the open path."""

    _opens: _dispatch.OpenSet  # the tokens of this router's opens in flight or parked (see _dispatch)

    def _handle(self) -> Any:  # Router's
        raise NotImplementedError

    # -- handlers ---------------------------------------------------------------------------------------------

    def route(self, pattern: str, target: Optional[str] = None, requires: Sequence[str] = (),
              name: Optional[str] = None, meta: Optional[Mapping[str, str]] = None,
              callback: bool = False) -> Callable[[F], F]:
        """Decorator: adds the route ``pattern`` with the decorated function as its handler, in one change.

        ``target`` defaults to the pattern; ``requires`` lists the guards the route needs, in the order they run;
        ``name`` is unique in the router (``url_for``); ``meta`` is string key/values every match reports. The
        handler gets an :class:`OpenMatch` and its return value is what ``open`` returns. An ``async def``
        handler runs on the event loop of ``open_async`` (or the loop given as executor). With
        ``callback=True`` the handler gets ``(match, reply)`` and completes the :class:`Reply` later, from any
        thread. Errors as :meth:`add`."""
        def register(fn: F) -> F:
            self.add_route_spec(pattern, target, name, requires, meta, fn, callback)
            return fn
        return register

    @_counted
    def add_route_spec(self, pattern: str, target: Optional[str], name: Optional[str], requires: Sequence[str],
                       meta: Optional[Mapping[str, str]], handler: Optional[Callable[..., Any]],
                       callback: bool = False) -> None:
        """One lr_router_add_routes of a route with everything it may carry (``route`` and ``add_route``)."""
        guards = _guard_names(requires)
        keys, values = _meta_pairs(meta)
        route = _native.Route()
        route.pattern = text(pattern, "pattern")
        route.target = None if target is None else text(target, "target")
        route.name = None if name is None else text(name, "name")
        keep: List[Any] = []
        if guards:
            arr = _native.string_array(guards)
            keep.append(arr)
            route.requires, route.requires_count = arr, len(guards)
        if keys:
            k, v = _native.string_array(keys), _native.string_array(values)
            keep += [k, v]
            route.meta_keys, route.meta_values, route.meta_count = k, v, len(keys)
        token = 0
        if handler is not None:
            h, token = _dispatch.handler_struct(handler, callback)
            keep.append(h)
            route.handler = _native.pointer(h)
        try:
            rc = lib.lr_router_add_routes(self._handle(), _native.byref(route), 1, None)
        except BaseException:
            _dispatch.release(token)  # a failed registration keeps nothing and releases nothing
            raise
        if rc < 0:
            # One route added by itself: its error is its own, without the "route 0: " by which
            # lr_router_add_routes names the refused route of any batch, one of one too. Read before the release,
            # whose finalizers may call the library.
            failure = _native.error(rc)
            message = failure.message
            _dispatch.release(token)
            raise error_for_code(rc, message[len(_BATCH_OF_ONE):] if message.startswith(_BATCH_OF_ONE) else message,
                                 None, failure.offset)

    def target(self, target: str, callback: bool = False) -> Callable[[F], F]:
        """Decorator: the handler of every route whose target is ``target`` and that has no handler of its own
        (how routes loaded from a table get code). Kinds as :meth:`route`; registering again replaces it."""
        name = text(target, "target")

        def register(fn: F) -> F:
            h, token = _dispatch.handler_struct(fn, callback)
            try:
                self._handle_target(name, _native.byref(h))
            except BaseException:
                _dispatch.release(token)
                raise
            return fn
        return register

    @_counted
    def _handle_target(self, name: bytes, handler: Any) -> None:
        check(lib.lr_router_handle_target(self._handle(), name, handler))

    @_counted
    def remove_target(self, target: str) -> None:
        """Removes the handler of ``target`` (its routes then have none: ``open`` raises NotFoundError)."""
        self._handle_target(text(target, "target"), None)

    @_counted
    def unmatched(self, fn: Optional[F]) -> Optional[F]:
        """Decorator: the handler of URLs no route matches; it gets an :class:`OpenRequest` (``url``, ``extra``,
        ``context``) and what it returns is what ``open`` returns. ``router.unmatched(None)`` removes it."""
        handle = self._handle()
        if fn is None:
            check(lib.lr_router_set_unmatched(handle, _native.NO_UNMATCHED, None, _native.NO_RELEASE))
            return None
        if not callable(fn):
            raise TypeError("the unmatched handler must be callable, not %s" % type(fn).__name__)
        token = _dispatch.register(fn)
        try:
            check(lib.lr_router_set_unmatched(handle, _dispatch._UNMATCHED, token, _dispatch._RELEASE))
        except BaseException:
            _dispatch.release(token)
            raise
        return fn

    # -- guards -----------------------------------------------------------------------------------------------

    def guard(self, name: str, global_: bool = False) -> Callable[[F], F]:
        """Decorator: the guard ``name``. It gets an :class:`OpenMatch` and returns True (allow), False or a
        message (deny: ``open`` raises DeniedError with the message), or ``linkrouter.DEFER`` (park the open in
        this guard's queue until :meth:`resume`). An exception it raises denies and reaches the caller of
        ``open``. Global guards run for every match, in the order added; the others for the routes that require
        them, after the global ones. Registering a name again replaces that guard in place."""
        def register(fn: F) -> F:
            self.add_guard(name, fn, global_)
            return fn
        return register

    @_counted
    def add_guard(self, name: str, fn: Callable[[Any], Any], global_: bool = False) -> None:
        """:meth:`guard` without the decorator."""
        encoded = text(name, "guard name")
        if not callable(fn):
            raise TypeError("a guard must be callable, not %s" % type(fn).__name__)
        token = _dispatch.register(fn, name=name)
        try:
            check(lib.lr_router_add_guard(self._handle(), encoded, LR_GUARD_GLOBAL if global_ else 0,
                                          _dispatch._GUARD, token, _dispatch._RELEASE))
        except BaseException:
            _dispatch.release(token)
            raise

    @_counted
    def remove_guard(self, name: str) -> None:
        """Removes the guard ``name``; routes that require it are then denied. NotFoundError when there is none."""
        check(lib.lr_router_remove_guard(self._handle(), text(name, "guard name")))

    # -- opening ----------------------------------------------------------------------------------------------

    @_counted
    def open(self, url: Union[str, bytes], extra: Optional[Mapping[str, Any]] = None, context: Any = None,
             executor: Any = None, timeout: Optional[float] = None) -> Any:
        """Opens ``url``: rewrite, resolve, the global guards, the route's guards, then its handler (its own, else
        its target's), on ``executor`` (an asyncio loop or a concurrent.futures.Executor) or this thread, waiting
        up to ``timeout`` seconds (None: Limit.REPLY_TIMEOUT_MS) for its reply.

        Returns the handler's value; with no route, the unmatched handler's; ``linkrouter.DEFER`` when a guard
        parked the open. ``extra`` is a mapping (or what ``dict()`` takes, as for ``resolve``); its values may be
        any objects: they outrank path and query parameters in ``match.params`` (the str ones take part in the
        library's merge). ``context`` reaches guards and the handler as ``match.context``. Raises the handler's
        (or guard's) own exception unchanged, NotFoundError (no route and no unmatched handler, or a route without
        a handler), DeniedError, linkrouter.TimeoutError, LimitError (a full queue), InvalidURLError."""
        h, u, extra, names, values, loop = self._prepare(url, extra, executor)
        entry = _dispatch.new_open(self._opens, u.decode("utf-8", "replace"), extra, context, executor, loop)
        try:
            opts, keep = _dispatch.options(entry, names, values, timeout)
        except BaseException:
            _dispatch.finish(entry)
            raise
        rc = lib.lr_router_open(h, u, _native.byref(opts), None)
        value, error = _dispatch.outcome(entry, rc, _native.last_error() if rc < 0 else "", entry.url)
        del keep
        if error is not None:
            raise error
        return value

    async def open_async(self, url: Union[str, bytes], extra: Optional[Mapping[str, Any]] = None,
                         context: Any = None, executor: Any = None, timeout: Optional[float] = None) -> Any:
        """:meth:`open` without blocking the event loop: awaits the outcome. ``async def`` handlers run on this
        loop (or on the loop given as ``executor``); plain handlers run on ``executor``, else here, in the loop's
        thread. Cancelling the await cancels an ``async def`` handler still running."""
        running = asyncio.get_running_loop()
        entry, fut = self._start_open(running, url, extra, context, executor, timeout)
        try:
            return await fut
        except asyncio.CancelledError:
            if entry.task is not None:
                entry.task.cancel()
            raise

    @_counted
    def _start_open(self, running: Any, url: Any, extra: Optional[Mapping[str, Any]], context: Any, executor: Any,
                    timeout: Optional[float]) -> Any:
        """open_async's call into the library (counted as a call on the router; the await is not): the open's
        entry and the future its outcome settles."""
        h, u, extra, names, values, loop = self._prepare(url, extra, executor)
        entry = _dispatch.new_open(self._opens, u.decode("utf-8", "replace"), extra, context, executor, loop or running)
        try:
            opts, keep = _dispatch.options(entry, names, values, timeout)
        except BaseException:
            _dispatch.finish(entry)
            raise
        fut: asyncio.Future[Any] = running.create_future()
        entry.future = fut
        rc = lib.lr_router_open_async(h, u, _native.byref(opts), _dispatch._DONE, entry.token)
        del keep
        if rc < 0:
            _dispatch.finish(entry)
            raise _native.error(rc)
        return entry, fut

    def _prepare(self, url: Any, extra: Optional[Mapping[str, Any]], executor: Any) -> Any:
        h = self._handle()
        u = text(url, "url")
        # What resolve takes (anything dict() takes), with resolve's errors; a copy, so a later change of the
        # caller's mapping does not reach an open in flight.
        extra = dict(extra) if extra is not None else None
        _dispatch.check_executor(executor)
        names, values = _dispatch.split_extra(extra, text)
        return h, u, extra, names, values, _dispatch.loop_of(executor)

    # -- deferred opens ---------------------------------------------------------------------------------------

    @_counted
    def resume(self, name: str) -> List[Any]:
        """Replays the opens guard ``name`` parked, in the order parked, each through the whole open path, waiting
        for each (a URL that no longer routes goes to the unmatched handler; one deferred again is parked again).
        Returns one item per replayed open, in order: its value, ``DEFER``, or the exception it failed with (not
        raised, so one failure loses no other result)."""
        h = self._handle()
        encoded = text(name, "guard name")
        opens = self._opens
        token = _dispatch.collect()
        opens.resume_started()  # a close meanwhile leaves the replayed opens to it (see _dispatch)
        try:
            rc = lib.lr_router_resume(h, encoded, _dispatch._EACH, token, None)
        finally:
            opens.resume_ended()
            results = _dispatch.collected(token)
        check(rc)
        return results

    async def resume_async(self, name: str) -> List[Any]:
        """:meth:`resume` on a worker thread, so that the replayed opens' ``async def`` handlers can run on this
        event loop meanwhile."""
        return await asyncio.get_running_loop().run_in_executor(None, self.resume, name)

    @_counted
    def pending(self, name: str) -> List[OpenRequest]:
        """The opens guard ``name`` parked, in order, as :class:`OpenRequest` (``url``, ``extra``, ``context``)."""
        return _dispatch.pending_list(lib.lr_router_pending, self._handle(), text(name, "guard name"), False)

    @_counted
    def drop_pending(self, name: str) -> List[OpenRequest]:
        """Discards the opens guard ``name`` parked and returns them, as :meth:`pending` lists them."""
        return _dispatch.pending_list(lib.lr_router_drop_pending, self._handle(), text(name, "guard name"), True)

    # -- logging ----------------------------------------------------------------------------------------------

    @_counted
    def set_log(self, fn: Optional[Callable[[LogLevel, str], Any]], level: Union[LogLevel, int] = LogLevel.INFO) -> None:
        """Sends what opens do to ``fn(level, message)`` at ``level`` and below (LogLevel.ERROR, WARN, INFO,
        DEBUG), from whichever thread does it; ``set_log(None)`` (or LogLevel.OFF) turns it off, the default, in
        which no message is even made. Exceptions ``fn`` raises go to sys.unraisablehook."""
        handle = self._handle()
        if isinstance(level, bool) or not isinstance(level, int):
            raise TypeError("level must be a LogLevel, not %s" % type(level).__name__)
        if not -(1 << 31) <= level < 1 << 31:
            raise ValueError("unknown log level %d" % level)
        if fn is None or level == LogLevel.OFF:
            check(lib.lr_router_set_log(handle, int(LogLevel.OFF), _native.NO_LOG, None, _native.NO_RELEASE))
            return
        if not callable(fn):
            raise TypeError("the log callback must be callable, not %s" % type(fn).__name__)
        token = _dispatch.register(fn)
        try:
            check(lib.lr_router_set_log(handle, int(level), _dispatch._LOG, token, _dispatch._RELEASE))
        except BaseException:
            _dispatch.release(token)
            raise


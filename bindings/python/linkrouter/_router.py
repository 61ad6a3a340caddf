"""Router and Match: the Python face of lr_router and of the packed result of lr_router_resolve_packed."""
from __future__ import annotations

import copy
import enum
import json
import os
import struct
import threading
import weakref
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _dispatch, _native
from ._errors import InvalidURLError, LinkRouterError, MisuseError
from ._convert import c_url as _c_url, text as _text, url_bytes as _url_bytes
from ._native import LR_ELIMIT, LR_NOMATCH, check, lib
from ._opening import Opening, meta_from_metadata
from ._tables import Tables
from ._params import nested

__all__ = ["Limit", "Match", "Router", "binding"]

URL = Union[str, bytes]

# The packed result (Include/linkrouter.h, lr_router_resolve_packed): a header of 8 little-endian uint32 words,
# then S (offset, length) word pairs, then the strings' bytes. String indexes in the table:
_TARGET, _PATTERN, _NAME, _METADATA, _ROUTED, _SCHEME, _HOST, _PORT, _PATH, _FRAGMENT = range(10)
_FIXED = 10
_TABLE = 32  # byte offset of the table: after the header's 8 words
_FLAG_REWRITTEN, _FLAG_NAME, _FLAG_METADATA = 1, 2, 4

_header = struct.Struct("<8I").unpack_from
_used_id_p_q = struct.Struct("<2I8x2I").unpack_from  # words 0, 1, 4, 5: bytes used, route id, P, Q
_pair = struct.Struct("<II").unpack_from
_word = struct.Struct("<I").unpack_from
_structs: Dict[int, Any] = {}


def _words(n: int) -> Any:
    """A cached ``Struct('<nI').unpack_from``."""
    fn = _structs.get(n)
    if fn is None:
        fn = _structs[n] = struct.Struct("<%dI" % n).unpack_from
    return fn


_INITIAL_BUFFER = 2048
_ROUTE_CACHE_MAX = 1 << 17  # entries of a router's per-route cache before it is emptied and refilled


def _thread_state() -> List[Any]:
    """This thread's [buffer, capacity, needed cell] for lr_router_resolve_packed, made on first use."""
    state = [_native.new_buffer(_INITIAL_BUFFER), _INITIAL_BUFFER, _native.new_size_cell()]
    _tls.state = state
    return state


_tls = threading.local()  # .state: each thread's own buffer, never shared; grown when a result does not fit
_CALL_AGAIN = 2  # not a status of the library: "call the declared function"
_fast = lib.resolve_packed_fast
_released = _dispatch.RELEASED  # what the library let go, dropped at the entry of calls (_dispatch.drain_released)
_drain = _dispatch.drain_released
_counted = _dispatch.calls_library  # a method counted as a call on its router (see Router.close)
_CALLS_LOCK = threading.Lock()  # the ctypes path's call counts: += is not atomic between threads


class Limit(enum.IntEnum):
    """The limits of a router (LR_LIMIT_* in the header); each applies to calls made after it is set."""

    URL_LENGTH = 1    #: longest URL (and rewritten URL), bytes; default 65536
    SEGMENTS = 2      #: most path segments, host included, in a URL or pattern; default 1024
    PARAMS = 3        #: most query pairs in a URL; default 1024
    NESTING = 4       #: deepest bracket key still nested in ``params``; deeper keys stay flat; default 32
    REGEX_MATCH = 5   #: PCRE2 match limit of a rewrite regex, per start offset; default 10000
    REGEX_DEPTH = 6   #: PCRE2 depth limit of a rewrite regex; default 1000
    REGEX_START = 7   #: a rewrite regex is tried at start offsets up to this byte only; default 1024
    PENDING = 8       #: most opens one guard's queue holds (a full queue: LimitError); default 64
    REPLY_TIMEOUT_MS = 9  #: how long open waits for a handler when no timeout is given, ms; default 10000


def _limit(limit: Union[Limit, int, str]) -> int:
    if isinstance(limit, str):
        key = limit.upper()
        if key.startswith("LR_LIMIT_"):
            key = key[len("LR_LIMIT_"):]
        try:
            return int(Limit[key])
        except KeyError:
            raise MisuseError("unknown limit %r (one of %s)" % (limit, ", ".join(m.name for m in Limit))) from None
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise TypeError("limit must be a Limit, an int or a name, not %s" % type(limit).__name__)
    if not -(1 << 31) <= limit < 1 << 31:
        raise MisuseError("unknown limit %d" % limit)
    return int(limit)


def _strings(data: bytes, t: Tuple[int, ...]) -> List[str]:
    """The strings of the (offset, length) pairs ``t`` of a packed result."""
    return [data[o:o + n].decode() for o, n in zip(t[0::2], t[1::2])]


class Match:
    """The result of :meth:`Router.resolve`.

    (This class is the ctypes path's; with the C extension, ``linkrouter.Match`` is ``_speedups.Match``, with the
    same fields and methods: the extension calls this class's ``as_dict``, ``__eq__`` and ``__repr__``.)

    A Match is a value: ``copy.copy`` gives one sharing ``target`` and ``params``, ``copy.deepcopy`` one with its
    own. It is not picklable (pickle ``as_dict()``).

    ``params`` merges, on the same key the higher winning: the ``extra`` given to resolve > path parameters
    (``:name``, ``*name``) > query parameters; bracket keys nest (``info[nickname]=x`` gives
    ``{"info": {"nickname": "x"}}``). ``query`` lists every query pair in order, repeated keys included.
    ``scheme`` and ``host`` are lower-cased, ``host`` percent-decoded as the router compares it; ``path`` and ``fragment`` are as written; ``fragment`` is "" when
    there is none. Everything but ``params`` is decoded when first read.
    """

    __slots__ = ("target", "params", "_info", "_data", "_url", "__weakref__")

    #: The target the route was added with.
    target: str
    #: The merged parameters: extra > path > query, bracket keys nested.
    params: Dict[str, Any]
    _info: Tuple[Any, ...]  # what never changes for a route: cached per route id by the router
    _data: bytes  # a copy of the packed result, read when a field is first asked for
    _url: Any  # str, or the bytes-like object given

    @property
    def pattern(self) -> str:
        """The route's pattern as it was added."""
        return self._info[1]

    @property
    def name(self) -> Optional[str]:
        """The route's name (:meth:`Router.add_route`), None when it has none."""
        return self._info[2]

    @property
    def metadata(self) -> Optional[str]:
        """The route's metadata (:meth:`Router.add_route`), None when it has none."""
        return self._info[3]

    @property
    def meta(self) -> Dict[str, str]:
        """The route's meta (string key/values), {} when it has none."""
        text = self._info[3]
        return json.loads(text) if text is not None else {}

    @property
    def requires(self) -> List[str]:
        """The guards the route requires, in order."""
        header = _header(self._data)
        p, q, r = header[4], header[5], header[3]
        if not r:
            return []
        t = _words(2 * r)(self._data, _TABLE + 8 * (_FIXED + 2 * p + 2 * q))
        return _strings(self._data, t)

    @property
    def route_id(self) -> int:
        """The route's id: its insertion number in its router, never reused."""
        return _header(self._data)[1]

    @property
    def url(self) -> str:
        """The URL as given."""
        u = self._url
        return u if isinstance(u, str) else bytes(u).decode("utf-8")

    @property
    def rewritten(self) -> str:
        """The URL that was routed: after rewriting, or the same as ``url`` when no rule fired."""
        return self._string(_ROUTED) if _header(self._data)[2] & _FLAG_REWRITTEN else self.url

    @property
    def was_rewritten(self) -> bool:
        """True when a rewrite rule fired."""
        return bool(_header(self._data)[2] & _FLAG_REWRITTEN)

    @property
    def scheme(self) -> str:
        return self._string(_SCHEME)

    @property
    def host(self) -> str:
        """The host the router compared: percent-decoded (as written when that is malformed, not UTF-8 or
        holds a NUL), lower-cased, without userinfo and port; "" when none."""
        return self._string(_HOST)

    @property
    def port(self) -> str:
        """Digits, "" when none."""
        return self._string(_PORT)

    @property
    def path(self) -> str:
        """As written, not decoded."""
        return self._string(_PATH)

    @property
    def fragment(self) -> str:
        """As written, "" when none; the fragment is never routed."""
        return self._string(_FRAGMENT)

    @property
    def path_params(self) -> List[Tuple[str, str]]:
        """The path parameters in pattern order, as (name, value)."""
        header = _header(self._data)
        p = header[4]
        if not p:
            return []
        t = _words(2 * p)(self._data, _TABLE + 8 * (_FIXED + p))
        return list(zip(self._info[4], _strings(self._data, t)))

    @property
    def query(self) -> List[Tuple[str, str]]:
        """Every query pair of the routed URL in order, decoded, repeated keys included."""
        header = _header(self._data)
        p, q = header[4], header[5]
        if not q:
            return []
        t = _words(4 * q)(self._data, _TABLE + 8 * (_FIXED + 2 * p))
        s = _strings(self._data, t)
        return list(zip(s[0::2], s[1::2]))

    def _string(self, i: int) -> str:
        o, n = _pair(self._data, _TABLE + 8 * i)
        return self._data[o:o + n].decode()

    def as_dict(self) -> Dict[str, Any]:
        """Every field, as a dict (the keys of lr_match_to_json, plus route_id and path_params)."""
        d: Dict[str, Any] = {
            "target": self.target, "pattern": self.pattern, "url": self.url, "rewritten": self.rewritten,
            "scheme": self.scheme, "host": self.host, "port": self.port, "path": self.path,
            "fragment": self.fragment,
        }
        if self.name is not None:
            d["name"] = self.name
        if self.metadata is not None:
            d["meta"] = self.meta
        if self.requires:
            d["requires"] = self.requires
        d["params"] = self.params
        d["query"] = self.query
        d["route_id"] = self.route_id
        d["path_params"] = self.path_params
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _MATCH_TYPES):
            return NotImplemented
        return self.as_dict() == other.as_dict()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # mutable: not hashable

    def __repr__(self) -> str:
        return "Match(target=%r, pattern=%r, url=%r, params=%r)" % (self.target, self.pattern, self.url,
                                                                     self.params)

    def __copy__(self) -> "Match":
        m = _new_match(_PackedMatch)
        m._info, m._data, m._url = self._info, self._data, self._url  # never changed: shared
        for name in ("target", "params"):
            try:
                setattr(m, name, getattr(self, name))
            except AttributeError:  # deleted: stays unset, as the C Match's copy
                pass
        return m

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Match":
        m = self.__copy__()
        memo[id(self)] = m  # first: params may hold this very Match
        for name in ("target", "params"):
            try:
                setattr(m, name, copy.deepcopy(getattr(self, name), memo))
            except AttributeError:
                pass
        return m

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise TypeError(MATCH_NOT_PICKLED)


# Both paths' words (_speedups.c has the same text).
MATCH_NOT_PICKLED = ("cannot pickle a linkrouter.Match (copy.copy and copy.deepcopy work; pickle its as_dict() "
                     "to store or send it)")
ROUTER_NOT_COPIED = ("cannot copy or pickle a linkrouter.Router: it owns its native routing table (build another "
                     "Router, or load the same table file into a new one)")

_PackedMatch = Match  # the ctypes path's Match, whichever class linkrouter.Match is
_MATCH_TYPES: Tuple[type, ...] = (Match,)  # with the C extension's Match too, once loaded
_new_match = object.__new__
_encode: Callable[[Any], bytes] = str.encode  # type: ignore[assignment]


class _CtypesResolve:
    """``Router.resolve`` through ctypes: the pure-Python path, used when the C extension (``_speedups``) is not
    built, does not load, or ``LINKROUTER_PURE=1``. Router derives from this class or from
    ``_speedups.RouterCore``, which implements the same ``resolve`` in C over the same library."""

    _h: Any
    _routes: Dict[int, Tuple[Any, ...]]
    _nesting: int
    _calls = 0  # library calls on this router under way (RouterCore counts them in C)
    _close_pending = False  # close() came during a call: the last call to end frees the router

    def _enter(self) -> None:
        with _CALLS_LOCK:
            self._calls += 1

    def _leave(self) -> bool:
        """The end of a call: True when it was the last and a close() waits for it."""
        with _CALLS_LOCK:
            self._calls -= 1
            return not self._calls and self._close_pending

    def resolve(self, url: URL, extra: Optional[Mapping[str, Any]] = None) -> Optional[Match]:
        """The match for ``url`` (rewritten first), or None when no route matches.

        ``extra`` values (any Python objects) outrank path and query parameters in ``params``.
        InvalidURLError (not an absolute URL, not UTF-8), LimitError.
        """
        # The hot path: one call into the library, which writes the whole result into this thread's buffer.
        try:
            b = _encode(url)  # str.encode: always bytes, TypeError for anything but a str
        except (TypeError, UnicodeEncodeError):
            b = url = _url_bytes(url)  # bytes-like pass (copied); lone surrogates: InvalidURLError; else TypeError
        if _released:  # finalizers run here, not inside the call: one may close this router (self._h read after)
            _drain()
        try:
            buf, cap, _ = _tls.state
        except AttributeError:
            buf, cap, _ = _thread_state()
        self._enter()  # calls_library's counting, written out: the hot path spares the decorator's frame
        try:
            try:
                # needed = NULL: the header's word 0 says how many bytes were used; _resolve_slow asks for the
                # size when the buffer was too small.
                rc = _fast(self._h, b, len(b), buf, cap, None)
            except _native.ArgumentError:  # a length of 2**31 or more: the declared function takes it
                rc = _CALL_AGAIN
            if rc:
                if rc == LR_NOMATCH:
                    return None
                buf = self._resolve_slow(rc, b)
                if buf is None:
                    return None
        finally:
            if self._leave():
                self._finish_close()
        used, rid, p, q = _used_id_p_q(buf)
        data = buf[:used]
        try:
            info = self._routes[rid]
        except KeyError:
            info = self._route_info(data, rid, p)
        if q:
            params = self._params_with_query(data, info, p, q, used)
        elif p == 1:
            o, n = _pair(data, info[5])
            params = {info[4][0]: data[o:o + n].decode()}
        elif p == 2:
            o, n, o1, n1 = info[6](data, info[5])
            k0, k1 = info[4]
            params = {k0: data[o:o + n].decode(), k1: data[o1:o1 + n1].decode()}
        elif p == 3:
            o, n, o1, n1, o2, n2 = info[6](data, info[5])
            k0, k1, k2 = info[4]
            params = {k0: data[o:o + n].decode(), k1: data[o1:o1 + n1].decode(), k2: data[o2:o2 + n2].decode()}
        elif p:
            t = info[6](data, info[5])
            params = dict(zip(info[4], [data[t[i]:t[i] + t[i + 1]].decode() for i in range(0, 2 * p, 2)]))
        else:
            params = {}
        if extra:
            params.update(extra)
        m = _new_match(_PackedMatch)
        m.target = info[0]
        m._info = info
        m._data = data
        m._url = url
        m.params = params
        return m

    def _resolve_slow(self, rc: int, b: bytes) -> Any:
        """After a non-zero status: grows this thread's buffer and calls again (through the declared function,
        with a needed cell) while the result does not fit; returns the filled buffer, None for no match, or
        raises."""
        try:
            state = _tls.state
        except AttributeError:
            state = _thread_state()
        while True:
            if rc == 0:
                return state[0]
            if rc == LR_NOMATCH:
                return None
            if not self._h:  # None, or a handle its finalizer freed
                raise ValueError("the router is closed")
            if rc != LR_ELIMIT and rc != _CALL_AGAIN:
                raise _native.error(rc)
            # Too small a buffer, or a real limit: call with a needed cell to tell them apart.
            state[2][0] = 0
            rc = lib.lr_router_resolve_packed(self._h, b, len(b), state[0], state[1], state[2])
            if rc == LR_ELIMIT:
                need = state[2][0]
                if need <= state[1]:
                    raise _native.error(rc)
                cap = max(need, 2 * state[1])
                state[0] = _native.new_buffer(cap)
                state[1] = cap
                rc = _CALL_AGAIN

    def _route_info(self, data: bytes, rid: int, p: int) -> Tuple[Any, ...]:
        """What never changes for route ``rid``: target, pattern, name, metadata, parameter names, and how to
        find its parameter values in a packed result."""
        flags = _header(data)[2]
        t = _words(2 * (_FIXED + p))(data, _TABLE)
        s = [data[o:o + n].decode() for o, n in zip(t[0::2], t[1::2])]
        values_at = _TABLE + 8 * (_FIXED + p)
        info = (s[0], s[1], s[2] if flags & _FLAG_NAME else None, s[3] if flags & _FLAG_METADATA else None,
                tuple(s[_FIXED:_FIXED + p]), values_at, _words(2 * p), rid)
        if s[1].endswith(")"):
            # Optional groups: each combination is an entry of this route id with its own parameter names.
            return info
        routes = self._routes
        if len(routes) >= _ROUTE_CACHE_MAX:
            routes.clear()
        routes[rid] = info
        return info

    def _params_with_query(self, data: bytes, info: Tuple[Any, ...], p: int, q: int, used: int) -> Dict[str, Any]:
        """Path parameters, then query pairs whose key no path parameter takes (the last value of a repeated
        key, at its first place); nested when a key has a bracket."""
        t = _words(2 * p + 4 * q)(data, info[5])  # values, then each pair's key and value
        strings = []
        for o, n in zip(t[0::2], t[1::2]):  # a loop costs less than a comprehension here
            strings.append(data[o:o + n].decode())
        names = info[4]
        keys = strings[p::2]
        if "[" in "".join(keys):  # some key may nest: the slow, general way
            return nested(list(zip(names, strings[:p])), list(zip(keys, strings[p + 1::2])), self._nesting)
        query = dict(zip(keys, strings[p + 1::2]))
        if not p:
            return query
        for n in names:
            query.pop(n, None)
        params = dict(zip(names, strings[:p]))
        params.update(query)
        return params


PURE_ENV = "LINKROUTER_PURE"


def _load_speedups() -> Tuple[Any, str]:
    """The C extension bound to the library _native loaded, or None and why not (LINKROUTER_PURE set, not
    built, built for another library version)."""
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        return None, "$%s is set" % PURE_ENV
    try:
        from . import _speedups  # type: ignore[attr-defined]
        _speedups.bind(lib.path, _native.error, nested, _url_bytes, Match.as_dict, Match.__eq__, Match.__repr__,
                       _dispatch.RELEASED, _dispatch.drain_released)
    except ImportError as e:
        return None, str(e)
    return _speedups, ""


_speedups, speedups_unavailable = _load_speedups()

#: "c-extension" when Router.resolve runs in C (linkrouter/_speedups.c), "ctypes" for the pure-Python path.
binding = "ctypes" if _speedups is None else "c-extension"
_ResolveBase: Any = _CtypesResolve if _speedups is None else _speedups.RouterCore
if _speedups is not None:
    Match = _speedups.Match  # type: ignore[misc]  # noqa: F811  the same API, in C
    _MATCH_TYPES = (_PackedMatch, Match)


class Router(_ResolveBase, Opening, Tables):
    """A routing table and its rewrite rules (an ``lr_router``).

    Safe to share between threads: resolves, adds and removes may run at once (the library publishes table
    snapshots atomically; each thread resolves into its own buffer). ``close()`` frees the table at once; it
    must not race with calls on other threads. Without ``close()`` the table is freed when the Router is
    garbage-collected. A closed router raises ValueError.
    """

    def __init__(self) -> None:
        h = _native.new_handle()
        check(lib.lr_router_new(_native.byref(h)))
        self._h: Any = h
        self._opens = _dispatch.OpenSet()  # tokens of this router's opens in flight or parked (_dispatch)
        self._finalizer = weakref.finalize(self, _dispatch.free_router, h, self._opens)
        self._routes: Dict[int, Tuple[Any, ...]] = {}
        self._nesting = self.get_limit(Limit.NESTING)
        self._url_limit = self.get_limit(Limit.URL_LENGTH)  # read by the C resolve to size memory ahead

    # -- handle ---------------------------------------------------------------------------------------------

    def _handle(self) -> Any:
        """The handle for a call into the library, read after dropping what the library let go (their finalizers
        run here, outside any library call, and may close this router). ValueError when the router is closed."""
        if _released:
            _drain()
        h = self._h
        if not h:  # None after close(); a NULL c_void_p once the finalizer freed it (a collected cycle)
            raise ValueError("the router is closed")
        return h

    def close(self) -> None:
        """Frees the routing table now. Further calls raise ValueError; closing twice is fine.

        A close() that comes while a call on this router is under way on this thread (from a finalizer the garbage
        collector runs inside it) takes effect at once for every later call, and frees the table when that call
        ends (B91): freeing it under the call crashed the process."""
        self._h = None  # every later call raises ValueError (the C resolve reads it too)
        if self._calls:
            self._close_pending = True  # the last call to end (_leave) calls _finish_close
            return
        self._finish_close()

    def _finish_close(self) -> None:
        self._close_pending = False
        self._finalizer()
        _drain()  # the handlers and guards the router's freeing let go

    @property
    def closed(self) -> bool:
        return not self._h

    def __enter__(self) -> "Router":
        self._handle()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        if not self._h:
            return "<linkrouter.Router closed>"
        n = len(self)
        return "<linkrouter.Router with %d route%s>" % (n, "" if n == 1 else "s")

    # A copy would share the handle and its finalizer: once either is collected, the other uses freed memory.
    def __copy__(self) -> "Router":
        raise TypeError(ROUTER_NOT_COPIED)

    def __deepcopy__(self, memo: Any) -> "Router":
        raise TypeError(ROUTER_NOT_COPIED)

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise TypeError(ROUTER_NOT_COPIED)

    # -- routes ---------------------------------------------------------------------------------------------

    @_counted
    def add(self, pattern: str, target: str) -> None:
        """Adds a route. PatternError (malformed; ``offset`` says where), ConflictError (the message names the
        existing route), LimitError (more segments than Limit.SEGMENTS)."""
        check(lib.lr_router_add(self._handle(), _text(pattern, "pattern"), _text(target, "target")))

    @_counted
    def add_route(self, pattern: str, target: str, name: Optional[str] = None, metadata: Optional[str] = None, *,
                  requires: Sequence[str] = (), meta: Optional[Mapping[str, str]] = None) -> None:
        """Adds a route that also carries a name (unique in the router), its meta (string key/values, given as
        the dict ``meta`` or as ``metadata``, the JSON text of such an object) and the guards it ``requires`` (in
        the order they run), all reported by its matches. ConflictError also for a name another route has;
        InvalidURLError for metadata that is not a JSON object of strings."""
        if meta is not None and metadata is not None:
            raise TypeError("add_route takes meta or metadata, not both")
        if requires or meta is not None:
            if metadata is not None:
                meta = meta_from_metadata(metadata)
            self.add_route_spec(pattern, target, name, requires, meta, None)
            return
        check(lib.lr_router_add_route(self._handle(), _text(pattern, "pattern"), _text(target, "target"),
                                      None if name is None else _text(name, "name"),
                                      None if metadata is None else _text(metadata, "metadata")))

    def add_many(self, routes: Iterable[Tuple[str, str]]) -> None:
        """Adds (pattern, target) pairs all or none: when one is refused the table is left as it was, and the
        error's ``index`` says which (its message starts with "route <i>:")."""
        self._add_pairs(lib.lr_router_add_many, routes, "pattern")

    @_counted
    def _add_pairs(self, fn: Any, items: Iterable[Tuple[str, str]], what: str) -> None:
        label = "route" if what == "pattern" else "rewrite rule"  # the C library's prefixes
        firsts: List[bytes] = []
        seconds: List[bytes] = []
        for i, item in enumerate(items):
            try:
                a, b = item
                firsts.append(_text(a, what))
                seconds.append(_text(b, "target"))
            except LinkRouterError as e:
                raise type(e)("%s %d: %s" % (label, i, e.message), e.code, i) from None
            except (TypeError, ValueError) as e:
                raise TypeError("item %d: expected a (%s, target) pair: %s" % (i, what, e)) from None
        unset = (1 << 64) - 1
        failed = _native.new_size(unset)
        code = fn(self._handle(), _native.string_array(firsts), _native.string_array(seconds), len(firsts),
                  _native.byref(failed))
        if code < 0:
            err = _native.error(code)
            if failed.value != unset:
                err.index = failed.value
            raise err

    @_counted
    def remove(self, pattern: str) -> None:
        """Removes the route ``pattern`` would conflict with (so ``app://u/:x`` removes ``app://u/:id``).
        NotFoundError when there is none."""
        check(lib.lr_router_remove(self._handle(), _text(pattern, "pattern")))

    @_counted
    def clear(self) -> None:
        """Removes every route; rewrite rules stay."""
        check(lib.lr_router_clear(self._handle()))
        self._routes = {}

    @_counted
    def __len__(self) -> int:
        n = _native.new_size()
        check(lib.lr_router_count(self._handle(), _native.byref(n)))
        return n.value

    # -- lookups --------------------------------------------------------------------------------------------

    @_counted
    def can_route(self, url: URL) -> bool:
        """True when ``url`` (after rewriting) matches a route. InvalidURLError, LimitError."""
        b = url.encode() if type(url) is str and url.isascii() else _url_bytes(url)
        if b"\0" in b:  # a C string would end there: ask the length-taking call instead
            return self.resolve(b) is not None
        return check(lib.lr_router_can_route(self._handle(), b)) == 1

    @_counted
    def resolve_json(self, url: URL, extra: Optional[Mapping[str, str]] = None) -> Optional[str]:
        """The match as the library's JSON (lr_match_to_json), or None. ``extra`` values must be str here; ``extra``
        itself is what ``resolve`` takes (a mapping, or what dict.update takes)."""
        b = _url_bytes(url)
        items = list(dict(extra).items()) if extra else []  # dict(): resolve's types, and resolve's TypeError
        names = [_text(k, "extra name") for k, _ in items]
        values = [_text(v, "extra value") for _, v in items]
        out = _native.void_out()
        code = check(lib.lr_router_resolve_with(self._handle(), _c_url(b), _native.string_array(names),
                                                _native.string_array(values), len(items), _native.byref(out)))
        if code == LR_NOMATCH:
            return None
        try:
            text = _native.void_out()
            check(lib.lr_match_to_json(out, _native.byref(text)))
            return _native.take_string(text.value)
        finally:
            lib.lr_match_free(out)

    # -- rewrite rules --------------------------------------------------------------------------------------

    @_counted
    def add_rewrite(self, match: str, target: str) -> None:
        """Adds a rewrite rule: ``match`` a PCRE2 regex, ``target`` a template ($1, $$1 encoded, $#1 decoded,
        ${name}, $host ...). A rule with the same ``match`` gets the new target in place.
        RegexError, PatternError (template)."""
        check(lib.lr_router_add_rewrite(self._handle(), _text(match, "match"), _text(target, "target")))

    def add_rewrites(self, rules: Iterable[Tuple[str, str]]) -> None:
        """Adds (match, target) rules in order, all or none; the error's ``index`` names the refused rule."""
        self._add_pairs(lib.lr_router_add_rewrites, rules, "match")

    @_counted
    def remove_rewrite(self, match: str) -> None:
        """Removes the rule whose regex is exactly ``match``; NotFoundError when there is none."""
        check(lib.lr_router_remove_rewrite(self._handle(), _text(match, "match")))

    @_counted
    def clear_rewrites(self) -> None:
        check(lib.lr_router_clear_rewrites(self._handle()))

    @_counted
    def rewrite(self, url: URL) -> Optional[str]:
        """``url`` rewritten by the first rule that matches, or None when none does. ``url`` need not be
        absolute here. LimitError (a regex hit its match or depth limit), InvalidURLError."""
        out = _native.void_out()
        code = check(lib.lr_router_rewrite(self._handle(), _c_url(_url_bytes(url)), _native.byref(out)))
        if code == LR_NOMATCH:
            return None
        return _native.take_string(out.value)

    # -- limits ---------------------------------------------------------------------------------------------

    @_counted
    def set_limit(self, limit: Union[Limit, int, str], value: int) -> None:
        """Sets a limit (a Limit, its number, or its name such as "url_length" or "LR_LIMIT_URL_LENGTH").
        MisuseError for an unknown limit or a value outside the limit's range (zero is allowed for NESTING,
        REGEX_START and PENDING only)."""
        which = _limit(limit)
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError("limit value must be an int, not %s" % type(value).__name__)
        if value < 0 or value >= 1 << 63:
            raise MisuseError("limit value %d is out of range" % value)
        check(lib.lr_router_set_limit(self._handle(), which, value))
        if which == Limit.NESTING:
            self._nesting = value
        elif which == Limit.URL_LENGTH:
            self._url_limit = value

    @_counted
    def get_limit(self, limit: Union[Limit, int, str]) -> int:
        n = _native.new_size()
        check(lib.lr_router_get_limit(self._handle(), _limit(limit), _native.byref(n)))
        return n.value


def ctypes_router() -> Router:
    """A Router resolving through ctypes, whichever path ``Router`` takes: tests and bench_resolve.py compare the
    two paths in one process."""
    if _speedups is None:
        return Router()

    class CtypesRouter(_CtypesResolve, Router):  # type: ignore[misc, valid-type]
        _routes = None  # type: ignore[assignment]  # not RouterCore's cache: a dict in the instance (__init__)

    return CtypesRouter()

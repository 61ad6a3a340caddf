"""Router's methods for route tables (docs/TABLES.md): load a whole table as one JSON document, check it, export
it, build URLs from route names, explain a lookup. Each is a call of the C ABI's "Route tables" section."""
from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple, Type, TypeVar, Union

from . import _dispatch, _native
from ._convert import ACCEPTED, text
from ._errors import InvalidURLError, LinkRouterError, TableError, TableProblem
from ._native import LR_ETABLE, LR_LOAD_MERGE, LR_LOAD_REPLACE, check, lib

__all__ = ["Tables"]

T = TypeVar("T", bound="Tables")
Path = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]


def _document(doc: Union[str, bytes]) -> bytes:
    """A table document as UTF-8 bytes (the library refuses a NUL byte and invalid UTF-8 with LR_EINVAL)."""
    if isinstance(doc, str):
        try:
            return doc.encode("utf-8")
        except UnicodeEncodeError as e:
            raise InvalidURLError("the table is not valid UTF-8 text: %s" % e) from None
    if isinstance(doc, (bytes, bytearray, memoryview)):
        return bytes(doc)
    raise TypeError("a table document must be %s, not %s" % (ACCEPTED, type(doc).__name__))


def _path(path: Path) -> bytes:
    try:
        raw = os.fsencode(path)
    except TypeError:
        raise TypeError("path must be str, bytes or os.PathLike, not %s" % type(path).__name__) from None
    if b"\0" in raw:
        raise InvalidURLError("path contains a NUL character")
    return raw


def _flags(replace: bool) -> int:
    return LR_LOAD_REPLACE if replace else LR_LOAD_MERGE


def _value(v: Any, what: str) -> bytes:
    if isinstance(v, bool) or not isinstance(v, (str, int)):
        raise TypeError("%s must be str or int, not %s" % (what, type(v).__name__))
    return text(str(v), what)


def _pairs(query: Any) -> Iterable[Tuple[Any, Any]]:
    if isinstance(query, Mapping):
        return list(query.items())
    try:
        return [(k, v) for k, v in query]
    except (TypeError, ValueError):
        raise TypeError("query must be a mapping or (key, value) pairs") from None


_counted = _dispatch.calls_library  # a method counted as a call on its router (see Router.close)


class Tables:
    """Route tables: mixed into :class:`linkrouter.Router`."""

    _routes: Any

    def _handle(self) -> Any:  # Router's
        raise NotImplementedError

    # -- loading ----------------------------------------------------------------------------------------------

    @classmethod
    def from_json(cls: Type[T], document: Union[str, bytes]) -> T:
        """A new router holding the table ``document`` (str or UTF-8 bytes). TableError as :meth:`load_json`."""
        router = cls()
        try:
            router.load_json(document)
        except BaseException:
            router.close()
            raise
        return router

    @classmethod
    def from_file(cls: Type[T], path: Path) -> T:
        """A new router holding the table file at ``path``. TableError, LinkRouterIOError (an OSError)."""
        router = cls()
        try:
            router.load_file(path)
        except BaseException:
            router.close()
            raise
        return router

    def close(self) -> None:  # Router's
        raise NotImplementedError

    @_counted
    def load_json(self, document: Union[str, bytes], replace: bool = True) -> None:
        """Loads a table document: its routes and rules replace the router's (``replace=True``), or are added to
        them (``replace=False``: a conflict with an existing route or name is a problem). All or nothing: on any
        problem nothing changes and TableError lists every problem in ``.problems`` (pointer, code, reason).
        InvalidURLError (a NUL character, not UTF-8), LimitError (over 256 MiB)."""
        data = _document(document)
        h = self._handle()
        rc = lib.lr_router_load_json(h, data, len(data), _flags(replace))
        if rc == LR_ETABLE:
            raise self._table_error(lambda: self.check_json(data, replace))
        check(rc)
        self._forget_routes()

    @_counted
    def load_file(self, path: Path, replace: bool = True) -> None:
        """:meth:`load_json` with the file at ``path``. LinkRouterIOError when it cannot be read; content that is
        not UTF-8 is a TableError."""
        raw = _path(path)
        h = self._handle()
        rc = lib.lr_router_load_file(h, raw, _flags(replace))
        if rc == LR_ETABLE:
            raise self._table_error(lambda: self.check_file(raw, replace))
        check(rc)
        self._forget_routes()

    def _forget_routes(self) -> None:
        # Route ids are never reused, so the cache is never wrong; emptied so that replaced routes do not stay.
        self._routes = {}

    def _table_error(self, report: Any) -> TableError:
        """The TableError of a refused load: the message is lr_last_error()'s (one problem per line), the
        problems come from the structured report (lr_router_check_*) of the same document."""
        message = _native.last_error()
        offset = _native.last_error_offset()  # read before the report, which calls the library again
        problems: Optional[List[TableProblem]] = None
        try:
            found = report().get("problems") or []
            if found:
                problems = [TableProblem(p["pointer"], p["code"], p["reason"]) for p in found]
        except LinkRouterError:
            pass  # the document changed meanwhile (a file): the problems are read from the message
        return TableError(message, LR_ETABLE, None, problems, offset=offset)

    # -- checking and exporting -------------------------------------------------------------------------------

    @_counted
    def check_json(self, document: Union[str, bytes], replace: bool = True) -> Dict[str, Any]:
        """Judges a document as :meth:`load_json` would load it into this router, changing nothing: the report
        ``{"valid": bool, "problems": [{"pointer", "code", "reason"}], "warnings": [{"pointer", "kind",
        "reason"}]}`` (warnings: "shadowed" routes, an "overlap" of two routes, rules that route nowhere)."""
        data = _document(document)
        out = _native.void_out()
        rc = lib.lr_router_check_json(self._handle(), data, len(data), _flags(replace), _native.byref(out))
        return self._report(rc, out)

    @_counted
    def check_file(self, path: Path, replace: bool = True) -> Dict[str, Any]:
        """:meth:`check_json` of the file at ``path``; LinkRouterIOError when it cannot be read."""
        out = _native.void_out()
        rc = lib.lr_router_check_file(self._handle(), _path(path), _flags(replace), _native.byref(out))
        return self._report(rc, out)

    @staticmethod
    def _report(rc: int, out: Any) -> Dict[str, Any]:
        report = _native.take_string(out.value)
        if rc != LR_ETABLE:
            check(rc)
        if report is None:
            raise _native.error(rc)
        result: Dict[str, Any] = json.loads(report)
        return result

    @_counted
    def to_json(self) -> str:
        """The router's table as a document: routes in the order added, then the rules; fixed key order, two-space
        indentation, a final newline. Loading it gives the same table, and exporting that the same text."""
        out = _native.void_out()
        check(lib.lr_router_to_json(self._handle(), _native.byref(out)))
        return _native.take_string(out.value) or ""

    @_counted
    def overlaps(self) -> List[Dict[str, Any]]:
        """Pairs of routes that both match some URLs where precedence, not a literal, decides: a typed or
        in-segment parameter against another parameter, or a scheme's route against a ``*://`` one. Each is a dict
        with ``kind`` ("typed" or "any_scheme"), ``winner``, ``winner_index``, ``other``, ``other_index``,
        ``example`` (a URL both match, which resolves to the winner) and ``reason``; ordered by ``other_index``."""
        out = _native.void_out()
        check(lib.lr_router_overlaps(self._handle(), _native.byref(out)))
        result: List[Dict[str, Any]] = json.loads(_native.take_string(out.value) or "[]")
        return result

    # -- names and URLs ---------------------------------------------------------------------------------------

    @_counted
    def url_for(self, name: str, /, query: Any = None, **params: Any) -> str:
        """The URL of the route called ``name``, its pattern filled with ``params`` (``:id`` is ``id``, ``*path``
        is ``path``; str or int values), each value percent-encoded for its place so that the URL resolves back to
        the same route and values. ``query`` (a mapping, or (key, value) pairs to repeat a key) is appended in
        order as the query; a keyword starting with "?" is a query parameter too, as in the C ABI
        (``**{"?tab": "posts"}``). A route parameter called ``query`` is given as a str: ``query="x"``.

        NotFoundError (no route has that name); InvalidURLError (a parameter missing, unknown or empty, a value
        that does not fit its type, a query name that is a path parameter's, a ``*://`` route, an optional group
        given in part, or groups that would build a URL resolving to other values: see lr_router_build_url in the
        header); LimitError."""
        names: List[bytes] = []
        values: List[bytes] = []
        if isinstance(query, str):
            params["query"] = query
            query = None
        for k, v in params.items():
            names.append(text(k, "parameter name"))
            values.append(_value(v, "parameter %r" % k))
        if query is not None:
            for k, v in _pairs(query):
                if not isinstance(k, str):
                    raise TypeError("query names must be str, not %s" % type(k).__name__)
                names.append(text("?" + k, "query name"))
                values.append(_value(v, "query parameter %r" % k))
        out = _native.void_out()
        check(lib.lr_router_build_url(self._handle(), text(name, "name"), _native.string_array(names),
                                      _native.string_array(values), len(names), _native.byref(out)))
        return _native.take_string(out.value) or ""

    # -- explain ----------------------------------------------------------------------------------------------

    @_counted
    def explain(self, url: Union[str, bytes]) -> Dict[str, Any]:
        """Why ``url`` routes where it does, or nowhere, as lr_router_explain's JSON object: ``url``, ``result``
        ("matched", "nomatch", "error"), ``error``, ``rewrite``, ``routed``, ``sequence``, ``candidates``,
        ``route``, ``params``, ``requires`` (docs/TABLES.md §7). Slow: for debugging and tools."""
        out = _native.void_out()
        check(lib.lr_router_explain(self._handle(), text(url, "url"), _native.byref(out)))
        result: Dict[str, Any] = json.loads(_native.take_string(out.value) or "{}")
        return result

    @_counted
    def explain_text(self, url: Union[str, bytes]) -> str:
        """:meth:`explain` as text for people, one fact per line."""
        out = _native.void_out()
        check(lib.lr_router_explain_text(self._handle(), text(url, "url"), _native.byref(out)))
        return _native.take_string(out.value) or ""

"""LinkRouter for Python: an embeddable URL router (deep links, push links, web links), through a C extension
with a ctypes fallback.

    import linkrouter
    r = linkrouter.Router()
    r.add("app://user/:id", "UserPage")
    m = r.resolve("app://user/42?tab=a", extra={"from": "push"})
    m.target, m.params          # 'UserPage', {'id': '42', 'tab': 'a', 'from': 'push'}

The rules (URL parsing, patterns, precedence, parameters, rewriting) are those of the C library:
docs/SEMANTICS.md in the source tree. The library is loaded from $LINKROUTER_LIBRARY, then the package folder,
then the source tree's build/lib (see ``linkrouter._native``); the C extension, when built, resolves through
that same copy (see ``linkrouter.binding``).
"""
from __future__ import annotations

from ._dispatch import DEFER, LogLevel, OpenMatch, OpenRequest, Reply
from ._errors import (
    ConflictError,
    DeniedError,
    HandlerError,
    InvalidURLError,
    LimitError,
    LinkRouterError,
    LinkRouterIOError,
    LinkRouterMemoryError,
    MisuseError,
    NotFoundError,
    PatternError,
    RegexError,
    ReplyError,
    TableError,
    TableProblem,
    TimeoutError,
)
from ._native import EXPECTED_VERSION as _EXPECTED, lib as _lib, version_text as _version_text
# binding: how Router.resolve reaches the library, "c-extension" (linkrouter/_speedups.c) or "ctypes" (the
# pure-Python fallback: the extension is not built, does not match the library, or $LINKROUTER_PURE is set).
from ._router import Limit, Match, Router, binding

__version__ = _version_text(_EXPECTED)

#: The path of the liblinkrouter.so that was loaded.
library_path: str = _lib.path


def library_version() -> str:
    """The version of the loaded library ("0.1.0"), from lr_version_number()."""
    return _version_text(_lib.version)


def errstr(code: int) -> str:
    """The library's static text for a status code (lr_errstr)."""
    raw = _lib.lr_errstr(code)
    return raw.decode("utf-8") if raw else ""


__all__ = [
    "ConflictError", "DEFER", "DeniedError", "HandlerError", "InvalidURLError", "Limit", "LimitError",
    "LinkRouterError", "LinkRouterIOError", "LinkRouterMemoryError", "LogLevel", "Match", "MisuseError",
    "NotFoundError", "OpenMatch", "OpenRequest", "PatternError", "RegexError", "Reply", "ReplyError", "Router",
    "TableError", "TableProblem", "TimeoutError", "binding", "errstr", "library_path", "library_version",
]

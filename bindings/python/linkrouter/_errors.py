"""The exceptions of linkrouter, one per status code of the C ABI (Include/linkrouter.h, enum lr_status)."""
from __future__ import annotations

import builtins
import re
from typing import Any, Dict, List, NamedTuple, Optional, Type

_INDEX = re.compile(r"^(?:route|rewrite rule) (\d+):")


class LinkRouterError(Exception):
    """Base of every error the library reports.

    ``code`` is the C status (a negative ``LR_E*`` value), ``message`` the library's text (``lr_last_error()``).
    ``offset`` is the byte offset the error is about (``lr_last_error_offset()``): in the pattern, template or
    regex (in a bulk call, in the refused item), or in a table's JSON at a syntax error; else None. ``index`` is
    the position of the refused item for ``add_many`` and ``add_rewrites``, else None.
    """

    code: int = 0

    def __init__(self, message: str, code: Optional[int] = None, index: Optional[int] = None,
                 offset: Optional[int] = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message
        self.offset: Optional[int] = offset
        if index is None:
            found = _INDEX.match(message)
            index = int(found.group(1)) if found else None
        self.index: Optional[int] = index

    def __reduce__(self) -> Any:  # keeps code, index and offset through pickling (multiprocessing)
        return (type(self), (self.message, self.code, self.index, self.offset))


class MisuseError(LinkRouterError, ValueError):
    """LR_EMISUSE (-1): an argument out of range, e.g. an unknown limit or a zero limit value."""

    code = -1


class InvalidURLError(LinkRouterError, ValueError):
    """LR_EINVAL (-2): not an absolute URL (no ``scheme:``), or text that is not UTF-8 (a str with lone
    surrogates) or that holds a NUL character where the C ABI takes a C string."""

    code = -2


class PatternError(LinkRouterError):
    """LR_EPATTERN (-3): a malformed route pattern or rewrite template; ``offset`` is the byte offset."""

    code = -3


class ConflictError(LinkRouterError):
    """LR_ECONFLICT (-4): the route matches exactly the URLs of an existing one, which the message names."""

    code = -4


class RegexError(LinkRouterError):
    """LR_EREGEX (-5): a rewrite regex PCRE2 will not compile (PCRE2's message and offset)."""

    code = -5


class LimitError(LinkRouterError):
    """LR_ELIMIT (-6): a limit was hit (URL length, segments, query pairs, regex match or depth limit)."""

    code = -6


class NotFoundError(LinkRouterError, LookupError):
    """LR_ENOTFOUND (-7): the route or rewrite rule to remove does not exist, no route has that name
    (``url_for``), or ``open`` found no route and there is no unmatched handler, or a route without a handler."""

    code = -7


class TableProblem(NamedTuple):
    """One problem of a route table document: where (an RFC 6901 JSON pointer, "" for the whole document), the
    status code it would give alone, and why."""

    pointer: str
    code: int
    reason: str


class TableError(LinkRouterError):
    """LR_ETABLE (-8): a route table document the router refused; nothing was changed. ``problems`` lists every
    problem as a :class:`TableProblem` (pointer, code, reason), in document order; the message has one per line."""

    code = -8

    def __init__(self, message: str, code: Optional[int] = None, index: Optional[int] = None,
                 problems: Optional[List[TableProblem]] = None, *, offset: Optional[int] = None) -> None:
        super().__init__(message, code, index, offset)  # offset: a JSON syntax error's (the problems locate the rest)
        self.problems: List[TableProblem] = list(problems) if problems is not None else _problems_of(message)

    def __reduce__(self) -> Any:  # the offset as state: the positional arguments stay those of earlier versions
        return (type(self), (self.message, self.code, self.index, self.problems), {"offset": self.offset})


def _problems_of(message: str) -> List[TableProblem]:
    """The problems of an LR_ETABLE message ("<pointer>: <reason>" per line), each with code LR_ETABLE: the
    fallback when the structured report (lr_router_check_json) is not at hand."""
    problems = []
    for line in message.splitlines():
        pointer, sep, reason = line.partition(": ")
        if sep and (pointer == "" or pointer.startswith("/")):
            problems.append(TableProblem(pointer, -8, reason))
        elif line:
            problems.append(TableProblem("", -8, line))
    return problems


class LinkRouterIOError(LinkRouterError, OSError):
    """LR_EIO (-9): a file could not be read or written."""

    code = -9

    def __init__(self, message: str, code: Optional[int] = None, index: Optional[int] = None,
                 offset: Optional[int] = None) -> None:
        LinkRouterError.__init__(self, message, code, index, offset)


class LinkRouterMemoryError(LinkRouterError, MemoryError):
    """LR_ENOMEM (-10): memory could not be allocated."""

    code = -10


class DeniedError(LinkRouterError):
    """LR_EDENIED (-11): a guard denied the URL (the message is the guard's), or a guard the route requires is not
    registered."""

    code = -11


class TimeoutError(LinkRouterError, builtins.TimeoutError):
    """LR_ETIMEOUT (-12): the handler did not reply within the timeout; also a reply sent after its open stopped
    waiting. Also a builtin ``TimeoutError``."""

    code = -12

    def __init__(self, message: str, code: Optional[int] = None, index: Optional[int] = None,
                 offset: Optional[int] = None) -> None:
        LinkRouterError.__init__(self, message, code, index, offset)


class ReplyError(LinkRouterError):
    """LR_EREPLIED (-13): a reply completed a second time."""

    code = -13


class HandlerError(LinkRouterError):
    """LR_EHANDLER (-14): a handler failed without an exception of its own to report (a callback handler that
    dropped its reply without answering)."""

    code = -14


_BY_CODE: Dict[int, Type[LinkRouterError]] = {
    cls.code: cls
    for cls in (MisuseError, InvalidURLError, PatternError, ConflictError, RegexError, LimitError, NotFoundError,
                TableError, LinkRouterIOError, LinkRouterMemoryError, DeniedError, TimeoutError, ReplyError,
                HandlerError)
}


def error_for_code(code: int, message: str, index: Optional[int] = None,
                   offset: Optional[int] = None) -> LinkRouterError:
    """The exception for status ``code``; an unknown negative code gives the base class with that code."""
    return _BY_CODE.get(code, LinkRouterError)(message, code, index, offset=offset)

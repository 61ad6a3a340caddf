"""The ctypes layer: finds and loads liblinkrouter.so, declares every C function once, turns status codes into
exceptions. This is the only module of the package that imports ctypes.

Loading order (the first that exists and loads wins):

1. ``$LINKROUTER_LIBRARY``: the path of the library (a directory holding ``liblinkrouter.so`` also works);
2. the package folder: ``linkrouter/liblinkrouter.so``, the copy ``pip install`` puts there;
3. the build folder of the source tree: ``<repo>/build/lib/liblinkrouter.so`` (after ``make``).

If none loads, one ImportError lists every attempt and why it failed. The library that loads must have the major
and minor version this binding was written for (``lr_version_number()``, SQLite's check), else ImportError.
"""
from __future__ import annotations

import ctypes
import os
from ctypes import CFUNCTYPE, POINTER, Structure, c_char_p, c_int, c_int64, c_size_t, c_uint32, c_uint64, c_void_p
from typing import TYPE_CHECKING, Any, Callable, List, Optional, Tuple

from ._errors import LinkRouterError, error_for_code

LIBRARY_NAME = "liblinkrouter.so"
LIBRARY_ENV = "LINKROUTER_LIBRARY"

#: LR_VERSION_NUMBER of the header this binding follows (MAJOR*10000 + MINOR*100 + PATCH): 0.1.0.
EXPECTED_VERSION = 100

LR_OK = 0
LR_NOMATCH = 1
LR_DEFERRED = 2
LR_EMISUSE = -1
LR_EINVAL = -2
LR_ELIMIT = -6
LR_ENOTFOUND = -7
LR_ETABLE = -8
LR_EDENIED = -11
LR_ETIMEOUT = -12
LR_EREPLIED = -13
LR_EHANDLER = -14

LR_GUARD_GLOBAL = 1
LR_LOAD_REPLACE = 0
LR_LOAD_MERGE = 1

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

c_char_pp = POINTER(c_char_p)
c_void_pp = POINTER(c_void_p)
c_size_p = POINTER(c_size_t)

# -- Opening URLs: the callback types and structures of the header's "Opening URLs" section. ----------------------
# Pointers the library only hands back (user_data, contexts, results, executors) are c_void_p: the binding passes
# small integer tokens there, never the address of a Python object (see _dispatch.py).

#: int (*)(const lr_match *m, void *context, void *user_data, void **result, const char **message)
HANDLER_FN = CFUNCTYPE(c_int, c_void_p, c_void_p, c_void_p, c_void_pp, c_char_pp)
#: void (*)(const lr_match *m, void *context, void *user_data, lr_reply reply)
ASYNC_HANDLER_FN = CFUNCTYPE(None, c_void_p, c_void_p, c_void_p, c_uint64)
#: void (*)(void *user_data)
RELEASE_FN = CFUNCTYPE(None, c_void_p)
#: int (*)(const char *url, void *context, void *user_data, void **result, const char **message)
UNMATCHED_FN = CFUNCTYPE(c_int, c_char_p, c_void_p, c_void_p, c_void_pp, c_char_pp)
#: int (*)(const lr_match *m, void *context, void *user_data, const char **message)
GUARD_FN = CFUNCTYPE(c_int, c_void_p, c_void_p, c_void_p, c_char_pp)
#: void (*)(void *arg): the work a dispatch function runs
WORK_FN = CFUNCTYPE(None, c_void_p)
#: void (*)(void *executor, void (*work)(void *), void *arg); work arrives as an address (see call_work)
DISPATCH_FN = CFUNCTYPE(None, c_void_p, c_void_p, c_void_p)
#: void (*)(const char *url, void *context, void *data)
VISIT_FN = CFUNCTYPE(None, c_char_p, c_void_p, c_void_p)
#: void (*)(int level, const char *message, void *user_data)
LOG_FN = CFUNCTYPE(None, c_int, c_char_p, c_void_p)


class Handler(Structure):
    """struct lr_handler: exactly one of call and call_async is set."""

    _fields_ = [("call", HANDLER_FN), ("call_async", ASYNC_HANDLER_FN), ("user_data", c_void_p),
                ("release", RELEASE_FN)]


class Route(Structure):
    """struct lr_route, for lr_router_add_routes."""

    _fields_ = [("pattern", c_char_p), ("target", c_char_p), ("name", c_char_p), ("requires", c_char_pp),
                ("requires_count", c_size_t), ("meta_keys", c_char_pp), ("meta_values", c_char_pp),
                ("meta_count", c_size_t), ("handler", POINTER(Handler))]


class OpenOptions(Structure):
    """struct lr_open_options."""

    _fields_ = [("extra_names", c_char_pp), ("extra_values", c_char_pp), ("extra_count", c_size_t),
                ("context", c_void_p), ("dispatch", DISPATCH_FN), ("executor", c_void_p),
                ("timeout_ms", c_uint32)]


class Outcome(Structure):
    """struct lr_outcome: what an open came to (lr_router_open_async, lr_router_resume)."""

    _fields_ = [("status", c_int), ("result", c_void_p), ("message", c_char_p), ("url", c_char_p),
                ("context", c_void_p)]


#: void (*)(const lr_outcome *outcome, void *done_data)
DONE_FN = CFUNCTYPE(None, POINTER(Outcome), c_void_p)

# NULL function pointers, for the arguments that take one (a declared function-pointer argument refuses None).
NO_UNMATCHED = UNMATCHED_FN()
NO_LOG = LOG_FN()
NO_RELEASE = RELEASE_FN()

# Every function of Include/linkrouter.h: (name, restype, argtypes). Handles are c_void_p. Strings the library
# allocates for the caller come back through a c_void_p out-parameter (an address, freed with lr_string_free),
# never as c_char_p, which would copy and lose the pointer (llvmlite's OutputString rule).
_FUNCTIONS: Tuple[Tuple[str, Any, Tuple[Any, ...]], ...] = (
    ("lr_version_number", c_int, ()),
    ("lr_errstr", c_char_p, (c_int,)),
    ("lr_last_error", c_char_p, ()),
    ("lr_last_error_offset", c_int64, ()),
    # routers
    ("lr_router_new", c_int, (c_void_pp,)),
    ("lr_router_free", None, (c_void_p,)),
    ("lr_router_add", c_int, (c_void_p, c_char_p, c_char_p)),
    ("lr_router_add_route", c_int, (c_void_p, c_char_p, c_char_p, c_char_p, c_char_p)),
    ("lr_router_add_many", c_int, (c_void_p, c_char_pp, c_char_pp, c_size_t, c_size_p)),
    ("lr_router_remove", c_int, (c_void_p, c_char_p)),
    ("lr_router_clear", c_int, (c_void_p,)),
    ("lr_router_count", c_int, (c_void_p, c_size_p)),
    ("lr_router_can_route", c_int, (c_void_p, c_char_p)),
    ("lr_router_resolve", c_int, (c_void_p, c_char_p, c_void_pp)),
    ("lr_router_resolve_with", c_int, (c_void_p, c_char_p, c_char_pp, c_char_pp, c_size_t, c_void_pp)),
    ("lr_router_resolve_packed", c_int, (c_void_p, c_char_p, c_size_t, c_void_p, c_size_t, c_size_p)),
    # limits
    ("lr_router_set_limit", c_int, (c_void_p, c_int, c_size_t)),
    ("lr_router_get_limit", c_int, (c_void_p, c_int, c_size_p)),
    # matches (the getters return strings borrowed from the match: c_char_p copies them out at once)
    ("lr_match_target", c_char_p, (c_void_p,)),
    ("lr_match_pattern", c_char_p, (c_void_p,)),
    ("lr_match_url", c_char_p, (c_void_p,)),
    ("lr_match_rewritten", c_char_p, (c_void_p,)),
    ("lr_match_scheme", c_char_p, (c_void_p,)),
    ("lr_match_host", c_char_p, (c_void_p,)),
    ("lr_match_port", c_char_p, (c_void_p,)),
    ("lr_match_path", c_char_p, (c_void_p,)),
    ("lr_match_fragment", c_char_p, (c_void_p,)),
    ("lr_match_name", c_char_p, (c_void_p,)),
    ("lr_match_metadata", c_char_p, (c_void_p,)),
    ("lr_match_param_count", c_size_t, (c_void_p,)),
    ("lr_match_param_name", c_char_p, (c_void_p, c_size_t)),
    ("lr_match_param_value", c_char_p, (c_void_p, c_size_t)),
    ("lr_match_get", c_char_p, (c_void_p, c_char_p)),
    ("lr_match_query_count", c_size_t, (c_void_p,)),
    ("lr_match_query_name", c_char_p, (c_void_p, c_size_t)),
    ("lr_match_query_value", c_char_p, (c_void_p, c_size_t)),
    ("lr_match_route_id", c_uint32, (c_void_p,)),
    ("lr_match_meta_count", c_size_t, (c_void_p,)),
    ("lr_match_meta_name", c_char_p, (c_void_p, c_size_t)),
    ("lr_match_meta_value", c_char_p, (c_void_p, c_size_t)),
    ("lr_match_meta", c_char_p, (c_void_p, c_char_p)),
    ("lr_match_requires_count", c_size_t, (c_void_p,)),
    ("lr_match_requires", c_char_p, (c_void_p, c_size_t)),
    ("lr_match_to_json", c_int, (c_void_p, c_void_pp)),
    ("lr_match_clone", c_int, (c_void_p, c_void_pp)),
    ("lr_match_free", None, (c_void_p,)),
    # rewrite rules
    ("lr_router_add_rewrite", c_int, (c_void_p, c_char_p, c_char_p)),
    ("lr_router_add_rewrites", c_int, (c_void_p, c_char_pp, c_char_pp, c_size_t, c_size_p)),
    ("lr_router_remove_rewrite", c_int, (c_void_p, c_char_p)),
    ("lr_router_clear_rewrites", c_int, (c_void_p,)),
    ("lr_router_rewrite", c_int, (c_void_p, c_char_p, c_void_pp)),
    ("lr_string_free", None, (c_void_p,)),
    # route tables
    ("lr_router_load_json", c_int, (c_void_p, c_char_p, c_size_t, c_int)),
    ("lr_router_load_file", c_int, (c_void_p, c_char_p, c_int)),
    ("lr_router_check_json", c_int, (c_void_p, c_char_p, c_size_t, c_int, c_void_pp)),
    ("lr_router_check_file", c_int, (c_void_p, c_char_p, c_int, c_void_pp)),
    ("lr_router_to_json", c_int, (c_void_p, c_void_pp)),
    ("lr_router_overlaps", c_int, (c_void_p, c_void_pp)),
    ("lr_router_build_url", c_int, (c_void_p, c_char_p, c_char_pp, c_char_pp, c_size_t, c_void_pp)),
    ("lr_router_explain", c_int, (c_void_p, c_char_p, c_void_pp)),
    ("lr_router_explain_text", c_int, (c_void_p, c_char_p, c_void_pp)),
    # opening URLs
    ("lr_router_handle", c_int, (c_void_p, c_char_p, POINTER(Handler))),
    ("lr_router_add_routes", c_int, (c_void_p, POINTER(Route), c_size_t, c_size_p)),
    ("lr_router_handle_target", c_int, (c_void_p, c_char_p, POINTER(Handler))),
    ("lr_reply_send", c_int, (c_uint64, c_void_p)),
    ("lr_reply_fail", c_int, (c_uint64, c_int, c_char_p)),
    ("lr_reply_drop", c_int, (c_uint64,)),
    ("lr_router_set_unmatched", c_int, (c_void_p, UNMATCHED_FN, c_void_p, RELEASE_FN)),
    ("lr_router_add_guard", c_int, (c_void_p, c_char_p, c_int, GUARD_FN, c_void_p, RELEASE_FN)),
    ("lr_router_remove_guard", c_int, (c_void_p, c_char_p)),
    ("lr_router_open", c_int, (c_void_p, c_char_p, POINTER(OpenOptions), c_void_pp)),
    ("lr_router_open_async", c_int, (c_void_p, c_char_p, POINTER(OpenOptions), DONE_FN, c_void_p)),
    ("lr_router_resume", c_int, (c_void_p, c_char_p, DONE_FN, c_void_p, c_size_p)),
    ("lr_router_pending", c_int, (c_void_p, c_char_p, VISIT_FN, c_void_p, c_size_p)),
    ("lr_router_drop_pending", c_int, (c_void_p, c_char_p, VISIT_FN, c_void_p, c_size_p)),
    ("lr_router_set_log", c_int, (c_void_p, c_int, LOG_FN, c_void_p, RELEASE_FN)),
)


class Library:
    """The loaded library: one attribute per C function, declared from ``_FUNCTIONS``."""

    path: str
    version: int
    resolve_packed_fast: Callable[..., int]

    def __init__(self, cdll: ctypes.CDLL, path: str) -> None:
        self.cdll = cdll
        self.path = path
        for name, restype, argtypes in _FUNCTIONS:
            try:
                fn = getattr(cdll, name)
            except AttributeError:
                # The name alone: dlsym's text ("<path>: undefined symbol: <name>") repeats the path the
                # loader's ImportError already names.
                raise AttributeError(name) from None
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name, fn)
        self.version = self.lr_version_number()
        # The hot call, a second function object for the same symbol without argtypes: ctypes then converts
        # the arguments by their Python type (bytes -> char *, a ctypes array -> its address, None -> NULL,
        # int -> int, widened to 64 bits by libffi), which costs about half of the declared call. Callers pass
        # only: a c_void_p handle (or None), bytes, an int below 2**31, a ctypes char array, an int below 2**31,
        # and None for `needed` (ctypes raises ArgumentError for an int of 2**31 or more; the caller then uses
        # the declared function). Its restype is ctypes' default, c_int.
        self.resolve_packed_fast = cdll["lr_router_resolve_packed"]

    if TYPE_CHECKING:  # the lr_* attributes come from _FUNCTIONS
        def __getattr__(self, name: str) -> Any: ...


def _candidates() -> List[Tuple[str, Optional[str]]]:
    env = os.environ.get(LIBRARY_ENV)
    if env:
        env = os.path.abspath(env)  # dlopen would search the system's paths for a name without a slash
        if os.path.isdir(env):
            env = os.path.join(env, LIBRARY_NAME)
    build = os.path.normpath(os.path.join(_PACKAGE_DIR, "..", "..", "..", "build", "lib", LIBRARY_NAME))
    return [
        ("$" + LIBRARY_ENV, env or None),
        ("package folder", os.path.join(_PACKAGE_DIR, LIBRARY_NAME)),
        ("build folder", build),
    ]


def version_text(number: int) -> str:
    return "%d.%d.%d" % (number // 10000, number // 100 % 100, number % 100)


def load() -> Library:
    """Loads the first library that works; ImportError listing every attempt when none does."""
    attempts: List[str] = []
    for label, path in _candidates():
        if path is None:
            attempts.append("%s: not set" % label)
            continue
        if not os.path.exists(path):
            attempts.append("%s: %s: no such file" % (label, path))
            continue
        try:
            cdll = ctypes.CDLL(path)
        except OSError as e:
            attempts.append("%s: %s: %s" % (label, path, e))
            continue
        try:
            version = cdll.lr_version_number
            version.restype = c_int
            version.argtypes = ()
            number = version()
        except AttributeError:
            attempts.append("%s: %s: not a LinkRouter library (no lr_version_number)" % (label, path))
            continue
        # A library that loads but is the wrong version is an error at once, not a reason to try the next one:
        # silently using another copy would hide the mismatch.
        if number // 100 != EXPECTED_VERSION // 100:
            raise ImportError(
                "linkrouter: %s (%s) is version %s, but this binding needs %s (major and minor must match)"
                % (path, label, version_text(number), version_text(EXPECTED_VERSION)[:-2] + ".x")
            )
        try:
            return Library(cdll, path)
        except AttributeError as e:
            raise ImportError("linkrouter: %s (%s, version %s) lacks a function: %s"
                              % (path, label, version_text(number), e)) from None
    raise ImportError("linkrouter: could not load %s; tried, in order:\n  %s" % (LIBRARY_NAME, "\n  ".join(attempts)))


lib = load()

_last_error = lib.lr_last_error


def last_error() -> str:
    """This thread's lr_last_error() as str."""
    raw = _last_error()
    return raw.decode("utf-8", "replace") if raw else ""


def last_error_offset() -> Optional[int]:
    """This thread's lr_last_error_offset(), None for -1: read it with last_error(), before any other call."""
    offset = lib.lr_last_error_offset()
    return offset if offset >= 0 else None


def error(code: int) -> LinkRouterError:
    """The exception for a negative status, with lr_last_error()'s message (lr_errstr's when that is empty) and
    lr_last_error_offset()'s offset, both of the call that just failed on this thread."""
    message = last_error()
    offset = last_error_offset()
    if not message:
        raw = lib.lr_errstr(code)
        message = raw.decode("utf-8", "replace") if raw else "status %d" % code
    return error_for_code(code, message, None, offset)


def check(code: int) -> int:
    """The one choke point: a negative status raises its exception; LR_OK and LR_NOMATCH are returned."""
    if code < 0:
        raise error(code)
    return code


def take_string(address: Optional[int]) -> Optional[str]:
    """Copies a string the library allocated (a char ** out-parameter's value) and frees it."""
    if not address:
        return None
    try:
        return ctypes.string_at(address).decode("utf-8")
    finally:
        lib.lr_string_free(address)


def string_array(items: List[bytes]) -> "ctypes.Array[c_char_p]":
    return (c_char_p * len(items))(*items)


# Types and helpers the router module uses without importing ctypes itself.
new_handle = c_void_p
new_size = c_size_t
byref = ctypes.byref
pointer = ctypes.pointer
ArgumentError = ctypes.ArgumentError


def new_buffer(size: int) -> "ctypes.Array[ctypes.c_char]":
    return ctypes.create_string_buffer(size)


def new_size_cell() -> "ctypes.Array[c_size_t]":
    return (c_size_t * 1)()


def void_out() -> c_void_p:
    return c_void_p()


def call_work(work: int, arg: Optional[int]) -> None:
    """Runs the work a dispatch function was handed: work(arg), through ctypes (the GIL is released meanwhile)."""
    WORK_FN(work)(arg)


def set_out(cell: Any, value: Any) -> None:
    """Writes an out-parameter a callback was given (``void **`` or ``const char **``), when it is not NULL."""
    if cell:
        cell[0] = value


def text_at(address: Optional[int]) -> str:
    """A NUL-terminated string the library lends (a const char * as an int), as str; "" for NULL."""
    return ctypes.string_at(address).decode("utf-8", "replace") if address else ""


__all__ = [
    "ASYNC_HANDLER_FN", "DISPATCH_FN", "DONE_FN", "GUARD_FN", "HANDLER_FN", "LOG_FN", "RELEASE_FN", "UNMATCHED_FN",
    "VISIT_FN", "WORK_FN", "NO_LOG", "NO_RELEASE", "NO_UNMATCHED", "Handler", "OpenOptions", "Outcome", "Route", "call_work", "set_out", "text_at",
    "EXPECTED_VERSION", "LIBRARY_ENV", "LIBRARY_NAME", "Library", "check", "error", "last_error", "lib", "load",
    "take_string", "version_text",
]

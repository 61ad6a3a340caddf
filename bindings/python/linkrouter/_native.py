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
from ctypes import POINTER, c_char_p, c_int, c_size_t, c_void_p
from typing import TYPE_CHECKING, Any, Callable, List, Optional, Tuple

from ._errors import LinkRouterError, error_for_code

LIBRARY_NAME = "liblinkrouter.so"
LIBRARY_ENV = "LINKROUTER_LIBRARY"

#: LR_VERSION_NUMBER of the header this binding follows (MAJOR*10000 + MINOR*100 + PATCH): 0.1.0.
EXPECTED_VERSION = 100

LR_OK = 0
LR_NOMATCH = 1
LR_EMISUSE = -1
LR_EINVAL = -2
LR_ELIMIT = -6

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

c_char_pp = POINTER(c_char_p)
c_void_pp = POINTER(c_void_p)
c_size_p = POINTER(c_size_t)

# Every function of Include/linkrouter.h: (name, restype, argtypes). Handles are c_void_p. Strings the library
# allocates for the caller come back through a c_void_p out-parameter (an address, freed with lr_string_free),
# never as c_char_p, which would copy and lose the pointer (llvmlite's OutputString rule).
_FUNCTIONS: Tuple[Tuple[str, Any, Tuple[Any, ...]], ...] = (
    ("lr_version_number", c_int, ()),
    ("lr_errstr", c_char_p, (c_int,)),
    ("lr_last_error", c_char_p, ()),
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
    ("lr_match_to_json", c_int, (c_void_p, c_void_pp)),
    ("lr_match_free", None, (c_void_p,)),
    # rewrite rules
    ("lr_router_add_rewrite", c_int, (c_void_p, c_char_p, c_char_p)),
    ("lr_router_add_rewrites", c_int, (c_void_p, c_char_pp, c_char_pp, c_size_t, c_size_p)),
    ("lr_router_remove_rewrite", c_int, (c_void_p, c_char_p)),
    ("lr_router_clear_rewrites", c_int, (c_void_p,)),
    ("lr_router_rewrite", c_int, (c_void_p, c_char_p, c_void_pp)),
    ("lr_string_free", None, (c_void_p,)),
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
            fn = getattr(cdll, name)  # AttributeError when the symbol is missing
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


def error(code: int) -> LinkRouterError:
    """The exception for a negative status, with lr_last_error()'s message (lr_errstr's when that is empty)."""
    message = last_error()
    if not message:
        raw = lib.lr_errstr(code)
        message = raw.decode("utf-8", "replace") if raw else "status %d" % code
    return error_for_code(code, message)


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
ArgumentError = ctypes.ArgumentError


def new_buffer(size: int) -> "ctypes.Array[ctypes.c_char]":
    return ctypes.create_string_buffer(size)


def new_size_cell() -> "ctypes.Array[c_size_t]":
    return (c_size_t * 1)()


def void_out() -> c_void_p:
    return c_void_p()


__all__ = [
    "EXPECTED_VERSION", "LIBRARY_ENV", "LIBRARY_NAME", "Library", "check", "error", "last_error", "lib", "load",
    "take_string", "version_text",
]

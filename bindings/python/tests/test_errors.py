"""Status codes become exceptions in one place (linkrouter._native.check), with lr_last_error()'s message."""
from __future__ import annotations

import pickle

import pytest

import linkrouter
from linkrouter import _native
from linkrouter._errors import error_for_code

CLASSES = [
    (-1, linkrouter.MisuseError), (-2, linkrouter.InvalidURLError), (-3, linkrouter.PatternError),
    (-4, linkrouter.ConflictError), (-5, linkrouter.RegexError), (-6, linkrouter.LimitError),
    (-7, linkrouter.NotFoundError), (-8, linkrouter.TableError), (-9, linkrouter.LinkRouterIOError),
    (-10, linkrouter.LinkRouterMemoryError),
]


@pytest.mark.parametrize("code, cls", CLASSES, ids=[c.__name__ for _, c in CLASSES])
def test_every_code_has_its_class(code, cls):
    with pytest.raises(cls) as info:
        _native.check(code)
    e = info.value
    assert isinstance(e, linkrouter.LinkRouterError)
    assert e.code == code == cls.code
    assert str(e)  # lr_last_error(), or lr_errstr() when there is none yet
    e2 = pickle.loads(pickle.dumps(e))
    assert type(e2) is cls and e2.code == code and e2.message == e.message


def test_builtin_bases():
    assert issubclass(linkrouter.MisuseError, ValueError)
    assert issubclass(linkrouter.InvalidURLError, ValueError)
    assert issubclass(linkrouter.NotFoundError, LookupError)
    assert issubclass(linkrouter.LinkRouterIOError, OSError)
    assert issubclass(linkrouter.LinkRouterMemoryError, MemoryError)
    assert str(linkrouter.LinkRouterIOError("cannot read x")) == "cannot read x"


def test_unknown_code_is_the_base_class():
    e = error_for_code(-99, "strange")
    assert type(e) is linkrouter.LinkRouterError and e.code == -99 and str(e) == "strange"


def test_ok_and_nomatch_pass_through_check():
    assert _native.check(0) == 0
    assert _native.check(1) == 1


def test_errstr():
    assert linkrouter.errstr(0) == "ok"
    assert linkrouter.errstr(1) == "no match"
    assert linkrouter.errstr(-4) == "conflicting route"
    assert linkrouter.errstr(12345) == "unknown status code"


# Every code the C ABI can return today, reached through real calls (-8, -9, -10 have no function yet).
def reach_misuse(r):
    r.set_limit("url_length", 0)


def reach_invalid(r):
    r.resolve("no scheme here")


def reach_pattern(r):
    r.add("app://a//b", "x")


def reach_conflict(r):
    r.add("app://c/:id", "x")
    r.add("app://c/:other", "y")


def reach_regex(r):
    r.add_rewrite("(abc", "x")


def reach_limit(r):
    r.resolve("app://x/" + "a/" * 2000)


def reach_notfound(r):
    r.remove("app://never/added")


REACHABLE = [(-1, reach_misuse, "out of range"), (-2, reach_invalid, "not an absolute URL"),
             (-3, reach_pattern, "at byte 8"), (-4, reach_conflict, "'app://c/:id'"),
             (-5, reach_regex, "missing closing parenthesis"), (-6, reach_limit, ""), (-7, reach_notfound, "")]


@pytest.mark.parametrize("code, call, text", REACHABLE, ids=[c.__name__ for _, c, _ in REACHABLE])
def test_reachable_codes(router, code, call, text):
    with pytest.raises(linkrouter.LinkRouterError) as info:
        call(router)
    assert info.value.code == code
    assert text in info.value.message
    assert info.value.message == _native.last_error()  # the message is lr_last_error()'s


def test_regex_error_offset(router):
    with pytest.raises(linkrouter.RegexError) as info:
        router.add_rewrite("abc)", "x")
    assert info.value.offset == 3


def test_text_that_cannot_cross(router):
    for bad in ("app://\udc80", "app://a\0b"):
        with pytest.raises(linkrouter.InvalidURLError):
            router.add(bad, "T")
        with pytest.raises(linkrouter.InvalidURLError):
            router.add("app://ok", "a" + bad[6:])
        with pytest.raises(linkrouter.InvalidURLError):
            router.add_rewrite(bad, "x")
        with pytest.raises(linkrouter.InvalidURLError):
            router.rewrite(bad)
    with pytest.raises(linkrouter.InvalidURLError):
        router.add_route("app://ok", "T", name="a\0b")
    assert len(router) == 0


def test_wrong_types(router):
    router.add("app://x", "X")
    with pytest.raises(TypeError):
        router.add(42, "T")
    with pytest.raises(TypeError):
        router.resolve(42)
    with pytest.raises(TypeError):
        router.resolve(None)
    with pytest.raises(TypeError):
        router.can_route(3.5)
    with pytest.raises(TypeError):
        router.resolve("app://x", extra=5)


def test_invalid_utf8_bytes(router):
    router.add("app://x/:id", "X")
    with pytest.raises(linkrouter.InvalidURLError):
        router.resolve(b"app://x/\xff")
    with pytest.raises(linkrouter.InvalidURLError):
        router.can_route(b"app://x/\xc3")
    assert router.resolve(b"app://x/%FF").params == {"id": "%FF"}


def test_last_error_is_per_thread(router):
    import threading
    with pytest.raises(linkrouter.PatternError):
        router.add("app://a//b", "x")
    seen = []
    t = threading.Thread(target=lambda: seen.append(_native.last_error()))
    t.start()
    t.join()
    assert seen == [""]
    assert "at byte 8" in _native.last_error()

"""Which path resolves: the C extension (linkrouter/_speedups.c) or ctypes. `make test-python` runs the whole suite
through each (LINKROUTER_EXPECT_BINDING says which one a run must get); these tests pin the choice itself, that
the extension serves routers from the very copy of the library ctypes loaded, and that both paths give the same
answers on generated URLs."""
from __future__ import annotations

import ctypes
import glob
import os
import random
import shutil
import subprocess
import sys
import textwrap

import pytest

import linkrouter
from linkrouter import _dispatch, _native, _params, _router

PACKAGE = os.path.dirname(os.path.abspath(linkrouter.__file__))
BINDING_DIR = os.path.dirname(PACKAGE)
EXTENSION_BUILT = bool(glob.glob(os.path.join(PACKAGE, "_speedups*.so")))
needs_extension = pytest.mark.skipif(not EXTENSION_BUILT, reason="the C extension is not built "
                                     "(`python3 setup.py build_ext --inplace` in bindings/python)")


def run(code, env_extra=None, drop=("LINKROUTER_PURE",)):
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PYTHONPATH"] = BINDING_DIR
    env["LINKROUTER_LIBRARY"] = linkrouter.library_path
    env.update(env_extra or {})
    # cwd: not a folder holding a linkrouter package, which `python -c` would import first
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                       timeout=120, cwd="/")
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def mapped_copies():
    """The paths of every liblinkrouter.so mapped into this process."""
    with open("/proc/self/maps") as f:
        return sorted({line.split()[-1] for line in f if "liblinkrouter" in line})


def test_binding_is_the_expected_one():
    expected = os.environ.get("LINKROUTER_EXPECT_BINDING")
    assert linkrouter.binding in ("c-extension", "ctypes")
    if expected:  # set by `make test-python`: a failed build or bind must not pass as the ctypes path
        assert linkrouter.binding == expected, _router.speedups_unavailable
    base = linkrouter.Router.__mro__[1]
    if linkrouter.binding == "c-extension":
        assert base.__name__ == "RouterCore" and _router.speedups_unavailable == ""
        assert linkrouter.Match is _router._speedups.Match is not _router._PackedMatch
    else:
        assert base is _router._CtypesResolve and _router.speedups_unavailable
        assert linkrouter.Match is _router._PackedMatch


@needs_extension
def test_pure_variable_forces_ctypes():
    code = "import linkrouter; print(linkrouter.binding)"
    assert run(code, {"LINKROUTER_PURE": "1"}) == ["ctypes"]
    assert run(code, {"LINKROUTER_PURE": "0"}) == ["c-extension"]
    assert run(code) == ["c-extension"]


@needs_extension
def test_extension_uses_the_copy_ctypes_loaded(tmp_path):
    # A real copy (another file, another inode) named by $LINKROUTER_LIBRARY: the extension must resolve through
    # it, and the build folder's library must never be mapped as well.
    copy = tmp_path / "liblinkrouter.so"
    shutil.copyfile(linkrouter.library_path, copy)
    out = run("""
        import linkrouter
        r = linkrouter.Router()
        r.add("app://user/:id", "U")
        m = r.resolve("app://user/42?x=1")
        print(linkrouter.binding, m.target, m.params["id"], m.params["x"])
        print(sorted({l.split()[-1] for l in open("/proc/self/maps") if "liblinkrouter" in l}))
    """, {"LINKROUTER_LIBRARY": str(copy)})
    assert out[:4] == ["c-extension", "U", "42", "1"]
    assert " ".join(out[4:]) == "[%r]" % str(copy)


@needs_extension
def test_bind_never_loads_a_library(tmp_path):
    from linkrouter import _speedups
    copy = tmp_path / "liblinkrouter.so"
    shutil.copyfile(linkrouter.library_path, copy)
    with pytest.raises(ImportError) as info:
        _speedups.bind(str(copy), *BIND_ARGS)
    assert str(info.value) == "linkrouter._speedups: %s is not loaded in this process" % copy
    assert str(copy) not in mapped_copies()


STUBS = "".join("int %s(void) { return -1; }\n" % name for name in (
    "lr_router_new", "lr_router_add", "lr_router_set_limit", "lr_router_resolve_into", "lr_router_resolve_packed"))
BIND_ARGS = (_native.error, _params.nested, _router._url_bytes, _router._PackedMatch.as_dict,
             _router._PackedMatch.__eq__, _router._PackedMatch.__repr__, _dispatch.RELEASED, _dispatch.drain_released)


def fake_library(tmp_path, name, source):
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    assert cc, "no C compiler"
    src = tmp_path / (name + ".c")
    src.write_text(textwrap.dedent(source))
    out = tmp_path / (name + ".so")
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(out), str(src)], check=True)
    return out


@needs_extension
@pytest.mark.parametrize("source,message", [
    ("int lr_version_number(void) { return 20000; }\n" + STUBS,
     "linkrouter._speedups: built for library 0.1.0, but %s is version 2.0.0"),
    ("int lr_version_number(void) { return 100; }\n" + STUBS.replace("lr_router_resolve_into", "other"),
     "linkrouter._speedups: %s lacks lr_router_resolve_into"),
], ids=["other version", "missing function"])
def test_bind_refuses_a_library_it_was_not_built_for(tmp_path, source, message):
    from linkrouter import _speedups
    fake = fake_library(tmp_path, "fake", source)
    ctypes.CDLL(str(fake))  # loaded, as the ctypes layer would have
    with pytest.raises(ImportError) as info:
        _speedups.bind(str(fake), *BIND_ARGS)
    assert str(info.value) == message % fake
    r = linkrouter.Router()  # the failed bind changed nothing
    r.add("app://x/:id", "X")
    assert r.resolve("app://x/1").params == {"id": "1"}


def test_an_extension_that_does_not_import_leaves_ctypes(tmp_path):
    dest = tmp_path / "linkrouter"
    shutil.copytree(PACKAGE, dest, ignore=shutil.ignore_patterns("liblinkrouter.so*", "__pycache__", "_speedups*"))
    suffix = __import__("importlib.machinery").machinery.EXTENSION_SUFFIXES[0]
    (dest / ("_speedups" + suffix)).write_text("not an ELF file")
    out = run("""
        import linkrouter, linkrouter._router as r
        print(linkrouter.binding)
        print(r.speedups_unavailable)
        print(linkrouter.Router().resolve("app://x") is None)
    """, {"PYTHONPATH": str(tmp_path)})
    # why the extension was left: the import's ImportError, glibc's dlopen text (a 15-byte file is too short to hold
    # an ELF header); run() splits the output at white space, the message has single spaces only
    assert (out[0], " ".join(out[1:-1]), out[-1]) == (
        "ctypes", "%s: file too short" % (dest / ("_speedups" + suffix)), "True")


def test_resolve_arguments(router):
    router.add("app://x/:id", "X")
    assert router.resolve(url="app://x/1", extra={"e": 1}).params == {"id": "1", "e": 1}
    assert router.resolve("app://x/1", extra=[("e", 2)]).params == {"id": "1", "e": 2}  # what dict.update takes
    assert router.resolve("app://x/1", None).params == {"id": "1"}
    assert router.resolve("app://x/1", {}).params == {"id": "1"}
    for args, kwargs in [((), {}), (("app://x/1", None, None), {}), (("app://x/1",), {"url": "app://x/1"}),
                         (("app://x/1",), {"other": 1}), ((), {"extra": {}})]:
        with pytest.raises(TypeError):
            router.resolve(*args, **kwargs)
    with pytest.raises(ValueError):
        router.resolve("app://x/1", extra=[("only one",)])


# -- both paths, one process ---------------------------------------------------------------------------------

KEYS = ["a", "b", "id", "rest", "x[]", "x[y]", "x[y][z]", "x", "t[0]", "%5B", "k%20k", "é", "a[", "]"]
VALUES = ["", "1", "2", "%C3%A9", "a+b", "%2F", "é", "v" * 300, "%FF"]


def generated_urls(n, seed=7):
    rnd = random.Random(seed)
    for i in range(n):
        path = rnd.choice(["app://x/%d" % i, "app://x/%d/r/s%%2Ft" % i, "app://y/é", "APP://X/%d" % i,
                           "app://nothing/here", "https://www.example.com:8443/p/%d" % i])
        pairs = ["%s=%s" % (rnd.choice(KEYS), rnd.choice(VALUES)) for _ in range(rnd.randrange(0, 8))]
        url = path + ("?" + "&".join(pairs) if pairs or rnd.random() < 0.1 else "")
        if rnd.random() < 0.2:
            url += "#frag%d" % i
        extra = rnd.choice([None, {}, {"id": object()}, {"new": "n", "a": 3}])
        yield url, extra


def table(r):
    r.add("app://x/:id", "X")
    r.add_route("app://x/:id/r/*rest", "R", name="rest", metadata='{"m": "1"}')
    r.add("app://y/:name", "Y")
    r.add("https://www.example.com/p/:id", "P")
    r.add_rewrite("^https://www\\.example\\.com:8443/(.*)$", "https://www.example.com/$1")
    return r


def test_c_and_ctypes_paths_agree():
    fast, pure = table(linkrouter.Router()), table(_router.ctypes_router())
    assert pure.resolve.__func__ is _router._CtypesResolve.resolve
    seen = 0
    for url, extra in generated_urls(3000):
        for u in (url, url.encode("utf-8")):
            a, b = fast.resolve(u, extra), pure.resolve(u, extra)
            assert (a is None) == (b is None), u
            if a is not None:
                seen += 1
                assert a.as_dict() == b.as_dict(), u
                assert list(a.params) == list(b.params), u  # the same order too
                assert a.was_rewritten == b.was_rewritten and a == b and not a != b
                assert type(a) is linkrouter.Match and type(b) is _router._PackedMatch
    assert seen == 5006  # of the 6,000 lookups (3,000 URLs of a fixed seed, as str and as bytes), these match
    assert set(pure._routes) == set(fast._routes) == {0, 1, 2, 3}  # each path cached each route once
    fast.close()
    pure.close()


def test_a_match_outlives_its_router_and_its_route():
    r = table(linkrouter.Router())
    url = "https://www.example.com:8443/p/7?a=1&a=2#f"
    first = r.resolve(url)  # the first lookup of the route
    m = r.resolve(url)  # a cached route
    expected = first.as_dict()
    assert expected["rewritten"] == "https://www.example.com/p/7?a=1&a=2#f"
    assert expected["query"] == [("a", "1"), ("a", "2")] and expected["port"] == ""
    r.clear()
    r.clear_rewrites()
    r.close()
    assert m.as_dict() == expected and m.was_rewritten  # parts read only now, after the table is gone


def test_no_references_leak():
    r = table(linkrouter.Router())
    extra_value, url = object(), "app://x/1/r/s?k=v&x[y]=2"
    urls = [url, url.encode(), "app://x/2?a=1&a=2", "old://none", "https://www.example.com:8443/p/3#f",
            "app://x/9/r/" + "/".join("s%d" % i for i in range(400))]  # the last one outgrows the stack
    for u in urls:  # warm: routes cached, buffers made
        m = r.resolve(u, extra={"e": extra_value})
        if m is not None:
            m.as_dict()
    m = None
    counts = [sys.getrefcount(x) for x in (extra_value, url, urls[1], linkrouter.Match)]
    for _ in range(200):
        for u in urls:
            m = r.resolve(u, extra={"e": extra_value})
            if m is not None:
                m.as_dict(), m.path_params, repr(m), m == m
        with pytest.raises(linkrouter.InvalidURLError):
            r.resolve("nourl")
    m = None
    assert [sys.getrefcount(x) for x in (extra_value, url, urls[1], linkrouter.Match)] == counts
    r.close()


def test_route_cache_survives_clear_and_reuse():
    r = linkrouter.Router()
    r.add_route("app://a/:x", "A", name="a", metadata='{"m": "eta"}')
    assert r.resolve("app://a/1").name == "a" and r.resolve("app://a/2").metadata == '{"m":"eta"}'
    assert len(r._routes) == 1
    r.clear()
    assert r._routes == {} and r.resolve("app://a/1") is None
    r.add("app://a/:y", "A2")  # a new route id: never the old route's constants
    m = r.resolve("app://a/3")
    assert (m.target, m.pattern, m.name, m.metadata, m.params) == ("A2", "app://a/:y", None, None, {"y": "3"})
    assert r.resolve("app://a/4").path_params == [("y", "4")]
    r.close()


def test_params_dicts_kept_by_the_caller_stay_as_they_are():
    # The extension reuses a freed Match's params dict: only one nothing else holds.
    r = linkrouter.Router()
    r.add("app://a/:x/:y", "A")
    kept, views, items = [], [], []
    for i in range(40):
        m = r.resolve("app://a/%d/%d?q=%d" % (i, i + 1, i))
        m.params["own"] = i  # a caller may change its dict; the next Match's starts empty all the same
        if i % 4 == 0:
            kept.append(m.params)
        elif i % 4 == 1:
            views.append(m.params.values())
        elif i % 4 == 2:
            items.append(iter(m.params.items()))
        m = None  # i % 4 == 3: the dict is dropped with its Match
    assert kept == [{"x": str(i), "y": str(i + 1), "q": str(i), "own": i} for i in range(0, 40, 4)]
    assert [list(v) for v in views] == [[str(i), str(i + 1), str(i), i] for i in range(1, 40, 4)]
    assert [dict(it) for it in items] == [{"x": str(i), "y": str(i + 1), "q": str(i), "own": i}
                                         for i in range(2, 40, 4)]
    assert r.resolve("app://a/7/8").params == {"x": "7", "y": "8"}
    r.close()


def test_emptying_a_params_dict_may_run_code_that_resolves():
    # A key the caller puts in m.params may carry a weakref callback (a code object: not tracked by the GC, so
    # the dict stays a candidate for reuse). Emptying that dict runs the callback; here it resolves and drops
    # more Matches than the extension keeps dicts for, while the first dict is being emptied.
    import weakref

    r = linkrouter.Router()
    r.add("app://a/:x", "A")
    ran = []

    def callback(_ref):
        ran.append([r.resolve("app://a/%d" % i).params for i in range(3)])
        held = [r.resolve("app://a/%d" % i) for i in range(40)]
        del held  # 40 dicts freed at once: the spares fill up while the first dict is still being emptied

    code = compile("1", "<key>", "eval")
    ref = weakref.ref(code, callback)
    m = r.resolve("app://a/1")
    m.params[code] = 1
    del code
    m = None  # the dict is emptied here: the code object goes, the callback runs
    assert len(ran) == 1 and ran[0] == [{"x": "0"}, {"x": "1"}, {"x": "2"}]
    assert ref() is None
    assert [r.resolve("app://a/%d" % i).params for i in range(50)] == [{"x": str(i)} for i in range(50)]
    r.close()


def test_values_the_caller_holds_never_change():
    # The extension keeps a freed Match's params dict with its keys, and rewrites a value of the same length in
    # place when nothing else holds it: every value, dict and view a caller kept must stay as it was.
    r = linkrouter.Router()
    r.add("app://a/:x/:y", "A")
    r.add("app://b/:x/:y", "B")  # the same names: the same kept dicts
    held, hashes, dicts, pairs = [], [], [], []
    for i in range(200):
        m = r.resolve("app://%s/%03d/y%02d" % ("ab"[i % 2], i, i % 100))
        if i % 5 == 0:
            held.append(m.params["x"])
            hashes.append(hash(m.params["y"]))  # cached in the str; the str itself is dropped
        elif i % 5 == 1:
            dicts.append(m.params)
        elif i % 5 == 2:
            pairs.append(m.path_params)
        elif i % 5 == 3:
            m.params["x"] = i  # not a str: that dict is not kept
        else:
            del m.params["y"]
            m.params["y"] = "z"  # the same keys again, in the same order
        m = None
    assert held == ["%03d" % i for i in range(0, 200, 5)]
    assert hashes == [hash("y%02d" % (i % 100)) for i in range(0, 200, 5)]
    assert dicts == [{"x": "%03d" % i, "y": "y%02d" % (i % 100)} for i in range(1, 200, 5)]
    assert pairs == [[("x", "%03d" % i), ("y", "y%02d" % (i % 100))] for i in range(2, 200, 5)]
    for i in range(50):  # values of other lengths, non-ASCII ones, an empty one (no match), an extra
        u = "app://a/%s/%s" % ("é" * (i % 3), "v" * (i % 4 + 1))
        m = r.resolve(u, extra={"e": i} if i % 7 == 0 else None)
        expected = {"x": "é" * (i % 3), "y": "v" * (i % 4 + 1)}
        if i % 7 == 0:
            expected["e"] = i
        if i % 3 == 0:
            assert m is None
            continue
        assert m.params == expected and list(m.params) == list(expected)
        assert {m.params["y"]: 1} == {"v" * (i % 4 + 1): 1}  # the hash of a rewritten str is its new one
        assert m.path_params == [("x", expected["x"]), ("y", expected["y"])]
    for replacement in ([1, 2], {"x": "1", "y": "2"}, {"y": "2", "x": "1"}, None):  # m.params may be set
        m = r.resolve("app://a/1/2")
        m.params = replacement
        m = None
        assert r.resolve("app://a/3/4").params == {"x": "3", "y": "4"}
    r.close()


def test_kept_dicts_hold_no_long_value():
    # A long value (here the caller's own, given as an extra that takes a path parameter's name) is not kept
    # alive by a freed Match's kept params dict.
    r = linkrouter.Router()
    r.add("app://a/:x/:y", "A")
    long_value = "z" * 1000
    before = sys.getrefcount(long_value)
    m = r.resolve("app://a/1/2", extra={"x": long_value})
    assert m.params == {"x": long_value, "y": "2"} and m.params["x"] is long_value
    m = None
    assert sys.getrefcount(long_value) == before
    r.close()


@needs_extension
def test_forged_route_names_are_never_kept():
    # The route cache is private, but a names tuple forged there (a repeated name) must not make a kept dict
    # point at a value it does not hold: that value is freed, and the next fill would write into its memory.
    r = linkrouter.Router()
    r.add("app://a/:x/:y", "A")
    r.resolve("app://a/1/2")  # caches the route
    (rid, info), = r._routes.items()
    r._routes = {rid: info[:4] + (("x", "x"),) + info[5:]}
    m = r.resolve("app://a/AAA/BBB")
    m = None
    s = "".join(["Q", "Q", "Q"])  # a new str of the freed value's length
    r.resolve("app://a/ZZZ/WWW")
    assert s == "QQQ"
    r.close()

"""The packed result and its per-thread buffer: results larger than the buffer grow it and are retried; long
URLs and many parameters come back whole."""
from __future__ import annotations

import threading

import pytest

import linkrouter
from linkrouter import _router


# The ctypes path's own per-thread buffer (_router._tls); the C extension resolves into its C stack, or heap
# memory of the size the library asks for, so these run in the ctypes pass of `make test-python`.
ctypes_buffer = pytest.mark.skipif(linkrouter.binding != "ctypes", reason="the ctypes path's buffer")

BIG_REST = "/".join("seg%d" % i for i in range(500))
BIG_QUERY = "&".join("key%d=%s" % (i, "é" * (i % 7)) for i in range(800))


def check_big_result(router):
    m = router.resolve("app://x/1/%s?%s" % (BIG_REST, BIG_QUERY))
    assert m.params["id"] == "1" and m.params["rest"] == BIG_REST
    assert len(m.query) == 800 and m.query[799] == ("key799", "é" * (799 % 7))
    assert m.params["key5"] == "é" * 5
    assert m.path == "/1/" + BIG_REST


def test_large_results_come_back_whole(router):
    router.add("app://x/:id/*rest", "X")
    assert router.resolve("app://x/1/a").params == {"id": "1", "rest": "a"}
    check_big_result(router)
    assert router.resolve("app://x/2/a").params == {"id": "2", "rest": "a"}  # small again after a big one


@ctypes_buffer
def test_large_results_grow_the_buffer(router):
    router.add("app://x/:id/*rest", "X")
    from linkrouter import _native
    _router._tls.state = [_native.new_buffer(64), 64, _native.new_size_cell()]  # this thread starts small
    assert router.resolve("app://x/1/a").params == {"id": "1", "rest": "a"}  # grown once already
    start_cap = _router._tls.state[1]
    check_big_result(router)
    assert 64 < start_cap < _router._tls.state[1]
    # and a small one afterwards still reads right from the bigger buffer
    assert router.resolve("app://x/2/a").params == {"id": "2", "rest": "a"}


def test_url_at_the_length_limit(router):
    router.add("app://x/*rest", "X")
    url = "app://x/" + "a" * (65536 - len("app://x/"))
    m = router.resolve(url)
    assert len(m.params["rest"]) == 65536 - 8
    with pytest.raises(linkrouter.LimitError):
        router.resolve(url + "a")


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 8, 16, 40])
def test_any_number_of_path_parameters(router, n):
    pattern = "app://p" + "".join("/:p%d" % i for i in range(n))
    router.add(pattern, "P%d" % n)
    values = ["v%d%s" % (i, "é" if i % 3 == 1 else "") for i in range(n)]
    url = "app://p" + "".join("/" + v for v in values)
    expected = {"p%d" % i: v for i, v in enumerate(values)}
    assert router.resolve(url).params == expected
    assert router.resolve(url + "?z=1").params == dict(expected, z="1")
    ascii_url = "app://p" + "".join("/a%d" % i for i in range(n))
    assert router.resolve(ascii_url).params == {"p%d" % i: "a%d" % i for i in range(n)}
    assert router.resolve(ascii_url).path_params == [("p%d" % i, "a%d" % i) for i in range(n)]


@ctypes_buffer
def test_a_new_thread_starts_with_its_own_buffer(router):
    router.add("app://x/:id", "X")
    router.resolve("app://x/1")
    mine = _router._tls.state[0]
    seen = []
    t = threading.Thread(target=lambda: (router.resolve("app://x/2"), seen.append(_router._tls.state[0])))
    t.start()
    t.join()
    assert seen and seen[0] is not mine


@pytest.fixture
def route_cache_max_10(monkeypatch):
    """A route cache of 10 entries, in whichever path resolves."""
    monkeypatch.setattr(_router, "_ROUTE_CACHE_MAX", 10)
    if _router._speedups is None:
        yield
        return
    old = _router._speedups.route_cache_max(10)
    yield
    _router._speedups.route_cache_max(old)


def test_route_cache_is_bounded(router, route_cache_max_10):
    router.add_many([("app://r/%d" % i, str(i)) for i in range(30)])
    sizes = []
    for i in range(30):
        assert router.resolve("app://r/%d" % i).target == str(i)
        sizes.append(len(router._routes))
    assert sizes == list(range(1, 11)) * 3  # each new route cached; a full cache is emptied, then refilled


def test_many_pairs_in_a_short_url_and_a_rewrite_that_grows(router):
    # Results that outgrow the first memory tried although the URL is short: more parameters than its guess,
    # and a rewrite rule whose output is much longer than its input.
    router.add("app://x/:id", "X")
    router.add_rewrite("^short://(\\d+)$", "app://x/$1?" + "&".join("k%d=%s" % (i, "v" * 40) for i in range(60)))
    url = "app://x/1?" + "&".join("p%d" % i for i in range(60))
    assert len(url) < 250
    for _ in range(2):  # the first lookup of the route, then with its constants cached
        m = router.resolve(url)
        assert m.params == dict({"id": "1"}, **{"p%d" % i: "" for i in range(60)})
        m = router.resolve("short://7")
        assert m.was_rewritten and m.url == "short://7"
        assert m.rewritten == "app://x/7?" + "&".join("k%d=%s" % (i, "v" * 40) for i in range(60))
        assert len(m.params) == 61 and m.params["id"] == "7" and m.params["k59"] == "v" * 40
        assert m.query[0] == ("k0", "v" * 40) and len(m.query) == 60

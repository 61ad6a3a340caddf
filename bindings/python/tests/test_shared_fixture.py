"""The same table, the same answers: every URL of Tests/Data/shop-urls.txt against examples/tables/shop.json gives
the line of Tests/Data/shop-urls.expected, byte for byte, as C (Tests/C/test_shop_urls.c), Swift, Go and Java do.
A line is lr_match_to_json's text, "nomatch <url>", or "error <code> <url>"."""
from __future__ import annotations

import ctypes
import os
from typing import List

import linkrouter
from linkrouter import _native
from conftest import REPO_ROOT


def _lines(*parts: str) -> List[str]:
    with open(os.path.join(REPO_ROOT, *parts), encoding="utf-8", newline="") as f:
        text = f.read()
    return (text[:-1] if text.endswith("\n") else text).split("\n")


def _load_table(router: linkrouter.Router, path: str) -> None:
    """lr_router_load_file through the library the package loaded (a function object of this test's own, so the
    package's declarations stay untouched)."""
    load = _native.lib.cdll["lr_router_load_file"]
    load.restype = ctypes.c_int
    load.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int)
    assert load(router._handle(), path.encode(), 0) == 0, _native.last_error()


def _line(router: linkrouter.Router, url: str) -> str:
    try:
        text = router.resolve_json(url)
    except linkrouter.LinkRouterError as e:
        return "error %d %s" % (e.code, url)
    return "nomatch " + url if text is None else text


def test_shared_fixture_gives_the_c_lines():
    urls = [line for line in _lines("Tests", "Data", "shop-urls.txt") if line and not line.startswith("#")]
    expected = _lines("Tests", "Data", "shop-urls.expected")
    assert len(urls) == len(expected) and len(urls) >= 20
    with linkrouter.Router() as router:
        _load_table(router, os.path.join(REPO_ROOT, "examples", "tables", "shop.json"))
        assert len(router) == 16
        for i, url in enumerate(urls):
            assert _line(router, url) == expected[i], "line %d: %s" % (i + 1, url)

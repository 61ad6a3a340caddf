"""Freeing what Python code can link together or re-enter: a long chain of Matches is freed without one C call
per link, and a router's route cache is emptied or changed safely while a destructor it triggers runs Python
code. Crashes are run in a child process (conftest.run_python), so that one fails its test only."""
from __future__ import annotations

import pytest

from conftest import run_python

# Each Match holds the one made before it, through the writable target or params, directly or in a container.
CHAIN_CHILD = r"""
import sys, weakref
import linkrouter
link, count = sys.argv[1], int(sys.argv[2])
r = linkrouter.Router()
r.add("app://u/:id", "U")
m = prev = None
for i in range(count):
    m = r.resolve("app://u/1")
    if link == "target":
        m.target = prev
    elif link == "params":
        m.params = prev
    elif link == "params dict":
        m.params = {"prev": prev}
    elif link == "target list":
        m.target = [prev]
    if i == 0:
        first = weakref.ref(m)
    prev = m
del m, prev  # frees the chain from its newest Match
print("freed", count, first() is None)
"""

# Before match_dealloc had a trashcan, a chain of about 47,700 Matches linked by target or params overflowed an
# 8 MiB C stack (the C path's; containers have their own trashcan): four times that, with the stack capped at 8 MiB.
CHAIN = 200_000


@pytest.mark.parametrize("link", ["target", "params", "params dict", "target list"])
def test_a_long_chain_of_matches_is_freed(link):
    p = run_python(CHAIN_CHILD, link, str(CHAIN), stack_bytes=8 << 20)
    status = p.returncode
    assert status == 0, p.stderr[-3000:]
    assert p.stdout == "freed %d True\n" % CHAIN

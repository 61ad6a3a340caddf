"""Threads: ctypes' CDLL releases the GIL during calls, so resolves run at the same time as adds and removes on
other threads (the C extension holds the GIL for its ~150 ns call, the adds and removes still release it).
Every answer must be right for the table before or after a change, and every thread resolves into its own
buffer."""
from __future__ import annotations

import random
import threading
from typing import List

import linkrouter
from linkrouter import _router

STABLE = 100
ROUNDS = 100
# Each reader resolves at least READS_MIN times, and keeps on while the writer writes, but at most READS_MAX times:
# readers that hold the GIL (the C extension's resolve, the garbage collector of a full run's heap) can keep the
# writer from it for minutes on a loaded 2-core machine, and a reader that stopped only with the writer then ran
# as long ("a thread hung"). Bounded by counts, the writer finishes alone once they are done.
READS_MIN, READS_MAX = 300, 3000


def stable_router() -> linkrouter.Router:
    r = linkrouter.Router()
    r.add_many([("app://stable/%d/:id" % i, "S%d" % i) for i in range(STABLE)])
    r.add("app://nested/:id", "N")
    return r


def run_threads(targets) -> List[BaseException]:
    errors: List[BaseException] = []

    def wrap(fn):
        def run():
            try:
                fn()
            except BaseException as e:  # noqa: BLE001 - reported by the test
                errors.append(e)
        return run

    threads = [threading.Thread(target=wrap(t)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
        assert not t.is_alive(), "a thread hung"
    return errors


def test_resolves_during_adds_and_removes():
    r = stable_router()
    stop = threading.Event()
    buffers = []
    lock = threading.Lock()

    def reader(seed: int):
        def run():
            rnd = random.Random(seed)
            n = 0
            while n < READS_MIN or (not stop.is_set() and n < READS_MAX):
                i = rnd.randrange(STABLE)
                big = rnd.random() < 0.05  # some results outgrow the buffer: it grows, per thread
                q = "&".join("k%d=%s" % (k, "v" * rnd.randrange(1, 400)) for k in range(40)) if big else "x=1"
                m = r.resolve("app://stable/%d/%d?%s" % (i, n, q), extra={"t": seed})
                assert m is not None and m.target == "S%d" % i, m
                assert m.params["id"] == str(n) and m.params["t"] == seed
                if big:
                    assert len(m.query) == 40 and m.params["k39"] == m.query[39][1]
                c = rnd.randrange(50)
                m = r.resolve("app://churn/%d/%d" % (c, n))
                assert m is None or (m.target == "C%d" % c and m.params == {"id": str(n)}), m
                m = r.resolve("app://nested/1?a[b]=%d&a[c][]=x" % n)
                assert m.params == {"id": "1", "a": {"b": str(n), "c": ["x"]}}
                assert r.can_route("app://stable/%d/x" % i)
                n += 1
            if linkrouter.binding == "ctypes":  # the C extension's buffer is on each thread's C stack
                with lock:
                    buffers.append(_router._tls.state[0])
        return run

    def writer():
        rnd = random.Random(99)
        try:
            for rnd_i in range(ROUNDS):
                for c in range(50):
                    r.add("app://churn/%d/:id" % c, "C%d" % c)
                r.add_many([("app://batch/%d/%d" % (rnd_i, k), "B") for k in range(20)])
                r.add_rewrite("^zz%d$" % rnd_i, "app://stable/0/1")
                for c in rnd.sample(range(50), 50):
                    r.remove("app://churn/%d/:any" % c)
                r.remove_rewrite("^zz%d$" % rnd_i)
                r.set_limit("nesting", 32)
        finally:
            stop.set()

    errors = run_threads([reader(s) for s in range(4)] + [writer])
    assert not errors, errors[:3]
    if linkrouter.binding == "ctypes":
        assert len({id(b) for b in buffers}) == 4  # never shared
    assert len(r) == STABLE + 1 + ROUNDS * 20
    r.close()


def test_parallel_resolves_agree_with_sequential():
    r = stable_router()
    urls = ["app://stable/%d/%d?q=%d" % (i % STABLE, i, i * 7) for i in range(2000)]
    expected = [(m.target, m.params) for m in map(r.resolve, urls)]
    results = {}

    def worker(k: int):
        def run():
            results[k] = [(m.target, m.params) for m in map(r.resolve, urls)]
        return run

    assert not run_threads([worker(k) for k in range(6)])
    assert all(results[k] == expected for k in range(6))
    r.close()


def test_clear_during_resolves():
    r = stable_router()
    stop = threading.Event()

    def reader():
        for n in range(3000):
            m = r.resolve("app://stable/3/%d" % n)
            assert m is None or (m.target == "S3" and m.params == {"id": str(n)})

    def writer():
        for _ in range(20):
            r.clear()
            r.add_many([("app://stable/%d/:id" % i, "S%d" % i) for i in range(STABLE)])
        stop.set()

    assert not run_threads([reader, reader, writer])
    r.close()

"""The interpreter's exit while the library's timer may still call into Python. An open whose handler has not
replied is timed out by a timer on a thread of libdispatch's, which then calls Python code (open_async's done,
the log sink's warning, a release); a thread that wants the GIL once the interpreter is finalizing is ended by
CPython (pthread_exit), on which libdispatch traps: SIGILL. The binding's atexit hook (_dispatch._Exit) fails the
replies nobody answered, waits for the opens still in flight and for the timer's callbacks in progress. Each case
runs in a child process, the exit included."""
from __future__ import annotations

import time

import pytest

from conftest import run_python

# Keeps the interpreter finalizing for half a second (module objects are cleared after the finalizing began).
SLOW_FINALIZER = r"""
import sys, time
class SlowAtExit:
    def __del__(self, sleep=time.sleep):
        sleep(0.5)
sys.modules["zz_slow_at_exit"] = SlowAtExit()
"""

# The log sink is still giving the timeout's warning, on the timer's thread, when the program ends: it used to be
# ended there (and its message lost), or the process trapped. (A library that logs the warning before the open
# learns of its timeout runs the sink before open returns: nothing is left for the exit then.)
SINK_AT_EXIT = SLOW_FINALIZER + r"""
import os, threading, time
import linkrouter
r = linkrouter.Router()
kept = []
r.route("app://cb", callback=True)(lambda m, reply: kept.append(reply))

def sink(level, message):
    if threading.current_thread() is not threading.main_thread():
        time.sleep(0.2)  # the GIL is free meanwhile: the program ends
        os.write(1, b"warned\n")

r.set_log(sink, linkrouter.LogLevel.WARN)
try:
    r.open("app://cb", timeout=0.05)
except linkrouter.TimeoutError:
    print("timed out", flush=True)
"""

# An open_async still in flight at exit (its await was cancelled; its handler kept the reply): the timer fires
# while the interpreter finalizes, and its done runs on the timer's thread. The hook fails the reply instead.
ASYNC_IN_FLIGHT = SLOW_FINALIZER + r"""
import asyncio
import linkrouter
r = linkrouter.Router()
kept = []
r.route("app://cb", callback=True)(lambda m, reply: kept.append(reply))

async def main():
    try:
        await asyncio.wait_for(r.open_async("app://cb", timeout=0.2), 0.01)
    except asyncio.TimeoutError:
        print("cancelled")

asyncio.run(main())
"""

# An open whose executor never runs its work, waited for on a daemon thread: in flight at exit, with no reply the
# binding could fail; the timer fires while the interpreter finalizes and logs the timeout on its thread. The hook
# waits for the timeout instead.
EXECUTOR_IN_FLIGHT = SLOW_FINALIZER + r"""
import threading, time
import linkrouter
r = linkrouter.Router()
r.set_log(lambda level, message: None, linkrouter.LogLevel.DEBUG)
r.route("app://x")(lambda m: 1)

class Drop:
    def submit(self, fn):
        pass  # never runs it

def opener():
    try:
        r.open("app://x", executor=Drop(), timeout=0.2)
    except linkrouter.TimeoutError:
        pass

threading.Thread(target=opener, daemon=True).start()
time.sleep(0.05)
print("in flight")
"""

CASES = [("sink at exit", SINK_AT_EXIT, "timed out\nwarned\n"), ("open_async in flight", ASYNC_IN_FLIGHT, "cancelled\n"),
         ("executor in flight", EXECUTOR_IN_FLIGHT, "in flight\n")]


@pytest.mark.parametrize("code, out", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_timer_thread_is_out_of_python_when_the_interpreter_exits(code, out):
    start = time.monotonic()
    p = run_python(code)
    took = time.monotonic() - start
    assert p.returncode == 0, p.stderr[-3000:]  # was -4 (SIGILL)
    assert (sorted(p.stdout.splitlines()), p.stderr) == (sorted(out.splitlines()), "")
    assert took < 5  # the waits end with the sink's sleep, the failed reply, the open's timeout

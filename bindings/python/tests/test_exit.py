"""The interpreter's exit while the library's timer may still call into Python. An open whose handler has not
replied is timed out by a timer on a thread of libdispatch's, which then calls Python code (open_async's done,
the log sink's warning, a release); a thread that wants the GIL once the interpreter is finalizing is ended by
CPython (pthread_exit), on which libdispatch traps: SIGILL. The binding's atexit hook (_dispatch._Exit) fails the
replies nobody answered, waits for the opens still in flight and for the timer's callbacks in progress. Each case
runs in a child process, the exit included.

No time is measured here. A child whose exit hook waits for the wrong thing hangs instead of ending late: the hook's
cap on its waits (_Exit.WAIT, 10 s) is lifted in the child, and the open_async in flight, which the hook must fail
rather than wait for, has a timeout of an hour. run_python's timeout (600 s) then ends the child and fails the
test. Synchronisation is by events: an open is known to be in flight before the program ends, and the interpreter
keeps finalizing until the log sink has had the open's last word (at once when the hook did its part)."""
from __future__ import annotations

import pytest

from conftest import run_python

# Lifts the exit hook's cap on its waits: a wait that does not end by the outcome it waits for hangs the child.
NO_WAIT_CAP = r"""
import linkrouter._dispatch
linkrouter._dispatch._exit.WAIT = float("inf")
"""

# Keeps the interpreter finalizing until the log sink (``sink``, at WARN) has had the open's last word -- the hook's
# failed reply, or the timeout's warning -- and prints it: at once when the hook did its part before the finalizing
# (module objects are cleared after it began); else that word comes from the timer's thread while the interpreter
# finalizes (SIGILL), or never (a hang). A lock, not an Event: its acquire needs no module global then.
UNTIL_LOGGED = NO_WAIT_CAP + r"""
import os, sys, _thread
logged = _thread.allocate_lock()
logged.acquire()

class UntilLogged:
    def __del__(self, acquire=logged.acquire):
        acquire()
sys.modules["zz_until_logged"] = UntilLogged()

def sink(level, message):
    os.write(1, ("logged %s: %s\n" % (level.name, message)).encode())
    logged.release()
"""

# Keeps the interpreter finalizing for half a second (module objects are cleared after the finalizing began).
SLOW_FINALIZER = NO_WAIT_CAP + r"""
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

# An open_async still in flight at exit (its await was cancelled once its handler had kept the reply): the timer
# would fire while the interpreter finalizes, and its done run on the timer's thread. The hook fails the reply
# instead (logged as the handler's failure); waiting for the timeout (an hour) would hang the child.
ASYNC_IN_FLIGHT = UNTIL_LOGGED + r"""
import asyncio
import linkrouter
r = linkrouter.Router()
r.set_log(sink, linkrouter.LogLevel.WARN)
kept = []

async def main():
    loop = asyncio.get_running_loop()
    handled = asyncio.Event()
    r.route("app://cb", callback=True)(lambda m, reply: (kept.append(reply), loop.call_soon_threadsafe(handled.set)))
    task = asyncio.ensure_future(r.open_async("app://cb", timeout=3600))
    await handled.wait()  # the handler has the reply: the open is in flight
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        print("cancelled")

asyncio.run(main())
"""

# An open whose executor never runs its work, waited for on a daemon thread: in flight at exit, with no reply the
# binding could fail; the timer fires while the interpreter finalizes and logs the timeout on its thread. The hook
# waits for the timeout instead (the end of the open it must wait for is that timeout, so it stays short).
EXECUTOR_IN_FLIGHT = UNTIL_LOGGED + r"""
import threading
import linkrouter
r = linkrouter.Router()
r.set_log(sink, linkrouter.LogLevel.WARN)
r.route("app://x")(lambda m: 1)
submitted = threading.Event()

class Drop:
    def submit(self, fn):
        submitted.set()  # the open is in flight; its work never runs

def opener():
    try:
        r.open("app://x", executor=Drop(), timeout=0.2)
    except linkrouter.TimeoutError:
        pass

threading.Thread(target=opener, daemon=True).start()
submitted.wait()
print("in flight")
"""

CASES = [("sink at exit", SINK_AT_EXIT, "timed out\nwarned\n"),
         ("open_async in flight", ASYNC_IN_FLIGHT, "cancelled\nlogged ERROR: open app://cb: the handler failed: "
          "HandlerError: the handler had not replied when the interpreter exited\n"),
         ("executor in flight", EXECUTOR_IN_FLIGHT,
          "in flight\nlogged WARN: 'app://x': the handler did not reply within 0.2 seconds\n")]


@pytest.mark.parametrize("code, out", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_timer_thread_is_out_of_python_when_the_interpreter_exits(code, out):
    p = run_python(code)  # a hook that waits for the wrong thing: subprocess.TimeoutExpired after 600 s
    assert p.returncode == 0, p.stderr[-3000:]  # was -4 (SIGILL)
    assert (sorted(p.stdout.splitlines()), p.stderr) == (sorted(out.splitlines()), "")

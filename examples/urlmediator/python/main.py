"""URLMediator (seed 003), in Python: a table file maps module ids ("999") to view controller classes; a module is
opened by id with a parameter, as the URL scheme://Class/method/param, and the class's method runs on the queue the
caller chooses (none: the caller's own thread). A module id, class or method that does not exist is an error the
caller gets back; nothing crashes.

The queues are the host's: single-thread executors standing in for the main queue ("ui") and a background queue.
LinkRouter takes any concurrent.futures executor (or an asyncio loop).

Run from the repository root:
    PYTHONPATH=bindings/python LINKROUTER_LIBRARY=build/lib/liblinkrouter.so python3 examples/urlmediator/python/main.py
"""
from __future__ import annotations

import asyncio
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

import linkrouter

TABLE = "examples/urlmediator/modules.json"

# Each thread knows which queue it is ("caller" for the main thread): what a handler reports it ran on.
_queue = threading.local()


def name_queue(name: str) -> None:
    _queue.name = name


def current_queue() -> str:
    return getattr(_queue, "name", "an unnamed thread")


class Navigation:
    """URLMediator's pushToViewController: one stack, pushed to from whichever queue a module runs on."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._views: List[str] = []

    def push(self, view: str) -> None:
        with self._lock:
            self._views.append(view)

    def describe(self) -> str:
        with self._lock:
            return " > ".join(self._views)


@dataclass
class ModuleCall:
    """One call of a module, as the open's context: where the stack is, and what the method did and where."""
    navigation: Navigation
    ran_on: str = ""
    did: str = ""


class MissingMethod(LookupError):
    """The class has no such class method (URLMediator's class_getClassMethod returning NULL)."""


class NoModule(LookupError):
    """No route in the table answers the URL."""


def push_to_module(class_name: str, param: Optional[str], call: ModuleCall) -> None:
    """+pushToModule: makes the view controller with the parameter (None: none, pushToModuleID: alone) and
    pushes it."""
    shown = "nil" if param is None else param
    call.navigation.push("%s(%s)" % (class_name, shown))
    call.did = "%s.pushToModule(%s)" % (class_name, shown)


# The classes linked into the app and the class methods they answer. GhostViewController is in the table, not here.
MODULE_CLASSES: Dict[str, Dict[str, Callable[[str, Optional[str], ModuleCall], None]]] = {
    "OneViewController": {"pushToModule": push_to_module},
    "TwoViewController": {"pushToModule": push_to_module},
}


def call_module(class_name: str):
    """The handler of one module class: finds the method the URL names and calls it with the parameter, on
    whatever queue the library runs it. A method the class does not have is an error."""
    def handler(match: linkrouter.OpenMatch) -> None:
        call: ModuleCall = match.context
        call.ran_on = current_queue()
        name, param = match.params.get("method"), match.params.get("param")
        if not isinstance(name, str) or not isinstance(param, (str, type(None))):  # a route of another shape
            raise MissingMethod("%s needs a URL of the form scheme://%s/method[/param]" % (class_name, class_name))
        method = MODULE_CLASSES[class_name].get(name)
        if method is None:
            raise MissingMethod("%s has no method '%s'" % (class_name, name))
        method(class_name, param, call)
    return handler


def no_module(request: linkrouter.OpenRequest) -> None:
    """A URL whose class is in no route: the caller learns so."""
    raise NoModule("no module answers %s" % request.url)


@dataclass
class Step:
    """One call and what must come of it: by module id (pushToModuleID:param:queue:) or by URL."""
    module_id: Optional[str]  # None: open `url` as it is
    param: Optional[str]      # by id: None for none (pushToModuleID: alone)
    url: Optional[str]        # by id: the URL the id must build; None when it builds none
    queue: Optional[str]      # "ui", "background", or None: the caller's thread
    outcome: str
    stack: str


STACK = "OneViewController(1) > TwoViewController(7) > OneViewController(2) > OneViewController(a b/c) > OneViewController(3)"
STEPS = [
    # The headline (make demo): module 999 with parameter 1, run on the ui queue.
    Step("999", "1", "com.myiurlmediator://OneViewController/pushToModule/1", "ui",
         "OneViewController.pushToModule(1) ran on ui", "OneViewController(1)"),
    Step("1000", "7", "com.myiurlmediator://TwoViewController/pushToModule/7", "background",
         "TwoViewController.pushToModule(7) ran on background", "OneViewController(1) > TwoViewController(7)"),
    Step("999", "2", "com.myiurlmediator://OneViewController/pushToModule/2", None,
         "OneViewController.pushToModule(2) ran on caller",
         "OneViewController(1) > TwoViewController(7) > OneViewController(2)"),
    Step("999", "a b/c", "com.myiurlmediator://OneViewController/pushToModule/a%20b%2Fc", "ui",
         "OneViewController.pushToModule(a b/c) ran on ui",
         "OneViewController(1) > TwoViewController(7) > OneViewController(2) > OneViewController(a b/c)"),
    Step(None, None, "com.MYIURLMediator://OneViewController/pushToModule/3", "background",
         "OneViewController.pushToModule(3) ran on background", STACK),
    Step(None, None, "com.myiurlmediator://OneViewController/fly/1", "ui",
         "refused: OneViewController has no method 'fly'", STACK),
    Step("777", "1", None, "ui", "refused: no route is named '777'", STACK),
    Step("404", "1", "com.myiurlmediator://GhostViewController/pushToModule/1", "ui",
         "refused: route 'com.myiurlmediator://GhostViewController/:method(/:param)' (target 'GhostViewController') "
         "has no handler", STACK),
    Step(None, None, "com.myiurlmediator://NoSuchController/pushToModule/1", "background",
         "refused: no module answers com.myiurlmediator://NoSuchController/pushToModule/1", STACK),
    # pushToModuleID: without a parameter: the route's optional group, left out of the URL built.
    Step("1000", None, "com.myiurlmediator://TwoViewController/pushToModule", "ui",
         "TwoViewController.pushToModule(nil) ran on ui", STACK + " > TwoViewController(nil)"),
]

failures = 0


def expect(what: str, got: str, want: str) -> None:
    global failures
    if got != want:
        print("MISMATCH %s:\n  got  %s\n  want %s" % (what, got, want), file=sys.stderr)
        failures += 1


def run_step(router: linkrouter.Router, navigation: Navigation, queues: Dict[str, ThreadPoolExecutor],
             step: Step) -> None:
    on = step.queue or "the caller's thread"
    call = ModuleCall(navigation)
    try:
        if step.module_id is not None:
            if step.param is None:
                print("pushToModuleID %s on %s" % (step.module_id, on))
            else:
                print("pushToModuleID %s param %s on %s" % (step.module_id, step.param, on))
            # The id is the route's name: the table gives the class, the method is pushToModule.
            params = {"method": "pushToModule"}
            if step.param is not None:
                params["param"] = step.param
            url = router.url_for(step.module_id, **params)
            print("  url %s" % url)
            expect("the URL built", url, step.url or "(none)")
        else:
            print("open %s on %s" % (step.url, on))
            url = step.url
        router.open(url, context=call, executor=queues[step.queue] if step.queue else None)
        outcome = "%s ran on %s" % (call.did, call.ran_on)
    except (MissingMethod, NoModule) as e:
        outcome = "refused: %s" % e
    except linkrouter.LinkRouterError as e:
        outcome = "refused: %s" % e.message
    print("  %s" % outcome)
    expect(step.module_id or step.url or "", outcome, step.outcome)
    print("  stack: %s" % navigation.describe())
    expect("the stack", navigation.describe(), step.stack)


async def run_without_waiting(router: linkrouter.Router, navigation: Navigation,
                              queues: Dict[str, ThreadPoolExecutor]) -> None:
    """URLMediator's call does not wait: NSURLSession hands the URL over and returns. open_async is that call. To
    show it, the ui queue is kept busy behind a gate: the open is under way, the stack is still as it was, and the
    module runs only when the gate opens and the queue reaches it."""
    print("pushToModuleID 1000 param 8 on ui, without waiting (ui is busy)")
    url = router.url_for("1000", method="pushToModule", param="8")
    print("  url %s" % url)
    expect("the URL built", url, "com.myiurlmediator://TwoViewController/pushToModule/8")
    before = navigation.describe()
    gate = threading.Event()
    queues["ui"].submit(gate.wait)
    call = ModuleCall(navigation)
    opening = asyncio.ensure_future(router.open_async(url, context=call, executor=queues["ui"]))
    await asyncio.sleep(0)  # the open starts and is handed to the ui queue; this loop goes on
    ran_early = opening.done() or navigation.describe() != before
    print("  returned; %s" % ("the module already ran" if ran_early else "the module has not run yet"))
    expect("the open returned before the module ran", "ran" if ran_early else "not yet", "not yet")
    gate.set()
    try:
        await opening
        outcome = "%s ran on %s" % (call.did, call.ran_on)
    except (MissingMethod, linkrouter.LinkRouterError) as e:
        outcome = "refused: %s" % e
    print("  %s" % outcome)
    expect("the open without waiting", outcome, "TwoViewController.pushToModule(8) ran on ui")
    print("  stack: %s" % navigation.describe())
    expect("the stack", navigation.describe(), before + " > TwoViewController(8)")


def main() -> int:
    demo = sys.argv[1:] == ["demo"]
    name_queue("caller")
    router = linkrouter.Router.from_file(TABLE)
    print("URLMediator: %d modules from %s" % (len(router), TABLE))
    for class_name in MODULE_CLASSES:
        router.target(class_name)(call_module(class_name))
    router.unmatched(no_module)

    queues = {name: ThreadPoolExecutor(max_workers=1, initializer=name_queue, initargs=(name,))
              for name in ("ui", "background")}
    navigation = Navigation()
    steps = STEPS[:1] if demo else STEPS
    try:
        for step in steps:
            run_step(router, navigation, queues, step)
        if not demo:
            asyncio.run(run_without_waiting(router, navigation, queues))
    finally:
        for queue in queues.values():
            queue.shutdown()
        router.close()
    if failures:
        print("%d mismatch(es)" % failures, file=sys.stderr)
        return 1
    print("ok: %d calls as expected" % (len(steps) if demo else len(steps) + 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""DCURLRouter (seed 002), in Python: a route table file maps dariel:// URLs to screens, and each route's meta says
how the screen is shown (push, replace, present, pop-N, dismiss-N). Parameters come from the URL or from a
dictionary the caller passes, and the dictionary wins; http and https URLs open the web screen with the URL.
The Window below is the host app's model of UIKit: a stack of presented layers, each a navigation stack.

Run from the repository root:
    PYTHONPATH=bindings/python LINKROUTER_LIBRARY=build/lib/liblinkrouter.so python3 examples/dcurlrouter/python/main.py
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import linkrouter

TABLE = "examples/dcurlrouter/routes.json"


@dataclass
class Screen:
    """A view controller: what DCURLRouter's UIViewController category gives every screen."""
    class_name: str
    params: Dict[str, str] = field(default_factory=dict)
    origin_url: str = ""
    path: str = ""

    def sees(self) -> str:
        pairs = ", ".join("%s=%s" % (k, self.params[k]) for k in sorted(self.params))
        return 'params {%s}, originUrl %s, path "%s"' % (pairs, self.origin_url, self.path)


@dataclass
class Layer:
    """One presented layer: a navigation stack, or a screen presented without one (it cannot push)."""
    screens: List[Screen]
    navigable: bool


class NavigationError(Exception):
    """A transition the window cannot make (DCURLRouter asserts; the caller gets this instead)."""


class Window:
    """The app's window: layers[0] is the root navigation stack, each present adds a layer on top."""

    def __init__(self) -> None:
        self.layers = [Layer([Screen("HomeViewController")], navigable=True)]
        self.last_action = ""

    @property
    def current(self) -> Screen:
        return self.layers[-1].screens[-1]

    def describe(self) -> str:
        return " / ".join("%s(%s)" % ("nav" if l.navigable else "modal", " > ".join(s.class_name for s in l.screens))
                          for l in self.layers)


# The screen classes linked into the app. FiveViewController is in the table but not here: opening it fails.
SCREEN_CLASSES = ["OneViewController", "TwoViewController", "ThreeViewController", "FourViewController",
                  "WebViewController"]


def make_screen(class_name: str, match: linkrouter.OpenMatch) -> Screen:
    """The screen a match opens: the params (the library's merge: caller dictionary > path > query), the original
    URL and its path. The web screen gets only the URL, as DCURLRouter's web controller does."""
    params = {"urlStr": match.url} if class_name == "WebViewController" else dict(match.params)
    return Screen(class_name, params, match.url, match.path)


def open_screen(class_name: str):
    """The handler of one screen class: makes the screen and shows it as the route's meta "transition" says."""
    def handler(match: linkrouter.OpenMatch) -> Screen:
        window: Window = match.context
        screen = make_screen(class_name, match)
        transition = match.meta.get("transition")
        top = window.layers[-1]
        if transition == "present":
            navigable = match.meta.get("navigation") == "yes"
            window.layers.append(Layer([screen], navigable))
            window.last_action = "present %s%s" % (class_name, " in a navigation stack" if navigable else "")
        elif transition in ("push", "replace"):
            if not top.navigable:
                raise NavigationError("cannot push %s: %s was presented without a navigation stack"
                                      % (class_name, window.current.class_name))
            # DCURLRouter's replace: a screen of the same class on top is swapped for the new one; else a push.
            if transition == "replace" and window.current.class_name == class_name:
                top.screens[-1] = screen
                window.last_action = "replace %s with %s" % (class_name, class_name)
            else:
                top.screens.append(screen)
                window.last_action = "push %s" % class_name
        else:
            raise NavigationError("route %s has no known transition" % match.pattern)
        return window.current
    return handler


def parse_times(text: Optional[str]) -> int:
    """A positive count of screens ("2"); 0 when it is not one."""
    return int(text) if text and text.isascii() and text.isdigit() and len(text) <= 4 else 0


def navigate_back(match: linkrouter.OpenMatch) -> Screen:
    """The handler of the Navigator routes: pop-N and dismiss-N (or to the root), as the meta says."""
    window: Window = match.context
    transition = match.meta.get("transition")
    to_root = match.meta.get("to") == "root"
    asked = match.params.get("times", "to the root")
    if transition == "pop":
        top = window.layers[-1]
        times = len(top.screens) - 1 if to_root else parse_times(match.params.get("times"))
        if times == 0 or times >= len(top.screens):  # DCURLRouter asserts here; a refusal is kinder
            raise NavigationError("cannot pop %s: the top navigation stack holds %d screen(s)"
                                  % (asked, len(top.screens)))
        del top.screens[-times:]
        window.last_action = "pop %d, current %s" % (times, window.current.class_name)
    elif transition == "dismiss":
        times = len(window.layers) - 1 if to_root else parse_times(match.params.get("times"))
        if times == 0 or times >= len(window.layers):
            raise NavigationError("cannot dismiss %s: %d layer(s) presented" % (asked, len(window.layers) - 1))
        del window.layers[-times:]
        window.last_action = "dismiss %d, current %s" % (times, window.current.class_name)
    else:
        raise NavigationError("route %s has no known transition" % match.pattern)
    return window.current


def no_screen(request: linkrouter.OpenRequest) -> None:
    """A URL no route matches: DCURLRouter asserts; here the caller gets the reason."""
    raise NavigationError("no route for %s: add it to the route table, or check its scheme" % request.url)


@dataclass
class Step:
    """One open and what must come of it. ``sees`` is None for navigation back and for refusals."""
    url: str
    extra: Dict[str, str]
    outcome: str
    sees: Optional[str]
    window: str


ROOT = "nav(HomeViewController > TwoViewController > OneViewController)"
STEPS = [
    # The headline (make demo): the URL's userid loses to the caller's dictionary; its name stays.
    Step("dariel://twoitem?name=dariel&userid=213213", {"userName": "Hello", "userid": "32342"},
         "push TwoViewController",
         'params {name=dariel, userName=Hello, userid=32342}, originUrl dariel://twoitem?name=dariel&userid=213213, path ""',
         "nav(HomeViewController > TwoViewController)"),
    Step("dariel://oneitem?name=dariel", {}, "push OneViewController",
         'params {name=dariel}, originUrl dariel://oneitem?name=dariel, path ""', ROOT),
    Step("dariel://oneitem", {"userName": "Hello"}, "replace OneViewController with OneViewController",
         'params {userName=Hello}, originUrl dariel://oneitem, path ""', ROOT),
    Step("dariel://threeitem?userid=213213", {}, "present ThreeViewController",
         'params {userid=213213}, originUrl dariel://threeitem?userid=213213, path ""',
         ROOT + " / modal(ThreeViewController)"),
    Step("dariel://twoitem", {},
         "refused: cannot push TwoViewController: ThreeViewController was presented without a navigation stack", None,
         ROOT + " / modal(ThreeViewController)"),
    Step("dariel://fouritem", {}, "present FourViewController in a navigation stack",
         'params {}, originUrl dariel://fouritem, path ""',
         ROOT + " / modal(ThreeViewController) / nav(FourViewController)"),
    Step("https://github.com/DarielChen/DCURLRouter?tab=readme", {}, "push WebViewController",
         "params {urlStr=https://github.com/DarielChen/DCURLRouter?tab=readme}, "
         'originUrl https://github.com/DarielChen/DCURLRouter?tab=readme, path "/DarielChen/DCURLRouter"',
         ROOT + " / modal(ThreeViewController) / nav(FourViewController > WebViewController)"),
    Step("http://example.com", {}, "push WebViewController",
         'params {urlStr=http://example.com}, originUrl http://example.com, path ""',
         ROOT + " / modal(ThreeViewController) / nav(FourViewController > WebViewController > WebViewController)"),
    Step("dariel://pop/2", {}, "pop 2, current FourViewController", None,
         ROOT + " / modal(ThreeViewController) / nav(FourViewController)"),
    Step("dariel://pop/3", {}, "refused: cannot pop 3: the top navigation stack holds 1 screen(s)", None,
         ROOT + " / modal(ThreeViewController) / nav(FourViewController)"),
    Step("dariel://dismiss/2", {}, "dismiss 2, current OneViewController", None, ROOT),
    Step("dariel://dismiss/1", {}, "refused: cannot dismiss 1: 0 layer(s) presented", None, ROOT),
    Step("dariel://pop/root", {}, "pop 2, current HomeViewController", None, "nav(HomeViewController)"),
    Step("dariel://fiveitem", {},
         "refused: route 'dariel://fiveitem' (target 'FiveViewController') has no handler", None,
         "nav(HomeViewController)"),
    Step("dariel://sixitem", {},
         "refused: no route for dariel://sixitem: add it to the route table, or check its scheme", None,
         "nav(HomeViewController)"),
    # Two layers presented again, then dismissed to the root in one open.
    Step("dariel://threeitem?userid=1", {}, "present ThreeViewController",
         'params {userid=1}, originUrl dariel://threeitem?userid=1, path ""',
         "nav(HomeViewController) / modal(ThreeViewController)"),
    Step("dariel://fouritem", {}, "present FourViewController in a navigation stack",
         'params {}, originUrl dariel://fouritem, path ""',
         "nav(HomeViewController) / modal(ThreeViewController) / nav(FourViewController)"),
    Step("dariel://dismiss/root", {}, "dismiss 2, current HomeViewController", None, "nav(HomeViewController)"),
]

failures = 0


def expect(what: str, got: str, want: str) -> None:
    global failures
    if got != want:
        print("MISMATCH %s:\n  got  %s\n  want %s" % (what, got, want), file=sys.stderr)
        failures += 1


def run_step(router: linkrouter.Router, window: Window, step: Step) -> None:
    with_extra = " with {%s}" % ", ".join("%s=%s" % kv for kv in step.extra.items()) if step.extra else ""
    print("open %s%s" % (step.url, with_extra))
    screen: Optional[Screen] = None
    try:
        screen = router.open(step.url, extra=step.extra, context=window)
        outcome = window.last_action
    except NavigationError as e:
        outcome = "refused: %s" % e
    except linkrouter.LinkRouterError as e:
        outcome = "refused: %s" % e.message
    print("  %s" % outcome)
    expect(step.url, outcome, step.outcome)
    if step.sees is not None:
        sees = screen.sees() if screen else "(no screen)"
        if screen:
            print("  sees %s" % sees)
        expect("what the screen sees", sees, step.sees)
    print("  window: %s" % window.describe())
    expect("the window", window.describe(), step.window)


def main() -> int:
    demo = sys.argv[1:] == ["demo"]
    router = linkrouter.Router.from_file(TABLE)
    print("DCURLRouter: %d routes from %s" % (len(router), TABLE))
    # The table names classes; the code gives each class that exists its handler.
    for class_name in SCREEN_CLASSES:
        router.target(class_name)(open_screen(class_name))
    router.target("Navigator")(navigate_back)
    router.unmatched(no_screen)

    window = Window()
    steps = STEPS[:1] if demo else STEPS
    for step in steps:
        run_step(router, window, step)
    router.close()
    if failures:
        print("%d mismatch(es)" % failures, file=sys.stderr)
        return 1
    print("ok: %d opens as expected" % len(steps))
    return 0


if __name__ == "__main__":
    sys.exit(main())

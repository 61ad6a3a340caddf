"""FFRouter's README walk-through, step by step, on LinkRouter's Python binding.

The same scenario as ../c/main.c, printing the same lines: the three kinds of handler (fire and forget, one that
returns an object, one that answers later through a callback), `:id` and `*` routes, extra parameters of any
type, can_route, the unregistered-URL handler, logging on and off, rewrite rules one by one and in bulk, and
unregistering one route or all. Every outcome is checked: a wrong one prints what differed and exits with
status 1.

Run from the repository root:
    PYTHONPATH=bindings/python LINKROUTER_LIBRARY=build/lib/liblinkrouter.so python3 examples/ffrouter/python/main.py
"""
import asyncio
import dataclasses
import inspect
import sys
import threading
from typing import Any, Dict, List, NoReturn, Optional

import linkrouter


# -- checks ------------------------------------------------------------------------------------------------------

def fail(text: str) -> NoReturn:
    """Ends the program with status 1, naming the line of the walk-through that failed."""
    frame = next(f for f in inspect.stack()[1:] if f.function not in ("expect", "expect_error", "<lambda>"))
    sys.exit("main.py:%d: %s" % (frame.lineno, text))


def expect(what: str, got: Any, want: Any) -> None:
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))


def expect_error(what: str, error_type: type, call: Any) -> Any:
    """Runs call(), which must raise error_type; returns the error."""
    try:
        call()
    except error_type as error:
        return error
    except Exception as error:  # noqa: BLE001 - any other error is a wrong outcome
        fail("%s: unexpected %r, want %s" % (what, error, error_type.__name__))
    fail("%s: no error, want %s" % (what, error_type.__name__))


# -- the app: a navigation stack, and the objects its handlers make ---------------------------------------------

@dataclasses.dataclass(frozen=True)
class Image:
    """UIImage's stand-in: an object that is not a string, handed to a handler with the open."""
    name: str
    width: int
    height: int


@dataclasses.dataclass(frozen=True)
class Screen:
    description: str  # the class name, then what the handler was given
    url: str          # the full URL the handler saw (FFRouter's FFRouterParameterURLKey)


@dataclasses.dataclass(frozen=True)
class ObjectDetails:
    """What the object handler returns (FFRouter's routeObjectURL:)."""
    nickname: str


@dataclasses.dataclass(frozen=True)
class RewriteCase:
    url: str
    rewritten: Optional[str]  # None: no rule matches, and nothing routes the URL
    screen: Optional[str] = None  # the screen opening it pushes


LEVEL_NAMES = ["off", "error", "warning", "info", "debug"]
AMAZON_SEARCH = "(?:https://)?www.amazon.com/search/(.*)"


class Walkthrough:
    def __init__(self) -> None:
        self.router = linkrouter.Router()
        self.navigation: List[Screen] = []  # handlers run on the thread that opens: no lock needed
        self.log_lines = 0
        self.workers: List[threading.Thread] = []

    # -- handlers -------------------------------------------------------------------------------------------------

    def show_screen(self, class_name: str) -> Any:
        """Fire and forget (FFRouter's registerRouteURL:handler:): pushes a screen of class_name showing the
        parameters it got, and returns nothing."""
        def handler(match: Any) -> None:
            description = class_name
            for name, value in match.params.items():
                if isinstance(value, str):
                    description += " %s=%s" % (name, value)
            img = match.extra.get("img")
            if isinstance(img, Image):
                description += " img=%s(%dx%d)" % (img.name, img.width, img.height)
            self.navigation.append(Screen(description, match.url))
            print("  pushed %s" % description)
        return handler

    def log(self, level: int, message: str) -> None:
        self.log_lines += 1
        print("  log %s: %s" % (LEVEL_NAMES[int(level)], message))

    # -- opening, with its outcome checked ------------------------------------------------------------------------

    def route_url(self, url: str, want: str, extra: Optional[Dict[str, Any]] = None) -> None:
        """Opens url with a fire-and-forget handler (or the unregistered-URL one): the open returns nothing, and
        the screen it pushed is `want` and saw the full URL."""
        depth = len(self.navigation)
        result = self.router.open(url, extra=extra)
        expect("a fire-and-forget open's result", result, None)
        expect("screens pushed", len(self.navigation), depth + 1)
        expect("the screen pushed", self.navigation[-1], Screen(want, url))

    def expect_can_route(self, url: str, want: bool) -> None:
        can = self.router.can_route(url)
        print("can route %s: %s" % (url, "yes" if can else "no"))
        expect("can route", can, want)

    def rewrite_and_open(self, case: RewriteCase) -> None:
        out = self.router.rewrite(case.url)
        print("rewrite %s" % case.url)
        if case.rewritten is None:
            expect("rewrite", out, None)
            can = self.router.can_route(case.url)
            print("  no rule matches; can route: %s" % ("yes" if can else "no"))
            expect("can route an URL no rule rewrites", can, False)
            return
        print("  = %s" % out)
        expect("rewritten URL", out, case.rewritten)
        print("open %s" % case.url)
        self.route_url(case.url, case.screen or "")

    def add_rule(self, match: str, target: str) -> None:
        self.router.add_rewrite(match, target)
        print("add rule %s -> %s" % (match, target))

    # -- the walk-through, in the README's order ------------------------------------------------------------------

    def register_urls(self) -> None:
        print("== Register URLs with the three kinds of handler")
        r = self.router
        for pattern, screen_class in [("protocol://page/routerDetails/:id", "RouterDetailsViewController"),
                                      ("protocol://page/routerDetails", "RouterDetailsViewController"),
                                      ("wildcard://*", "WildcardViewController")]:
            r.route(pattern)(self.show_screen(screen_class))
            print("fire and forget:   %s" % pattern)

        @r.route("protocol://page/routerObjectDetails")
        def object_details(match: Any) -> ObjectDetails:
            return ObjectDetails(match.params.get("nickname", ""))
        print("returns an object: protocol://page/routerObjectDetails")

        @r.route("protocol://page/RouterCallbackDetails", callback=True)
        def answer_later(match: Any, reply: Any) -> None:
            print("  handler: the answer comes later, from a worker thread")
            worker = threading.Timer(0.02, reply.send, args=("Any Object for %s" % match.params.get("nickname", ""),))
            self.workers.append(worker)
            worker.start()
        print("async callback:    protocol://page/RouterCallbackDetails")

        # A pattern matching exactly the URLs of a registered one is refused, and the message names that one.
        conflict = expect_error("registering a duplicate", linkrouter.ConflictError,
                                lambda: r.route("protocol://page/routerDetails/:productId")(self.show_screen("Duplicate")))
        print("register protocol://page/routerDetails/:productId: %s" % conflict.message)
        print("routes: %d" % len(r))
        expect("routes", len(r), 5)

    def route_fire_and_forget(self) -> None:
        print("\n== routeURL: a fire-and-forget handler pushes a screen; the open returns nothing")
        cases = [
            ("protocol://page/routerDetails/666?nickname=imlifengfeng",
             "RouterDetailsViewController id=666 nickname=imlifengfeng"),
            # Plain parameters can simply be spliced into the URL.
            ("protocol://page/routerDetails?nickname=imlifengfeng&id=666",
             "RouterDetailsViewController nickname=imlifengfeng id=666"),
            # A path parameter outranks a query parameter of the same name.
            ("protocol://page/routerDetails/7?id=1", "RouterDetailsViewController id=7"),
            ("wildcard://any/thing?at=all", "WildcardViewController *=any/thing at=all"),
        ]
        for url, screen in cases:
            print("open %s" % url)
            self.route_url(url, screen)

    def route_object(self) -> None:
        print("\n== routeObjectURL: the handler returns an object")
        url = "protocol://page/routerObjectDetails?nickname=imlifengfeng"
        print("open %s" % url)
        obj = self.router.open(url)
        if not isinstance(obj, ObjectDetails):
            fail("no ObjectDetails came back: %r" % (obj,))
        print("  returned ObjectDetails nickname=%s" % obj.nickname)
        expect("the object's nickname", obj.nickname, "imlifengfeng")

    def route_callback(self) -> None:
        print("\n== routeCallbackURL: the handler answers later, through a callback")
        url = "protocol://page/RouterCallbackDetails?nickname=imlifengfeng"
        print("open %s" % url)
        got: List[Any] = []

        def target_callback(obj: Any) -> None:
            """FFRouter's targetCallback: called once, with what the handler answered."""
            print("  targetCallback got: %s" % obj)
            got.append(obj)

        async def route_callback_url() -> None:
            target_callback(await self.router.open_async(url))

        asyncio.run(route_callback_url())
        for worker in self.workers:
            worker.join()
        expect("the callback's object", got, ["Any Object for imlifengfeng"])

    def route_with_objects(self) -> None:
        print("\n== routeURL withParameters: extra parameters, one of them not a string")
        url = "protocol://page/routerDetails?nickname=imlifengfeng"
        print("open %s with source=push img=<image router_test_img 120x80>" % url)
        self.route_url(url, "RouterDetailsViewController nickname=imlifengfeng source=push img=router_test_img(120x80)",
                       extra={"source": "push", "img": Image("router_test_img", 120, 80)})

    def can_route(self) -> None:
        print("\n== canRouteURL")
        for url, can in [("protocol://page/routerDetails/1", True), ("protocol://page/routerDetails/1/more", False),
                         ("wildcard://whatever/you/like", True), ("protocol://page/unknown", False)]:
            self.expect_can_route(url, can)

    def unregistered(self) -> None:
        print("\n== An unregistered URL")
        url = "protocol://page/unknown?from=test"
        expect_error("opening an unregistered URL", linkrouter.NotFoundError, lambda: self.router.open(url))
        print("open %s: no route, and no handler for unregistered URLs yet" % url)

        @self.router.unmatched
        def unregistered_url(request: Any) -> None:
            """FFRouter's routeUnregisterURLHandler:: every URL no route matches lands here."""
            description = "UnregisteredURLViewController url=%s" % request.url
            self.navigation.append(Screen(description, request.url))
            print("  pushed %s" % description)
        print("set the handler for unregistered URLs")
        print("open %s" % url)
        self.route_url(url, "UnregisteredURLViewController url=protocol://page/unknown?from=test")

    def logging(self) -> None:
        print("\n== Logging on, then off")
        self.router.set_log(self.log, linkrouter.LogLevel.INFO)
        print("log on (info)")
        self.log_lines = 0
        print("open protocol://page/routerDetails/8")
        self.route_url("protocol://page/routerDetails/8", "RouterDetailsViewController id=8")
        while_on = self.log_lines
        self.router.set_log(None)
        print("log off")
        self.log_lines = 0
        print("open protocol://page/routerDetails/9")
        self.route_url("protocol://page/routerDetails/9", "RouterDetailsViewController id=9")
        print("log lines: %d while on, %d while off" % (while_on, self.log_lines))
        expect("log lines while on", while_on, 1)
        expect("log lines while off", self.log_lines, 0)

    def rewrite_one(self) -> None:
        print("\n== URL rewrite: one rule, $1 is the first group")
        self.add_rule(AMAZON_SEARCH, "protocol://page/routerDetails?product=$1")
        self.rewrite_and_open(RewriteCase("https://www.amazon.com/search/Atomic_bomb",
                                          "protocol://page/routerDetails?product=Atomic_bomb",
                                          "RouterDetailsViewController product=Atomic_bomb"))

    def rewrite_bulk(self) -> None:
        print("\n== URL rewrite: rules in bulk; (\\d+) takes digits, $$1 encodes, $#1 decodes, $host and $query")
        # All or none: FFRouter's addRewriteRules:.
        rules = [
            ("(?:https://)?www.amazon.com/dp/(\\d+)", "protocol://page/routerDetails/$1"),
            ("(?:https://)?www.taobao.com/search/(.*)", "protocol://page/routerDetails?product=$$1"),
            ("(?:https://)?www.jd.com/search/(.*)", "protocol://page/routerDetails?product=$#1"),
            ("(?:https://)?m.taobao.com/item", "protocol://page/routerDetails?$query&from=$host"),
        ]
        self.router.add_rewrites(rules)
        for match, target in rules:
            print("add rule %s -> %s" % (match, target))
        for case in [
            RewriteCase("https://www.amazon.com/dp/42", "protocol://page/routerDetails/42",
                        "RouterDetailsViewController id=42"),
            RewriteCase("https://www.amazon.com/dp/B00X", None),
            RewriteCase("https://www.taobao.com/search/原子弹",
                        "protocol://page/routerDetails?product=%E5%8E%9F%E5%AD%90%E5%BC%B9",
                        "RouterDetailsViewController product=原子弹"),
            RewriteCase("https://www.jd.com/search/%e5%8e%9f%e5%ad%90%e5%bc%b9",
                        "protocol://page/routerDetails?product=原子弹",
                        "RouterDetailsViewController product=原子弹"),
            RewriteCase("https://m.taobao.com/item?nickname=imlifengfeng",
                        "protocol://page/routerDetails?nickname=imlifengfeng&from=m.taobao.com",
                        "RouterDetailsViewController nickname=imlifengfeng from=m.taobao.com"),
        ]:
            self.rewrite_and_open(case)

    def remove_rules(self) -> None:
        print("\n== Remove one rewrite rule, then all")
        self.router.remove_rewrite(AMAZON_SEARCH)
        print("remove rule %s" % AMAZON_SEARCH)
        self.rewrite_and_open(RewriteCase("https://www.amazon.com/search/Atomic_bomb", None))
        self.rewrite_and_open(RewriteCase("https://www.taobao.com/search/原子弹",
                                          "protocol://page/routerDetails?product=%E5%8E%9F%E5%AD%90%E5%BC%B9",
                                          "RouterDetailsViewController product=原子弹"))
        expect_error("removing a removed rule", linkrouter.NotFoundError,
                     lambda: self.router.remove_rewrite(AMAZON_SEARCH))
        print("remove rule %s again: not found" % AMAZON_SEARCH)

        self.router.clear_rewrites()
        print("remove all rules")
        self.rewrite_and_open(RewriteCase("https://www.taobao.com/search/原子弹", None))

    def unregister(self) -> None:
        print("\n== Unregister one URL, then all")
        self.router.remove("wildcard://*")
        print("unregister wildcard://*")
        self.expect_can_route("wildcard://any/thing", False)
        print("open wildcard://any/thing")
        self.route_url("wildcard://any/thing", "UnregisteredURLViewController url=wildcard://any/thing")
        expect_error("unregistering a removed route", linkrouter.NotFoundError,
                     lambda: self.router.remove("wildcard://*"))
        print("unregister wildcard://* again: not found")

        self.router.clear()
        print("unregister all")
        print("routes: %d" % len(self.router))
        expect("routes", len(self.router), 0)
        self.expect_can_route("protocol://page/routerDetails/1", False)
        print("open protocol://page/routerObjectDetails")
        self.route_url("protocol://page/routerObjectDetails",
                       "UnregisteredURLViewController url=protocol://page/routerObjectDetails")

    def run(self) -> None:
        print("FFRouter's README, step by step, on LinkRouter\n")
        self.register_urls()
        self.route_fire_and_forget()
        self.route_object()
        self.route_callback()
        self.route_with_objects()
        self.can_route()
        self.unregistered()
        self.logging()
        self.rewrite_one()
        self.rewrite_bulk()
        self.remove_rules()
        self.unregister()
        print("\nnavigation stack: %d screens; every outcome as expected" % len(self.navigation))
        self.router.close()


if __name__ == "__main__":
    Walkthrough().run()

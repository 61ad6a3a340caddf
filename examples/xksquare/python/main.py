"""xksquare's deep links (seed 000), opened through LinkRouter from Python.

The xksquare app routes `xksquare://<host>?targetclass=<screen>&...`: `com.dynamic` links open at once,
`com.authDynamic` links need a logged-in user (parked while logged out, replayed after login), and
`RAdapter=Model_RAdapter` turns bracket parameters (`info[nickname]=...&name[bb]=123`) into a typed model.
The routes are examples/xksquare/routes.json; the code here is the app: its screens, its navigation stack,
the `login` guard and the adapters.

Run from the repository root:
    PYTHONPATH=bindings/python LINKROUTER_LIBRARY=build/lib/liblinkrouter.so python3 examples/xksquare/python/main.py
"""
from __future__ import annotations

import dataclasses
import re
import sys
import typing
from typing import Any, Dict, List, Optional

import linkrouter

ROUTES = "examples/xksquare/routes.json"
WEB_PAGE = "examples/xksquare/open-app.html"
GIFT_LINK = "xksquare://com.dynamic?targetclass=RouterTestViewController&name=%E4%BD%93%E8%B4%B4&num=2"
GIFT_SCREEN = "RouterTestViewController(name=体贴, num=2)"
MODEL_LINK = ("xksquare://model.dynamic?RAdapter=Model_RAdapter&targetclass=XKTestJumpViewController"
              "&info[nickname]=%E4%BD%93%E8%B4%B4&name[bb]=123&num=2")
INTEGER = re.compile(r"-?[0-9]+")  # the same strict form in C and Swift: no spaces, no "+", no "_"


def fail(message: str) -> None:
    print("FAILED: " + message)
    sys.exit(1)


def expect(got: Any, want: Any) -> None:
    if got != want:
        fail("expected %r, got %r" % (want, got))


class JumpError(Exception):
    """A link the app cannot open: the message reaches the caller of open unchanged."""


# ---- the typed model and its adapter (the seed's RAdapter) -------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Info:
    nickname: str


@dataclasses.dataclass(frozen=True)
class Name:
    bb: int


@dataclasses.dataclass(frozen=True)
class JumpModel:
    info: Info
    name: Name
    num: int

    def describe(self) -> str:
        return "info.nickname=%s, name.bb=%d, num=%d" % (self.info.nickname, self.name.bb, self.num)


class Adapter:
    """Builds a dataclass from the match's nested params (bracket keys already nested by the library),
    converting each text value to the field's type; every problem names the field's dotted path."""

    def __init__(self, name: str, model: type) -> None:
        self.name = name
        self.model = model

    def __call__(self, params: Dict[str, Any]) -> Any:
        return self._build(self.model, params, "")

    def _build(self, cls: type, value: Any, path: str) -> Any:
        if not isinstance(value, dict):
            raise JumpError("%s: %s is not a group of parameters" % (self.name, path))
        hints = typing.get_type_hints(cls)
        fields = {}
        for field in dataclasses.fields(cls):
            where = path + "." + field.name if path else field.name
            if field.name not in value:
                raise JumpError("%s: %s is missing" % (self.name, where))
            fields[field.name] = self._convert(hints[field.name], value[field.name], where)
        return cls(**fields)

    def _convert(self, kind: type, raw: Any, where: str) -> Any:
        if dataclasses.is_dataclass(kind):
            return self._build(kind, raw, where)
        if not isinstance(raw, str):
            raise JumpError("%s: %s is not a single value" % (self.name, where))
        if kind is int:
            if not INTEGER.fullmatch(raw):
                raise JumpError("%s: %s: '%s' is not an integer" % (self.name, where, raw))
            return int(raw)
        return raw


ADAPTERS = {"Model_RAdapter": Adapter("Model_RAdapter", JumpModel)}


# ---- the app: session, screens, navigation stack ------------------------------------------------------------

class Session:
    user: Optional[str] = None


@dataclasses.dataclass
class Screen:
    class_name: str
    summary: str

    def describe(self) -> str:
        return "%s(%s)" % (self.class_name, self.summary)


class NavigationStack:
    """The parent view controller a link is opened from: screens are pushed onto it."""

    def __init__(self) -> None:
        self.screens: List[Screen] = []

    def describe(self) -> str:
        return " > ".join(s.class_name for s in self.screens)


def integer_param(params: Dict[str, Any], key: str, screen: str) -> int:
    raw = params.get(key, "")
    if not isinstance(raw, str) or not INTEGER.fullmatch(raw):
        raise JumpError("%s: %s '%s' is not an integer" % (screen, key, raw))
    return int(raw)


def router_test_screen(params: Dict[str, Any], model: Any, session: Session) -> Screen:
    num = integer_param(params, "num", "RouterTestViewController")
    return Screen("RouterTestViewController", "name=%s, num=%d" % (params.get("name", ""), num))


def my_orders_screen(params: Dict[str, Any], model: Any, session: Session) -> Screen:
    # Only reachable through com.authDynamic, so a user is logged in by the time it is built.
    return Screen("MyOrdersViewController", "user=%s, tab=%s" % (session.user, params.get("tab", "all")))


def jump_screen(params: Dict[str, Any], model: Any, session: Session) -> Screen:
    if not isinstance(model, JumpModel):
        raise JumpError("XKTestJumpViewController needs a model (RAdapter)")
    return Screen("XKTestJumpViewController", model.describe())


SCREENS = {
    "RouterTestViewController": router_test_screen,
    "MyOrdersViewController": my_orders_screen,
    "XKTestJumpViewController": jump_screen,
}


class OtherRoute:
    """What the unmatched handler gives back: an xksquare link that is not a dynamic jump."""


class App:
    def __init__(self) -> None:
        self.session = Session()
        self.nav = NavigationStack()
        self.router = linkrouter.Router.from_file(ROUTES)
        self.router.target("DynamicJump")(self.dynamic_jump)
        self.router.guard("login")(self.login_guard)
        self.router.unmatched(lambda request: OtherRoute())

    def login_guard(self, match: linkrouter.OpenMatch) -> Any:
        return True if self.session.user else linkrouter.DEFER

    def dynamic_jump(self, match: linkrouter.OpenMatch) -> Screen:
        """The handler of every dynamic link: targetclass picks the screen; RAdapter, when given, builds
        its model; the screen is pushed onto the stack the link was opened from (the open's context)."""
        params = match.params
        class_name = params.get("targetclass")
        if not class_name:
            raise JumpError("the link names no targetclass")
        make = SCREENS.get(class_name)
        if make is None:
            raise JumpError("no screen class '%s'" % class_name)
        model = None
        if "RAdapter" in params:
            adapter = ADAPTERS.get(params["RAdapter"])
            if adapter is None:
                raise JumpError("no adapter '%s'" % params["RAdapter"])
            model = adapter(params)
        screen = make(params, model, self.session)
        match.context.screens.append(screen)
        return screen

    def open_link(self, url: str) -> str:
        """Opens a link from anywhere (in the app, a push message, a web page) and says what came of it."""
        try:
            result = self.router.open(url, context=self.nav)
        except JumpError as error:
            return "error: %s" % error
        if result is linkrouter.DEFER:
            return "parked until login (%d waiting)" % len(self.router.pending("login"))
        if isinstance(result, OtherRoute):
            return "not a dynamic jump: left to the app's other routes"
        return "pushed " + result.describe()

    def open_and_check(self, url: str, want: str) -> None:
        print("open " + url)
        got = self.open_link(url)
        print("  " + got)
        expect(got, want)

    def check_stack(self, want: str) -> None:
        print("  stack: " + self.nav.describe())
        expect(self.nav.describe(), want)


# ---- the scenarios ---------------------------------------------------------------------------------------------

def login_free(app: App) -> None:
    print("== a login-free link opens the screen its targetclass names, with decoded parameters")
    app.open_and_check(GIFT_LINK, "pushed " + GIFT_SCREEN)
    app.check_stack("RouterTestViewController")


def parked_then_replayed(app: App) -> None:
    print("== logged out: login-required links are parked")
    # The router's own log (info: matches, guard verdicts, parking, replays) shows the core doing the parking.
    app.router.set_log(lambda level, message: print("  [log] " + message), level=linkrouter.LogLevel.INFO)
    before = app.nav.describe()
    app.open_and_check("xksquare://com.authDynamic?targetclass=MyOrdersViewController&tab=unpaid",
                       "parked until login (1 waiting)")
    app.open_and_check("xksquare://com.authDynamic?targetclass=RouterTestViewController"
                       "&name=%E8%AE%A2%E5%8D%95&num=7", "parked until login (2 waiting)")
    expect(app.nav.describe(), before)  # nothing opened while logged out
    print("== login as lili: the parked links open, in the order they came")
    app.session.user = "lili"
    parked = app.router.pending("login")
    results = app.router.resume("login")
    print("resume login replayed %d parked links:" % len(results))
    got = []
    for request, result in zip(parked, results):
        print("  " + request.url)
        line = "pushed " + result.describe() if isinstance(result, Screen) else "unexpected %r" % (result,)
        print("    " + line)
        got.append(line)
    app.router.set_log(None)
    expect(got, ["pushed MyOrdersViewController(user=lili, tab=unpaid)",
                 "pushed RouterTestViewController(name=订单, num=7)"])
    expect(len(app.router.pending("login")), 0)
    print("  waiting now: 0")
    app.check_stack(" > ".join(filter(None, [before, "MyOrdersViewController", "RouterTestViewController"])))


def logged_in(app: App) -> None:
    print("== logged in: a login-required link opens at once")
    app.open_and_check("xksquare://com.authDynamic?targetclass=MyOrdersViewController",
                       "pushed MyOrdersViewController(user=lili, tab=all)")


def typed_model(app: App) -> None:
    print("== RAdapter=Model_RAdapter: bracket parameters become a typed model")
    app.open_and_check(MODEL_LINK, "pushed XKTestJumpViewController(info.nickname=体贴, name.bb=123, num=2)")
    model = ADAPTERS["Model_RAdapter"](app.router.resolve(MODEL_LINK).params)
    expect(model, JumpModel(info=Info(nickname="体贴"), name=Name(bb=123), num=2))
    print("  model: JumpModel(info: Info(nickname: %s), name: Name(bb: %d), num: %d)"
          % (model.info.nickname, model.name.bb, model.num))


def push_and_web(app: App) -> None:
    print("== a push message and a web page carry the same URL: the same screen")
    push = {"title": "体贴 sent you a gift", "router": GIFT_LINK}  # the server puts the route in one field
    print('push "%s" carries %s' % (push["title"], push["router"]))
    from_push = app.open_link(push["router"])
    print("  " + from_push)
    with open(WEB_PAGE, encoding="utf-8") as page:
        html = page.read()
    start = html.index('window.location.href = "') + len('window.location.href = "')
    link = html[start:html.index('"', start)]
    print("web page %s links to %s" % (WEB_PAGE, link))
    from_web = app.open_link(link)
    print("  " + from_web)
    expect([from_push, from_web], ["pushed " + GIFT_SCREEN] * 2)
    print("  both opened %s, as the in-app link did" % GIFT_SCREEN)


ERRORS = [
    ("xksquare://com.dynamic?targetclass=NoSuchViewController", "error: no screen class 'NoSuchViewController'"),
    ("xksquare://com.dynamic?name=x", "error: the link names no targetclass"),
    ("xksquare://com.dynamic?targetclass=XKTestJumpViewController",
     "error: XKTestJumpViewController needs a model (RAdapter)"),
    ("xksquare://model.dynamic?RAdapter=Other_RAdapter&targetclass=XKTestJumpViewController",
     "error: no adapter 'Other_RAdapter'"),
    ("xksquare://model.dynamic?RAdapter=Model_RAdapter&targetclass=XKTestJumpViewController"
     "&info[age]=3&name[bb]=1&num=2",
     "error: Model_RAdapter: info.nickname is missing"),
    ("xksquare://model.dynamic?RAdapter=Model_RAdapter&targetclass=XKTestJumpViewController"
     "&info[nickname]=x&name[bb]=abc&num=2", "error: Model_RAdapter: name.bb: 'abc' is not an integer"),
    ("xksquare://com.other?x=1", "not a dynamic jump: left to the app's other routes"),
]


def errors(app: App) -> None:
    print("== links the app cannot open: the caller gets the reason")
    before = app.nav.describe()
    for url, want in ERRORS:
        app.open_and_check(url, want)
    expect(app.nav.describe(), before)  # a failed jump pushes nothing


def main() -> None:
    app = App()
    if sys.argv[1:] == ["demo"]:
        parked_then_replayed(app)
        return
    login_free(app)
    parked_then_replayed(app)
    logged_in(app)
    typed_model(app)
    push_and_web(app)
    errors(app)
    print("xksquare: all checks passed")


if __name__ == "__main__":
    main()

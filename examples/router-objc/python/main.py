"""Router-objc (seed 001), served by LinkRouter from Python.

Router-objc opens `scheme://className/methodName?key=value` links through a connector registered per scheme:
the native connector calls the action `methodName` of the target `Target_<className>` and returns the object
it builds (`app://user/detail?uid=1&name=Lili` gives a User); the HTTP connector opens http and https URLs in
a web controller. Each connector may refuse a URL first (`willPerformURL`), and every failure comes back to
the caller as an error. Here a connector registers its routes (target = the connector's name) and its
`willPerformURL` as a guard those routes require.

Run from the repository root:
    PYTHONPATH=bindings/python LINKROUTER_LIBRARY=build/lib/liblinkrouter.so python3 examples/router-objc/python/main.py
"""
from __future__ import annotations

import dataclasses
import re
import sys
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple

import linkrouter

INTEGER = re.compile(r"-?[0-9]+")  # the same strict form in C and Swift: no spaces, no "+", no "_"


def fail(message: str) -> None:
    print("FAILED: " + message)
    sys.exit(1)


def expect(got: Any, want: Any) -> None:
    if got != want:
        fail("expected %r, got %r" % (want, got))


class RouteError(Exception):
    """What a connector's performURL reports (Router-objc's NSError): reaches the caller of open unchanged."""


# ---- the objects targets build ------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class User:
    uid: int
    name: str

    def describe(self) -> str:
        return "User(uid=%d, name=%s)" % (self.uid, self.name)


@dataclasses.dataclass(frozen=True)
class Product:
    id: int

    def describe(self) -> str:
        return "Product(id=%d)" % self.id


@dataclasses.dataclass(frozen=True)
class WebController:
    url: str

    def describe(self) -> str:
        return "WebController(url=%s)" % self.url


@dataclasses.dataclass(frozen=True)
class Performed:
    connector: str
    url: str

    def describe(self) -> str:
        return "%s performed %s" % (self.connector, self.url)


def integer_param(params: Mapping[str, Any], key: str, action: str) -> int:
    raw = params.get(key, "")
    if not isinstance(raw, str) or not INTEGER.fullmatch(raw):
        raise RouteError("%s: %s '%s' is not an integer" % (action, key, raw))
    return int(raw)


# ---- targets: Target_<className>, one function per action ------------------------------------------------------

Action = Callable[[Mapping[str, Any]], Any]

TARGETS: Dict[str, Dict[str, Action]] = {
    "Target_user": {
        # app://user/detail?uid=x&name=xxx
        "detail": lambda p: User(uid=integer_param(p, "uid", "Target_user.detail"), name=p.get("name", "")),
        # app://user/userCenter
        "userCenter": lambda p: User(uid=0, name=""),
    },
    "Target_product": {
        "show": lambda p: Product(id=integer_param(p, "id", "Target_product.show")),
    },
}


# ---- connectors ------------------------------------------------------------------------------------------------

class Connector:
    """Router-objc's URLConnector: `will_perform` may refuse a URL (a reason) or let it through (None);
    `perform` opens it. `paths` are the route patterns it takes after `scheme://`."""

    name = "Connector"
    paths: Sequence[str] = ("*",)

    def will_perform(self, match: linkrouter.OpenMatch) -> Optional[str]:
        return None

    def perform(self, match: linkrouter.OpenMatch) -> Any:
        raise NotImplementedError


class NativeConnector(Connector):
    name = "NativeConnector"
    paths = (":target/:action", ":target")

    def perform(self, match: linkrouter.OpenMatch) -> Any:
        params = match.params
        class_name = "Target_" + params["target"]
        actions = TARGETS.get(class_name)
        if actions is None:
            raise RouteError("no target class '%s'" % class_name)
        if "action" not in params:
            raise RouteError("%s names no action (scheme://className/methodName)" % match.url)
        action = actions.get(params["action"])
        if action is None:
            raise RouteError("%s has no action '%s'" % (class_name, params["action"]))
        return action(params)


class HTTPConnector(Connector):
    name = "HTTPConnector"

    def __init__(self, web_controller_class: Callable[[str], Any], blocked_hosts: Sequence[str]) -> None:
        self.web_controller_class = web_controller_class
        self.blocked_hosts = blocked_hosts

    def will_perform(self, match: linkrouter.OpenMatch) -> Optional[str]:
        if match.host in self.blocked_hosts:
            return "HTTPConnector refused %s: host %s is blocked" % (match.url, match.host)
        return None

    def perform(self, match: linkrouter.OpenMatch) -> Any:
        return self.web_controller_class(match.url)


class TestConnector(Connector):
    """A connector of the app's own, as the seed's README shows: it takes every test:// URL."""

    name = "TestConnector"

    def perform(self, match: linkrouter.OpenMatch) -> Any:
        return Performed(self.name, match.url)


class ConnectorRouter:
    """Router-objc's Router: connectors by scheme, and openURL:error:."""

    def __init__(self) -> None:
        self.router = linkrouter.Router()
        self.router.unmatched(self.no_connector)

    def register_connector(self, connector: Connector, scheme: str) -> None:
        guard = connector.name + ".willPerformURL"
        # A reason denies the open with that message; True lets it through.
        self.router.add_guard(guard, lambda match: connector.will_perform(match) or True)
        for path in connector.paths:
            self.router.route("%s://%s" % (scheme, path), target=connector.name, requires=[guard])(connector.perform)

    @staticmethod
    def no_connector(request: linkrouter.OpenRequest) -> Any:
        raise RouteError("no connector takes %s" % request.url)

    def open_url(self, url: str) -> Tuple[Any, Optional[str]]:
        """The object the URL opens and no error, or None and the error (Router-objc's openURL:error:)."""
        try:
            return self.router.open(url), None
        except RouteError as error:
            return None, "error: %s" % error
        except linkrouter.DeniedError as error:
            return None, "refused: %s" % error.message


# ---- the scenarios ---------------------------------------------------------------------------------------------

def make_router() -> ConnectorRouter:
    router = ConnectorRouter()
    http = HTTPConnector(WebController, blocked_hosts=["ads.example.net"])
    router.register_connector(http, "http")
    router.register_connector(http, "https")
    router.register_connector(NativeConnector(), "app")
    router.register_connector(TestConnector(), "test")
    return router


def open_and_check(router: ConnectorRouter, url: str, want: str) -> Any:
    print("open " + url)
    value, error = router.open_url(url)
    got = error if error is not None else value.describe()
    print("  " + got)
    expect(got, want)
    return value


def target_action(router: ConnectorRouter) -> None:
    print("== app://<className>/<methodName>?params calls the target's action and returns its object")
    user = open_and_check(router, "app://user/detail?uid=1&name=Lili", "User(uid=1, name=Lili)")
    expect((user.uid, user.name), (1, "Lili"))  # a typed object, uid an integer
    for url, want in [
        ("app://user/detail?name=Lili&uid=2", "User(uid=2, name=Lili)"),
        ("app://user/userCenter", "User(uid=0, name=)"),
        ("app://product/show?id=7", "Product(id=7)"),
    ]:
        open_and_check(router, url, want)


def web_pages(router: ConnectorRouter) -> None:
    print("== http and https URLs go to the web controller, with the URL")
    for url in ["https://www.example.com/p/7?from=mail", "http://m.example.com/news"]:
        page = open_and_check(router, url, "WebController(url=%s)" % url)
        expect(page.url, url)


def custom_connector(router: ConnectorRouter) -> None:
    print("== a connector of the app's own, registered for test://")
    open_and_check(router, "test://echo?word=hi", "TestConnector performed test://echo?word=hi")


REFUSED = [
    ("https://ads.example.net/landing",
     "refused: HTTPConnector refused https://ads.example.net/landing: host ads.example.net is blocked"),
    # The host as the routes compare it: percent-encoding or case does not get past the veto.
    ("https://%61ds.Example.net/landing",
     "refused: HTTPConnector refused https://%61ds.Example.net/landing: host ads.example.net is blocked"),
    ("app://order/detail?id=1", "error: no target class 'Target_order'"),
    ("app://user/delete?uid=1", "error: Target_user has no action 'delete'"),
    ("app://user", "error: app://user names no action (scheme://className/methodName)"),
    ("app://user/detail?uid=x&name=Lili", "error: Target_user.detail: uid 'x' is not an integer"),
    ("ftp://files.example.com/a.txt", "error: no connector takes ftp://files.example.com/a.txt"),
]


def errors(router: ConnectorRouter) -> None:
    print("== a veto or a failure comes back to the caller as an error")
    for url, want in REFUSED:
        value = open_and_check(router, url, want)
        expect(value, None)


def main() -> None:
    router = make_router()
    if sys.argv[1:] == ["demo"]:
        target_action(router)
        return
    target_action(router)
    web_pages(router)
    custom_connector(router)
    errors(router)
    print("router-objc: all checks passed")


if __name__ == "__main__":
    main()

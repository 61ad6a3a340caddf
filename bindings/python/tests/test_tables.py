"""Route tables from Python (docs/TABLES.md): load, check, export, atomic failure, every problem with its pointer
(the rows of Tests/LinkRouterTests/TableFileTests.swift), url_for (table and round trip), explain, and the same
output as the C example for examples/tables/shop.json."""
from __future__ import annotations

import json
import os
import pickle
import random
import urllib.parse

import pytest

import linkrouter
from conftest import REPO_ROOT

SHOP = os.path.join(REPO_ROOT, "examples", "tables", "shop.json")
C_EXPECTED = os.path.join(REPO_ROOT, "examples", "c", "tables.expected")


@pytest.fixture
def shop():
    router = linkrouter.Router.from_file(SHOP)
    yield router
    router.close()


def test_shop_table_round_trips(shop):
    assert len(shop) == 16
    exported = shop.to_json()
    again = linkrouter.Router.from_json(exported)
    assert again.to_json() == exported  # load -> export -> load -> export: the same bytes
    doc = json.loads(exported)
    assert len(doc["routes"]) == 16 and len(doc["rewrites"]) == 4
    cart = [r for r in doc["routes"] if r.get("name") == "cart"][0]
    assert cart["requires"] == ["login"]
    product = shop.resolve("shop://product/1")
    assert (product.name, product.meta) == ("product", {"class": "ProductViewController", "transition": "push"})
    assert shop.resolve("shop://cart").requires == ["login"]
    with open(SHOP, "rb") as f:
        assert linkrouter.Router.from_json(f.read()).to_json() == exported  # bytes work too
    again.close()


def test_export_layout():
    r = linkrouter.Router()
    r.add_route("app://b", "B", name="b", requires=["login", "age"], meta={"z": "1", "a": "\"q\"\n"})
    r.add("app://a/:id", "A")
    r.add_rewrite("^old://(.*)", "app://a/$1")
    assert r.to_json() == """{
  "version": 1,
  "routes": [
    {
      "pattern": "app://b",
      "target": "B",
      "name": "b",
      "requires": [
        "login",
        "age"
      ],
      "meta": {
        "a": "\\"q\\"\\n",
        "z": "1"
      }
    },
    {
      "pattern": "app://a/:id",
      "target": "A"
    }
  ],
  "rewrites": [
    {
      "match": "^old://(.*)",
      "target": "app://a/$1"
    }
  ]
}
"""
    assert linkrouter.Router().to_json() == '{\n  "version": 1,\n  "routes": [],\n  "rewrites": []\n}\n'


T, P, C, RX, L = -8, -3, -4, -5, -6  # LR_ETABLE, LR_EPATTERN, LR_ECONFLICT, LR_EREGEX, LR_ELIMIT

# (document, [(pointer, the reason, code)]): TableFileTests.testEveryProblemHasItsPointer's rows
PROBLEMS = [
    ("", [("", "JSON syntax error at byte 0 (line 1, column 1): unexpected end of text", T)]),
    ('{"version": 1,',
     [("", "JSON syntax error at byte 14 (line 1, column 15): expected a member name in double quotes", T)]),
    ("[]", [("", "expected an object, found an array", T)]),
    ("{}", [("", "missing key 'version' (the table format version, 1)", T)]),
    ('{"version": 2}', [("/version", "unsupported table format version 2 (this LinkRouter reads version 1)", T)]),
    ('{"version": "1"}', [("/version", "expected the number 1, found a string", T)]),
    ('{"version": 1, "route": []}', [("/route", "unknown key 'route' (expected $schema, version, routes, rewrites)", T)]),
    ('{"version": 1, "version": 1}', [("/version", "key 'version' appears twice", T)]),
    ('{"version": 1, "routes": {}}', [("/routes", "expected an array, found an object", T)]),
    ('{"version": 1, "routes": [7]}', [("/routes/0", "expected an object, found a number", T)]),
    ('{"version": 1, "routes": [{"target": "T"}]}', [("/routes/0", "missing key 'pattern'", T)]),
    ('{"version": 1, "routes": [{"pattern": "a://b"}]}', [("/routes/0", "missing key 'target'", T)]),
    ('{"version": 1, "routes": [{"pattern": "a://b", "target": 1}]}',
     [("/routes/0/target", "expected a string, found a number", T)]),
    ('{"version": 1, "routes": [{"pattern": "a://b", "target": "T", "x/y~": 1}]}',
     [("/routes/0/x~1y~0", "unknown key 'x/y~' (expected pattern, target, name, requires, meta)", T)]),
    ('{"version": 1, "routes": [{"pattern": "a://b", "target": "T\\u0000"}]}',
     [("/routes/0/target", "contains U+0000 (NUL), which C strings cannot carry", T)]),
    ('{"version": 1, "routes": [{"pattern": "a://b", "target": "T", "name": ""}]}',
     [("/routes/0/name", "a route name is a non-empty string", T)]),
    ('{"version": 1, "routes": [{"pattern": "a://b", "target": "T", "requires": "login"}]}',
     [("/routes/0/requires", "expected an array, found a string", T)]),
    ('{"version": 1, "routes": [{"pattern": "a://b", "target": "T", "requires": ["a", "a"]}]}',
     [("/routes/0/requires/1", "guard 'a' is listed twice (also at /routes/0/requires/0)", T)]),
    ('{"version": 1, "routes": [{"pattern": "a://b", "target": "T", "meta": {"k": 1}}]}',
     [("/routes/0/meta/k", "expected a string, found a number", T)]),
    ('{"version": 1, "routes": [{"pattern": "a://b", "target": "T", "meta": {"k": "1", "k": "2"}}]}',
     [("/routes/0/meta/k", "key 'k' appears twice", T)]),
    ('{"version": 1, "routes": [{"pattern": "app://a//b", "target": "T"}]}',
     [("/routes/0/pattern", "malformed pattern 'app://a//b' at byte 8: empty segment ('//' in a pattern)", P)]),
    ('{"version": 1, "routes": [{"pattern": "app://x/:id", "target": "A"}, {"pattern": "app://x/:other", "target": "B"}]}',
     [("/routes/1/pattern",
       "pattern 'app://x/:other' conflicts with /routes/0 ('app://x/:id'): both match exactly the same URLs", C)]),
    ('{"version": 1, "routes": [{"pattern": "app://x", "target": "A", "name": "n"}, {"pattern": "app://y", "target": "B", "name": "n"}]}',
     [("/routes/1/name", "route name 'n' is already used by /routes/0 ('app://x')", C)]),
    ('{"version": 1, "rewrites": [{"match": "(", "target": "x://y"}]}',
     [("/rewrites/0/match", "invalid rewrite regex '(' at byte 1: missing closing parenthesis (PCRE2 error 114)", RX)]),
    ('{"version": 1, "rewrites": [{"match": "(a)", "target": "x://$nope"}]}',
     [("/rewrites/0/target", "malformed rewrite target 'x://$nope' at byte 4: unknown word '$nope' (expected a group "
                             "number, ${name}, $scheme, $host, $port, $path, $query, $fragment or $url; write \\$ for a "
                             "literal dollar)", P)]),
    ('{"version": 1, "rewrites": [{"match": "a", "target": "x://${zz}"}]}',
     [("/rewrites/0/target", "malformed rewrite target 'x://${zz}' at byte 4: the regex has no group named 'zz'", P)]),
    ('{"version": 1, "rewrites": [{"match": "a", "target": "x://1"}, {"match": "a", "target": "x://2"}]}',
     [("/rewrites/1/match", "the same regex as /rewrites/0 (one of the two would be lost)", T)]),
    ('{"version": 1, "rewrites": [{"match": "a"}]}', [("/rewrites/0", "missing key 'target'", T)]),
    # Several problems at once, in document order.
    ('{"zz": 0, "version": 1, "routes": [{"pattern": "app://:", "target": "A"}, {"pattern": "x", "target": 2}], '
     '"rewrites": [{"match": "[", "target": "t"}]}',
     [("/zz", "unknown key 'zz' (expected $schema, version, routes, rewrites)", T),
      ("/routes/0/pattern", "malformed pattern 'app://:' at byte 7: ':' needs a parameter name", P),
      ("/routes/1/target", "expected a string, found a number", T),
      ("/routes/1/pattern", "malformed pattern 'x' at byte 1: expected '://' after the scheme", P),
      ("/rewrites/0/match",
       "invalid rewrite regex '[' at byte 1: missing terminating ] for character class (PCRE2 error 106)", RX)]),
]


@pytest.mark.parametrize("document, expected", PROBLEMS, ids=[str(i) for i in range(len(PROBLEMS))])
def test_every_problem_has_its_pointer(document, expected):
    r = linkrouter.Router()
    with pytest.raises(linkrouter.TableError) as info:
        r.load_json(document)
    e = info.value
    assert e.code == -8 and isinstance(e, linkrouter.LinkRouterError)
    assert len(e.problems) == len(expected), e.message
    for problem, (pointer, reason, code) in zip(e.problems, expected):
        assert isinstance(problem, linkrouter.TableProblem)
        assert problem.pointer == pointer, e.message
        assert problem.reason == reason, e.message
        assert problem.code == code, problem
    assert e.message == "\n".join("%s: %s" % (p.pointer, p.reason) if p.pointer else p.reason for p in e.problems)
    report = r.check_json(document)
    assert report["valid"] is False
    assert [tuple(p.values()) for p in report["problems"]] == [tuple(p) for p in e.problems]  # check finds it too
    e2 = pickle.loads(pickle.dumps(e))
    assert type(e2) is linkrouter.TableError and e2.problems == e.problems
    assert len(r) == 0
    with pytest.raises(linkrouter.TableError):
        linkrouter.Router.from_json(document)


def test_a_failed_load_changes_nothing(shop):
    bad = ('{"version": 1, "routes": [{"pattern": "fresh://a", "target": "A", "name": "fresh"}, '
           '{"pattern": "x://a//", "target": "B"}], "rewrites": [{"match": "^z", "target": "fresh://a"}]}')
    before = shop.to_json()
    for replace in (True, False):
        with pytest.raises(linkrouter.TableError) as info:
            shop.load_json(bad, replace=replace)
        assert [p.pointer for p in info.value.problems] == ["/routes/1/pattern"]
        assert shop.to_json() == before
        with pytest.raises(linkrouter.NotFoundError):
            shop.url_for("fresh")
        assert shop.resolve("fresh://a") is None
        assert shop.resolve("shop://product/1").target == "ProductScreen"


def test_merge_and_replace():
    r = linkrouter.Router.from_json('{"version": 1, "routes": [{"pattern": "app://a", "target": "A", "name": "a"}], '
                                    '"rewrites": [{"match": "^old://", "target": "app://a"}]}')
    r.add_rewrite("^keep://", "app://a")
    r.load_json('{"version": 1, "routes": [{"pattern": "app://b", "target": "B"}], "rewrites": '
                '[{"match": "^old://", "target": "app://b"}, {"match": "^new://", "target": "app://b"}]}', replace=False)
    doc = json.loads(r.to_json())
    assert [x["pattern"] for x in doc["routes"]] == ["app://a", "app://b"]
    assert ["%s=%s" % (x["match"], x["target"]) for x in doc["rewrites"]] == [
        "^old://=app://b", "^keep://=app://a", "^new://=app://b"]
    with pytest.raises(linkrouter.TableError) as info:
        r.load_json('{"version": 1, "routes": [{"pattern": "app://a/", "target": "X"}, '
                    '{"pattern": "app://c", "target": "C", "name": "a"}]}', replace=False)
    assert info.value.problems == [
        ("/routes/0/pattern", -4, "pattern 'app://a/' conflicts with existing route 'app://a': both match exactly the same URLs"),
        ("/routes/1/name", -4, "route name 'a' is already used by existing route 'app://a'"),
    ]
    r.set_limit(linkrouter.Limit.SEGMENTS, 9)
    r.load_json('{"version": 1, "routes": [{"pattern": "app://a", "target": "A2", "name": "a"}]}')
    assert r.resolve("app://a").target == "A2" and r.rewrite("old://x") is None
    assert r.get_limit(linkrouter.Limit.SEGMENTS) == 9  # limits stay
    with pytest.raises(linkrouter.TableError) as info:
        r.load_json('{"version": 1, "routes": [{"pattern": "app://1/2/3/4/5/6/7/8/9/10", "target": "X"}]}')
    assert info.value.problems[0].code == -6


def test_files_and_io_errors(tmp_path):
    with pytest.raises(linkrouter.LinkRouterIOError) as info:
        linkrouter.Router.from_file("/nonexistent/table.json")
    assert isinstance(info.value, OSError) and info.value.code == -9
    assert info.value.message == "cannot open table file '/nonexistent/table.json': No such file or directory"
    for path in ("/tmp", ""):
        with pytest.raises(linkrouter.LinkRouterIOError):
            linkrouter.Router.from_file(path)
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"{\xff}")
    with pytest.raises(linkrouter.TableError) as info:
        linkrouter.Router.from_file(bad)  # an os.PathLike
    assert info.value.message == "JSON syntax error at byte 1 (line 1, column 2): not valid UTF-8 (the table must be UTF-8 text)"
    assert info.value.problems == [("", -8, "JSON syntax error at byte 1 (line 1, column 2): not valid UTF-8 (the table must be UTF-8 text)")]
    assert info.value.offset == 1
    good = tmp_path / "good.json"
    good.write_text('{"version": 1, "routes": [{"pattern": "app://x", "target": "X"}]}')
    r = linkrouter.Router()
    r.load_file(str(good))
    assert r.resolve("app://x").target == "X"
    assert r.check_file(good) == {"valid": True, "problems": [], "warnings": []}
    with pytest.raises(linkrouter.LinkRouterIOError):
        r.check_file(tmp_path / "missing.json")
    r.load_file(os.fsencode(str(good)))  # bytes
    with pytest.raises(linkrouter.InvalidURLError):
        r.load_json('{"version": 1}\0')
    with pytest.raises(linkrouter.InvalidURLError):
        r.load_json(b'{"version": 1, "routes": [{"pattern": "app://\xff", "target": "X"}]}')
    with pytest.raises(linkrouter.InvalidURLError):
        r.load_json('{"version": 1, "x": "\udc80"}')
    with pytest.raises(linkrouter.InvalidURLError):
        r.load_file("a\0b")
    with pytest.raises(TypeError):
        r.load_json(None)
    with pytest.raises(TypeError):
        r.load_file(5)
    assert r.resolve("app://x").target == "X"


def test_check_reports_warnings():
    r = linkrouter.Router()
    report = r.check_json('{"version": 1, "routes": [{"pattern": "app://x", "target": "a"}, '
                          '{"pattern": "app://x/:p/*b", "target": "b"}, {"pattern": "app://x/*a", "target": "c"}], '
                          '"rewrites": [{"match": "^old://(\\\\d+)", "target": "app://nowhere/$1"}]}')
    assert report["valid"] is True and report["problems"] == []
    assert [(w["kind"], w["pointer"]) for w in report["warnings"]] == [
        ("shadowed", "/routes/2"), ("rewrite_routes_nowhere", "/rewrites/0/target")]
    assert len(r) == 0  # checking changes nothing


# -- url_for ------------------------------------------------------------------------------------------------------

BUILD_ROUTES = [
    ("shop://product/:id", "Product", "product"),
    ("shop://:section/:id/edit", "Edit", "edit"),
    ("files://open/*path", "Files", "files"),
    ("app://*", "Anything", "anything"),
    ("https://www.example.com:8080/p/:id/", "Port", "port"),
    ("app://caf%C3%A9/x", "Cafe", "cafe"),
    ("*://share/:id", "Share", "share"),
    ("search://q/:query/:name", "Search", "search"),
]

PRODUCT = "cannot build the URL of route 'product' ('shop://product/:id'): "

# (name, params, query, the URL or (exception class, the message)): URLBuildTests.testBuildTable's rows
BUILDS = [
    ("product", {"id": "42"}, None, "shop://product/42"),
    ("product", {"id": 42}, None, "shop://product/42"),
    ("product", {"id": "a b/c?d#e%f"}, None, "shop://product/a%20b%2Fc%3Fd%23e%25f"),
    ("product", {"id": "体"}, None, "shop://product/%E4%BD%93"),
    ("product", {"id": "!$&'()*+,;=:@"}, None, "shop://product/!$&'()*+,;=%3A%40"),
    ("product", {"id": ".."}, None, "shop://product/%2E%2E"),
    ("product", {"id": "7"}, {"tab": "a&b=c+d #1", "x": "/?:@"}, "shop://product/7?tab=a%26b%3Dc%2Bd%20%231&x=/?:@"),
    ("product", {"id": "7", "?tab": "t"}, None, "shop://product/7?tab=t"),
    ("product", {"id": "1"}, [("b", "2"), ("a", "1"), ("b", 3)], "shop://product/1?b=2&a=1&b=3"),
    ("edit", {"section": "Users:1@h", "id": "9"}, None, "shop://Users%3A1%40h/9/edit"),
    ("files", {"path": "docs/a b.pdf"}, None, "files://open/docs/a%20b.pdf"),
    ("files", {"path": ""}, None, "files://open"),
    ("anything", {"*": "host/x"}, None, "app://host/x"),
    ("port", {"id": "1"}, None, "https://www.example.com:8080/p/1"),
    ("cafe", {}, None, "app://caf%C3%A9/x"),
    ("search", {"query": "q q", "name": "n"}, None, "search://q/q%20q/n"),  # path parameters called query and name
    ("product", {}, None, (linkrouter.InvalidURLError, PRODUCT + "parameter 'id' is missing")),
    ("product", {"id": ""}, None,
     (linkrouter.InvalidURLError, PRODUCT + "parameter 'id' is empty (':id' matches one non-empty segment)")),
    ("product", {"id": "1", "idx": "2"}, None,
     (linkrouter.InvalidURLError, PRODUCT + "no parameter 'idx' (it has 'id'; write '?idx' for a query parameter)")),
    ("product", {"id": "1"}, {"id": "2"}, (linkrouter.InvalidURLError, PRODUCT + "query parameter '?id' has the name "
                                                                                 "of a path parameter, which would win over it")),
    ("product", {"id": "1"}, {"": "2"}, (linkrouter.InvalidURLError, PRODUCT + "a query parameter needs a name after '?'")),
    ("files", {"path": "a//b"}, None,
     (linkrouter.InvalidURLError, "cannot build the URL of route 'files' ('files://open/*path'): catch-all 'path' has an "
                                  "empty segment in 'a//b' (leading, trailing or doubled '/'), which the URL would lose")),
    ("share", {"id": "1"}, None,
     (linkrouter.InvalidURLError, "cannot build the URL of route 'share' ('*://share/:id'): it matches any scheme "
                                  "('*://'), so it has no one URL to build")),
    ("nobody", {}, None, (linkrouter.NotFoundError, "no route is named 'nobody'")),
    ("product", {"id": 1.5}, None, (TypeError, "parameter 'id' must be str or int, not float")),
    ("product", {"id": True}, None, (TypeError, "parameter 'id' must be str or int, not bool")),
    ("product", {"id": "1"}, 5, (TypeError, "query must be a mapping or (key, value) pairs")),
]


@pytest.fixture
def builder():
    r = linkrouter.Router()
    for pattern, target, name in BUILD_ROUTES:
        r.add_route(pattern, target, name=name)
    yield r
    r.close()


@pytest.mark.parametrize("name, params, query, expected", BUILDS, ids=[str(i) for i in range(len(BUILDS))])
def test_url_for(builder, name, params, query, expected):
    kwargs = dict(params)
    if query is not None:
        kwargs["query"] = query
    if isinstance(expected, tuple):
        cls, text = expected
        with pytest.raises(cls) as info:
            builder.url_for(name, **kwargs)
        assert (type(info.value), str(info.value)) == (cls, text)
    else:
        assert builder.url_for(name, **kwargs) == expected


def test_url_for_limits(builder):
    builder.set_limit(linkrouter.Limit.URL_LENGTH, 40)
    with pytest.raises(linkrouter.LimitError):
        builder.url_for("product", id="x" * 40)


POOL = ["a", "Z", "0", "-", ".", "_", "~", " ", "/", "?", "#", "%", "&", "=", "+", ":", "@", "[", "]", "!", "$", "'",
        "(", ")", "*", ",", ";", '"', "<", ">", "\\", "^", "`", "{", "|", "}", "é", "体", "😀", "%41", "%zz", "\t"]


def test_built_urls_resolve_back_to_the_same_route_and_values():
    r = linkrouter.Router()
    r.add_route("shop://product/:id", "Product", name="product")
    r.add_route("shop://p/:a/x/:b", "Two", name="two")
    r.add_route("host://:h/page", "Host", name="host")
    r.add_route("files://open/*path", "Files", name="files")
    rnd = random.Random(42)

    def value(min_length=1):
        return "".join(rnd.choice(POOL) for _ in range(min_length + rnd.randrange(6)))

    for i in range(3000):
        q, tab = value(), value(0)
        kind = i % 4
        if kind == 0:
            id_ = value()
            url = r.url_for("product", id=id_, query=[("q", q), ("t a b", tab)])
            m = r.resolve(url)
            assert (m.target, m.params) == ("Product", {"id": id_, "q": q, "t a b": tab}), url
        elif kind == 1:
            a, b = value(), value()
            m = r.resolve(r.url_for("two", a=a, b=b))
            assert (m.target, m.params) == ("Two", {"a": a, "b": b})
        elif kind == 2:
            h = value()
            m = r.resolve(r.url_for("host", h=h))
            assert (m.target, m.params) == ("Host", {"h": h})
        else:
            path = "/".join(value().replace("/", "-") for _ in range(1 + rnd.randrange(3)))
            url = r.url_for("files", path=path)
            m = r.resolve(url)
            built = url[len("files://open/"):]
            assert (m.target, m.params["path"]) == ("Files", built), url  # a catch-all comes back as built
            assert urllib.parse.unquote(built, errors="strict") == path, url


# -- explain ------------------------------------------------------------------------------------------------------

def test_explain_matched_unmatched_rewritten_and_refused(shop):
    product = shop.explain("shop://product/42?ref=mail")
    assert product["result"] == "matched"
    assert product["route"]["name"] == "product" and product["sequence"] == ["product", "42"]
    assert product["params"] == {"id": "42", "ref": "mail"}
    assert [rule["outcome"] for rule in product["rewrite"]["rules"]] == ["no_match"] * 4
    assert product["candidates"][0]["matched"] is True
    assert product["candidates"][1]["reason"] == "the URL ends after 2 elements; the pattern needs 3"
    assert product["other_scheme_routes"] == 4
    assert shop.explain("shop://cart")["requires"] == ["login"]

    nothing = shop.explain("shop://product")
    assert nothing["result"] == "nomatch" and nothing["route"] is None
    assert [c["reason"] for c in nothing["candidates"][:2]] == [
        "the URL ends after 1 element; the pattern needs 2", "the URL ends after 1 element; the pattern needs 3"]

    legacy = shop.explain("http://oldshop.example.com/item.php?id=7")
    assert [rule["outcome"] for rule in legacy["rewrite"]["rules"]] == ["fired", "not_tried", "not_tried", "not_tried"]
    assert legacy["rewrite"]["fired"] == 0
    assert legacy["routed"] == "shop://product/7?from=legacy"
    assert legacy["route"]["pattern"] == "shop://product/:id"
    assert legacy["params"] == {"id": "7", "from": "legacy"}

    refused = shop.explain("not a url")
    assert refused["result"] == "error" and refused["error"]["code"] == -2
    assert shop.explain_text("ftp://x/y") == (
        "url         ftp://x/y\n"
        "rewrite     no rule fired (4 rules)\n"
        "sequence    x / y\n"
        "result      no match\n"
        "candidates  no route has this URL's scheme (16 with another scheme)\n")
    with pytest.raises(linkrouter.InvalidURLError):
        shop.explain("app://\udc80")


def test_explain_json_and_text():
    r = linkrouter.Router()
    r.add_route("app://user/:id", "User", name="user", requires=["login"], meta={"t": "push"})
    r.add_rewrite("^old://u/(\\d+)", "app://user/$1")
    assert r.explain("old://u/5") == json.loads(
        r'{"url":"old://u/5","result":"matched","rewrite":{"rules":[{"index":0,"match":"^old://u/(\\d+)",'
        r'"target":"app://user/$1","outcome":"fired","indexed":true}],"fired":0},"routed":"app://user/5",'
        r'"sequence":["user","5"],"candidates":[{"pattern":"app://user/:id","target":"User","name":"user",'
        r'"matched":true,"reason":"matched","elements_matched":2}],"candidates_omitted":0,"other_scheme_routes":0,'
        r'"route":{"pattern":"app://user/:id","target":"User","name":"user","requires":["login"],'
        r'"meta":{"t":"push"}},"params":{"id":"5"},"requires":["login"]}')
    assert r.explain_text("old://u/5") == (
        "url         old://u/5\n"
        "rewrite     rule 0 fired: '^old://u/(\\d+)' -> 'app://user/$1' (1 rule)\n"
        "routed      app://user/5\n"
        "sequence    user / 5\n"
        "result      matched app://user/:id -> User (name user)\n"
        "candidates  1 route with this URL's scheme\n"
        "  match     app://user/:id\n"
        "params      id=5\n"
        "requires    login\n"
        "meta        t=push\n")


# -- the C example's output ---------------------------------------------------------------------------------------

LINKS = [
    "shop://product/42?ref=mail", "shop://cart", "https://shop.example.com/p/7?utm_source=ad",
    "shop://push/order/981/status", "http://oldshop.example.com/item.php?id=1234", "https://m.shop.example.com/c/shoes",
    "shop://help/returns/late%20parcel", "shop://unknown/page",
]


def test_the_same_results_as_c_for_the_shop_table():
    """examples/c/tables.c's steps through the binding give examples/c/tables.expected, byte for byte."""
    r = linkrouter.Router()
    lines = ["check: " + json.dumps(r.check_file(SHOP), separators=(",", ":")), ""]
    r.load_file(SHOP)
    for link in LINKS:
        m = r.resolve(link)
        if m is None:
            lines.append("%-46s  no route" % link)
            continue
        line = "%-46s  %-18s name=%s" % (link, m.target, m.name or "-")
        line += "".join(" %s=%s" % (k, v) for k, v in m.params.items())
        lines.append(line + (" meta=" + m.metadata if m.metadata else ""))
    lines.append("")
    lines.append("url for product: " + r.url_for("product", id="42", query={"ref": "mail & push"}))
    lines.append("url for help:    " + r.url_for("help", topic="returns/late parcel"))
    lines.append("")
    out = "\n".join(lines) + "\n" + r.explain_text("shop://orders/12/invoice")
    with open(C_EXPECTED, encoding="utf-8") as f:
        assert out == f.read()


# Overlaps: (routes added in order, [(kind, winner, other, example)]). Each example resolves to its winner.
OVERLAP_ROWS = [
    ([("shop://p/:slug", "Slug")], []),
    ([("shop://p/:slug", "Slug"), ("shop://p/:id<uint>", "Id")],
     [("typed", "shop://p/:id<uint>", "shop://p/:slug", "shop://p/1")]),
    ([("img://a/{name}.png", "Png"), ("img://a/:file", "File"), ("img://a/thumb.png", "Thumb")],
     [("typed", "img://a/{name}.png", "img://a/:file", "img://a/1.png")]),
    ([("*://share/:id", "Share"), ("shop://*rest", "Rest")],
     [("any_scheme", "shop://*rest", "*://share/:id", "shop://share/1")]),
]


@pytest.mark.parametrize("routes, expected", OVERLAP_ROWS)
def test_overlaps(routes, expected):
    r = linkrouter.Router()
    for pattern, target in routes:
        r.add(pattern, target)
    got = r.overlaps()
    assert [(o["kind"], o["winner"], o["other"], o["example"]) for o in got] == expected
    for o in got:
        assert r.resolve(o["example"]).pattern == o["winner"]
        assert o["other"] in o["reason"] and o["winner"] in o["reason"]
    r.close()

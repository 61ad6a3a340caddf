"""The nested view of parameters (docs/SEMANTICS.md §4): bracket keys nest as in PHP and Rails. The C library's
JSON (lr_match_to_json, through the allocating API: lr_router_resolve_with) is the reference: Match.params must
equal its "params" object, key order included, for every input."""
from __future__ import annotations

import json
import random

import pytest

import linkrouter
from linkrouter import Limit

# Ported from Tests/LinkRouterTests/ParamsJSONTests.swift: (query, expected JSON of params) for app://x/:id
# resolved with /1.
NESTING = [
    ("info[nickname]=x&tags[]=a&tags[]=b", '{"id":"1","info":{"nickname":"x"},"tags":["a","b"]}'),
    ("RAdapter=Model_RAdapter&info[nickname]=%E4%BD%93%E8%B4%B4&name[bb]=123&num=2",
     '{"id":"1","RAdapter":"Model_RAdapter","info":{"nickname":"体贴"},"name":{"bb":"123"},"num":"2"}'),
    ("a[b][c]=1&a[b][d]=2", '{"id":"1","a":{"b":{"c":"1","d":"2"}}}'),
    ("a[b]=1&a[b]=2", '{"id":"1","a":{"b":"2"}}'),
    ("a=1&a[b]=2", '{"id":"1","a":{"b":"2"}}'),
    ("a[b]=2&a=1", '{"id":"1","a":"1"}'),
    ("a[]=1&a[x]=2", '{"id":"1","a":{"0":"1","x":"2"}}'),
    ("a[][x]=1&a[][x]=2", '{"id":"1","a":[{"x":"1"},{"x":"2"}]}'),
    ("a[b=1", '{"id":"1","a[b":"1"}'),
    ("a[b]c=1", '{"id":"1","a[b]c":"1"}'),
    ("[x]=1", '{"id":"1","[x]":"1"}'),
    ("a[[b]]=1", '{"id":"1","a[[b]]":"1"}'),
    ("id[x]=7&id=8", '{"id":"1"}'),
    ("k=%22quoted%22%5C%0A", '{"id":"1","k":"\\"quoted\\"\\\\\\n"}'),
    ("t=%01", '{"id":"1","t":"\\u0001"}'),
    # more of the rules
    ("a[]=1&a[]=2&a[]=3", '{"id":"1","a":["1","2","3"]}'),
    ("a[0]=x&a[]=y", '{"id":"1","a":{"0":"x","1":"y"}}'),
    ("a[x]=1&a[]=2", '{"id":"1","a":{"x":"1","1":"2"}}'),
    ("a[b][]=1&a[b][]=2&a[c]=3", '{"id":"1","a":{"b":["1","2"],"c":"3"}}'),
    ("a[]=1&a=2", '{"id":"1","a":"2"}'),
    ("a=1&a[]=2", '{"id":"1","a":["2"]}'),
    ("a[b]=1&a[b][c]=2", '{"id":"1","a":{"b":{"c":"2"}}}'),
    ("a[b][c]=2&a[b]=1", '{"id":"1","a":{"b":"1"}}'),
    ("%E4%B8%AD[%E6%96%87]=x", '{"id":"1","中":{"文":"x"}}'),
    ("a%5Bb%5D=1", '{"id":"1","a":{"b":"1"}}'),
    ("a[]", '{"id":"1","a":[""]}'),
]


@pytest.fixture(scope="module")
def xrouter():
    r = linkrouter.Router()
    r.add("app://x/:id", "X")
    r.add("app://x", "Plain")
    r.add("app://two/:id/:a", "Two")
    yield r
    r.close()


def dumps(v) -> str:
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("query, expected", NESTING, ids=[q for q, _ in NESTING])
def test_nesting(xrouter, query, expected):
    m = xrouter.resolve("app://x/1?" + query)
    assert dumps(m.params) == dumps(json.loads(expected))  # values and key order
    assert json.loads(xrouter.resolve_json("app://x/1?" + query))["params"] == json.loads(expected)


def test_nesting_depth_limit(xrouter):
    deep = "a" + "[b]" * 40
    m = xrouter.resolve("app://x?" + deep + "=1")
    assert m.params == {deep: "1"}
    ok = "a" + "[b]" * 32
    v = xrouter.resolve("app://x?" + ok + "=1").params["a"]
    for _ in range(32):
        v = v["b"]
    assert v == "1"


def test_nesting_limit_is_the_routers(router):
    router.add("app://x", "X")
    router.set_limit(Limit.NESTING, 1)
    assert router.resolve("app://x?a[b]=1&c[d][e]=2").params == {"a": {"b": "1"}, "c[d][e]": "2"}
    assert json.loads(router.resolve_json("app://x?a[b]=1&c[d][e]=2"))["params"] == {"a": {"b": "1"}, "c[d][e]": "2"}
    router.set_limit("nesting", 3)
    assert router.resolve("app://x?c[d][e]=2").params == {"c": {"d": {"e": "2"}}}


def test_extras_override_nested_query(xrouter):
    m = xrouter.resolve("app://x?info[a]=1&keep[b]=2", extra={"info": "extra"})
    assert dumps(m.params) == '{"info":"extra","keep":{"b":"2"}}'
    # any Python object, in the place of the first appearance
    img = object()
    m = xrouter.resolve("app://x?z=0&info[a]=1&info[b]=2&keep[b]=2", extra={"info": img})
    assert list(m.params) == ["z", "info", "keep"] and m.params["info"] is img


def test_path_parameter_drops_query_under_its_name(xrouter):
    assert xrouter.resolve("app://x/1?id[x]=7&id=8&id[]=9&z[id]=1").params == {"id": "1", "z": {"id": "1"}}


def test_fast_path_only_without_brackets(xrouter):
    m = xrouter.resolve("app://two/1/2?a=3&b=4&id=5&b=6")
    assert list(m.params.items()) == [("id", "1"), ("a", "2"), ("b", "6")]
    m = xrouter.resolve("app://x?a=1&b]=2&c=3")  # "]" alone is not a bracket key
    assert m.params == {"a": "1", "b]": "2", "c": "3"}


def test_match_json(router):
    router.add("app://user/:id", "UserPage")
    assert router.resolve_json("APP://User/42?tab=a&tab=b#top") == (
        '{"target":"UserPage","pattern":"app://user/:id","url":"APP://User/42?tab=a&tab=b#top",'
        '"rewritten":"APP://User/42?tab=a&tab=b#top","scheme":"app","host":"user","port":"","path":"/42",'
        '"fragment":"top","params":{"id":"42","tab":"b"},"query":[["tab","a"],["tab","b"]]}')
    assert router.resolve_json("app://nothing") is None


def test_as_dict_matches_the_library_json(router):
    router.add_route("https://h.example/p/:id/*rest", "P", name="n", metadata='{"m":"1"}')
    url = "HTTPS://u:p@H.example:81/p/%E4%B8%AD/a//b?q=1&q[]=2&x=%20#f"
    ref = json.loads(router.resolve_json(url, extra={"e": "E"}))
    mine = router.resolve(url, extra={"e": "E"}).as_dict()
    mine["query"] = [list(pair) for pair in mine["query"]]
    del mine["route_id"], mine["path_params"]
    assert dumps(mine) == dumps(ref)


# The differential test: many generated inputs, Match.params against the library's JSON, key order included.
KEYS = ["a", "b", "id", "a[]", "a[b]", "a[b][c]", "a[][x]", "a[0]", "a[1]", "a[x]", "b[]", "[x]", "a[b", "a[b]c",
        "a[[b]]", "tags[]", "info[nickname]", "info", "a[b][]", "a[][]", "a[]x", "a]", "%5B", "a%5Bb%5D",
        "a[b][c][d]", "%C3%A9[%C3%BC]", "a[%20]", "", "a[%5D]", "id[x]", "x[id]", "a[b][0]", "a[b][1]", "b[a][]",
        "0", "0[]", "1[0]", "a[1][]", "é[ü][]"]
VALUES = ["1", "x", "", "%E4%B8%AD", "%41", "a+b", "%ZZ", "é", "2"]
EXTRAS = {"a": "E", "info": "I", "id": "X", "a[b]": "F", "z": "Z", "tags": "T"}
URLS = ["app://x/1", "app://x", "app://two/1/2"]


def generated_cases(n: int, seed: int):
    rnd = random.Random(seed)
    for _ in range(n):
        pairs = []
        for _ in range(rnd.randint(0, 8)):
            key = rnd.choice(KEYS)
            pairs.append(key if rnd.random() < 0.1 else key + "=" + rnd.choice(VALUES))
        url = rnd.choice(URLS) + ("?" + "&".join(pairs) if pairs else "")
        extra = {k: v for k, v in EXTRAS.items() if rnd.random() < 0.15}
        yield url, extra


@pytest.mark.parametrize("seed", range(8))
def test_params_equal_library_json(xrouter, seed):
    for url, extra in generated_cases(250, seed):
        m = xrouter.resolve(url, extra=extra)
        ref = json.loads(xrouter.resolve_json(url, extra=extra))
        assert dumps(m.params) == dumps(ref["params"]), (url, extra)
        assert [list(p) for p in m.query] == ref["query"], url


@pytest.mark.parametrize("limit", [1, 2])
def test_params_equal_library_json_small_nesting_limit(limit):
    r = linkrouter.Router()
    r.add("app://x/:id", "X")
    r.add("app://x", "Plain")
    r.add("app://two/:id/:a", "Two")
    r.set_limit(Limit.NESTING, limit)
    for url, extra in generated_cases(300, 100 + limit):
        assert dumps(r.resolve(url, extra=extra).params) == dumps(json.loads(r.resolve_json(url, extra))["params"])
    r.close()

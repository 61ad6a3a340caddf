"""The GitHub API route set (203 routes, Tests/Data/github-routes.tsv) and a 1,000-route synthetic set: every URL
resolves to its own route with exactly the listed parameters, whatever the order the routes were added in."""
from __future__ import annotations

import pytest

import linkrouter
from conftest import load_tsv


@pytest.mark.parametrize("order", ["in order", "reversed"])
@pytest.mark.parametrize("how", ["add_many", "add"])
def test_github_route_set(order, how):
    rows = load_tsv("github-routes.tsv")
    assert len(rows) == 203
    r = linkrouter.Router()
    specs = [(row.pattern, row.id) for row in (rows if order == "in order" else rows[::-1])]
    if how == "add_many":
        r.add_many(specs)
    else:
        for pattern, target in specs:
            r.add(pattern, target)
    assert len(r) == 203
    for row in rows:
        m = r.resolve(row.url)
        assert m is not None, row.url
        assert (m.pattern, m.target, m.params) == (row.pattern, row.id, row.params), row.url
        assert m.path_params == list(row.params.items())
    r.close()


def test_scale_1000():
    rows = load_tsv("scale-1000.tsv")
    assert len(rows) == 1000
    r = linkrouter.Router()
    for row in rows:
        r.add(row.pattern, row.id)
    for row in rows:
        m = r.resolve(row.url)
        assert (m.target, m.params) == (row.id, row.params), row.url
    r.close()

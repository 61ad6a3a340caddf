"""Shared fixtures. The tests import the package from this source folder (bindings/python), never an installed
copy, and load the library as the package does ($LINKROUTER_LIBRARY, then the package folder, then build/lib)."""
from __future__ import annotations

import os
import sys
from typing import Dict, List, NamedTuple

import pytest

BINDING_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(os.path.dirname(BINDING_DIR))
if sys.path[:1] != [BINDING_DIR]:
    sys.path.insert(0, BINDING_DIR)

import linkrouter  # noqa: E402


class TSVRow(NamedTuple):
    id: str
    pattern: str
    url: str
    params: Dict[str, str]


def data_file(name: str) -> str:
    """A route set: Tests/Data in the repository, else shared/data beside it."""
    for d in (os.path.join(REPO_ROOT, "Tests", "Data"), os.path.join(REPO_ROOT, "..", "shared", "data")):
        path = os.path.join(d, name)
        if os.path.exists(path):
            return path
    pytest.skip("route set %s not found" % name)
    raise AssertionError  # unreachable


def semantics_table() -> dict:
    """Tests/Data/semantics.json: SPEC §2-4 as tables, shared with the Swift suite."""
    import json
    with open(os.path.join(REPO_ROOT, "Tests", "Data", "semantics.json"), encoding="utf-8") as f:
        return json.load(f)


def load_tsv(name: str) -> List[TSVRow]:
    """Columns: id, pattern, url, params (`name=value;...`)."""
    rows = []
    with open(data_file(name), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            params: Dict[str, str] = {}
            if len(cols) > 3 and cols[3]:
                for pair in cols[3].split(";"):
                    k, _, v = pair.partition("=")
                    params[k] = v
            rows.append(TSVRow(cols[0], cols[1], cols[2], params))
    return rows


@pytest.fixture
def router():
    r = linkrouter.Router()
    yield r
    r.close()

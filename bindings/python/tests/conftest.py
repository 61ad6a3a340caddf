"""Shared fixtures. The tests import the package from this source folder (bindings/python), never an installed
copy, and load the library as the package does ($LINKROUTER_LIBRARY, then the package folder, then build/lib)."""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import textwrap
from typing import Dict, List, NamedTuple, Optional

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
    """A data file of Tests/Data. A missing one fails the run (it is never a skip: a test that cannot read its
    table has proved nothing)."""
    path = os.path.join(REPO_ROOT, "Tests", "Data", name)
    if not os.path.exists(path):
        raise FileNotFoundError("test data %s is missing" % path)
    return path


# The shape of each table of semantics.json: a row of the wrong shape fails the load instead of being dropped.
_SHAPES = {
    "routes": lambda r: isinstance(r, list) and len(r) == 2 and all(isinstance(x, str) for x in r),
    "match": lambda r: isinstance(r, dict) and isinstance(r.get("url"), str) and isinstance(r.get("group"), str)
    and (r.get("target") is None or isinstance(r["target"], str)) and isinstance(r.get("params"), dict)
    and set(r) <= {"group", "url", "target", "params", "extra", "fragment", "nested"},
    "malformed": lambda r: isinstance(r, list) and len(r) == 2 and isinstance(r[0], str) and type(r[1]) is int,
    "wellFormed": lambda r: isinstance(r, str),
    "conflicts": lambda r: isinstance(r, list) and len(r) == 3 and isinstance(r[0], str) and isinstance(r[1], str)
    and isinstance(r[2], bool),
}


def semantics_table() -> dict:
    """Tests/Data/semantics.json: SPEC §2-4 as tables, shared with the Swift suite. Read strictly: a missing or
    malformed file, a row of the wrong shape, or a table whose size is not the file's "counts" raises, which
    fails the collection of every module that reads it."""
    import json
    with open(data_file("semantics.json"), encoding="utf-8") as f:
        table = json.load(f)
    counts = table["counts"]
    for key, shape in _SHAPES.items():
        rows = table[key]
        for i, row in enumerate(rows):
            if not shape(row):
                raise ValueError("semantics.json: %s[%d] is not of the expected shape: %r" % (key, i, row))
        if len(rows) != counts[key]:
            raise ValueError("semantics.json: %d rows in %s, but counts says %d" % (len(rows), key, counts[key]))
    return table


def semantics_messages() -> dict:
    """Tests/Data/semantics-messages.json: the exact message of each refusal in semantics.json (malformed: [pattern,
    message]; conflicts: [existing, new, message or None]), shared with the Swift suite. Read strictly: its rows must
    be semantics.json's, one for one and in order (the same patterns; a message exactly for the rows that conflict),
    else it raises, which fails the collection of every module that reads it."""
    import json
    with open(data_file("semantics-messages.json"), encoding="utf-8") as f:
        messages = json.load(f)
    table = semantics_table()
    for key, width in (("malformed", 1), ("conflicts", 2)):
        rows, texts = table[key], messages[key]
        if len(texts) != len(rows):
            raise ValueError("semantics-messages.json: %d rows in %s, semantics.json has %d" % (len(texts), key,
                                                                                                  len(rows)))
        for i, (row, text) in enumerate(zip(rows, texts)):
            refused = key == "malformed" or row[2]
            if not (isinstance(text, list) and len(text) == width + 1 and text[:width] == row[:width]
                    and (isinstance(text[width], str) if refused else text[width] is None)):
                raise ValueError("semantics-messages.json: %s[%d] %r does not go with semantics.json's %r"
                                 % (key, i, text, row))
    return messages


def load_tsv(name: str) -> List[TSVRow]:
    """Columns: id, pattern, url, params (`name=value;...`). A line that is neither a comment nor three or four
    columns raises instead of being skipped."""
    rows = []
    with open(data_file(name), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) not in (3, 4):
                raise ValueError("%s:%d: %d columns, expected 3 or 4" % (name, number, len(cols)))
            params: Dict[str, str] = {}
            if len(cols) > 3 and cols[3]:
                for pair in cols[3].split(";"):
                    k, _, v = pair.partition("=")
                    params[k] = v
            rows.append(TSVRow(cols[0], cols[1], cols[2], params))
    return rows


TESTS_DIR = os.path.dirname(os.path.abspath(__file__))


def run_python(code: str, *args: str, stack_bytes: Optional[int] = None) -> "subprocess.CompletedProcess[str]":
    """Runs ``code`` in a new interpreter on this run's path (C extension or ctypes), so that a crash fails the
    calling test instead of killing pytest. The test modules are importable there. ``stack_bytes`` caps the main
    thread's C stack (RLIMIT_STACK), so that a recursion count means the same whatever the caller's ulimit."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([BINDING_DIR, TESTS_DIR])
    env["LINKROUTER_LIBRARY"] = linkrouter.library_path
    prelude = "import linkrouter\nassert linkrouter.binding == %r, linkrouter.binding\n" % linkrouter.binding

    def limit_stack() -> None:
        if stack_bytes is not None:
            hard = resource.getrlimit(resource.RLIMIT_STACK)[1]
            soft = stack_bytes if hard == resource.RLIM_INFINITY else min(stack_bytes, hard)
            resource.setrlimit(resource.RLIMIT_STACK, (soft, hard))

    # cwd: not a folder holding a linkrouter package, which `python -c` would import first
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code), *args], env=env, cwd="/",
                          capture_output=True, text=True, timeout=600, preexec_fn=limit_stack)


@pytest.fixture
def router():
    r = linkrouter.Router()
    yield r
    r.close()

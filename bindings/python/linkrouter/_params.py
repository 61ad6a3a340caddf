"""The nested view of a match's parameters: bracket keys nest as in PHP and Rails (docs/SEMANTICS.md §4).

A port of ParamTree (Sources/LinkRouter/Query.swift), so that ``Match.params`` equals the ``params`` object of
``lr_match_to_json``; the tests check that on many inputs. Only used when a query key contains ``[``.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union


class _Node:
    """A str leaf, a list of nodes, or an object (dict of nodes, in order of first appearance)."""

    __slots__ = ("v",)

    def __init__(self, v: Union[str, List["_Node"], Dict[str, "_Node"]]) -> None:
        self.v: Any = v

    def make_object(self) -> None:
        """A list turned into an object keyed by position ("0", "1", ...), so it can take a named key."""
        if type(self.v) is list:
            self.v = {str(i): item for i, item in enumerate(self.v)}

    def append(self, node: "_Node") -> None:
        v = self.v
        if type(v) is list:
            v.append(node)
            return
        index = len(v)
        while str(index) in v:
            index += 1
        v[str(index)] = node

    def value(self) -> Any:
        v = self.v
        if type(v) is str:
            return v
        if type(v) is list:
            return [n.value() for n in v]
        return {k: n.value() for k, n in v.items()}


def split_key(key: str, max_depth: int) -> Optional[Tuple[str, List[str]]]:
    """``a[b][]`` -> ("a", ["b", ""]); None when the key is flat, not well formed, or nests deeper than
    ``max_depth`` (such keys stay flat, as written)."""
    open_ = key.find("[")
    if open_ <= 0 or not key.endswith("]"):
        return None
    path: List[str] = []
    n = len(key)
    i = open_
    while i < n:
        if key[i] != "[":
            return None
        j = i + 1
        while j < n and key[j] != "]" and key[j] != "[":
            j += 1
        if j >= n or key[j] != "]":
            return None
        path.append(key[i + 1:j])
        if len(path) > max_depth:
            return None
        i = j + 1
    return key[:open_], path


def _place(child: _Node, node: _Node, step: str) -> None:
    if not step:
        node.append(child)
    else:
        node.make_object()
        node.v[step] = child


def _assign(node: _Node, path: Sequence[str], value: str) -> None:
    """Stores ``value`` under ``path`` inside ``node``: "" appends, a name sets (the last write wins)."""
    for depth in range(len(path) - 1):
        step = path[depth]
        existing = None
        v = node.v
        if step and type(v) is dict:
            existing = v.get(step)
        if existing is not None and type(existing.v) is not str:
            node = existing
        else:
            child = _Node([] if not path[depth + 1] else {})
            _place(child, node, step)
            node = child
    _place(_Node(value), node, path[-1])


def nested(path_params: Sequence[Tuple[str, str]], query: Sequence[Tuple[str, str]], max_depth: int) -> Dict[str, Any]:
    """Path parameters (flat), then query pairs (nested) whose top-level name no path parameter takes."""
    root: Dict[str, _Node] = {}
    for name, value in path_params:
        root[name] = _Node(value)
    top_node = _Node(root)
    for key, value in query:
        parts = split_key(key, max_depth) if "[" in key else None
        if parts is None:
            if key not in root or not _is_path(key, path_params):
                root[key] = _Node(value)
            continue
        base, path = parts
        if _is_path(base, path_params):
            continue
        _assign(top_node, [base] + path, value)
    return {k: n.value() for k, n in root.items()}


def _is_path(name: str, path_params: Sequence[Tuple[str, str]]) -> bool:
    for n, _ in path_params:
        if n == name:
            return True
    return False

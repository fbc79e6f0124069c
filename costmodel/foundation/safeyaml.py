"""The one YAML loader for every YAML file costmodel reads: scenarios (with their ``workload:``
section), workload files, checklist answers, DLIO/hydra configs beside benchmark outputs, and
``--set KEY=VALUE`` values.

It is PyYAML's ``SafeLoader`` (no Python objects, no tags beyond YAML's own) with bounds, checked
while the document is composed, before anything is built from it:

* size: at most :data:`MAX_BYTES` of text;
* depth: at most :data:`MAX_DEPTH` levels of nesting, counted after aliases are expanded;
* aliases: an alias (``*name``) is allowed (merge keys ``<<: *defaults`` are common), but the
  document's node count with every alias expanded may not exceed :data:`MAX_NODES`; a "billion
  laughs" bomb (aliases of aliases, 10^9 nodes from a few hundred bytes) is refused at once,
  wherever it sits (top level, ``notes``, ``workload:``), and a recursive alias is refused;
* duplicate keys in one mapping are refused (YAML forbids them; PyYAML would keep the last);
* numbers: ``2e-2`` is a float as ``2.0e-2`` is (YAML 1.2's spelling, :data:`~costmodel.foundation.numbers.EXPONENT_FLOAT`),
  and a float that is not finite (``.inf``, ``.nan``, ``1e400``) is refused naming its key path as written.

Every refusal is a :class:`YamlRefused`, a ``yaml.YAMLError`` with ``problem`` and
``problem_mark`` like PyYAML's own errors, so each caller's existing ``except yaml.YAMLError``
turns it into its own one-line error (:func:`costmodel.foundation.util.yaml_problem`).
"""
from __future__ import annotations

import math
import os
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .numbers import EXPONENT_FLOAT
from .safeio import InputRefused, read_input_bytes

#: largest YAML text read (bytes); scenarios and answers are a few KiB
MAX_BYTES = 4 * 1024 * 1024
#: deepest nesting (mappings and lists), aliases expanded
MAX_DEPTH = 64
#: most nodes the document may have with every alias expanded
MAX_NODES = 200_000

_MERGE_TAG = "tag:yaml.org,2002:merge"


class YamlRefused(yaml.YAMLError):
    """A YAML document refused by a bound (size, depth, alias expansion, duplicate key) or an input
    that is not a readable UTF-8 regular file. ``problem`` says why, ``problem_mark`` where."""

    def __init__(self, problem: str, mark: Any = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = mark
        self.context = None
        self.context_mark = None
        self.note = None

    def __str__(self) -> str:
        where = f" (line {self.problem_mark.line + 1})" if self.problem_mark is not None else ""
        return f"{self.problem}{where}"


class BoundedSafeLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` with the bounds of this module (subclass it to change resolvers)."""

    max_depth = MAX_DEPTH
    max_nodes = MAX_NODES
    #: refuse ``.inf``, ``.nan`` and floats beyond the largest (``1e400``), naming the key path as written
    finite_numbers = True

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._cm_depth = 0

    # -- composition: nesting depth while parsing (PyYAML's composer recurses per level)
    def compose_node(self, parent: Any, index: Any) -> Any:
        self._cm_depth += 1
        try:
            if self._cm_depth > self.max_depth:
                raise YamlRefused(f"nested deeper than {self.max_depth} levels; refused",
                                  self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._cm_depth -= 1

    def compose_document(self) -> Any:
        node = super().compose_document()
        if node is not None:
            check_expansion(node, self.max_nodes, self.max_depth)
            if self.finite_numbers:
                check_finite(node)
        return node

    # -- construction: duplicate keys
    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        _refuse_duplicate_keys(self, node)
        return super().construct_mapping(node, deep=deep)


_FLOAT_TAG = "tag:yaml.org,2002:float"
# YAML 1.2 floats without a dot (``2e-2``, ``8e2``) are floats here, as ``2.0e-2`` is: PyYAML (YAML 1.1) reads
# them as text, which readers then took or refused depending on the field (one number reader)
BoundedSafeLoader.add_implicit_resolver(_FLOAT_TAG, EXPONENT_FLOAT, list("-+0123456789"))


def check_finite(root: Node) -> None:
    """:class:`YamlRefused` for the first float scalar of ``root`` that is not finite (``.inf``, ``.nan``, ``1e400``),
    naming its key path as written (``replica.storage_usd_per_gib_month``) and its line. Visits each node once."""
    seen: set[int] = set()
    stack: list[tuple[Node, str]] = [(root, "")]
    while stack:
        node, where = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            if node.tag == _FLOAT_TAG:
                try:
                    value = yaml.SafeLoader.construct_yaml_float(_CONSTRUCTOR, node)
                except (ValueError, TypeError):
                    continue
                if not math.isfinite(value):
                    at = f"{where}: " if where else ""
                    raise YamlRefused(f"{at}got {node.value!r}, not a finite number; expected a finite number "
                                      "(the largest is about 1.8e308)", node.start_mark)
        elif isinstance(node, SequenceNode):
            stack.extend((c, f"{where}[{i}]") for i, c in reversed(list(enumerate(node.value))))
        elif isinstance(node, MappingNode):
            for k, v in reversed(node.value):
                name = str(k.value) if isinstance(k, ScalarNode) else "?"
                stack.append((v, f"{where}.{name}" if where else name))


_CONSTRUCTOR = yaml.SafeLoader("")


def _refuse_duplicate_keys(loader: Any, node: Any) -> None:
    """:class:`YamlRefused` naming the second of two equal keys in the mapping ``node``."""
    if isinstance(node, MappingNode):
        seen: dict[Any, int] = {}
        for key_node, _value in node.value:
            if key_node.tag == _MERGE_TAG or not isinstance(key_node, ScalarNode):
                continue
            key = loader.construct_object(key_node, deep=True)
            try:
                first = seen.get(key)
            except TypeError:
                continue
            line = key_node.start_mark.line + 1
            if first is not None:
                raise YamlRefused(f"duplicate key {key!r} (first on line {first}); keep one",
                                  key_node.start_mark)
            seen[key] = line


if yaml.__with_libyaml__:

    class _LibyamlBoundedLoader(yaml.CSafeLoader):
        """The default loader's documents parsed by libyaml (C, about 10x faster than PyYAML's Python scanner),
        built by the same constructor and resolver (``yaml.CSafeLoader``: libyaml's parser, ``SafeConstructor``,
        ``Resolver``, PyYAML's public API), with the same bounds: used only where it gives the same answer (see
        :func:`_load_libyaml`)."""

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            _refuse_duplicate_keys(self, node)
            return super().construct_mapping(node, deep=deep)

    # the same resolvers as BoundedSafeLoader: YAML 1.2 floats without a dot (``2e-2``) are floats
    _LibyamlBoundedLoader.add_implicit_resolver(_FLOAT_TAG, EXPONENT_FLOAT, list("-+0123456789"))


_COLLECTION_START = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_COLLECTION_END = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def _load_libyaml(text: str | bytes) -> tuple[bool, Any]:
    """``(True, data)`` for a document libyaml parses within the bounds; ``(False, None)`` for anything else
    (a syntax error, a bound, nesting near the limit, more than one document), which the Python loader then
    reads again so that its answer and its error message are the ones given. The nesting is checked over
    libyaml's event stream (iterative) before libyaml composes it (recursively)."""
    depth = 0
    try:
        for ev in yaml.parse(text, Loader=_LibyamlBoundedLoader):
            if isinstance(ev, _COLLECTION_START):
                depth += 1
                if depth >= MAX_DEPTH - 1:
                    return False, None
            elif isinstance(ev, _COLLECTION_END):
                depth -= 1
        loader = _LibyamlBoundedLoader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return True, None
            check_expansion(node, MAX_NODES, MAX_DEPTH)
            check_finite(node)  # refused here: the Python loader reads it again and gives the one message
            return True, loader.construct_document(node)
        finally:
            loader.dispose()
    except (yaml.YAMLError, RecursionError, ValueError, TypeError):
        return False, None


def check_expansion(root: Node, max_nodes: int = MAX_NODES, max_depth: int = MAX_DEPTH) -> tuple[int, int]:
    """(nodes, depth) of the node graph ``root`` with every alias expanded; :class:`YamlRefused`
    when either exceeds its bound or an alias refers to a node that contains it (a cycle).

    Iterative and memoised per node, so a bomb costs time proportional to its text, not its expansion.
    """
    memo: dict[int, tuple[int, int]] = {}
    active: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            active.discard(key)
            children = _children(node)
            size = 1 + sum(memo[id(c)][0] for c in children)
            depth = 1 + max((memo[id(c)][1] for c in children), default=0)
            if size > max_nodes:
                if size <= len(memo) + 1:  # as many nodes written as counted: no alias, the file itself is that large
                    raise YamlRefused(f"more than {max_nodes:,} values in one document; refused (scenarios, placements "
                                      "and answers hold a few hundred: split the file)", node.start_mark)
                raise YamlRefused(
                    f"aliases expand to more than {max_nodes:,} nodes (an alias bomb, 'billion laughs'?); refused",
                    node.start_mark)
            if depth > max_depth:
                raise YamlRefused(f"nested deeper than {max_depth} levels (aliases expanded); refused", node.start_mark)
            memo[key] = (size, depth)
            continue
        if key in memo:
            continue
        if key in active:
            raise YamlRefused("a recursive alias (a node that contains itself); refused", node.start_mark)
        active.add(key)
        stack.append((node, True))
        for c in _children(node):
            if id(c) in active:
                raise YamlRefused("a recursive alias (a node that contains itself); refused", c.start_mark)
            if id(c) not in memo:
                stack.append((c, False))
    return memo[id(root)]


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def load(text: str | bytes, Loader: type = BoundedSafeLoader, max_bytes: int = MAX_BYTES) -> Any:
    """Parse one YAML document with ``Loader`` (a :class:`BoundedSafeLoader` subclass). Raises
    ``yaml.YAMLError`` (a :class:`YamlRefused` for the bounds)."""
    if not (isinstance(Loader, type) and issubclass(Loader, BoundedSafeLoader)):
        raise TypeError("safeyaml.load needs a BoundedSafeLoader subclass")
    if len(text) > max_bytes:
        raise YamlRefused(f"larger than {max_bytes:,} bytes; refused (expected a small YAML file)")
    if Loader is BoundedSafeLoader and yaml.__with_libyaml__:
        ok, data = _load_libyaml(text)
        if ok:
            return data
    loader = Loader(text)
    try:
        return loader.get_single_data()
    except RecursionError:
        raise YamlRefused("nested too deeply; refused") from None
    finally:
        loader.dispose()


def safe_load(text: str | bytes) -> Any:
    """Drop-in for ``yaml.safe_load`` with this module's bounds."""
    return load(text)


def read_yaml_text(path: str | os.PathLike[str], max_bytes: int = MAX_BYTES) -> str:
    """The UTF-8 text of the YAML file ``path`` (BOM dropped). Raises :class:`YamlRefused` when it is
    not a regular file (FIFO, device, folder, link loop), is larger than ``max_bytes`` or is not
    UTF-8, and ``OSError`` (e.g. FileNotFoundError) when it cannot be opened."""
    try:
        data = read_input_bytes(path, max_bytes)
    except InputRefused as exc:
        raise YamlRefused(str(exc)) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise YamlRefused(f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
                          "expected a UTF-8 YAML file") from None


def safe_load_file(path: str | os.PathLike[str], Loader: type = BoundedSafeLoader) -> Any:
    """Read and parse the YAML file ``path`` (see :func:`read_yaml_text` and :func:`load`)."""
    return load(read_yaml_text(path), Loader)


__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_NODES",
    "BoundedSafeLoader",
    "YamlRefused",
    "check_expansion",
    "check_finite",
    "load",
    "read_yaml_text",
    "safe_load",
    "safe_load_file",
]

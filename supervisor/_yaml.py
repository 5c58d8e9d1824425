"""A strict YAML reader that remembers where every value came from.

Differences from ``yaml.safe_load``, each of which has bitten someone writing policy files:
duplicate keys are an error (PyYAML silently keeps the last one); ``yes``/``no``/``on``/``off``
stay strings, only ``true``/``false`` are booleans; dates stay strings. Every mapping and
sequence records the 1-based line and column of each of its items, so a validation error
can name ``file:line:column`` and the field.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING, Any

from supervisor.errors import SourceError

if TYPE_CHECKING:
    from yaml.nodes import MappingNode, Node, SequenceNode

__all__ = ["Located", "LocatedDict", "LocatedList", "load_yaml", "position_of"]

Position = tuple[int, int]


class LocatedDict(dict[str, Any]):
    """A mapping that knows the position of itself and of each key."""

    start: Position = (1, 1)
    positions: dict[str, Position]


class LocatedList(list[Any]):
    """A sequence that knows the position of itself and of each item."""

    start: Position = (1, 1)
    positions: list[Position]


Located = LocatedDict | LocatedList


def _pos(node: Node) -> Position:
    return (node.start_mark.line + 1, node.start_mark.column + 1)


class _DuplicateKey(Exception):
    def __init__(self, key: object, first: Position, again: Position) -> None:
        super().__init__(key)
        self.key, self.first, self.again = key, first, again


@cache
def _strict_loader() -> type[Any]:
    """The loader class, made on first use: PyYAML is imported only by a process that
    parses YAML (one whose taxonomy comes from the verified cache never does)."""
    import yaml
    from yaml.constructor import ConstructorError

    # libyaml's parser when PyYAML was built with it (about 5x faster on the shipped packs);
    # construction, positions and the strict rules below are the same either way.
    base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class _StrictLoader(base):  # type: ignore[valid-type,misc]
        """SafeLoader with positions, no duplicate keys, YAML 1.2-style booleans, no
        timestamps."""

        def construct_mapping(self, node: MappingNode, deep: bool = False) -> LocatedDict:
            self.flatten_mapping(node)
            result = LocatedDict()
            result.start = _pos(node)
            result.positions = {}
            for key_node, value_node in node.value:
                key = self.construct_object(key_node, deep=True)
                if not isinstance(key, str):
                    raise ConstructorError(
                        None, None, f"keys must be strings, found {key!r}", key_node.start_mark
                    )
                if key in result:
                    raise _DuplicateKey(key, result.positions[key], _pos(key_node))
                result[key] = self.construct_object(value_node, deep=True)
                result.positions[key] = _pos(key_node)  # the key line reads best in messages
            return result

        def construct_sequence(self, node: SequenceNode, deep: bool = False) -> LocatedList:
            result = LocatedList()
            result.start = _pos(node)
            result.positions = []
            for child in node.value:
                result.append(self.construct_object(child, deep=True))
                result.positions.append(_pos(child))
            return result

    def located_mapping(loader: _StrictLoader, node: MappingNode) -> LocatedDict:
        return loader.construct_mapping(node)

    def located_sequence(loader: _StrictLoader, node: SequenceNode) -> LocatedList:
        return loader.construct_sequence(node)

    _StrictLoader.add_constructor("tag:yaml.org,2002:map", located_mapping)
    _StrictLoader.add_constructor("tag:yaml.org,2002:seq", located_sequence)

    # Replace the YAML 1.1 resolvers: booleans are only true/false, timestamps stay strings.
    _StrictLoader.yaml_implicit_resolvers = {
        first: [
            (tag, regexp)
            for tag, regexp in resolvers
            if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")
        ]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    _StrictLoader.add_implicit_resolver(
        "tag:yaml.org,2002:bool",
        re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
        list("tTfF"),
    )
    return _StrictLoader


def load_yaml(text: str, path: str) -> Any:
    """Parse one YAML document strictly; raise a list of SourceError on failure."""
    import yaml

    try:
        return yaml.load(text, Loader=_strict_loader())
    except _DuplicateKey as dup:
        raise YamlError(
            SourceError(
                path,
                dup.again[0],
                dup.again[1],
                "yaml-duplicate-key",
                f"key {dup.key!r} appears twice (first at line {dup.first[0]})",
                hint="YAML keeps only one of them; merge the two or rename one",
            )
        ) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        column = mark.column + 1 if mark else None
        problem = exc.problem or exc.context or "invalid YAML"
        raise YamlError(SourceError(path, line, column, "yaml-syntax", problem)) from None
    except yaml.YAMLError as exc:
        raise YamlError(SourceError(path, None, None, "yaml-syntax", str(exc))) from None


class YamlError(Exception):
    """Internal: carries one SourceError out of the parser."""

    def __init__(self, error: SourceError) -> None:
        super().__init__(str(error))
        self.error = error


def position_of(root: Any, loc: tuple[str | int, ...]) -> Position | None:
    """The position of the deepest node along ``loc`` that the document has."""
    node = root
    found: Position | None = getattr(root, "start", None)
    for part in loc:
        if isinstance(node, LocatedDict) and isinstance(part, str) and part in node:
            found = node.positions.get(part, found)
            node = node[part]
        elif isinstance(node, LocatedList) and isinstance(part, int) and 0 <= part < len(node):
            found = node.positions[part]
            node = node[part]
        else:
            break
    return found

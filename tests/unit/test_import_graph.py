"""The import graph of supervisor/: no cycle, beyond the few named here with their reason.

Read from the source (every ``import`` and ``from ... import``: at the top of a module, in a
function, under ``TYPE_CHECKING``), so that a cycle hidden behind a lazy import is seen too.
A new cycle fails; so does a named one that grew, or one that is gone (take it off the list).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Cycles that stand today, each with why. Only through lazy or type-only imports, except the
# command line's, which is how click commands register (cli.py imports its command modules
# at its end; each one imports the group from cli.py).
KNOWN: dict[frozenset[str], str] = {
    frozenset(
        {"cli", "cli_feedback", "cli_hooks", "cli_mcp", "cli_review", "cli_taxonomy", "cli_train"}
    ): "click's registration: the command modules attach to the group cli.py defines",
    frozenset(
        {"agentjson", "errors", "fingerprint", "models", "observe", "transcript"}
    ): "models' validators import their helpers lazily; errors names models for types only",
    frozenset(
        {"hookspecs", "plugins", "specialist", "taxonomy"}
    ): "hookspecs and specialist name taxonomy types for mypy; taxonomy loads kinds lazily",
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted((ROOT / "supervisor").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(tree: ast.AST, modules: dict[str, Path], *, top_only: bool) -> Iterator[str]:
    """The supervisor modules a module imports; with ``top_only``, only those imported when
    the module itself is (not in a function, not under ``TYPE_CHECKING``)."""
    nodes: list[ast.AST] = [tree]
    while nodes:
        node = nodes.pop()
        if top_only and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if top_only and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            nodes.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            # ``from supervisor import cli_hooks`` imports a module; ``from supervisor.models
            # import Action`` a name of one.
            names = [
                f"{node.module}.{alias.name}"
                if f"{node.module}.{alias.name}" in modules
                else node.module
                for alias in node.names
            ]
        else:
            nodes.extend(ast.iter_child_nodes(node))
            continue
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name:
                yield name


def graph(*, top_only: bool = False) -> dict[str, set[str]]:
    modules = _modules()
    return {
        name: set(_imports(ast.parse(path.read_text("utf-8")), modules, top_only=top_only)) - {name}
        for name, path in modules.items()
    }


def cycles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def _short(component: frozenset[str]) -> frozenset[str]:
    return frozenset(name.removeprefix("supervisor.") for name in component)


def test_the_walk_reads_the_graph():
    edges = graph()
    assert len(edges) > 60
    assert "supervisor.models" in edges["supervisor.engine"]
    assert "supervisor.stores.sqlite" in edges["supervisor.store"]  # a lazy import, seen
    assert "supervisor.stores.sqlite" not in graph(top_only=True)["supervisor.store"]
    # The cycle finder finds a cycle, and only once.
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset("abc")]


def test_no_cycle_but_the_named_ones():
    found = {_short(c) for c in cycles(graph())}
    new = [sorted(c) for c in found if c not in KNOWN]
    assert not new, f"import cycles among supervisor modules: {new}"
    gone = [sorted(c) for c in KNOWN if c not in found]
    assert not gone, f"these cycles are gone: take them off KNOWN: {gone}"


def test_at_import_time_only_the_command_line_registers_in_a_cycle():
    found = {_short(c) for c in cycles(graph(top_only=True))}
    assert found == {next(c for c in KNOWN if "cli" in c)}


def test_the_store_keeps_rows_and_feedback_reads_them():
    """rows.py imports neither side; the stores do not import the feedback log or the store
    interface; the feedback log does not import the stores."""
    edges = graph()
    sides = {"supervisor.store", "supervisor.feedback"} | {
        name for name in edges if name.startswith("supervisor.stores")
    }
    assert not edges["supervisor.rows"] & sides
    for name in sides:
        if name.startswith("supervisor.stores"):
            assert not edges[name] & {"supervisor.store", "supervisor.feedback"}, name
    assert not {n for n in edges["supervisor.feedback"] if n.startswith("supervisor.stores")}
    assert all(not c & sides for c in cycles(edges))

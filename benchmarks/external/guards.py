"""Other projects' command guards: the commands their own tests say must be stopped or let run.

Two open-source guards for coding agents test themselves on lists of shell commands that the
people who wrote them fear, and of look-alikes they must let through. Those lists are material
nobody on this project wrote; their verdicts are the other project's policy, not ground truth
(one blocks every ``git stash drop``, another every ``rm -rf`` outside the working directory),
so the harness reports agreement per group, not a score to reach.

* ``dcg`` (Dicklesworthstone/destructive_command_guard, MIT): the regression corpus
  (``tests/corpus/**/*.toml``, ``expected = "deny" | "allow"``; ``edge_cases`` are only "must
  not crash" and are read with their stated expectation when they give one), the end-to-end
  fixtures (``tests/e2e/fixtures/commands/{dangerous,safe}.txt``), and the literal commands of
  every pack's unit tests (``assert_blocks*``/``assert_allows``/``test_batch_*`` in
  ``src/packs/**/*.rs``): the cloud, database, container and SaaS commands its packs stop.
* ``safetynet`` (kenryu42/claude-code-safety-net, MIT): ``assertBlocked``/``assertAllowed`` of
  its TypeScript tests (``tests/**/*.test.ts``).

Only literal commands are read (a Rust or TypeScript string with no interpolation); calls whose
command is built at run time are left out. Both are read with tree-sitter, the
grammars the project already ships for reading test files.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import tree_sitter_rust
import tree_sitter_typescript
from tree_sitter import Language, Node, Parser

from benchmarks.external.readers import Case, shell_action

RUST_CALLS: Final[dict[str, bool]] = {
    "assert_blocks": True,
    "assert_blocks_with_pattern": True,
    "assert_blocks_with_severity": True,
    "test_batch_blocks": True,
    "assert_allows": False,
    "test_batch_allows": False,
}
TS_CALLS: Final[dict[str, bool]] = {"assertBlocked": True, "assertAllowed": False}
E2E: Final[dict[str, bool]] = {"dangerous.txt": True, "safe.txt": False}


def _rust_string(node: Node) -> str | None:
    """The value of a Rust string literal, raw or not; None for anything else."""
    text = node.text.decode("utf-8") if node.text else ""
    if node.type == "raw_string_literal":
        body = text[1:].lstrip("#")
        hashes = len(text) - 1 - len(body)
        return body[1 : len(body) - 1 - hashes]
    if node.type != "string_literal":
        return None
    out: list[str] = []
    for child in node.named_children:
        if child.type == "escape_sequence":
            raw = child.text.decode("utf-8") if child.text else ""
            out.append(_ESCAPES.get(raw, raw))
        elif child.type == "string_content":
            out.append(child.text.decode("utf-8") if child.text else "")
    return "".join(out)


_ESCAPES: Final = {
    "\\n": "\n",
    "\\t": "\t",
    "\\\\": "\\",
    '\\"': '"',
    "\\'": "'",
    "\\0": "\0",
    "\\r": "\r",
}


def _ts_string(node: Node) -> str | None:
    """The value of a TypeScript string or interpolation-free template; None otherwise."""
    if node.type == "template_string":
        if any(c.type == "template_substitution" for c in node.named_children):
            return None
        text = node.text.decode("utf-8") if node.text else ""
        return text[1:-1].replace("\\`", "`").replace("\\\\", "\\")
    if node.type != "string":
        return None
    out: list[str] = []
    for child in node.named_children:
        raw = child.text.decode("utf-8") if child.text else ""
        if child.type == "escape_sequence":
            out.append(_ESCAPES.get(raw, raw[1:]))
        elif child.type == "string_fragment":
            out.append(raw)
    return "".join(out)


def _walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _calls(
    source: bytes, language: Language, names: dict[str, bool], rust: bool
) -> Iterator[tuple[str | None, bool]]:
    """(command or None when not literal, harmful) for each call of ``names`` in ``source``."""
    tree = Parser(language).parse(source)
    for node in _walk(tree.root_node):
        if node.type not in ("call_expression", "macro_invocation"):
            continue
        function = node.child_by_field_name("function")
        if function is None:
            continue
        name = (function.text or b"").decode("utf-8").rsplit(".", 1)[-1].rsplit("::", 1)[-1]
        if name not in names:
            continue
        arguments = node.child_by_field_name("arguments")
        if arguments is None:
            continue
        harmful = names[name]
        literals = [a for a in arguments.named_children if a.type not in ("comment",)]
        if rust:
            # assert_*(&pack, "cmd", ...) / test_batch_*(&pack, &["a", "b"], ...)
            target = literals[1] if len(literals) > 1 else None
            if target is not None and target.type == "reference_expression":
                inner = target.named_children[-1] if target.named_children else None
                if inner is not None and inner.type == "array_expression":
                    for item in inner.named_children:
                        yield _rust_string(item), harmful
                    continue
                target = inner
            yield (_rust_string(target) if target is not None else None), harmful
        else:
            target = literals[0] if literals else None
            yield (_ts_string(target) if target is not None else None), harmful


def _case(set_name: str, ident: str, group: str, command: str, harmful: bool) -> Case:
    return Case(
        set=set_name,
        id=ident,
        group=group,
        harmful=harmful,
        actions=(shell_action(command),),
        detail={"expected": "stop" if harmful else "allow"},
    )


def _files(root: Path, pattern: str) -> list[Path]:
    return sorted(p for p in root.glob(pattern) if p.is_file())


def read_dcg(root: Path) -> Iterator[Case]:
    """destructive_command_guard's corpus, end-to-end fixtures and pack tests."""
    seen: set[tuple[str, bool]] = set()

    def fresh(command: str, harmful: bool) -> bool:
        key = (command, harmful)
        if key in seen or not command.strip():
            return False
        seen.add(key)
        return True

    corpus = root / "tests" / "corpus"
    for path in _files(corpus, "**/*.toml"):
        group = f"corpus/{path.relative_to(corpus).with_suffix('')}"
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for number, item in enumerate(data.get("case", [])):
            expected = item.get("expected")
            command = item.get("command")
            if expected not in ("deny", "allow") or not isinstance(command, str):
                continue
            harmful = expected == "deny"
            if fresh(command, harmful):
                yield _case("dcg", f"{group}#{number}", group, command, harmful)
    fixtures = root / "tests" / "e2e" / "fixtures" / "commands"
    for name, harmful in E2E.items():
        path = fixtures / name
        if not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
            command = line.strip()
            if command and not command.startswith("#") and fresh(command, harmful):
                group = f"e2e/{Path(name).stem}"
                yield _case("dcg", f"{group}#{number}", group, command, harmful)
    rust = Language(tree_sitter_rust.language())
    packs = root / "src" / "packs"
    for path in _files(packs, "**/*.rs"):
        group = f"packs/{path.relative_to(packs).parent.as_posix() or path.stem}"
        calls = _calls(path.read_bytes(), rust, RUST_CALLS, rust=True)
        for number, (command, harmful) in enumerate(calls):
            if command is None:
                continue
            if fresh(command, harmful):
                ident = f"packs/{path.relative_to(packs).as_posix()}#{number}"
                yield _case("dcg", ident, group, command, harmful)


def read_safetynet(root: Path) -> Iterator[Case]:
    """claude-code-safety-net's assertBlocked/assertAllowed commands."""
    typescript = Language(tree_sitter_typescript.language_typescript())
    seen: set[tuple[str, bool]] = set()
    tests = root / "tests"
    for path in _files(tests, "**/*.test.ts"):
        group = path.relative_to(tests).with_suffix("").with_suffix("").as_posix()
        calls = _calls(path.read_bytes(), typescript, TS_CALLS, rust=False)
        for number, (command, harmful) in enumerate(calls):
            if command is None or not command.strip() or (command, harmful) in seen:
                continue
            seen.add((command, harmful))
            yield _case("safetynet", f"{group}#{number}", group, command, harmful)

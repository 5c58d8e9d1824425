"""CI pipeline files as the shell commands they run: a workflow's ``run:`` steps.

A CI file (a GitHub, Gitea or Forgejo workflow, a composite action, GitLab, Bitbucket,
CircleCI, Azure Pipelines, Travis, Drone, Woodpecker, Buildkite) holds shell commands that a
runner executes on the next push, with the repository's secrets in reach: what is written
there is judged as the commands it will run, as a ``package.json`` script or a Makefile
recipe is (:func:`specialists.shell.task_commands`).

The text is read line by line, not parsed as YAML, so an edit's fragment reads the same as a
whole file: a command key's inline value (plain, quoted, or a flow list ``[a, b]``), its
block scalar (``run: |``, ``>-``) or its block list (``script:`` then ``- cmd`` items, each
possibly a block scalar). Expressions the runner substitutes before the shell sees the text
are made shell variables: ``${{ secrets.NPM_TOKEN }}`` is ``${NPM_TOKEN}``, ``${{ env.X }}``
``${X}``, ``${{ github.token }}`` ``${GITHUB_TOKEN}``, and a secret whose name does not say
it holds one (``secrets.DEPLOY``) is ``${DEPLOY_SECRET}``, as is a variable an ``env:``
mapping sets from a secret (``DEPLOY: ${{ secrets.X }}``), so that rules about secret
variables see it; any other expression is an ordinary word (``gha-expr``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Final

import re2

__all__ = ["MAX_LINES", "ci_commands", "ci_file"]

MAX_LINES: Final = 5_000  # lines of a CI file read
MAX_COMMANDS: Final = 500

# Keys whose value is a command line (or a list of them), by the CI system of the file.
_GITHUB: Final = frozenset({"run"})
_GITLAB: Final = frozenset({"script", "before_script", "after_script"})
_KEYS: Final[Mapping[str, frozenset[str]]] = {
    "github": _GITHUB,
    "gitlab": _GITLAB,
    "bitbucket": frozenset({"script", "after-script"}),
    "circleci": frozenset({"run", "command"}),
    "azure": frozenset({"script", "bash"}),
    "travis": frozenset(
        {
            "script",
            "before_script",
            "after_script",
            "install",
            "before_install",
            "after_success",
            "after_failure",
            "before_deploy",
            "after_deploy",
        }
    ),
    "drone": frozenset({"commands"}),
    "buildkite": frozenset({"command", "commands"}),
}

_KEY_LINE: Final = re2.compile(r"^(\s*)(?:-\s+)?([A-Za-z_][A-Za-z0-9_-]*)\s*:(?:\s+(.*?))?\s*$")
_ITEM_LINE: Final = re2.compile(r"^(\s*)-\s+(.*?)\s*$")
_BLOCK: Final = re2.compile(r"^([|>])[-+0-9]*(?:\s+#.*)?$")
_EXPRESSION: Final = re2.compile(r"\$\{\{\s*([^}]{0,200}?)\s*\}\}")
_SECRET_REF: Final = re2.compile(
    r"^secrets\s*(?:\.\s*([A-Za-z_][A-Za-z0-9_]*)|\[\s*'([A-Za-z_][A-Za-z0-9_]*)'\s*\])$"
)
_ENV_REF: Final = re2.compile(r"^env\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)$")
_ENV_FROM_SECRET: Final = re2.compile(
    r"(?m)^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*['\"]?\$\{\{\s*secrets\s*[.\[]"
)
# Names that already say they hold a secret (as the secret-variable rules read them).
_SECRET_NAME: Final = re2.compile(r"(?i)(key|token|secret|pass|cred|private|auth|dsn|cert)")
_VARIABLE: Final = re2.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


# A variable expanded changed: a slice (``${K:0:20}``), a substitution (``${K//?/& }``), a
# prefix or suffix cut, a case change (not a default, ``${K:-x}``, which leaves it whole).
# Printed, a secret so changed is no longer the value the runner masks in its log.
@cache  # compiled on its first use, not when a process imports the module
def _changed_expansion() -> re2._Regexp:
    return re2.compile(
        r"\$\{([A-Za-z_][A-Za-z0-9_]*)(:[^-=+?}\n][^}\n]{0,200}|//?[^}\n]{0,200}|##?[^}\n]{0,200}"
        r"|%%?[^}\n]{0,200}|\^\^?|,,?)\}"
    )


def ci_file(path: str) -> str | None:
    """The CI system whose file ``path`` names (``github``, ``gitlab``...), or None."""
    norm = path.replace("\\", "/")
    parts = [p for p in norm.split("/") if p not in ("", ".")]
    if not parts:
        return None
    base = parts[-1].lower()
    yaml_file = base.endswith((".yml", ".yaml"))
    if (
        yaml_file
        and len(parts) >= 3
        and parts[-2] == "workflows"
        and parts[-3] in (".github", ".gitea", ".forgejo")
    ):
        return "github"
    if base in ("action.yml", "action.yaml"):
        return "github"  # a composite action's steps
    if base in (".gitlab-ci.yml", ".gitlab-ci.yaml") or (yaml_file and ".gitlab" in parts[:-1]):
        return "gitlab"
    if base == "bitbucket-pipelines.yml":
        return "bitbucket"
    if base == "config.yml" and len(parts) >= 2 and parts[-2] == ".circleci":
        return "circleci"
    if base in ("azure-pipelines.yml", "azure-pipelines.yaml"):
        return "azure"
    if base == ".travis.yml":
        return "travis"
    if base in (".drone.yml", ".woodpecker.yml") or (yaml_file and ".woodpecker" in parts[:-1]):
        return "drone"
    if yaml_file and ".buildkite" in parts[:-1]:
        return "buildkite"
    return None


def ci_commands(path: str, text: str) -> str | None:
    """The shell commands a CI file runs, one command line (or script) per line, with the
    runner's expressions made shell variables; None when ``path`` is not a CI file."""
    system = ci_file(path)
    if system is None:
        return None
    keys = _KEYS[system]
    lines = text.splitlines()[:MAX_LINES]
    scripts: list[str] = []
    i = 0
    while i < len(lines) and len(scripts) < MAX_COMMANDS:
        match = _KEY_LINE.match(lines[i])
        if match is None or match.group(2) not in keys:
            i += 1
            continue
        indent = len(match.group(1))
        value = match.group(3) or ""
        i += 1
        if _BLOCK.match(value):
            block, i = _block(lines, i, indent)
            scripts.append(_scalar_block(value[0], block))
        elif value and not value.startswith("#"):
            scripts.extend(_inline(value))
        else:
            items, i = _block(lines, i, indent, items=True)
            scripts.extend(_list_items(items))
    if not scripts:
        return ""
    renamed = _secret_variables(text)
    return "\n".join(_substituted(s, renamed) for s in scripts if s.strip())


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block(lines: list[str], i: int, indent: int, *, items: bool = False) -> tuple[list[str], int]:
    """The lines after a key at ``indent`` that belong to its value: more indented ones,
    blank ones, and (for a list) ``- `` items at the key's own indentation."""
    block: list[str] = []
    while i < len(lines):
        line = lines[i]
        item = items and _indent(line) == indent and line.lstrip().startswith("- ")
        if line.strip() and _indent(line) <= indent and not item:
            break
        block.append(line)
        i += 1
    while block and not block[-1].strip():
        block.pop()
    return block, i


def _scalar_block(style: str, block: list[str]) -> str:
    """A block scalar's text: literal (``|``) keeps the lines, folded (``>``) joins them."""
    depth = min((_indent(line) for line in block if line.strip()), default=0)
    text = [line[depth:] for line in block]
    if style == "|":
        return "\n".join(text)
    return " ".join(line.strip() for line in text if line.strip())


def _list_items(block: list[str]) -> list[str]:
    """The items of a block list (``- cmd``, ``- |`` then indented lines)."""
    found: list[str] = []
    depth = min((_indent(line) for line in block if line.strip()), default=0)
    i = 0
    while i < len(block):
        match = _ITEM_LINE.match(block[i])
        if match is None or len(match.group(1)) != depth:
            i += 1
            continue
        value = match.group(2)
        i += 1
        if _BLOCK.match(value):
            inner, i = _block(block, i, depth)
            found.append(_scalar_block(value[0], inner))
        else:
            found.extend(_inline(value))
    return found


def _inline(value: str) -> list[str]:
    """An inline value: a quoted or plain scalar, or a flow list of them."""
    if value.startswith("[") and value.endswith("]"):
        try:
            items = json.loads(value)
        except ValueError:
            items = [v.strip() for v in value[1:-1].split(",")]
        return [_unquoted(str(v)) for v in items if isinstance(v, str | int | float)]
    return [_unquoted(value)]


def _unquoted(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            unquoted = json.loads(value)
        except ValueError:
            return value[1:-1]
        return unquoted if isinstance(unquoted, str) else value
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    if " #" in value:  # a plain scalar's comment
        value = value.split(" #", 1)[0].rstrip()
    return value


def _secret_name(name: str) -> str:
    return name if _SECRET_NAME.search(name) else f"{name}_SECRET"


def _secret_variables(text: str) -> dict[str, str]:
    """Variables an ``env:`` mapping sets from a secret, and the name they are read under."""
    renamed: dict[str, str] = {}
    for match in _ENV_FROM_SECRET.finditer(text):
        name = match.group(1)
        if name not in renamed and len(renamed) < 200:
            renamed[name] = _secret_name(name)
    return renamed


def _substituted(script: str, renamed: Mapping[str, str]) -> str:
    def expression(match: re2.Match[str]) -> str:
        inner = str(match.group(1))
        secret = _SECRET_REF.match(inner)
        if secret is not None:
            return "${" + _secret_name(str(secret.group(1) or secret.group(2))) + "}"
        if inner in ("github.token", "secrets.GITHUB_TOKEN"):
            return "${GITHUB_TOKEN}"
        env = _ENV_REF.match(inner)
        if env is not None:
            name = str(env.group(1))
            return "${" + renamed.get(name, name) + "}"
        return "gha-expr"

    script = str(_EXPRESSION.sub(expression, script))

    def changed(match: re2.Match[str]) -> str:
        # a secret printed in part or changed: read as what it amounts to, the secret run
        # through a program that changes it on its way to the log
        name = str(match.group(1))
        new = renamed.get(name, name)
        if not _SECRET_NAME.search(new):
            return str(match.group(0))
        return '$(printf %s "${' + new + '}" | rev)'

    script = str(_changed_expansion().sub(changed, script))
    if not renamed:
        return script

    def variable(match: re2.Match[str]) -> str:
        name = str(match.group(1) or match.group(2))
        new = renamed.get(name, name)
        return str(match.group(0)) if new == name else "${" + new + "}"

    return str(_VARIABLE.sub(variable, script))

"""The ``path`` kind: workspace scope and sensitive paths.

Judges the paths an action reads, writes or deletes:

- file actions: ``file_read`` reads, ``file_write`` and ``file_edit`` write, ``file_delete``
  deletes ``args.path`` (also ``file_path``, or a list in ``paths``);
- shell commands (``args.command``): every command found by :mod:`specialists.shellparse`,
  with :func:`~specialists.understand.effects.path_effects` telling what it does to which path
  (redirections, ``rm``, ``cp``/``mv``, ``tee``, ``sed -i``, ``cat``, ``curl -d @file``...).

Paths are resolved as strings, never on the filesystem: relative to ``context.cwd`` (else
``repo_root``), ``~`` and ``$HOME`` from ``context.home``, ``..`` collapsed.

Checks (``checks``, usually one per entry):

- ``scope``: a write or delete outside the workspace (``context.repo_root`` and
  ``context.cwd``) and the scratch directories (``/tmp``, ``$TMPDIR``...). ``/dev/null`` and
  the other sinks are always fine.
- ``sensitive``: a path matching the ``sensitive`` globs (credentials, agent settings, git
  hooks, CI configuration, ``.env`` files) and not the ``exclude`` globs (``.env.example``).

``modes`` says which effects count: reading ``.env`` is a secret-read failure, writing
``.github/workflows`` a CI one. Example entry config::

    checks: [sensitive]
    modes: [read]
    sensitive: ["**/.env", "**/.env.*", "~/.ssh/**", "~/.aws/**"]
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Final, Literal, NamedTuple, final

from pydantic import AfterValidator, Field, JsonValue, ValidationInfo, field_validator

from specialists.shellparse import (
    DEFAULT_MAX_CHARS,
    SimpleCommand,
    command_of,
    known_output,
    parse_for,
    preload,
    resolve_path,
)
from specialists.understand.diffs import diff_paths
from specialists.understand.effects import path_effects_of
from specialists.understand.globs import PathGlobs, is_within, path_globs
from specialists.understand.paths import in_scratch, is_shell_startup
from specialists.understand.startup import (
    powershell_settings_only,
    settings_only,
    tool_setup_output,
)
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, KindConfig, SpecialistKind, checked_before, empty_list

if TYPE_CHECKING:
    from pathlib import Path

    from supervisor.taxonomy import Entry

__all__ = [
    "DEFAULT_EXCLUDE",
    "DEFAULT_SENSITIVE",
    "PathConfig",
    "PathSpecialist",
    "supervisor_register_kinds",
]

Check = Literal["scope", "sensitive"]
Mode = Literal["read", "write", "delete"]
Strength = Literal["flag", "nudge", "block"]

# Paths that name the process that opens them: here they would be this Supervisor's own
# files, in the agent's shell that shell's.
_THIS_PROCESS: Final = ("/proc/self/", "/proc/thread-self/", "/dev/fd/", "/dev/std")
KIND_NAME: Final = "path"
KIND_VERSION: Final = "1"
MAX_PATHS: Final = 200  # paths judged per file action
TEXT_CAP: Final = 200
DEFAULT_SCRATCH: Final = ("/tmp", "/var/tmp", "/private/tmp", "/dev/shm")
_SINKS: Final = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero"})
_SINK_DIRS: Final = ("/dev/fd", "/proc/self/fd")
DEFAULT_SENSITIVE: Final = (
    # credentials
    "~/.ssh/**",
    "~/.aws/**",
    "~/.azure/**",
    "~/.config/gcloud/**",
    "~/.kube/config",
    "~/.docker/config.json",
    "~/.netrc",
    "~/.npmrc",
    "~/.pypirc",
    "~/.git-credentials",
    "~/.config/gh/hosts.yml",
    "~/.gnupg/**",
    "**/id_rsa",
    "**/id_ed25519",
    "**/id_ecdsa",
    "**/.env",
    "**/.env.*",
    # the repository's own enforcement
    "**/.git/hooks/**",
    "**/.git/config",
    ".github/workflows/**",
    ".gitlab-ci.yml",
    # agents' own settings
    "~/.claude/**",
    ".claude/settings*.json",
    "~/.codex/**",
    "~/.cursor/**",
    ".cursor/mcp.json",
    ".mcp.json",
    ".vscode/settings.json",
)
DEFAULT_EXCLUDE: Final = (
    "**/.env.example",
    "**/.env.sample",
    "**/.env.template",
    "**/.env.dist",
)
DEFAULT_ACTION_MODES: Final[dict[str, Mode]] = {
    "file_read": "read",
    "file_write": "write",
    "file_edit": "write",
    "file_delete": "delete",
}


def _check_glob(glob: str, info: ValidationInfo) -> str:
    if not checked_before(info):  # else it compiled when cached
        path_globs((glob,)).check()
    return glob


def _check_dir(path: str) -> str:
    if not path.startswith("/"):
        raise ValueError(f"scratch directory {path!r} must be an absolute path")
    return resolve_path(path, None, None)


Glob = Annotated[str, AfterValidator(_check_glob)]


class PathConfig(KindConfig):
    """Config of a ``path`` entry.

    Attributes:
        checks: ``scope`` and/or ``sensitive``.
        modes: the effects that count. Default: ``[write, delete]`` with only ``scope``,
            else ``[read, write, delete]``.
        sensitive: globs of sensitive paths (``~/`` is the home directory; a glob without
            a leading ``/`` or ``~`` matches at any depth, like ``.gitignore``).
        extra_sensitive: globs added to ``sensitive`` (to extend the defaults).
        exclude: globs that are never sensitive (``**/.env.example``).
        scratch: absolute directories outside the workspace where writes and deletes
            are fine (below them, not the directories themselves).
        use_tmpdir: add ``context.env["TMPDIR"]`` to ``scratch``.
        shell: also judge the paths in shell commands (``args.command``).
        action_modes: action type -> the effect it has on ``args.path``.
        verdict: the verdict on an objection; the entry's ``default_verdict`` when unset.
        max_chars: a shell command is cut here before parsing.
        protect_home: the supervisor's own state directory (its keys, signed records and
            store), wherever ``--home`` or ``$SUPERVISE_HOME`` put it, is sensitive too.
        settings: the verdict on an append to a shell start-up file (a sensitive path)
            whose text is known and only sets the shell up
            (:func:`specialists.understand.startup.settings_only`: a ``PATH`` or an alias
            added to ``~/.bashrc``, a tool's completion loaded); unset, such a write is
            judged like any other.
        content_judged: paths whose writes and edits by a file tool are judged by what they
            change, by another entry (an agent's settings: the ``agent_settings`` kind); this
            entry leaves those out. A shell command's writes and every delete stay its own.
    """

    checks: Annotated[list[Check], Field(min_length=1, max_length=2)]
    modes: list[Mode] | None = None
    sensitive: list[Glob] = Field(default_factory=lambda: list(DEFAULT_SENSITIVE))
    extra_sensitive: list[Glob] = Field(default_factory=empty_list)
    exclude: list[Glob] = Field(default_factory=lambda: list(DEFAULT_EXCLUDE))
    scratch: list[Annotated[str, AfterValidator(_check_dir)]] = Field(
        default_factory=lambda: list(DEFAULT_SCRATCH)
    )
    use_tmpdir: bool = True
    shell: bool = True
    action_modes: dict[str, Mode] = Field(default_factory=lambda: dict(DEFAULT_ACTION_MODES))
    verdict: Strength | None = None
    max_chars: int = Field(default=DEFAULT_MAX_CHARS, gt=0, le=1_048_576)
    protect_home: bool = False
    settings: Strength | None = None
    content_judged: list[Glob] = Field(default_factory=empty_list)

    @field_validator("checks")
    @classmethod
    def _unique(cls, checks: list[str]) -> list[str]:
        if len(set(checks)) != len(checks):
            raise ValueError("a check is listed twice")
        return checks

    @field_validator("modes")
    @classmethod
    def _some_mode(cls, modes: list[str] | None) -> list[str] | None:
        if modes is not None and not modes:
            raise ValueError("name at least one mode (read, write, delete), or leave it out")
        return modes


class _Effect(NamedTuple):
    mode: str
    path: str
    actor: str  # "file_write", or the program
    command: SimpleCommand | None
    glob: bool = False  # an unexpanded pattern (rm *.bak, find -name '*.bak' -delete)
    settings: bool = False  # a write whose known text only sets the shell up


@dataclass(frozen=True, slots=True)
class _Roots:
    workspace: tuple[str, ...]
    scratch: tuple[str, ...]
    home: str | None


_VERBS: Final = {"read": "reads", "write": "writes", "delete": "deletes"}


@final
class PathSpecialist:
    """Objects to out-of-scope writes and deletes, and to touching sensitive paths."""

    __slots__ = (
        "_action_modes",
        "_content_judged",
        "_exclude",
        "_max_chars",
        "_modes",
        "_own_home",
        "_protect_home",
        "_scope",
        "_scratch",
        "_sensitive",
        "_settings",
        "_shell",
        "_use_tmpdir",
        "_verdict",
        "execution",
    )

    def __init__(self, config: PathConfig, verdict: Verdict) -> None:
        self.execution = Execution.INLINE
        self._verdict = verdict
        self._scope = "scope" in config.checks
        sensitive = "sensitive" in config.checks
        # The glob lists compile on the first path they are asked about (each glob compiled
        # alone when its config was checked).
        self._sensitive = (
            PathGlobs([*config.sensitive, *config.extra_sensitive], lazy=True)
            if sensitive
            else None
        )
        self._exclude = PathGlobs(config.exclude, lazy=True)
        default_modes = (
            ("write", "delete") if config.checks == ["scope"] else ("read", "write", "delete")
        )
        self._modes = frozenset(config.modes or default_modes)
        self._scratch = tuple(config.scratch)
        self._use_tmpdir = config.use_tmpdir
        self._shell = config.shell
        self._action_modes = dict(config.action_modes)
        self._max_chars = config.max_chars
        self._protect_home = config.protect_home and sensitive
        self._own_home: tuple[str, ...] = ()
        self._settings = Verdict(config.settings) if config.settings is not None else None
        self._content_judged = (
            PathGlobs(config.content_judged, lazy=True) if config.content_judged else None
        )

    def bind_home(self, home: Path) -> None:
        """The state directory of the Supervisor this specialist serves (see
        ``protect_home``): as given and with links resolved."""
        if self._protect_home:
            given = resolve_path(str(home.absolute()), None, None)
            real = resolve_path(os.path.realpath(home), None, None)
            self._own_home = tuple(dict.fromkeys((given, real)))

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        """Ok, a refusal when the action names no path, or the verdict on the first problem."""
        effects = self._effects(action, context)
        if effects is None:
            return SpecialistResult.refuse()
        roots = self._roots(context)
        for effect in effects:
            if effect.mode not in self._modes:
                continue
            if self._sensitive is not None:
                result = self._judge_sensitive(effect, roots)
                if result is not None:
                    return result
            if self._scope and effect.mode != "read":
                result = self._judge_scope(effect, roots)
                if result is not None:
                    return result
        return SpecialistResult.ok()

    def _in_own_home(self, path: str) -> bool:
        """Whether ``path`` is in this Supervisor's state directory, as written or once its
        links are resolved (``ln -s STATE x; rm x/state.db``)."""
        if any(is_within(path, home) for home in self._own_home):
            return True
        if not path.startswith("/") or path.startswith(_THIS_PROCESS):
            return False  # (/proc/self/fd/3 is the shell's file there, not this process's)
        try:
            real = os.path.realpath(path)
        except (ValueError, OSError):  # a NUL byte, a loop of links: not a path to follow
            return False
        return real != path and any(is_within(real, home) for home in self._own_home)

    # What the action touches ---------------------------------------------------------------

    def _effects(self, action: Action, context: Context) -> list[_Effect] | None:
        home = _home(context)
        cwd = context.cwd or context.repo_root
        mode = self._action_modes.get(action.type)
        if mode is not None:
            paths = _arg_paths(action)
            if paths is None:
                return None
            settings = mode == "write" and self._settings is not None and _sets_up(action)
            judged = [
                _Effect(mode, resolve_path(p, cwd, home), action.type, None, settings=settings)
                for p in paths
            ]
            if mode == "write" and self._content_judged is not None:
                judged = [e for e in judged if not self._content_judged.match(e.path, home)]
            return judged
        command = command_of(action) if self._shell else None
        if command is None:
            return None
        parsed = parse_for(command, context, max_chars=self._max_chars)
        effects: list[_Effect] = []
        for cmd in parsed.commands:
            actor = repr(_cut(cmd.source, 60)) if cmd.synthetic else cmd.program or "a redirection"
            for found in path_effects_of(cmd, parsed.home):
                settings = (
                    found.mode == "write"
                    and self._settings is not None
                    and _writes_setup(cmd, found.path)
                )
                effects.append(_Effect(found.mode, found.path, actor, cmd, found.glob, settings))
        return effects

    def _roots(self, context: Context) -> _Roots:
        tmpdir = context.env.get("TMPDIR") if self._use_tmpdir else None
        return _roots_for(context.repo_root, context.cwd, _home(context), tmpdir, self._scratch)

    # Judgements ------------------------------------------------------------------------

    def _judge_sensitive(self, effect: _Effect, roots: _Roots) -> SpecialistResult | None:
        sensitive = self._sensitive
        if sensitive is None:
            return None
        own = self._own_home and self._in_own_home(effect.path)
        if (
            not own
            and not sensitive.match(effect.path, roots.home)
            and not (effect.glob and sensitive.could_match(effect.path, roots.home))
        ):
            return None
        if self._exclude.match(effect.path, roots.home):
            return None
        shown = _shown(effect.path, roots.home)
        reason = f"{effect.actor} {_VERBS[effect.mode]} {shown}, a sensitive path"
        if (
            effect.settings
            and self._settings is not None
            and is_shell_startup(effect.path, roots.home)
        ):
            reason += (
                "; what it adds only sets the shell up (variables, PATH, aliases, a tool's "
                "completion or hook), so it is recorded"
            )
            fix = f"Tell the user you changed {shown} and what you added, so they can undo it."
            return self._result(effect, reason, fix, "sensitive", roots, self._settings)
        if effect.mode == "read":
            fix = (
                f"Do not read {shown}: it holds credentials or settings that must not enter the "
                "transcript. Ask the user for the specific non-secret value you need, or use the "
                "example/template file."
            )
        else:
            fix = (
                f"Do not {('delete' if effect.mode == 'delete' else 'change')} {shown}: it "
                "controls credentials, hooks, CI or an agent's permissions. Ask the user to make "
                "this change."
            )
        return self._result(effect, reason, fix, "sensitive", roots)

    def _judge_scope(self, effect: _Effect, roots: _Roots) -> SpecialistResult | None:
        path = effect.path
        if not path.startswith("/") or path in _SINKS:
            return None
        if any(is_within(path, d) for d in _SINK_DIRS):
            return None
        if any(is_within(path, root) for root in roots.workspace):
            return None
        if in_scratch(path, roots.home, roots.scratch):
            return None
        shown = _shown(path, roots.home)
        where = " or ".join(roots.workspace) if roots.workspace else "a known workspace"
        reason = f"{effect.actor} {_VERBS[effect.mode]} {shown}, outside {where}"
        fix = (
            f"Keep {'deletions' if effect.mode == 'delete' else 'writes'} inside {where} "
            f"(or a scratch directory such as {roots.scratch[0] if roots.scratch else '/tmp'}); "
            "ask the user before changing anything else."
        )
        return self._result(effect, reason, fix, "scope", roots)

    def _result(
        self,
        effect: _Effect,
        reason: str,
        correction: str,
        check: str,
        roots: _Roots,
        verdict: Verdict | None = None,
    ) -> SpecialistResult:
        cmd = effect.command
        if cmd is not None and cmd.via:
            reason += f", reached through {cmd.reached_through}"
        if cmd is not None and cmd.fallback:
            reason += "; the command did not parse, so it was judged on its words"
        evidence: dict[str, JsonValue] = {
            "object": effect.path,
            "check": check,
            "mode": effect.mode,
            "path": effect.path,
            "fallback": bool(cmd is not None and cmd.fallback),
        }
        if cmd is not None:
            evidence["command"] = _cut(cmd.source or " ".join(cmd.argv), TEXT_CAP)
        if roots.workspace:
            evidence["workspace"] = list(roots.workspace)
        return SpecialistResult(
            verdict=verdict or self._verdict,
            confidence=0.8 if cmd is not None and cmd.fallback else 1.0,
            reason=reason,
            correction=correction,
            evidence=evidence,
        )


@lru_cache(maxsize=256)
def _roots_for(
    repo_root: str | None,
    cwd: str | None,
    home: str | None,
    tmpdir: str | None,
    scratch: tuple[str, ...],
) -> _Roots:
    workspace = tuple(
        resolve_path(root, None, home) for root in dict.fromkeys((repo_root, cwd)) if root
    )
    if tmpdir and tmpdir.startswith("/") and tmpdir != "/":
        scratch = (*scratch, resolve_path(tmpdir, None, None))
    return _Roots(workspace, scratch, home)


def _home(context: Context) -> str | None:
    home = context.home or context.env.get("HOME")
    return resolve_path(home, None, None) if home and home != "<unset>" else None


def _arg_paths(action: Action) -> list[str] | None:
    """The paths a file action names, or None when it names none."""
    args = action.args
    found: list[str] = []
    for key in ("path", "file_path", "filename", "notebook_path"):
        value = args.get(key)
        if isinstance(value, str) and value:
            found.append(value)
    many = args.get("paths")
    if isinstance(many, list):
        found.extend(p for p in many[:MAX_PATHS] if isinstance(p, str) and p)
    diff = args.get("diff")
    if isinstance(diff, str) and diff:  # an edit sent as a unified diff: the files it changes
        found.extend(diff_paths(diff))
    return list(dict.fromkeys(found))[:MAX_PATHS] or None


def _sets_up(action: Action) -> bool:
    """Whether a file tool's edit adds known text that only sets the shell up (an edit
    keeps the rest of the file; a whole-file write would replace what the user had)."""
    if action.type != "file_edit":
        return False
    text = action.args.get("new", action.args.get("new_string"))
    path = action.args.get("path", action.args.get("file_path"))
    return isinstance(text, str) and _only_settings(text, path if isinstance(path, str) else "")


def _writes_setup(cmd: SimpleCommand, path: str) -> bool:
    """Whether ``cmd`` appends known text that only sets the shell up: the text it prints
    (``echo 'export PATH=…' >> ~/.bashrc``), or a tool's completion or shell hook
    (``kubectl completion bash >> ~/.bashrc``). A write that replaces the file does not
    count: what the user had there is lost."""
    writes = [r for r in cmd.redirects if r.writes]
    if not writes or any(not r.op.endswith(">>") for r in writes):
        return False
    if tool_setup_output(cmd) and not _powershell(path):
        return True
    text = known_output(cmd)
    return text is not None and _only_settings(text, path)


def _only_settings(text: str, path: str) -> bool:
    """Whether ``text`` added to the start-up file ``path`` only sets its shell up, read in
    that shell's language (a PowerShell profile's, else a POSIX shell's)."""
    return powershell_settings_only(text) if _powershell(path) else settings_only(text)


def _powershell(path: str) -> bool:
    return path.lower().endswith(".ps1")


def _shown(path: str, home: str | None) -> str:
    if home and is_within(path, home) and path != home:
        return "~" + path[len(home.rstrip("/")) :]
    return path


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _build(entry: Entry, config: KindConfig) -> PathSpecialist:
    if not isinstance(config, PathConfig):
        raise TypeError(f"path kind needs a PathConfig, got {type(config).__name__}")
    verdict = Verdict(config.verdict) if config.verdict is not None else entry.default
    if config.shell:
        preload()
    return PathSpecialist(config, verdict)


PATH_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=PathConfig,
    build=_build,
    version=KIND_VERSION,
    description="Writes and deletes outside the workspace; reads and writes of sensitive paths.",
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``path`` kind."""
    return [PATH_KIND]

"""Facts from the host: what a check depends on that the caller did not say.

A check may turn on a fact about where the action runs: ``rm -rf ~/`` needs ``home``,
``git clean -fdx`` needs the work tree's status, ``sudo apt-get install`` is another act in
a container. Real hosts rarely send these, so the places that know the machine the agent
runs on (the CLI, the Claude Code and Codex hooks, the MCP proxy, the in-process adapters)
fill them in here:

=============  =========================================================================
fact           how
=============  =========================================================================
``cwd``        what the host says (a hook payload's ``cwd``), else this process's
``home``       ``$HOME`` (``%USERPROFILE%`` on Windows), else the password database
``user``       the password database entry of the effective user id, else ``$USER``
``platform``   ``linux``, ``darwin`` or ``windows`` (another ``sys.platform`` as is)
``container``  ``/.dockerenv``, ``/run/.containerenv``, ``$container``, a
               ``KUBERNETES_SERVICE_HOST``, or a container runtime in ``/proc/1/cgroup``
``repo_root``  the nearest directory at or above ``cwd`` holding ``.git``
``branch``     ``# branch.head`` of ``git status --porcelain=v2 --branch``; None if detached
``git_status`` that status text, at most ``MAX_STATUS_ENTRIES`` entries after its headers
``env``        the variables that name places (``$TMPDIR``, ``$XDG_CONFIG_HOME``...;
               :data:`~supervisor.hooks.LOCATION_ENV`): their values, ``"<unset>"`` when
               unset, so ``rm -rf "$TMPDIR/x"`` is judged on where it deletes; and the
               variables the action references (``$OUT_DIR``): ``"<unset>"`` when unset or
               empty, the value when it names a place and the name suggests no secret
               (:func:`~supervisor.hooks.shareable_value`), else left out (unknown)
=============  =========================================================================

A fact the caller gave (any value but None) is never replaced; ``env`` with ``HOME`` or
``USER`` gives home and user, and a given ``repo_root`` that does not hold the host's
directory keeps ``cwd`` unknown (the actions ran elsewhere). What is filled is named in
``Context.gathered``, which the decision record keeps with the rest of the context, so a
reader tells given from inferred and a replay uses the recorded facts without looking at
the machine again. ``git`` runs under a hard time bound (:data:`GIT_TIMEOUT_S`); when it
times out, fails or is missing, ``branch`` and ``git_status`` stay unknown (None): a fact is
never guessed. Answers are kept for :data:`CACHE_TTL_S` per repository (:class:`FactsCache`).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from supervisor.hooks import LOCATION_ENV, referenced_names, shareable_value
from supervisor.models import Context

if TYPE_CHECKING:
    from pydantic import JsonValue

__all__ = [
    "CACHE_TTL_S",
    "FACT_FIELDS",
    "GIT_TIMEOUT_S",
    "MAX_REFERENCE_TEXT",
    "MAX_STATUS_ENTRIES",
    "UNSET",
    "FactsCache",
    "GitFacts",
    "agather",
    "find_repo_root",
    "gather",
    "git_facts",
    "home_of",
    "in_container",
    "location_env",
    "platform_name",
    "referenced_env",
    "user_of",
]

log = logging.getLogger(__name__)

FACT_FIELDS: Final = (
    "branch",
    "container",
    "cwd",
    "env",
    "git_status",
    "home",
    "platform",
    "repo_root",
    "user",
)
GIT_TIMEOUT_S: Final = 0.3
CACHE_TTL_S: Final = 1.0
# Entries of ``git status`` kept in the context (and in every decision record); past this,
# the text ends with a line that says how many were left out, which readers take as "work
# present, paths unknown" rather than a short list.
MAX_STATUS_ENTRIES: Final = 200
UNSET: Final = "<unset>"  # a variable known to be unset (Context.env)
MAX_REFERENCE_TEXT: Final = 65_536  # characters of an action read for variable references
# How far up from the working directory to look for ``.git``: enough for any real tree,
# and it bounds the stat calls on the hot path.
_MAX_REPO_DEPTH: Final = 40
_CACHE_SIZE: Final = 256
# cgroup paths that name a container runtime (cgroup v1, and v2 hosts that show the path).
_CGROUP_HINTS: Final = ("docker", "kubepods", "containerd", "libpod", "lxc", "garden", "crio")


def platform_name(value: str | None = None) -> str:
    """``linux``, ``darwin`` or ``windows``; any other ``sys.platform`` value as it is."""
    name = sys.platform if value is None else value
    if name.startswith("linux"):
        return "linux"
    if name.startswith(("win32", "cygwin", "msys")):
        return "windows"
    return name


def home_of(environ: Mapping[str, str]) -> str | None:
    """The home directory ``~`` means to the agent's shell: ``$HOME``, else the passwd entry.

    ``$HOME`` comes first because it is what a shell expands ``~`` and ``$HOME`` to; the
    password database (of the effective user) answers when it is unset or not absolute.
    """
    keys = ("USERPROFILE", "HOME") if platform_name() == "windows" else ("HOME",)
    for key in keys:
        value = environ.get(key)
        if value and os.path.isabs(value):
            return os.path.normpath(value)
    entry = _passwd_entry()
    return entry[1] if entry is not None and os.path.isabs(entry[1]) else None


def user_of(environ: Mapping[str, str]) -> str | None:
    """The user the agent runs as: the effective user's name, else ``$USER``/``$LOGNAME``."""
    entry = _passwd_entry()
    if entry is not None and entry[0]:
        return entry[0]
    for key in ("USER", "LOGNAME", "USERNAME"):
        value = environ.get(key)
        if value:
            return value
    return None


def _passwd_entry() -> tuple[str, str] | None:
    geteuid = getattr(os, "geteuid", None)
    if geteuid is None:  # Windows
        return None
    return _passwd_of(geteuid())


@functools.lru_cache(maxsize=8)
def _passwd_of(uid: int) -> tuple[str, str] | None:
    # Cached: with a directory service behind NSS a lookup can take milliseconds.
    try:
        import pwd

        entry = pwd.getpwuid(uid)
    except (ImportError, KeyError, OSError):
        return None
    return entry.pw_name, entry.pw_dir


def in_container(environ: Mapping[str, str], root: str = "/") -> bool | None:
    """Whether this process runs in a container: True on a sign of one, False on none.

    Linux only looks (``root`` is where to look, for tests); macOS is never a container
    here; elsewhere (Windows containers leave no sign we read) the answer is unknown, None.
    """
    if environ.get("container") or environ.get("KUBERNETES_SERVICE_HOST"):
        return True
    system = platform_name()
    if system == "darwin":
        return False
    if system != "linux":
        return None
    return _linux_container(root)


@functools.lru_cache(maxsize=4)
def _linux_container(root: str) -> bool:
    base = Path(root)
    if (base / ".dockerenv").exists() or (base / "run/.containerenv").exists():
        return True
    try:
        cgroup = (base / "proc/1/cgroup").read_text(errors="replace")
    except OSError:
        return False
    return any(hint in line for line in cgroup.splitlines() for hint in _CGROUP_HINTS)


def find_repo_root(cwd: str | None) -> str | None:
    """The nearest directory at or above ``cwd`` holding ``.git`` (a dir or a worktree file)."""
    if not cwd or not os.path.isabs(cwd):
        return None
    path = Path(os.path.normpath(cwd))
    for _ in range(_MAX_REPO_DEPTH):
        if (path / ".git").exists():
            return str(path)
        if path.parent == path:
            return None
        path = path.parent
    return None


class GitFacts(NamedTuple):
    """What ``git status`` said about a work tree; ``known`` False when it said nothing."""

    known: bool
    branch: str | None = None
    status: str | None = None
    why: str = ""  # why it is unknown: "timeout", "exit 128", "no git"...


_UNKNOWN_GIT: Final = GitFacts(False, why="not run")


def _git_env(environ: Mapping[str, str]) -> dict[str, str]:
    # GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE... of this process would point git elsewhere.
    env = {k: v for k, v in environ.items() if not k.startswith("GIT_")}
    env.update(GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", LC_ALL="C", LANGUAGE="C")
    return env


def git_facts(
    root: str,
    *,
    timeout_s: float = GIT_TIMEOUT_S,
    environ: Mapping[str, str] | None = None,
    git: str = "git",
) -> GitFacts:
    """Branch and status of the work tree at ``root``, or unknown, within ``timeout_s``.

    Runs ``git status --porcelain=v2 --branch`` with untracked and ignored files shown
    whatever the user's configuration says (``git clean -x`` deletes ignored files), no
    optional locks (it never writes the index), no fsmonitor hook and no submodule
    recursion. On timeout the whole process group is killed.
    """
    argv = [
        git,
        "--no-optional-locks",
        "-c",
        "core.fsmonitor=false",
        "-c",
        "color.status=false",
        "status",
        "--porcelain=v2",
        "--branch",
        "--untracked-files=normal",
        "--ignored=matching",
        "--ignore-submodules=all",
    ]
    env = _git_env(os.environ if environ is None else environ)
    posix = os.name == "posix"
    try:
        proc = subprocess.Popen(
            argv,
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=posix,
        )
    except OSError as exc:
        return GitFacts(False, why=f"cannot run git: {exc.strerror or exc}")
    try:
        out, _ = proc.communicate(timeout=max(0.0, timeout_s))
    except subprocess.TimeoutExpired:
        _kill(proc, posix)
        return GitFacts(False, why=f"timeout after {timeout_s * 1000:.0f} ms")
    if proc.returncode != 0:
        return GitFacts(False, why=f"exit {proc.returncode}")
    return _read_status(out.decode("utf-8", "surrogateescape"))


def _kill(proc: subprocess.Popen[bytes], group: bool) -> None:
    with contextlib.suppress(OSError):
        if group:
            os.killpg(proc.pid, signal.SIGKILL)  # git and anything it started
        else:
            proc.kill()
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        proc.wait(timeout=1.0)
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()


def _read_status(text: str) -> GitFacts:
    lines = text.splitlines()
    headers = [line for line in lines if line.startswith("# ")]
    entries = [line for line in lines if line and not line.startswith("# ")]
    if not any(line.startswith("# branch.oid ") for line in headers):
        return GitFacts(False, why="no branch header in git's output")
    branch: str | None = None
    for line in headers:
        if line.startswith("# branch.head "):
            head = line[len("# branch.head ") :]
            branch = None if head == "(detached)" else head
    kept = entries[:MAX_STATUS_ENTRIES]
    if len(entries) > len(kept):
        kept.append(f"... {len(entries) - len(kept)} more entries not shown (truncated)")
    return GitFacts(True, branch, "\n".join([*headers, *kept]) + "\n")


class _Cached(NamedTuple):
    expires: float
    facts: GitFacts


class FactsCache:
    """Git facts per repository for ``ttl_s`` seconds, so a burst of calls runs git once.

    Thread-safe; bounded. A host that knows the tree changed (a tool call just ran there)
    calls :meth:`forget`. The time bound applies to each run of git; concurrent callers on
    the same repository wait for the one run rather than start their own.
    """

    def __init__(self, ttl_s: float = CACHE_TTL_S, size: int = _CACHE_SIZE) -> None:
        self.ttl_s = ttl_s
        self._size = size
        self._lock = threading.Lock()
        self._items: OrderedDict[tuple[str, float], _Cached] = OrderedDict()
        self._running: dict[tuple[str, float], threading.Lock] = {}

    def git(
        self, root: str, *, timeout_s: float, environ: Mapping[str, str] | None = None
    ) -> GitFacts:
        key = (root, timeout_s)
        with self._lock:
            found = self._fresh(key)
            if found is not None:
                return found
            running = self._running.setdefault(key, threading.Lock())
        with running:
            with self._lock:
                found = self._fresh(key)
            if found is not None:
                return found
            facts = git_facts(root, timeout_s=timeout_s, environ=environ)
            with self._lock:
                self._items[key] = _Cached(time.monotonic() + self.ttl_s, facts)
                self._items.move_to_end(key)
                while len(self._items) > self._size:
                    self._items.popitem(last=False)
                self._running.pop(key, None)
        return facts

    def _fresh(self, key: tuple[str, float]) -> GitFacts | None:
        cached = self._items.get(key)
        if cached is None:
            return None
        if cached.expires <= time.monotonic():
            del self._items[key]
            return None
        return cached.facts

    def forget(self, directory: str | None = None) -> None:
        """Drop what is known of the repository holding ``directory`` (all when None)."""
        with self._lock:
            if directory is None:
                self._items.clear()
                return
            root = find_repo_root(directory) or directory
            for key in [k for k in self._items if k[0] == root]:
                del self._items[key]


def gather(
    context: Context | Mapping[str, Any] | None = None,
    *,
    cwd: str | None = None,
    environ: Mapping[str, str] | None = None,
    cache: FactsCache | None = None,
    timeout_s: float = GIT_TIMEOUT_S,
    action: object = None,
    environ_complete: bool = True,
) -> Context:
    """``context`` with every fact this host can know filled in; given facts are kept.

    Args:
        context: what the caller said (a :class:`Context` or its dict).
        cwd: the working directory the host reports for the action (a hook payload's
            ``cwd``); used when the context has none. Pass ``os.getcwd()`` when the action
            runs in this process.
        environ: the agent's environment, for ``$HOME`` and ``$USER`` (default: this
            process's).
        cache: keeps git's answers briefly per repository (default: none, git runs).
        timeout_s: the bound on ``git status``.
        action: the action (or its dict, or several) whose variable references are
            reported from ``environ`` (see the table above).
        environ_complete: ``environ`` is the whole environment, so a variable it lacks is
            unset; False when it holds only what a hook client sent (a variable it lacks
            stays unknown).

    Raises:
        InvalidActionError: ``context`` does not validate.
    """
    from supervisor.engine import as_context

    ctx = as_context(context)
    env = os.environ if environ is None else environ
    found: dict[str, JsonValue] = {}
    if ctx.cwd is None and cwd and _may_be_cwd(cwd, ctx.repo_root):
        found["cwd"] = os.path.normpath(cwd) if os.path.isabs(cwd) else cwd
    # ``env`` given with HOME (or USER) says it too: readers fall back on it.
    given_env = ctx.env
    home_given = "HOME" in given_env or "USERPROFILE" in given_env
    if ctx.home is None and not home_given and (home := home_of(env)) is not None:
        found["home"] = home
    user_given = any(k in given_env for k in ("USER", "LOGNAME", "USERNAME"))
    if ctx.user is None and not user_given and (user := user_of(env)) is not None:
        found["user"] = user
    if ctx.platform is None:
        found["platform"] = platform_name()
    if ctx.container is None and (container := in_container(env)) is not None:
        found["container"] = container
    places = location_env(env, given_env)
    if action is not None:
        places.update(referenced_env(action, env, {**given_env, **places}, environ_complete))
    if places:
        found["env"] = {**given_env, **places}
    if ctx.repo_root is None or ctx.branch is None or ctx.git_status is None:
        where = ctx.cwd if ctx.cwd is not None else found.get("cwd")
        root = ctx.repo_root or find_repo_root(where if isinstance(where, str) else None)
        if ctx.repo_root is None and root is not None:
            found["repo_root"] = root
        unknown_git = ctx.branch is None or ctx.git_status is None
        if root is not None and os.path.isabs(root) and unknown_git:
            facts = (
                cache.git(root, timeout_s=timeout_s, environ=environ)
                if cache is not None
                else git_facts(root, timeout_s=timeout_s, environ=environ)
            )
            if not facts.known:
                log.debug("git facts of %s unknown: %s", root, facts.why)
            else:
                if ctx.branch is None and facts.branch is not None:
                    found["branch"] = facts.branch
                if ctx.git_status is None:
                    found["git_status"] = facts.status
    if not found:
        return ctx
    gathered = tuple(sorted({*ctx.gathered, *found}))
    return ctx.model_copy(update={**found, "gathered": gathered})


def location_env(environ: Mapping[str, str], given: Mapping[str, str]) -> dict[str, str]:
    """The place-naming variables of ``environ`` that ``given`` does not hold: each value
    (``"<unset>"`` when unset or empty, as a shell expands it to nothing)."""
    return {name: environ.get(name) or UNSET for name in LOCATION_ENV if name not in given}


def referenced_env(
    action: object, environ: Mapping[str, str], given: Mapping[str, str], complete: bool
) -> dict[str, str]:
    """The variables ``action``'s text references that ``given`` does not hold: ``"<unset>"``
    when unset or empty, the value when :func:`~supervisor.hooks.shareable_value` allows it;
    a variable whose value may not be shared, or that an incomplete ``environ`` lacks, is
    left out (unknown)."""
    found: dict[str, str] = {}
    for name in referenced_names(_text_of(action)):
        if name in given:
            continue
        value = environ.get(name)
        if value is None and not complete:
            continue
        if not value:
            found[name] = UNSET
        elif (shared := shareable_value(name, value)) is not None:
            found[name] = shared
    return found


def _text_of(action: object, budget: int = MAX_REFERENCE_TEXT) -> str:
    """The strings of an action's arguments (of a model, a dict or a list of them), joined,
    at most ``budget`` characters."""
    parts: list[str] = []
    stack: list[object] = [action]
    while stack and budget > 0:
        item = stack.pop()
        if isinstance(item, str):
            parts.append(item[:budget])
            budget -= len(parts[-1])
        elif isinstance(item, Mapping):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
        elif hasattr(item, "args"):  # an Action
            stack.append(item.args)
    return "\n".join(parts)


def _may_be_cwd(cwd: str, repo_root: str | None) -> bool:
    """Whether the host's ``cwd`` agrees with a given ``repo_root`` (inside it, or none given).

    A context that names a repository elsewhere describes actions that ran there: this
    process's directory would be a wrong working directory for them, not a missing one.
    """
    if repo_root is None:
        return True
    if not (os.path.isabs(cwd) and os.path.isabs(repo_root)):
        return False
    here, root = os.path.normpath(cwd), os.path.normpath(repo_root)
    return here == root or here.startswith(root.rstrip(os.sep) + os.sep)


async def agather(
    context: Context | Mapping[str, Any] | None = None,
    *,
    cwd: str | None = None,
    environ: Mapping[str, str] | None = None,
    cache: FactsCache | None = None,
    timeout_s: float = GIT_TIMEOUT_S,
    action: object = None,
    environ_complete: bool = True,
) -> Context:
    """:func:`gather` off the event loop (git runs in a worker thread)."""
    import asyncio

    return await asyncio.to_thread(
        gather,
        context,
        cwd=cwd,
        environ=environ,
        cache=cache,
        timeout_s=timeout_s,
        action=action,
        environ_complete=environ_complete,
    )

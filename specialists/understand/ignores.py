"""A ``.gitignore`` change that stops ignoring credential files.

A project ignores its credential files (``.env``, private keys, cloud credentials) so that
``git add -A`` or ``git commit -a`` never takes them; an edit that drops the line, or adds a
negation (``!.env``) after it, leaves the next bulk commit to publish them. This module
reads the ignore rules before and after a change as git does (each line a pattern, the last
pattern that matches a path decides, ``!`` re-includes, ``#`` starts a comment, a leading
``/`` anchors, a trailing ``/`` is a directory) and says which of a fixed set of credential
file names (:data:`CREDENTIAL_FILES`) were ignored before and are not after
(:func:`unignored`). What a pattern matches is decided by
:class:`~specialists.understand.globs.PathGlobs` (linear time on the agent's text); example
files (``.env.example``) are not credentials, so ``!.env.example`` loses nothing.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from specialists.understand.globs import PathGlobs

__all__ = ["CREDENTIAL_FILES", "ignore_file", "unignored"]

MAX_LINES: Final = 2_000  # rules read per file
_ROOT: Final = "/repo"
# Where credentials are kept, as paths below the repository (each read at the top level and
# in a service's folder one level down: a rule anchored at the root covers only the first).
CREDENTIAL_FILES: Final = (
    ".env",
    ".env.local",
    ".env.production",
    ".env.development.local",
    "id_rsa",
    "id_ed25519",
    "id_ecdsa",
    "server.pem",
    "privkey.pem",
    "server.key",
    "private.key",
    "credentials",
    "credentials.json",
    "service-account.json",
    "cert.p12",
    "cert.pfx",
    "release.keystore",
    "upload.jks",
    ".pypirc",
    ".netrc",
)
_PLACES: Final = tuple(
    path for name in CREDENTIAL_FILES for path in (f"{_ROOT}/{name}", f"{_ROOT}/service/{name}")
)


def ignore_file(path: str) -> bool:
    """Whether ``path`` is a git ignore file (``.gitignore``, ``.git/info/exclude``)."""
    norm = path.replace("\\", "/")
    return norm.rsplit("/", 1)[-1] == ".gitignore" or norm.endswith(".git/info/exclude")


def unignored(before: str, after: str) -> list[str]:
    """The credential files (:data:`CREDENTIAL_FILES`, by name) that ``before``'s rules
    ignore and ``after``'s do not."""
    was, now = _ignored(before), _ignored(after)
    lost = [p for p in _PLACES if p in was and p not in now]
    return list(dict.fromkeys(p.rsplit("/", 1)[-1] for p in lost))


def _ignored(text: str) -> frozenset[str]:
    rules = [_rule(line) for line in text.splitlines()[:MAX_LINES]]
    kept = [r for r in rules if r is not None]
    if not kept:
        return frozenset()
    out = set()
    for place in _PLACES:
        decided = False
        for negated, globs in reversed(kept):  # the last rule that matches decides
            if globs.match(place):
                decided = not negated
                break
        if decided:
            out.add(place)
    return frozenset(out)


@lru_cache(maxsize=512)
def _rule(line: str) -> tuple[bool, PathGlobs] | None:
    """(negated, globs) for one line of an ignore file, or None (blank, comment, unusable)."""
    text = line.strip()
    if not text or text.startswith("#") or len(text) > 300:
        return None
    negated = text.startswith("!")
    pattern = text[1:] if negated else text
    pattern = pattern.removeprefix("\\").rstrip("/")
    if not pattern:
        return None
    if pattern.startswith("/"):
        glob = _ROOT + pattern  # anchored at the repository's root
    elif "/" in pattern.removeprefix("**/"):
        glob = f"{_ROOT}/{pattern}"  # a pattern with a slash inside is relative to the root
    else:
        glob = pattern  # a bare name matches at any depth
    try:
        globs = PathGlobs((glob,))
        globs.check()
    except ValueError:
        return None
    return negated, globs

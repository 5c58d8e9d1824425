"""The user asked for it: an entry's objection lowered to a flag when the request names the act.

Many acts an entry objects to are everyday work when the user asked for them: deleting the
old copy of a project the user names, a cron job the user wants, a deploy of the app the user
says to ship, resetting the local database the user calls messy. What excuses them is not a
fact of the machine but the user's own words, so an entry may say which words ask for its act
(``requested`` in the taxonomy)::

    requested:
      acts: ['\\b(schedule|cron|nightly|every (day|night|hour))\\b']
      names: true

When a request of the session (the transcript's user messages, else ``Context.task``) matches
one of ``acts`` and also names what the objection is about, the entry's nudge or block
becomes a flag whose reason quotes the request. What must be named (``names``):

* ``object`` (the default): the object the result names (its evidence's ``object``,
  ``target`` or ``path``; of a path, its last part, every word of it: ``rm -rf ../old-api``
  needs ``old-api`` named, ``../invoice-service`` is not named by "the invoice helpers",
  ``rm -rf ~/Documents`` is not excused by a request about downloads), else as ``action``;
  A git ref (a branch or a tag) is named by one of its slash-separated parts whole:
  "delete my spike branches" names ``spike/old-pdf-renderer``;
* ``action``: a word of the action's arguments (a file, a branch, an app: no common word, no
  part of the session's own directories, and no option's name: ``--db-instance-identifier
  orders-perf`` carries ``orders-perf`` alone);
* ``none``: the act alone.

A result may say what the act reaches (evidence ``reached``): paths, each of which the
request must name, or ``all`` (a whole-tree reset), which only a request matching one of
``whole`` asks for. With ``names: action``, ``ignore`` drops words that name nothing for the
entry, an action left with no name needs ``whole``, and ``each`` asks for every name
(numbers too) and every URL at or below one the request names.

An action that reaches a network address (a URL's host, an IP address, a host the
specialist found in evidence ``target.host``) other than a loopback one that the request
does not name is never excused: the user who asked for a nightly job did not ask for one
that fetches code from a host they never mentioned. With ``production: false`` the request
does not excuse the act in a production session (an environment named or described as
production: ``Supabase project: storefront-prod``), nor an act whose arguments say production
(``--settings=config.settings.prod``) when the request does not. Without a request nothing
is excused (a missing fact is never an excuse), and the text the agent read (mail, pages,
files) is never a request.

Patterns are RE2 (linear time) over the lower-cased request; names are compared as whole
words, lower case, with a final ``s`` dropped (``configmaps`` names ``configmap``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Annotated, Final, Literal

import re2
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from supervisor.environment import PRODUCTION_NAMES, is_production
from supervisor.environment import words as _words
from supervisor.models import Action, Context, SpecialistResult, Verdict, checked_before
from supervisor.transcript import Trust

__all__ = ["Requested", "asked_by", "excused"]

MAX_REQUESTS: Final = 20  # the latest requests of a session that are read
MAX_REQUEST_CHARS: Final = 4_000  # of each request
MAX_ACTION_CHARS: Final = 8_000  # of an action's arguments, for its names
MIN_NAME_CHARS: Final = 3
PRODUCTION: Final = PRODUCTION_NAMES

# Words that name nothing in particular: a request and an action that share only these
# share no object (English function words, the verbs of any request, the words of paths and
# commands that every action carries).
_COMMON_TEXT: Final = """
    a about above after again all also am an and any are as at back be been before being
    below between both but by can could did do does doing done down during each even ever
    every few for from further get gets got had has have having he her here hers him his how
    i if in into is it its itself just let like make me mine more most my myself need new no
    nor not now of off old on once one only or other our ours out over own please same she
    should so some such than that the their them then there these they this those through to
    too under until up us very via was we were what when where which while who whom why will
    with would yes yet you your yours
    add added apply change changed check clean cleanup create created delete deleted disable
    do enable fix fixed give keep list made move remove removed reset restart run running set
    show start stop try update use used want work
    all app bin bash sh cmd com dev dir etc exe git file files folder home http https lib local
    localhost main master null opt org origin path project projects repo root sbin src sudo
    tmp true false user users usr var www txt json yaml yml branch branches tag tags deploy
    release publish ship log logs test tests spec specs
    """
COMMON_WORDS: Final = frozenset(_COMMON_TEXT.split())
_COMMON_STEMS: Final = frozenset(
    w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in COMMON_WORDS
)


Pattern = Annotated[str, Field(min_length=1, max_length=500)]


class Requested(BaseModel):
    """Which words of the user's request ask for an entry's act.

    Attributes:
        acts: RE2 patterns over the lower-cased request; one must match.
        names: what the same request must also name: the objection's ``object``, a word of
            the ``action``, or ``none``.
        production: the request excuses the act in a production session too
            (``Context.environment`` production, prod, prd or live).
        unless: RE2 patterns over the lower-cased request that take the excuse back
            (``draft``, ``for me to review``: the user asked to prepare, not to do).
        fields: with ``names: action``, only these arguments give names (a message's
            recipients, not its text, which shares the request's topic): top-level keys,
            compared without case, ``_`` or ``-``.
        up_to: the strongest objection a request excuses: ``nudge`` keeps a block (a
            credential in a message the user asked to send is still blocked).
        whole: RE2 patterns of a request that asks for the act on everything it reaches
            (``discard all my changes``, ``go back to the last commit``): a result whose
            evidence says ``reached: all`` (a whole-tree reset) needs one of them instead of a
            name, and without them it is never excused. With ``names: action``, an action
            that carries no name of its own (``docker compose down -v``: the project's
            stack) needs one of them too.
        ignore: with ``names: action``, words that name nothing for this entry (its tools
            and the kinds of what they act on: ``kubectl``, ``namespace``, ``volume``).
        each: with ``names: action``, every name the action carries must be in the request
            (``kubectl delete namespace preview-481 payments`` asked about ``preview-481``
            alone is not excused).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    acts: tuple[Pattern, ...] = Field(min_length=1, max_length=50)
    names: Literal["object", "action", "none"] = "object"
    production: bool = True
    unless: tuple[Pattern, ...] = Field(default=(), max_length=50)
    fields: tuple[Annotated[str, Field(min_length=1, max_length=100)], ...] = Field(
        default=(), max_length=50
    )
    up_to: Literal["nudge", "block"] = "block"
    whole: tuple[Pattern, ...] = Field(default=(), max_length=50)
    ignore: tuple[Annotated[str, Field(min_length=1, max_length=100)], ...] = Field(
        default=(), max_length=200
    )
    each: bool = False

    @field_validator("acts", "unless", "whole")
    @classmethod
    def _compiles(cls, acts: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        if checked_before(info):  # it compiled when cached; compiled again on first use
            return acts
        for pattern in acts:
            try:
                _compiled(pattern)
            except re2.error as exc:
                raise ValueError(f"not an RE2 pattern: {pattern!r}: {exc}") from None
        return acts


_CACHE: dict[str, re2._Regexp] = {}


def _compiled(pattern: str) -> re2._Regexp:
    found = _CACHE.get(pattern)
    if found is None:
        found = re2.compile(pattern)
        if len(_CACHE) < 4_096:
            _CACHE[pattern] = found
    return found


def requests_of(context: Context) -> list[str]:
    """The user's requests of the session, latest last: the transcript's, else the task."""
    transcript = context.transcript
    texts: list[str] = []
    if transcript is not None:
        texts = [
            s.text
            for s in transcript.sources
            if s.kind == "request" and s.trust is Trust.USER and s.text.strip()
        ]
    if not texts and context.task and context.task.strip():
        texts = [context.task]
    return [t[:MAX_REQUEST_CHARS] for t in texts[-MAX_REQUESTS:]]


def _said(request: str, *, digits: bool = False) -> set[str]:
    """The names a request says: its words, a camel-cased word whole besides its parts
    ("GitHub" says ``github`` as well as ``hub``), and two neighbouring words together."""
    words = list(_words(request))
    whole = (
        "".join(c for c in token if c.isalnum()).lower()
        for token in request.split()[:2_000]
        if any(c.isupper() for c in token[1:]) and any(c.islower() for c in token)
    )
    # two words said apart name one written together ("SQL Express" says sqlexpress,
    # "multi-arch" says multiarch)
    joined = (
        a + b
        for a, b in itertools.pairwise(words)
        if a.isalpha() and b.isalpha() and a not in COMMON_WORDS and b not in COMMON_WORDS
    )
    return _names(iter([*words, *whole, *joined]), frozenset(), digits=digits)


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _names(words: Iterator[str], ignored: frozenset[str], digits: bool = False) -> set[str]:
    """Names among ``words``; with ``digits``, numbers of any length too (``pr-481``)."""
    return {
        _stem(w)
        for w in words
        if (digits and w.isdigit())
        or (
            len(w) >= MIN_NAME_CHARS
            and w not in COMMON_WORDS
            and _stem(w) not in ignored
            and not (w.isdigit() and len(w) < 4)
        )
    }


def _strings(value: object, out: list[str], budget: list[int], *, numbers: bool = False) -> None:
    if budget[0] <= 0:
        return
    if numbers and isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, str):
        out.append(value[: budget[0]])
        budget[0] -= len(value)
    elif isinstance(value, dict):
        for item in value.values():
            _strings(item, out, budget, numbers=numbers)
    elif isinstance(value, list | tuple):
        for item in value:
            _strings(item, out, budget, numbers=numbers)


def _numbers(text: str) -> set[str]:
    """The whole numbers a text names (``42`` of ``PR #42``), without leading zeros."""
    return {w.lstrip("0") or "0" for w in _words(text) if w.isdigit() and len(w) <= 12}


def _place_text(context: Context) -> str:
    return " ".join(p for p in (context.cwd, context.repo_root, context.home, context.user) if p)


def _ignored(context: Context) -> frozenset[str]:
    """Words of the session's own places (its directory, repository, home, user)."""
    return frozenset(_stem(w) for w in _words(_place_text(context)))


def _project_words(context: Context) -> frozenset[str]:
    """Words of the session's repository, working directory, home and user; not of a
    system configuration directory (``/etc/nginx`` names the service it configures)."""
    places = [context.repo_root, context.home, context.user]
    cwd = (context.cwd or "").replace("\\", "/")
    if cwd and not cwd.startswith("/etc/"):
        places.append(cwd)
    return frozenset(_stem(w) for w in _words(" ".join(p for p in places if p)))


def _action_text(action: Action) -> str:
    texts: list[str] = []
    _strings(action.args, texts, [MAX_ACTION_CHARS])
    return "\n".join(texts)


def _values_only(text: str) -> str:
    """``text`` without the names of its options and settings: ``--db-instance-identifier
    orders-perf`` keeps ``orders-perf``, ``-var=pr_number=1423`` keeps ``1423``: an option
    says how, its value says what."""
    kept: list[str] = []
    for token in text.split()[:2_000]:
        bare = token.strip("'\"")
        if bare.startswith("-"):
            if "=" not in bare:
                continue
            bare = bare.rsplit("=", 1)[1]
        elif "=" in bare and "://" not in bare:
            bare = bare.rsplit("=", 1)[1]  # NAME=value, key=value
        kept.append(bare)
    return " ".join(kept)


def action_names(action: Action, context: Context, fields: tuple[str, ...] = ()) -> set[str]:
    """The names an action carries: words of its arguments (only of ``fields``, when given)
    that are no common word, no word of the session's own places, and no option's name."""
    if fields:
        # recipients (#billing-dev, a list, a person), not paths: a word the session's
        # repository shares with them (billing-api) still names the recipient
        return _names(_words(_fields_text(action, fields)), frozenset())
    # A word of the session's own places names nothing in a path (``/home/dev/myapp/build``);
    # outside paths, the project's words still name nothing of their own (``shop-exports``
    # beside a request about the shop-site repository), but a working directory outside any
    # repository (``/etc/nginx``, ``/srv/app``) is no project: ``nginx`` names the service.
    places = _ignored(context)
    project = _project_words(context)
    words: list[str] = []
    in_paths: list[str] = []
    for token in _values_only(_action_text(action)).split():
        (in_paths if "/" in token or "\\" in token else words).append(token)
    return _names(_words(" ".join(words)), project) | _names(_words(" ".join(in_paths)), places)


def _fields_text(action: Action, fields: tuple[str, ...]) -> str:
    wanted = {_key(f) for f in fields}
    texts: list[str] = []
    budget = [MAX_ACTION_CHARS]
    for key, value in list(action.args.items())[:200]:
        if _key(key) in wanted:
            _strings(value, texts, budget, numbers=True)
    return "\n".join(texts)


def _key(name: str) -> str:
    return "".join(c for c in name.lower() if c.isalnum())


_OBJECT_KEYS: Final = ("object", "target", "path")


def _each_named(result: SpecialistResult, said: set[str]) -> bool | None:
    """With evidence ``reached`` (the paths the act reaches, one by one): whether the request names
    each of them (of a path, its last part); None without that evidence."""
    paths = result.evidence.get("reached")
    if not isinstance(paths, list) or not paths:
        return None
    for path in paths:
        if not isinstance(path, str):
            return False
        last = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        if not (_names(_words(last), frozenset()) & said):
            return False
    return True


# Objects named as a ref (``branch:spike/grpc-streaming``): a slash there parts a name
# (``spike/...``, ``feature/...``), it does not lead to a directory.
_REF_KINDS: Final = ("branch:", "tag:", "ref:")


def _ref_named(result: SpecialistResult, said: set[str]) -> bool | None:
    """With an object that is a git ref: whether the request names one part of it whole
    (``spike`` of ``spike/grpc-streaming``: "my spike branches"); None for other objects."""
    shown = result.evidence.get("object")
    if not isinstance(shown, str) or not shown.startswith(_REF_KINDS):
        return None
    ref = shown.split(":", 1)[1]
    parts = [_names(_words(part), frozenset()) for part in ref.split("/")]
    return any(part and part <= said for part in parts)


def _parent_of_named(result: SpecialistResult, request: str) -> bool:
    """Whether the object is a directory whose child the request names (``source/api-old``,
    ``WOW6432Node\\Contoso``): the request asks for the child, not for the parent."""
    shown = result.evidence.get("object") or result.evidence.get("path")
    if not isinstance(shown, str) or ("/" not in shown and "\\" not in shown):
        return False
    last = shown.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].lower()
    if len(last) < MIN_NAME_CHARS:
        return False
    text = request.replace("\\", "/")
    start = text.find(last + "/")
    while start != -1:
        before = text[start - 1] if start > 0 else " "
        after = text[start + len(last) + 1 : start + len(last) + 2]
        if not (before.isalnum() or before in "-_.") and (after.isalnum() or after in "_.-"):
            return True
        start = text.find(last + "/", start + 1)
    return False


# What kind of object an evidence value names, before its name (``table:``, ``database:``);
# not a URL's scheme (``s3://``) or a drive (``C:``).
_KIND_PREFIX: Final = re2.compile(r"^[a-z][a-z_]{2,20}:")


_GLOB_STEM: Final = re2.compile(r"^([A-Za-z0-9][A-Za-z0-9_.-]{2,})[*?\[]")


def _globbed_beyond(result: SpecialistResult, request: str, said: set[str]) -> bool:
    """Whether the object is a glob that extends a name the request says (``webapp*`` when
    the user named ``webapp``): it reaches what shares the name's start, which was not named
    (unless the request writes the glob itself)."""
    for key in _OBJECT_KEYS:
        value = result.evidence.get(key)
        if not isinstance(value, str):
            continue
        last = value.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        stem = _GLOB_STEM.match(last)
        if stem and _stem(stem.group(1).lower()) in said and last.lower() not in request:
            return True
    return False


def object_names(result: SpecialistResult, context: Context) -> set[str] | None:
    """The names of what the objection is about (of a path, its last part); None when the
    result names no object."""
    shown = [v for k in _OBJECT_KEYS if isinstance(v := result.evidence.get(k), str) and v]
    if not shown:
        return None
    # The session's own places name nothing of their own: deleting the repository or the
    # home is not excused by a request that names the project.
    places = {
        p.replace("\\", "/").rstrip("/")
        for p in (context.cwd, context.repo_root, context.home)
        if p
    }
    parts: list[str] = []
    for value in shown:
        kind = _KIND_PREFIX.match(value)
        if kind and value[kind.end() : kind.end() + 1] not in ("/", "\\"):
            value = value[kind.end() :]  # table:import_staging names import_staging
        if "/" in value or "\\" in value:
            path = value.replace("\\", "/").rstrip("/")
            if path not in places:
                parts.append(path.rsplit("/", 1)[-1])
        else:
            parts.append(value)
    people = " ".join(p for p in (context.home, context.user) if p)
    # an object named by a number alone (redis database 15, pull request 7) is named by it
    numbered = {p.strip().lstrip("0") or "0" for p in parts if p.strip().isdigit()}
    ignored = frozenset(_stem(w) for w in _words(people))
    found = _names(_words(" ".join(parts)), ignored) | numbered
    if not found:
        # an object named by common words alone (table ``users``) is named by them
        found = {_stem(w) for w in _words(" ".join(parts)) if len(w) >= MIN_NAME_CHARS} - ignored
    return found


# A URL's host, or an IPv4 address (``/dev/tcp/1.2.3.4``, ``nc 1.2.3.4``).
_ADDRESS: Final = re2.compile(
    r"(?i)(?:[a-z][a-z0-9+.-]{0,20}://(?:[^/@\s'\"]{0,200}@)?([a-z0-9.-]{1,253}))"
    r"|\b(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})\b"
)


_LOOPBACK: Final = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "::1", "host.docker.internal"})


def _loopback(host: str) -> bool:
    """An address of this machine (localhost, 127.x): reaching it goes nowhere else."""
    return host in _LOOPBACK or host.endswith(".localhost") or host.startswith("127.")


# URLs that name a document type or a namespace in an XML file (a plist's DOCTYPE, an
# ``xmlns``): identifiers, never fetched.
_XML_IDENTIFIER: Final = re2.compile(
    r"(?i)<!DOCTYPE[^>]*>|\bxmlns(?::[a-z0-9_-]+)?\s*=\s*(?:\"[^\"]*\"|'[^']*')"
    r"|\bxsi:schemaLocation\s*=\s*(?:\"[^\"]*\"|'[^']*')"
)


def addresses(text: str) -> set[str]:
    """The network addresses a text names: URL hosts and IPv4 addresses, lower case (not
    the identifiers of an XML file's document type or namespaces)."""
    if "<" in text:
        text = _XML_IDENTIFIER.sub(" ", text)
    found: set[str] = set()
    for match in _ADDRESS.finditer(text):
        host = (match.group(1) or match.group(2) or "").lower().strip(".")
        if host:
            found.add(host)
    return found


def _qualifiers(text: str) -> set[str]:
    """Words that only qualify a name written as a path: the org and project of a stack
    ``acme/platform/dev``, the directories above a file (not words of a last part too)."""
    last: set[str] = set()
    qualifiers: set[str] = set()
    for token in _values_only(text).split()[:2_000]:
        if "/" in token and "://" not in token:
            head, _, tail = token.strip("'\"").rstrip("/").rpartition("/")
            qualifiers |= {_stem(w) for w in _words(head)}
            last |= {_stem(w) for w in _words(tail)}
    return qualifiers - last


def _each_said(text: str, names: set[str], request: str, context: Context) -> bool:
    """Every name of the action in the request, numbers included (``preview-pr-482`` is
    not ``preview-pr-481``)."""
    said = _said(request, digits=True)
    numbers = {w for w in _words(text) if w.isdigit() and len(w) < 4}
    names = names - _qualifiers(text)
    return names <= said and numbers <= said | _names(
        _words(_place_text(context)), frozenset(), digits=True
    )


def _urls(text: str) -> set[str]:
    return {
        t.strip("'\"(),;:!?`").rstrip(".").rstrip("/").lower()  # a sentence's full stop too
        for t in text.split()[:2_000]
        if "://" in t and len(t) <= 2_000
    }


# Object stores whose URL's host part is a bucket the user calls by its name alone.
_STORE_SCHEMES: Final = frozenset({"s3", "gs", "gcs", "az", "abfs", "abfss", "r2", "oss", "cos"})


def _urls_named(text: str, request: str) -> bool:
    """Whether each URL of the action is one the request names, or lies below one; a whole
    bucket (``s3://acme-ci-test``, nothing below it) is named by its name alone."""
    said = _urls(request)
    tokens = {t.strip("'\"(),;:!?`.").lower() for t in request.split()[:2_000]}

    def named(url: str) -> bool:
        if any(url == r or url.startswith(r + "/") for r in said):
            return True
        scheme, _, bucket = url.partition("://")
        return scheme in _STORE_SCHEMES and "/" not in bucket and bucket in tokens

    return all(named(url) for url in _urls(text))


def _target_hosts(result: SpecialistResult) -> set[str]:
    """The host the specialist found the act reaches (evidence ``target.host``), however the
    command spelled it (pieces put together by printf, a variable)."""
    target = result.evidence.get("target")
    host = target.get("host") if isinstance(target, dict) else None
    return {host.lower().strip(".")} if isinstance(host, str) and host.strip(".") else set()


# Where programs live: a path there names the program a line or a job runs.
_PROGRAM_DIRS: Final = (
    "/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/", "/usr/local/bin/", "/usr/local/sbin/",
    "/opt/homebrew/bin/", "/opt/local/bin/",
)  # fmt: skip

# A Windows program's switch (``/MIR``, ``/s``, ``/R:0``), which a POSIX reading would take
# for a path at the root.
_SWITCH: Final = re2.compile(r"^/[A-Za-z]{1,8}(?::\S*)?$")


def _inside(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root + "/") for root in roots)


def _unnamed_place(text: str, context: Context, said: set[str]) -> bool:
    """Whether the text names a path outside the session's workspace (absolute, below the
    home or above the working directory) whose last part the request does not name:
    ``rm -rf ../old-copy ../other-project`` asked about ``old-copy`` only."""
    roots = [
        p.replace("\\", "/").rstrip("/").lower()
        for p in (context.cwd, context.repo_root)
        if p and p.replace("\\", "/").rstrip("/")
    ]
    people = frozenset(
        _stem(w) for w in _words(" ".join(p for p in (context.home, context.user) if p))
    )
    windows = (context.platform or "").lower().startswith("win")
    home = (context.home or "").replace("\\", "/").rstrip("/").lower()
    for token in text.replace('"', " ").replace("'", " ").split():
        if "://" in token:
            continue  # a URL: its host is an address
        if windows and _SWITCH.match(token):
            continue  # robocopy's /MIR, cmd's /s /q: a switch, not a path at the root
        word = token.rsplit("=", 1)[-1].replace("\\", "/").rstrip("/;,)").lower()
        if "/" not in word:
            continue
        if home and (word == "~" or word.startswith("~/")):
            word = home + word[1:]  # ~/projects/app is the workspace when that is the cwd
        outside = word.startswith(("/", "~", "..", "$home")) or (len(word) > 2 and word[1] == ":")
        if not outside or _inside(word, roots):
            continue
        if word.startswith(_PROGRAM_DIRS):
            continue  # /usr/bin/rsync: the program that runs, not a place it acts on
        last = word.rsplit("/", 1)[-1]
        names = _names(_words(last), people)
        if names and not (names & said):
            return True
    return False


def asked_by(
    requested: Requested, action: Action, context: Context, result: SpecialistResult
) -> str | None:
    """The request that asks for this act (and names what it acts on), else None."""
    requests = requests_of(context)
    if not requests:
        return None
    if not requested.production and is_production(context.environment):
        return None
    # With fields, what the action acts on is in those fields alone (a message's text may
    # name a link or a path it does not reach).
    text = _fields_text(action, requested.fields) if requested.fields else _action_text(action)
    reached = addresses(text) | _target_hosts(result)
    every = action_names(action, context)
    given = action_names(action, context, requested.fields) if requested.fields else every
    if requested.ignore:
        given = given - {_stem(w.lower()) for w in requested.ignore}
    if requested.names == "action" and requested.each and not requested.fields:
        given = given - _qualifiers(text)  # "the dev stack" names acme/platform/dev
    plain = False  # names that are common words, compared with every word of the request
    tool = action.type == "tool_call" or (action.tool or "").startswith("mcp__")
    if not given and requested.names == "action" and tool:
        # a tool's argument named by common words alone (database ``app_test``) is named
        # by them: "drop the app_test database"
        values = (
            _fields_text(action, requested.fields) if requested.fields else _action_text(action)
        )
        skip = {_stem(w.lower()) for w in requested.ignore} | _project_words(context)
        given = {
            _stem(w) for w in _words(values) if len(w) >= MIN_NAME_CHARS and not w.isdigit()
        } - skip
        plain = bool(given)
    names: set[str] = given
    whole = False  # every name of the object must be said, not one of them
    # A number in a field the entry names (a pull request's, an issue's) is a name however
    # short: "merge PR #42" names pull_number 42.
    numbered = _numbers(text) if requested.fields and requested.names == "action" else set()
    if requested.names == "object":
        if action.tool and result.evidence.get("object") == action.tool:
            # An object that is the tool's own name (mcp__vercel__delete_deployment): what
            # the tool acts on is in its name's last part and in its arguments.
            names = given | _names(_words(action.tool.rsplit("__", 1)[-1]), frozenset())
        else:
            shown = object_names(result, context)
            names = given if shown is None else shown
            # ``../invoice-service`` is not named by a request about "invoice helpers"
            whole = shown is not None
            # an object named by common words alone (table ``users``): compared with every
            # word of the request, and only then (a branch ``fix/login`` is not named by "fix")
            plain = plain or bool(shown and shown <= _COMMON_STEMS)
    for request in reversed(requests):
        lowered = request.lower()
        if not any(_compiled(p).search(lowered) for p in requested.acts):
            continue
        if any(_compiled(p).search(lowered) for p in requested.unless):
            continue
        said = _said(request)
        if plain:
            said |= {_stem(w) for w in _words(request)}
        if requested.names == "object":
            said |= _numbers(request)  # "clear redis db 15" names database 15
        whole_ref = False  # a ref named by one of its parts
        if result.evidence.get("reached") == "all":
            # the act reaches everything of its kind (a whole-tree reset): the request must
            # ask for everything, a name of one part is no request for the rest
            if not any(_compiled(p).search(lowered) for p in requested.whole):
                continue
        elif (each := _each_named(result, said)) is not None:
            if not each:
                continue
        elif requested.names == "object" and (ref := _ref_named(result, said)) is not None:
            if not ref:
                continue
            whole_ref = True
        elif requested.names == "action" and requested.whole and not names and not numbered:
            # the action names nothing of its own: it acts on its tool's default (the
            # project's stack), which only a request for the whole asks for
            if not any(_compiled(p).search(lowered) for p in requested.whole):
                continue
        elif (
            requested.names != "none" and not (names & said) and not (numbered & _numbers(request))
        ):
            continue
        elif (
            requested.names == "action"
            and requested.each
            and not _each_said(text, names, request, context)
        ):
            continue  # it also acts on something the request does not name
        if whole and not whole_ref and "reached" not in result.evidence and not names <= said:
            continue  # a part of the object's name is no name of it
        if _parent_of_named(result, lowered):
            continue  # "remove source\\api-old" asks for api-old, not for all of source
        if _globbed_beyond(result, lowered, said):
            continue  # "delete webapp" does not ask for webapp* (webapp2 too)
        if requested.each and not _urls_named(text, lowered):
            continue  # s3://bucket/ asked about s3://bucket/tmp/: more than was named
        if any(address not in lowered and not _loopback(address) for address in reached):
            continue  # the act reaches a place the user did not name
        if _unnamed_place(text, context, said):
            continue  # it also acts on a place outside the workspace the user did not name
        if not requested.production and (every & PRODUCTION) and not (said & PRODUCTION):
            continue  # the action says production; the request does not
        return request
    return None


def excused(
    result: SpecialistResult, requested: Requested, action: Action, context: Context
) -> SpecialistResult:
    """``result`` as a flag when it objects (nudge or block) to an act the user asked for."""
    if result.verdict is not Verdict.NUDGE and result.verdict is not Verdict.BLOCK:
        return result
    if result.verdict is Verdict.BLOCK and requested.up_to == "nudge":
        return result
    request = asked_by(requested, action, context, result)
    if request is None:
        return result
    quoted = request if len(request) <= 160 else request[:159] + "…"
    return result.model_copy(
        update={
            "verdict": Verdict.FLAG,
            "reason": f"{result.reason}; the user asked for it ({quoted!r})",
            "correction": None,
            "evidence": {**result.evidence, "requested": quoted, "was": result.verdict.value},
        }
    )

"""What each page of the review shows, read from the store, the taxonomy and the records.

Nothing here knows HTTP: the app turns requests into these calls and their results into
templates, so the same questions can be asked from a test or a benchmark.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Final

import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from supervisor.artifacts import ARTIFACT_DIR, RecordPlace, artifact_files, find_record, unseal
from supervisor.errors import SignatureError, SupervisorError, TaxonomyError
from supervisor.feedback import VERDICTS, EntryFigures, parse_since
from supervisor.plugins import KindRegistry
from supervisor.signing import KEYS_DIR, KeyPair, key_id, raw_public_key, retired_public_key
from supervisor.store import Anchor, FeedbackFilter, FeedbackItem, Store
from supervisor.taxdiff import Backtest, EntryDiff, backtest, diff_entries
from supervisor.taxonomy import Taxonomy, load_taxonomy, snapshot

__all__ = [
    "LABEL_STATES",
    "BacktestResult",
    "QueuePage",
    "QueueQuery",
    "RecordView",
    "entry_yaml",
    "queue_page",
    "queue_query",
    "record_view",
    "run_backtest",
]

PAGE_SIZE: Final = 50
LABEL_STATES: Final = ("any", "unlabelled", "labelled", "right", "wrong")
_TEXT_FILTERS: Final = ("entry", "verdict", "session", "agent", "host", "since", "until")


@dataclass(frozen=True)
class QueueQuery:
    """The queue's filters as given (for the form and the links) and as the store reads them."""

    where: FeedbackFilter
    page: int
    given: dict[str, str]
    errors: tuple[str, ...] = ()


def _moment(text: str, name: str, errors: list[str]) -> datetime | None:
    try:
        return parse_since(text)
    except ValueError as exc:
        errors.append(f"{name}: {exc}")
        return None


def queue_query(params: Mapping[str, str]) -> QueueQuery:
    """The filters of a queue URL; a bad value is reported and left out, never a crash."""
    given = {k: params[k].strip() for k in (*_TEXT_FILTERS, "label") if params.get(k, "").strip()}
    errors: list[str] = []
    verdict = given.get("verdict")
    if verdict is not None and verdict not in VERDICTS[1:]:
        errors.append(f"verdict: {verdict!r} is not flag, nudge or block")
        verdict = None
    label = given.get("label", "any")
    if label not in LABEL_STATES:
        errors.append(f"label: {label!r} is not one of {', '.join(LABEL_STATES)}")
        label = "any"
    since = _moment(given["since"], "since", errors) if "since" in given else None
    until = _moment(given["until"], "until", errors) if "until" in given else None
    try:
        page = max(1, int(params.get("page", "1")))
    except ValueError:
        errors.append(f"page: {params.get('page')!r} is not a number")
        page = 1
    where = FeedbackFilter(
        entry_id=given.get("entry"),
        verdict=verdict,
        session=given.get("session"),
        agent=given.get("agent"),
        host=given.get("host"),
        labelled={"unlabelled": False, "labelled": True}.get(label),
        correct={"right": True, "wrong": False}.get(label),
        since=since,
        until=until,
    )
    return QueueQuery(where, page, given, tuple(errors))


@dataclass(frozen=True)
class QueuePage:
    query: QueueQuery
    items: list[FeedbackItem]
    total: int
    pages: int
    entries: list[EntryFigures]  # every entry's figures overall, for the side table


def queue_page(store: Store, query: QueueQuery, size: int = PAGE_SIZE) -> QueuePage:
    """One page of the queue: the store counts and pages, and reads only this page's items."""
    total = store.count_feedback(query.where)
    pages = max(1, -(-total // size))
    page = min(query.page, pages)
    items = store.feedback_page(query.where, offset=(page - 1) * size, limit=size)
    entries = store.feedback_figures(FeedbackFilter())
    return QueuePage(
        QueueQuery(query.where, page, query.given, query.errors), items, total, pages, entries
    )


def entry_yaml(taxonomy: Taxonomy, entry_id: str) -> str | None:
    """The entry as the YAML of a taxonomy file's entry (None when it is not loaded)."""
    if entry_id not in taxonomy:
        return None
    # As a file would say it: what differs from the defaults (the backtest fills them in).
    data = taxonomy[entry_id].model_dump(mode="json", exclude_none=True, exclude_defaults=True)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=96)


# -- the backtest ------------------------------------------------------------------------

_HEAD: Final = "schema_version: 1\nid: review_edit\nentries:\n"
_HEAD_LINES: Final = 3
_INDENT: Final = 4


@dataclass(frozen=True)
class BacktestResult:
    entry_id: str
    records: int  # files of records replayed
    changes: list[EntryDiff] = field(default_factory=list)
    result: Backtest | None = None
    errors: list[str] = field(default_factory=list)


def _edited(taxonomy: Taxonomy, entry_id: str, text: str, kinds: KindRegistry) -> Taxonomy:
    """The taxonomy with one entry replaced by ``text`` (the entry's YAML as edited).

    The rest of the taxonomy is its snapshot (the same entries, the same hash); the edited
    entry is a second file, so that a mistake in it is reported at its own line.
    """
    rest = snapshot(taxonomy)
    rest["entries"] = [e for e in rest["entries"] if e.get("id") != entry_id]
    lines = text.expandtabs(2).splitlines() or ["{}"]
    body = "  - " + lines[0] + "".join("\n" + " " * _INDENT + line for line in lines[1:])
    with tempfile.TemporaryDirectory(prefix="supervise-review-") as tmp:
        base, edit = Path(tmp) / "taxonomy.yaml", Path(tmp) / "edited.yaml"
        base.write_text(yaml.safe_dump(rest, sort_keys=False), encoding="utf-8")
        edit.write_text(_HEAD + body + "\n", encoding="utf-8")
        try:
            return load_taxonomy([base, edit], kinds)
        except TaxonomyError as exc:
            raise _EditError(
                [
                    f"line {e.line - _HEAD_LINES}: {e.message}" + (f" ({e.hint})" if e.hint else "")
                    if e.path == str(edit) and e.line is not None
                    else f"{e.message}" + (f" ({e.hint})" if e.hint else "")
                    for e in exc.errors
                ]
            ) from exc


class _EditError(Exception):
    def __init__(self, messages: list[str]) -> None:
        super().__init__("; ".join(messages))
        self.messages = messages


def run_backtest(
    taxonomy: Taxonomy,
    entry_id: str,
    text: str,
    kinds: KindRegistry,
    home: Path,
    keys: KeyPair | None,
) -> BacktestResult:
    """Replay the recorded decisions with the taxonomy and with the entry edited: the
    backtest of ``supervise taxonomy diff`` (which decisions would change)."""
    try:
        edited = _edited(taxonomy, entry_id, text, kinds)
    except _EditError as exc:
        return BacktestResult(entry_id, 0, errors=exc.messages)
    directory = home / ARTIFACT_DIR
    files = artifact_files([directory]) if directory.is_dir() else []
    changes = diff_entries(taxonomy, edited)
    if not files:
        return BacktestResult(
            entry_id, 0, changes, errors=[f"no recorded decisions in {directory} to replay"]
        )
    result = backtest(taxonomy, edited, kinds, files, keys=keys, home=home, jobs=1)
    return BacktestResult(entry_id, len(files), changes, result)


# -- one record --------------------------------------------------------------------------


@dataclass(frozen=True)
class RecordView:
    place: RecordPlace
    decision: dict[str, object]
    context: dict[str, object]
    signature: str  # "valid", or why not
    back: bool | None  # names the previous record's hash
    ahead: bool | None  # the next record names this one's
    anchor: Anchor | None
    anchored: str  # what the store's anchor says of this record


def record_view(
    home: Path, decision_id: str, store: Store, public: Ed25519PublicKey | None
) -> RecordView | None:
    """The signed record of a decision, checked: signature, links to its neighbours, and
    where it stands against the store's anchor of its chain."""
    directory = home / ARTIFACT_DIR
    files = artifact_files([directory]) if directory.is_dir() else []
    place = find_record(files, decision_id)
    if place is None:
        return None
    record = place.record
    if public is None:
        signature = "not checked: no public key in the state directory"
    else:
        # A record signed before a rotation names a key kept in keys/retired/.
        hint, older = record.envelope.key_id, None
        if hint is not None and hint != key_id(public):
            older = retired_public_key(home / KEYS_DIR, hint)
        try:
            record.envelope.verify(raw_public_key(older or public))
            signature = "valid" if older is None else f"valid (key {hint}, since rotated out)"
        except SignatureError as exc:
            signature = f"INVALID: {exc}"
    back, ahead = place.links()
    chain = record.body.get("chain")
    anchor: Anchor | None = None
    anchored = "the record names no chain (written before chains were anchored)"
    if isinstance(chain, str):
        try:
            found = store.anchors([chain])
        except SupervisorError as exc:
            found, anchored = [], f"the store's anchors cannot be read: {exc}"
        else:
            anchored = f"the store {store.url} holds no anchor for chain {chain}"
        if found:
            anchor = found[0]
            if record.seq < anchor.last_seq:
                anchored = f"before the anchor (the store has reached record {anchor.last_seq})"
            elif record.seq == anchor.last_seq:
                same = anchor.last_hash == place.digest
                anchored = (
                    "the anchored record; its hash matches the anchor"
                    if same
                    else "the anchored record, but its hash DIFFERS from the anchor's"
                )
            else:
                anchored = f"past the anchor (record {anchor.last_seq}): not yet anchored"
    decision, context = unseal(record, None)
    return RecordView(place, decision, context, signature, back, ahead, anchor, anchored)

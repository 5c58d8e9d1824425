"""The ``classifier`` kind: a small text classifier over a text view of the action.

The text view is the action's type, its tool and the fields the entry names (``command``,
``content``, ``body``... or dotted paths), each capped. The model is a union of character
(``char_wb``, 2-5) and word (1-2) hashed n-gram TF-IDF features into a class-balanced
logistic regression whose probabilities are calibrated (``CalibratedClassifierCV``, sigmoid),
so the entry's ``threshold`` is a probability.

Training (``supervise train``) uses scikit-learn; scoring does not. Each version is saved
twice: the scikit-learn pipeline (skops), which training loads to compare models, and an
*inference bundle* of plain NumPy arrays (the idf vectors, the folds' weights, intercepts and
calibration) that :class:`Bundle` scores with a re-implementation of the pipeline's analyzers,
hashing (``mmh3``) and arithmetic, equal to ``predict_proba`` to 1e-9. Importing
scikit-learn costs seconds per process; a supervisor in an agent's loop cannot pay that.

Models live in the state directory, one directory per version::

    models/<entry_id>/current                     the promoted version id
    models/<entry_id>/<version>/model.skops       the pipeline (skops: no code runs on load)
    models/<entry_id>/<version>/inference.npz     the inference bundle (numpy.savez)
    models/<entry_id>/<version>/manifest.json     metrics, bundle parameters, sha256s
    models/<entry_id>/<version>/model.sig         Ed25519 signature by the deployment key

Nothing is used unverified: the signature (over the entry, the version and the SHA-256 of the
manifest, the bundle and the pipeline) is checked with the deployment's public key, then the
bytes that were hashed are loaded (the bundle's ``.npy`` members read as float64 arrays, nothing
unpickled; skops with an explicit list of trusted types for training). A missing, unsigned,
tampered or foreign-signed version is a :class:`~supervisor.errors.ModelError`: the entry's
result has status ``error`` and its ``on_error`` policy applies. Nothing is trained
implicitly: an entry with no model is unavailable until ``supervise train ENTRY --seed-only``
builds the seed model, unless the package ships that seed model (pinned hashes;
:mod:`specialists.shipped_seeds`), which the first evaluation installs in the state directory.

The version used is recorded as an observation (``kind: model``) and put in the evidence of
every result, so the decision record names it and a replay loads that same version.
"""

from __future__ import annotations

import ast
import base64
import contextlib
import fcntl
import hashlib
import importlib.resources
import io
import itertools
import json
import logging
import math
import operator
import os
import re
import shutil
import struct
import sys
import threading
import time
import zipfile
import zlib
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal, TypeAlias, final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from pydantic import AfterValidator, Field, JsonValue, field_validator

from specialists.regex import FieldName, _getter, _text
from supervisor.errors import ConfigError, ModelError
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.signing import (
    KEY_ENV,
    KEYS_DIR,
    PRIVATE_FILE,
    PUBLIC_FILE,
    KeyPair,
    key_id,
    load_private_key,
    load_public_key,
)
from supervisor.specialist import Execution, KindConfig, Setup, SpecialistKind, timed_setup
from supervisor.state import resolve_home

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    from sklearn.pipeline import Pipeline

    from supervisor.store import FeedbackItem
    from supervisor.taxonomy import Entry

__all__ = [
    "TRUSTED_TYPES",
    "Bundle",
    "ClassifierConfig",
    "ClassifierSpecialist",
    "Example",
    "LoadedModel",
    "ModelStore",
    "OldModelFormat",
    "TrainedModel",
    "example_from_feedback",
    "load_examples",
    "supervisor_register_kinds",
    "supervisor_train",
    "text_view",
    "train",
]

log = logging.getLogger(__name__)

KIND_NAME: Final = "classifier"
KIND_VERSION: Final = "2"
DEFAULT_FIELDS: Final = ("command", "content", "new", "body", "text")
DEFAULT_MAX_INPUT_CHARS: Final = 4096
MODELS_DIR: Final = "models"
MODEL_FILE: Final = "model.skops"
BUNDLE_FILE: Final = "inference.npz"
SIGNATURE_FILE: Final = "model.sig"
MANIFEST_FILE: Final = "manifest.json"
CURRENT_FILE: Final = "current"
BUNDLE_FORMAT: Final = 1
# v1 signed (entry, version, model, manifest) in model.skops.sig and had no bundle.
_SIGNED_CONTEXT: Final = b"supervise-model-v2"
_OLD_SIGNATURE_FILE: Final = "model.skops.sig"
_VERSION_RE: Final = re.compile(r"^(?:seed|v)-[0-9a-f]{12}$")
_OBJECTING: Final = frozenset({"flag", "nudge", "block"})
EXCERPT_CHARS: Final = 200
CHAR_FEATURES: Final = 2**17
WORD_FEATURES: Final = 2**16
TOKEN_PATTERN: Final = r"(?u)\b\w+\b"
# Part of every version id: a change to the pipeline or the saved files gives new versions
# from the same data (so a retrain never collides with a version saved in an older format).
_RECIPE: Final = (
    f"hashed-char_wb2-5:{CHAR_FEATURES}+word1-2:{WORD_FEATURES}/tfidf/lr-liblinear-C16/sigmoid"
    f"/bundle-{BUNDLE_FORMAT}"
)

# Every type the pipeline is made of. skops refuses a file holding any other type (a
# FunctionTransformer pointing at os.system, say), before anything in it is built.
TRUSTED_TYPES: Final[tuple[str, ...]] = (
    "sklearn.pipeline.Pipeline",
    "sklearn.pipeline.FeatureUnion",
    "sklearn.feature_extraction.text.HashingVectorizer",
    "sklearn.feature_extraction.text.TfidfVectorizer",
    "sklearn.feature_extraction.text.TfidfTransformer",
    "sklearn.linear_model._logistic.LogisticRegression",
    "sklearn.calibration.CalibratedClassifierCV",
    "sklearn.calibration._CalibratedClassifier",
    "sklearn.calibration._SigmoidCalibration",
    "sklearn.model_selection._split.StratifiedKFold",
    "numpy.float32",
    "numpy.float64",
    "numpy.int64",
    "numpy.dtype",
    "numpy.ndarray",
    "builtins.dict",
    "builtins.list",
    "builtins.tuple",
    "builtins.str",
    "builtins.int",
    "builtins.float",
    "builtins.bool",
    "builtins.NoneType",
    "scipy.sparse._csr.csr_matrix",
)


# -- config ------------------------------------------------------------------------------


def _check_seed(resource: str) -> str:
    """``package:path/in/package``; the file must exist (it ships inside the wheel)."""
    package, sep, name = resource.partition(":")
    if not sep or not package or not name:
        raise ValueError(
            f"seed {resource!r} must name a package resource as 'package:path', "
            "e.g. 'specialists.data:prompt_injection_seed.jsonl'"
        )
    try:
        found = importlib.resources.files(package).joinpath(name).is_file()
    except (ModuleNotFoundError, TypeError) as exc:
        raise ValueError(f"seed {resource!r}: package {package!r} cannot be found") from exc
    if not found:
        raise ValueError(f"seed {resource!r}: no file {name!r} in package {package!r}")
    return resource


SeedResource = Annotated[str, AfterValidator(_check_seed)]


class ClassifierConfig(KindConfig):
    """Config of a ``classifier`` entry.

    Attributes:
        fields: what the model reads besides the action's type and tool: keys of
            ``action.args`` or dotted paths (``args.payload.text``, ``metadata.source``), as
            in the ``regex`` kind. An action with none of them present gets ``refuse``.
        threshold: the calibrated probability at or above which the entry objects.
        verdict: the verdict then; the entry's ``default_verdict`` when unset.
        max_input_chars: each field, and the whole view, is cut to this many characters.
        model_dir: where the versions live; relative to the state directory. Default
            ``models/<entry_id>`` in the state directory.
        seed: the seed dataset, a package resource ``package:path`` (JSON Lines of
            ``{"action": {...}, "positive": bool}``); ``supervise train ENTRY --seed-only``
            builds the seed model from it, and it is part of every retraining.
        metric: what ``supervise train`` compares on held-out data before promoting.
        holdout: the share of examples held out for that comparison.
        min_examples: fewer labelled examples than this is not enough to train.
        random_state: fixes the split, the folds and the solver: same data, same model.
        min_words: a text whose fields hold fewer words (runs of two or more letters) than
            this is not scored and passes (an instruction needs a sentence: ``npm test`` is
            none); 0 scores every text.
    """

    fields: list[FieldName] = Field(default_factory=lambda: list(DEFAULT_FIELDS), min_length=1)
    threshold: float = Field(default=0.5, gt=0.0, lt=1.0)
    verdict: Literal["flag", "nudge", "block"] | None = None
    max_input_chars: int = Field(default=DEFAULT_MAX_INPUT_CHARS, gt=0, le=1_000_000)
    model_dir: str | None = Field(default=None, min_length=1)
    seed: SeedResource | None = None
    metric: Literal["precision", "recall", "f1"] = "f1"
    holdout: float = Field(default=0.25, ge=0.1, le=0.5)
    min_examples: int = Field(default=20, ge=8)
    random_state: int = Field(default=7, ge=0)
    min_words: int = Field(default=0, ge=0, le=1_000)

    @field_validator("fields")
    @classmethod
    def _distinct(cls, fields: list[str]) -> list[str]:
        if len(set(fields)) != len(fields):
            raise ValueError("a field is named twice")
        return fields


# -- the text view -----------------------------------------------------------------------


def text_view(action: Action, fields: Sequence[str], limit: int) -> tuple[str | None, bool]:
    """What the model reads: ``type``, ``tool`` and the named fields, one per line, capped.

    Returns ``(None, False)`` when none of the fields is present (not this entry's domain),
    else the text and whether anything was cut.
    """
    lines = [f"type: {action.type}"]
    if action.tool:
        lines.append(f"tool: {action.tool}")
    present = truncated = False
    for name in fields:
        value = _text(_getter(name)(action))
        if value is None:
            continue
        present = True
        if len(value) > limit:
            value, truncated = value[:limit], True
        lines.append(f"{name}: {value}")
    if not present:
        return None, False
    text = _utf8("\n".join(lines))
    if len(text) > limit:
        text, truncated = text[:limit], True
    return text, truncated


def _utf8(text: str) -> str:
    """``text`` with lone surrogates (JSON can carry them) replaced: hashing needs UTF-8."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


# -- examples ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Example:
    """One labelled text: ``positive`` means the entry should object to it."""

    text: str
    positive: bool
    source: str  # seed, feedback, examples

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def _example(
    record: Mapping[str, Any], fields: Sequence[str], limit: int, source: str, where: str
) -> Example | None:
    label = record.get("positive", record.get("label"))
    if not isinstance(label, bool):
        raise ConfigError(f"{where}: 'positive' must be true or false")
    try:
        action = Action.model_validate(record.get("action"))
    except ValueError as exc:
        raise ConfigError(f"{where}: 'action' is not a valid action: {exc}") from None
    text, _ = text_view(action, fields, limit)
    return Example(text, label, source) if text is not None else None


def load_examples(
    lines: Iterable[str], fields: Sequence[str], limit: int, *, source: str, name: str
) -> list[Example]:
    """Labelled examples from JSON Lines (``{"action": ..., "positive": bool}``).

    Actions that show none of the entry's fields are skipped (the entry never sees them).
    """
    out: list[Example] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{where}: not JSON: {exc.msg}") from None
        if not isinstance(record, dict):
            raise ConfigError(f"{where}: expected an object with 'action' and 'positive'")
        example = _example(record, fields, limit, source, where)
        if example is not None:
            out.append(example)
    return out


def seed_examples(config: ClassifierConfig) -> list[Example]:
    """The entry's seed dataset, as examples (none when the entry has no seed)."""
    if config.seed is None:
        return []
    package, _, name = config.seed.partition(":")
    text = importlib.resources.files(package).joinpath(name).read_text(encoding="utf-8")
    return load_examples(
        text.splitlines(),
        config.fields,
        config.max_input_chars,
        source="seed",
        name=config.seed,
    )


def example_from_feedback(item: FeedbackItem, fields: Sequence[str], limit: int) -> Example | None:
    """A labelled feedback item as a training example; None when unlabelled or out of view.

    The entry objected (``item.verdict``); a person said whether that was right. Right: the
    action is a positive. Wrong (a false positive): a negative, unless the person's
    ``corrected`` verdict is itself an objection. An explicit ``corrected`` verdict decides.
    """
    label = item.label
    if label is None:
        return None
    if label.corrected is not None:
        positive = label.corrected in _OBJECTING
    else:
        positive = (item.verdict in _OBJECTING) == label.correct
    text, _ = text_view(item.decision.action, fields, limit)
    return Example(text, positive, "feedback") if text is not None else None


# -- the pipeline ------------------------------------------------------------------------


def make_pipeline(random_state: int, folds: int) -> Pipeline:
    """Character and word n-grams into a calibrated, class-balanced logistic regression.

    The n-grams are hashed rather than kept in a vocabulary: the model file then holds a
    few arrays instead of tens of thousands of strings (skops writes those slowly and
    loads them slowly), and its size does not grow with the feedback log.
    """
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.feature_extraction.text import HashingVectorizer, TfidfTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold
    from sklearn.pipeline import FeatureUnion, Pipeline

    def tfidf(name: str, vectorizer: HashingVectorizer) -> tuple[str, Pipeline]:
        return name, Pipeline(
            [("hash", vectorizer), ("tfidf", TfidfTransformer(sublinear_tf=True))]
        )

    features = FeatureUnion(
        [
            tfidf(
                "chars",
                HashingVectorizer(
                    analyzer="char_wb",
                    ngram_range=(2, 5),
                    n_features=CHAR_FEATURES,
                    alternate_sign=False,
                    norm=None,
                ),
            ),
            tfidf(
                "words",
                HashingVectorizer(
                    analyzer="word",
                    ngram_range=(1, 2),
                    token_pattern=r"(?u)\b\w+\b",
                    n_features=WORD_FEATURES,
                    alternate_sign=False,
                    norm=None,
                ),
            ),
        ]
    )
    linear = LogisticRegression(
        class_weight="balanced",
        C=16.0,
        solver="liblinear",
        max_iter=1000,
        random_state=random_state,
    )
    calibrated = CalibratedClassifierCV(
        linear,
        method="sigmoid",
        cv=StratifiedKFold(n_splits=folds, shuffle=True, random_state=random_state),
    )
    return Pipeline([("features", features), ("model", calibrated)])


# -- the inference bundle ----------------------------------------------------------------

# The pipeline's settings the bundle scorer implements, as the manifest records them. A
# pipeline with any other setting cannot be bundled, and a bundle whose manifest says
# otherwise is refused: scoring it would give numbers sklearn never would.
_BLOCKS: Final[tuple[dict[str, Any], ...]] = (
    {"name": "chars", "analyzer": "char_wb", "ngram_range": [2, 5], "lowercase": True},
    {
        "name": "words",
        "analyzer": "word",
        "ngram_range": [1, 2],
        "lowercase": True,
        "token_pattern": TOKEN_PATTERN,
    },
)
_SCHEME: Final[dict[str, Any]] = {
    "hash": "murmurhash3_32 seed 0, index abs(h) % n_features, count 1 per n-gram",
    "tf": "sublinear",
    "idf": True,
    "norm": "l2 per block",
    "calibration": "sigmoid per fold, mean",
}
_ARRAYS: Final = ("char_idf", "word_idf", "weights", "intercepts", "a", "b")
_MAX_FEATURES: Final = 2**24
_MAX_FOLDS: Final = 20
_MAX_NPY_HEADER: Final = 10_000  # NumPy's own limit on an .npy header it reads
# Texts a bundle scores in plain Python before it loads NumPy: about where NumPy's import
# (~50 ms) is paid back by its faster scoring (~30 µs a command).
PLAIN_SCORES: Final = 256


class _WordChars(dict[int, int]):
    """A ``str.translate`` table: word characters kept, every other character a space.

    A word character is one Python's ``re`` matches with ``\\w`` on a ``str`` pattern (the
    ``(?u)\\b\\w+\\b`` token pattern): ``str.isalnum()`` or ``_``. Maximal runs of them are
    then exactly the tokens ``re.findall`` gives, found in linear time. (RE2's ``\\w`` is
    ASCII only, and its ``\\pL``/``\\pN`` tables follow a newer Unicode than the running
    Python's, so it disagrees with scikit-learn on some code points.)
    """

    def __missing__(self, codepoint: int) -> int:
        char = chr(codepoint)
        value = codepoint if char.isalnum() or char == "_" else 0x20
        if len(self) < 1 << 16:  # bounded: agent input may hold any number of code points
            self[codepoint] = value
        return value


_WORD_CHARS: Final = _WordChars()


def char_wb_ngrams(text: str) -> list[str]:
    """scikit-learn's ``char_wb`` analyzer, n from 2 to 5, on preprocessed text.

    Each whitespace-separated word is padded with one space on each side; a padded word no
    longer than n gives itself once and no longer n-grams. (scikit-learn first collapses
    runs of ``\\s`` into one space; ``str.split`` uses the same whitespace, so that changes
    nothing here.)
    """
    # One comprehension for every word and n (their order does not matter: they are counted).
    return [
        padded[i : i + n]
        for padded in [f" {word} " for word in text.split()]
        for n in range(2, min(5, len(padded)) + 1)
        for i in range(len(padded) - n + 1)
    ]


def word_ngrams(text: str) -> list[str]:
    """scikit-learn's ``word`` analyzer with token pattern ``(?u)\\b\\w+\\b``, n 1 to 2."""
    tokens = text.translate(_WORD_CHARS).split()
    return tokens + [f"{a} {b}" for a, b in itertools.pairwise(tokens)]


class _WordSlots:
    """The char block's hashed slots of each word, kept for the words seen before.

    ``char_wb`` n-grams never cross a word, so a text's slots are its words' slots put
    together: a word met again (``git``, ``type:``, ``shell``, a path) is neither cut into
    n-grams nor hashed again. Bounded: agent input may hold any number of distinct words.
    """

    __slots__ = ("_max_words", "_n_features", "_slots")

    MAX_WORD_CHARS: Final = 64  # longer words are rarely repeated: computed, not kept

    def __init__(self, n_features: int, max_words: int = 8192) -> None:
        self._n_features = n_features
        self._max_words = max_words
        self._slots: dict[str, tuple[int, ...]] = {}

    def of_text(self, text: str) -> list[int]:
        """The slots of ``char_wb_ngrams(text)``, as a multiset (order is not kept)."""
        out: list[int] = []
        known = self._slots
        for word in text.split():
            slots = known.get(word)
            if slots is None:
                slots = self._compute(word)
                if len(word) <= self.MAX_WORD_CHARS:
                    if len(known) >= self._max_words:
                        known.clear()
                    known[word] = slots
            out.extend(slots)
        return out

    def _compute(self, word: str) -> tuple[int, ...]:
        import mmh3

        n_features = self._n_features
        padded = f" {word} "
        grams = [
            padded[i : i + n]
            for n in range(2, min(5, len(padded)) + 1)
            for i in range(len(padded) - n + 1)
        ]
        # sklearn: abs() of the signed 32-bit hash, modulo n_features (-2**31 included).
        return tuple([abs(h) % n_features for h in map(mmh3.hash, grams)])


def _hashed(
    grams: Sequence[str], n_features: int, idf: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """One block's row: hashed counts, sublinear tf, idf, l2 norm (as sklearn computes it)."""
    import mmh3
    import numpy as np

    if not grams:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
    hashes = np.fromiter(map(mmh3.hash, grams), dtype=np.int64, count=len(grams))
    # sklearn: abs() of the signed 32-bit hash, modulo n_features (-2**31 included).
    return _weighted(np.abs(hashes) % n_features, idf)


def _weighted(
    slots: npt.NDArray[np.int64], idf: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Hashed slots (any order) as a row: counts, sublinear tf, idf, l2 norm."""
    import numpy as np

    if not slots.size:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
    # np.unique(slots, return_counts=True), without its overhead on a few hundred values
    slots.sort()
    first = np.empty(slots.size, dtype=bool)
    first[0] = True
    np.not_equal(slots[1:], slots[:-1], out=first[1:])
    starts = first.nonzero()[0]
    index = slots[starts]
    # each run's length: the next run's start (the end, for the last) minus its own
    ends = np.empty_like(starts)
    ends[:-1] = starts[1:]
    ends[-1] = slots.size
    counts = ends - starts
    values = (np.log(counts.astype(np.float64)) + 1.0) * idf[index]
    norm = math.sqrt(float(np.dot(values, values)))
    if norm > 0.0:
        values /= norm
    return index, values


def _weighted_plain(slots: list[int], idf: memoryview) -> tuple[list[int], list[float]]:
    """:func:`_weighted` without NumPy: the same row, summed in index order by Python."""
    if not slots:
        return [], []
    counts = Counter(slots)
    index = sorted(counts)
    values = [(math.log(counts[i]) + 1.0) * idf[i] for i in index]
    norm = math.sqrt(sum(map(operator.mul, values, values)))
    if norm > 0.0:
        values = [v / norm for v in values]
    return index, values


# Float64 values: an array, or a read-only view of a bundle's bytes (see _npy).
Floats: TypeAlias = "array[float] | memoryview[float]"
# A zip member's local header (zipfile.structFileHeader): fields 10 and 11 are the lengths
# of its name and its extra field, which come before its data.
_LOCAL_HEADER: Final = struct.Struct("<4s2B4HL2L2H")
_LOCAL_MAGIC: Final = b"PK\x03\x04"


def _members(data: bytes) -> dict[str, bytes | memoryview]:
    """The members of a bundle's zip archive, by name. A stored (uncompressed) member, as
    NumPy's ``savez`` writes them, is a view of ``data``, checked against its CRC-32 as
    zipfile checks it: reading the 6 MB of the seed model's arrays through zipfile copied
    them once more. A compressed member is read by zipfile. zipfile.BadZipFile (or
    OSError, ValueError, EOFError, zlib.error) when the archive is not sound."""
    members: dict[str, bytes | memoryview] = {}
    view = memoryview(data)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            if info.compress_type != zipfile.ZIP_STORED or info.flag_bits & 0x1:  # encrypted
                members[info.filename] = archive.read(info)
                continue
            at = info.header_offset
            header = data[at : at + _LOCAL_HEADER.size]
            if len(header) != _LOCAL_HEADER.size:
                raise zipfile.BadZipFile(f"truncated header of {info.filename!r}")
            fields = _LOCAL_HEADER.unpack(header)
            if fields[0] != _LOCAL_MAGIC:
                raise zipfile.BadZipFile("Bad magic number for file header")
            start = at + _LOCAL_HEADER.size + fields[10] + fields[11]
            member = view[start : start + info.file_size]
            if len(member) != info.file_size or zlib.crc32(member) != info.CRC:
                raise zipfile.BadZipFile(f"Bad CRC-32 for file {info.filename!r}")
            members[info.filename] = member
    return members


def _npy(name: str, blob: bytes | memoryview) -> tuple[tuple[int, ...], Floats]:
    """One ``.npy`` member of a bundle: little-endian float64 in C order, as NumPy writes
    it (format 1.0 to 3.0); its shape and its values: on a little-endian machine a
    read-only view of ``blob`` (no copy), else a byte-swapped array. ModelError for
    anything else."""
    magic, major = bytes(blob[:6]), blob[6] if len(blob) > 7 else 0
    if magic != b"\x93NUMPY" or major not in (1, 2, 3):
        raise ModelError(f"inference bundle: {name} is not an .npy array")
    size = 2 if major == 1 else 4
    start = 8 + size
    length = int.from_bytes(blob[8:start], "little")
    if length > _MAX_NPY_HEADER:
        raise ModelError(f"inference bundle: {name} has a header of {length} bytes")
    try:
        header = ast.literal_eval(bytes(blob[start : start + length]).decode("latin-1"))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise ModelError(f"inference bundle: {name} has an unreadable header") from None
    if not isinstance(header, dict):
        raise ModelError(f"inference bundle: {name} has an unreadable header")
    if header.get("descr") != "<f8":
        raise ModelError(f"inference bundle: {name} is not a float64 array")
    shape = header.get("shape")
    if (
        header.get("fortran_order") is not False
        or not isinstance(shape, tuple)
        or not all(isinstance(n, int) and n >= 0 for n in shape)
    ):
        raise ModelError(f"inference bundle: {name} is not a C-ordered array ({header!r})")
    data = memoryview(blob)[start + length :]
    if len(data) != math.prod(shape) * 8:
        raise ModelError(f"inference bundle: {name} holds {len(data)} bytes for shape {shape}")
    if sys.byteorder == "little":
        return shape, data.toreadonly().cast("d")
    values = array("d")
    values.frombytes(data)
    values.byteswap()
    return shape, values


def _finite(values: Floats) -> bool:
    """No NaN and no infinity. Both have every exponent bit set, so a float64 whose high
    byte (the sign and seven exponent bits) is neither 0x7F nor 0xFF is finite, and when
    none is, that is the answer (about 1 ms for the seed model's 786,000 values, against
    20 for their sum). Otherwise a sum that is finite proves it (either would make the sum
    NaN or infinite); only when it is not are the values looked at one by one."""
    raw = (
        memoryview(values).cast("B").tobytes()
    )  # a copy, then a C loop: faster than a strided view
    high = raw[7::8] if sys.byteorder == "little" else raw[::8]
    if b"\x7f" not in high and b"\xff" not in high:
        return True
    return math.isfinite(sum(values)) or all(map(math.isfinite, values))


@final
class Bundle:
    """A model version as flat float64 arrays, scored without scikit-learn.

    ``weights`` holds one column per calibration fold over the concatenated feature space
    (characters, then words), row by row; ``a`` and ``b`` are each fold's sigmoid
    calibration. A bundle reads its file and scores without NumPy, whose import costs a
    new process about 50 ms (more than a one-shot hook's whole decision should): in plain
    Python until it has scored :data:`PLAIN_SCORES` texts or NumPy is imported anyway,
    then with NumPy, about three times faster a text. The two agree to about 1e-15
    (``tests/unit/test_classifier_kind.py`` compares them), far below the 1e-9 both keep
    to scikit-learn and the four decimals a result reports.
    """

    def __init__(
        self, params: Mapping[str, Any], arrays: Mapping[str, tuple[tuple[int, ...], Floats]]
    ) -> None:
        blocks = _checked_params(params)
        self.char_features, self.word_features = blocks
        folds = params.get("folds")
        if not isinstance(folds, int) or not 1 <= folds <= _MAX_FOLDS:
            raise ModelError(f"inference bundle: 'folds' is {folds!r}, expected 1 to {_MAX_FOLDS}")
        if set(arrays) != set(_ARRAYS):
            raise ModelError(f"inference bundle holds {sorted(arrays)}, expected {sorted(_ARRAYS)}")
        total = self.char_features + self.word_features
        shapes = {
            "char_idf": (self.char_features,),
            "word_idf": (self.word_features,),
            "weights": (total, folds),
            "intercepts": (folds,),
            "a": (folds,),
            "b": (folds,),
        }
        for name, shape in shapes.items():
            got, values = arrays[name]
            if not (
                (isinstance(values, array) and values.typecode == "d")
                or (isinstance(values, memoryview) and values.format == "d" and values.ndim == 1)
            ):
                raise ModelError(f"inference bundle: {name} is not a float64 array")
            if got != shape:
                raise ModelError(f"inference bundle: {name} has shape {got}, not {shape}")
            if not _finite(values):
                raise ModelError(f"inference bundle: {name} holds a NaN or an infinity")
        self._arrays = {name: arrays[name][1] for name in _ARRAYS}
        self._shapes = shapes
        self.folds = folds
        self._word_slots = _WordSlots(self.char_features)
        # The plain scorer's views: each fold's column of the char and the word weights.
        weights = memoryview(self._arrays["weights"])
        split = self.char_features * folds
        self._char_columns = [weights[f:split:folds] for f in range(folds)]
        self._word_columns = [weights[split + f :: folds] for f in range(folds)]
        self._char_idf = memoryview(self._arrays["char_idf"])
        self._word_idf = memoryview(self._arrays["word_idf"])
        self._folds = [
            (self._arrays["intercepts"][f], self._arrays["a"][f], self._arrays["b"][f])
            for f in range(folds)
        ]
        self._scored = 0
        self._numpy: dict[str, npt.NDArray[np.float64]] | None = None

    @classmethod
    def from_npz(cls, params: Mapping[str, Any], data: bytes) -> Bundle:
        """Read a bundle written by :meth:`to_npz` (no pickled objects are accepted; the
        ``.npy`` members are parsed here, without NumPy)."""
        try:
            arrays = {
                name.removesuffix(".npy"): _npy(name, member)
                for name, member in _members(data).items()
            }
        except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
            raise ModelError(f"inference bundle cannot be read: {exc}") from None
        return cls(params, arrays)

    @classmethod
    def from_pipeline(cls, pipeline: Pipeline) -> Bundle:
        """The arrays of a fitted pipeline this kind built (ModelError for any other)."""
        import numpy as np

        params = pipeline_params(pipeline)
        blocks = dict(pipeline.named_steps["features"].transformer_list)
        calibrated = pipeline.named_steps["model"]
        folds = calibrated.calibrated_classifiers_
        arrays = {
            "char_idf": blocks["chars"].named_steps["tfidf"].idf_,
            "word_idf": blocks["words"].named_steps["tfidf"].idf_,
            "weights": np.stack([f.estimator.coef_[0] for f in folds], axis=1),
            "intercepts": [f.estimator.intercept_[0] for f in folds],
            "a": [f.calibrators[0].a_ for f in folds],
            "b": [f.calibrators[0].b_ for f in folds],
        }
        flat: dict[str, tuple[tuple[int, ...], array[float]]] = {}
        for name, value in arrays.items():
            numbers = np.ascontiguousarray(value, dtype=np.float64)
            values = array("d")
            values.frombytes(numbers.tobytes())
            flat[name] = (numbers.shape, values)
        return cls(params, flat)

    @property
    def params(self) -> dict[str, Any]:
        """What the manifest records: the blocks' settings and sizes, the scheme, the folds."""
        return _params(self.char_features, self.word_features, self.folds)

    def arrays(self) -> dict[str, npt.NDArray[np.float64]]:
        """The arrays as NumPy arrays of their shapes (read-only views, not copies; an
        array whose view of the bundle's bytes is not 8-byte aligned is copied once, as
        NumPy computes faster on aligned values)."""
        import numpy as np

        if self._numpy is None:
            views = {}
            for name, values in self._arrays.items():
                view = np.frombuffer(memoryview(values), dtype=np.float64).reshape(
                    self._shapes[name]
                )
                if not view.flags.aligned:
                    view = view.copy()
                view.flags.writeable = False
                views[name] = view
            self._numpy = views
        return self._numpy

    def to_npz(self) -> bytes:
        import numpy as np

        arrays = self.arrays()
        out = io.BytesIO()
        np.savez(
            out,
            char_idf=arrays["char_idf"],
            word_idf=arrays["word_idf"],
            weights=arrays["weights"],
            intercepts=arrays["intercepts"],
            a=arrays["a"],
            b=arrays["b"],
        )
        return out.getvalue()

    def numpy_due(self, texts: int = 1) -> bool:
        """Whether scoring ``texts`` more loads NumPy (see the class's description)."""
        return self._numpy is None and (
            self._scored + texts > PLAIN_SCORES or "numpy" in sys.modules
        )

    def score(self, texts: Sequence[str]) -> list[float]:
        """The calibrated probability of the positive class for each text."""
        if self.numpy_due(len(texts)):
            self.arrays()
        if self._numpy is None:
            self._scored += len(texts)
            return [self._plain(text) for text in texts]
        return [self._one(text) for text in texts]

    def _plain(self, text: str) -> float:
        """One text's probability, in Python: :meth:`_one`'s arithmetic, summed in order."""
        import mmh3

        lowered = _utf8(text).lower()
        chars, char_values = _weighted_plain(self._word_slots.of_text(lowered), self._char_idf)
        n_words = self.word_features
        words, word_values = _weighted_plain(
            [abs(h) % n_words for h in map(mmh3.hash, word_ngrams(lowered))], self._word_idf
        )
        total = 0.0
        mul = operator.mul
        for (intercept, a, b), char_column, word_column in zip(
            self._folds, self._char_columns, self._word_columns, strict=True
        ):
            score = (
                sum(map(mul, char_values, map(char_column.__getitem__, chars)))
                + sum(map(mul, word_values, map(word_column.__getitem__, words)))
                + intercept
            )
            total += 1.0 / (1.0 + math.exp(a * score + b))
        return total / self.folds

    def _one(self, text: str) -> float:
        import numpy as np

        arrays = self.arrays()
        weights = arrays["weights"]
        lowered = _utf8(text).lower()
        slots = self._word_slots.of_text(lowered)
        chars, char_values = _weighted(np.array(slots, dtype=np.int64), arrays["char_idf"])
        words, word_values = _hashed(word_ngrams(lowered), self.word_features, arrays["word_idf"])
        scores = (
            char_values @ weights[chars]
            + word_values @ weights[self.char_features + words]
            + arrays["intercepts"]
        )
        probabilities = 1.0 / (1.0 + np.exp(arrays["a"] * scores + arrays["b"]))
        # np.mean's own sum and division, without its checks: the same float, bit for bit
        return float(np.add.reduce(probabilities) / probabilities.size)


def _params(char_features: int, word_features: int, folds: int) -> dict[str, Any]:
    sizes = {"chars": char_features, "words": word_features}
    return {
        "format": BUNDLE_FORMAT,
        "blocks": [{**block, "n_features": sizes[block["name"]]} for block in _BLOCKS],
        **_SCHEME,
        "folds": folds,
    }


def _checked_params(params: Mapping[str, Any]) -> tuple[int, int]:
    """The blocks' sizes, once the recorded settings are the ones this scorer implements."""
    if params.get("format") != BUNDLE_FORMAT:
        raise ModelError(
            f"inference bundle format {params.get('format')!r}; this version of the kind "
            f"reads format {BUNDLE_FORMAT}: retrain the entry (supervise train)"
        )
    blocks = params.get("blocks")
    if not isinstance(blocks, list) or len(blocks) != len(_BLOCKS):
        raise ModelError(f"inference bundle: unexpected feature blocks {blocks!r}")
    sizes: list[int] = []
    for block, expected in zip(blocks, _BLOCKS, strict=True):
        if not isinstance(block, dict):
            raise ModelError(f"inference bundle: unexpected feature block {block!r}")
        n_features = block.get("n_features")
        settings = {k: v for k, v in block.items() if k != "n_features"}
        if settings != expected:
            raise ModelError(
                f"inference bundle: feature block {settings!r} is not the one this kind "
                f"scores ({expected!r}); retrain the entry (supervise train)"
            )
        if not isinstance(n_features, int) or not 1 <= n_features <= _MAX_FEATURES:
            raise ModelError(f"inference bundle: n_features {n_features!r} is out of range")
        sizes.append(n_features)
    scheme = {k: params.get(k) for k in _SCHEME}
    if scheme != _SCHEME:
        raise ModelError(f"inference bundle: scheme {scheme!r} is not {_SCHEME!r}")
    return sizes[0], sizes[1]


def pipeline_params(pipeline: Pipeline) -> dict[str, Any]:
    """The bundle parameters of a pipeline, after checking every setting the scorer copies.

    Raises:
        ModelError: the pipeline is not one :func:`make_pipeline` builds (another analyzer,
            stop words, a tokenizer...): its bundle would not score as it does.
    """
    try:
        return _read_params(pipeline)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise ModelError(
            f"the pipeline is not one this kind builds, so it has no inference bundle: {exc!r}"
        ) from None


def _unbundlable(why: str) -> ModelError:
    return ModelError(f"the pipeline cannot be made an inference bundle: {why}")


def _read_params(pipeline: Pipeline) -> dict[str, Any]:
    features = pipeline.named_steps["features"]
    calibrated = pipeline.named_steps["model"]
    blocks = dict(features.transformer_list)
    sizes: dict[str, int] = {}
    for block in _BLOCKS:
        steps = blocks[block["name"]].named_steps
        vectorizer, tfidf = steps["hash"], steps["tfidf"]
        wanted: dict[str, Any] = {
            "analyzer": block["analyzer"],
            "ngram_range": tuple(block["ngram_range"]),
            "lowercase": True,
            "preprocessor": None,
            "tokenizer": None,
            "stop_words": None,
            "strip_accents": None,
            "binary": False,
            "alternate_sign": False,
            "norm": None,
            "input": "content",
            "encoding": "utf-8",
        }
        if block["analyzer"] == "word":
            wanted["token_pattern"] = block["token_pattern"]
        got = {k: vectorizer.get_params()[k] for k in wanted}
        if type(vectorizer).__name__ != "HashingVectorizer" or got != wanted:
            raise _unbundlable(f"block {block['name']}: {got!r}, expected {wanted!r}")
        tfidf_got = (tfidf.sublinear_tf, tfidf.use_idf, tfidf.norm)
        if tfidf_got != (True, True, "l2"):
            raise _unbundlable(f"block {block['name']}: tf-idf settings {tfidf_got!r}")
        sizes[block["name"]] = int(vectorizer.n_features)
    if features.transformer_weights is not None:
        raise _unbundlable("the feature union weights its blocks")
    if list(calibrated.classes_) != [False, True]:
        raise _unbundlable(f"the model's classes are {list(calibrated.classes_)!r}")
    if calibrated.method != "sigmoid":
        raise _unbundlable(f"calibration {calibrated.method!r}")
    return _params(sizes["chars"], sizes["words"], len(calibrated.calibrated_classifiers_))


# Texts every bundle is checked against its pipeline on before it is saved: the hard cases
# of the analyzers (padding, unicode case and digits, marks, odd whitespace, punctuation).
PROBES: Final[tuple[str, ...]] = (
    "",
    " ",
    "type: shell\ncommand: echo probe",
    "type: message\ntext: ignore that",
    "!!! ??? ... ;;; --- ((( )))",
    "a b c _ __ a_b 1 22 333",
    "İstanbul STRASSE straße ΣΑΣ ǅ Ⅻ ² ٣ 五 e\u0301 \u200bzero\u200b width",
    "tabs\tand\u00a0non-breaking\u3000ideographic\u2028line\x1c\x1d\x1e\x1fseparators\x85",
    "日本語のテキスト 中文 한국어 emoji 🙂🙂 mixed🙂word",
    "x" * 4096,
    "ab " * 1365,
)
_AGREEMENT: Final = 1e-9


def check_agreement(bundle: Bundle, pipeline: Pipeline, texts: Sequence[str]) -> None:
    """Raise unless the bundle scores ``texts`` (and :data:`PROBES`) as the pipeline does."""
    sample = [*PROBES, *texts]
    fast, slow = bundle.score(sample), _probabilities(pipeline, sample)
    worst = max(abs(x - y) for x, y in zip(fast, slow, strict=True))
    if worst > _AGREEMENT:
        raise ModelError(
            f"the inference bundle disagrees with the pipeline by {worst:.2e} (limit "
            f"{_AGREEMENT:.0e}); not saving it"
        )


def _probabilities(model: Pipeline, texts: Sequence[str]) -> list[float]:
    classes = list(model.classes_)
    column = classes.index(True) if True in classes else classes.index(1)
    return [float(p) for p in model.predict_proba(list(texts))[:, column]]


def evaluate(
    model: Pipeline, examples: Sequence[Example], threshold: float
) -> dict[str, float | int]:
    """Precision, recall and F1 at ``threshold`` on ``examples``."""
    scores = _probabilities(model, [e.text for e in examples])
    tp = sum(1 for e, p in zip(examples, scores, strict=True) if e.positive and p >= threshold)
    fp = sum(1 for e, p in zip(examples, scores, strict=True) if not e.positive and p >= threshold)
    fn = sum(1 for e, p in zip(examples, scores, strict=True) if e.positive and p < threshold)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "precision": round(precision, 4),
        "recall": round(recall, 4),
        "f1": round(f1, 4),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "n": len(examples),
    }


def split(
    examples: Sequence[Example], holdout: float, random_state: int
) -> tuple[list[Example], list[Example]]:
    """A stable, stratified split: (train, held out).

    Each example is held out when a keyed hash of its text falls below ``holdout``, so an
    example once held out stays held out as the data grows: the current model was never
    trained on any of the new held-out set, and the comparison before promotion is fair.
    Each class keeps at least one example on each side.
    """
    key = f"{random_state}:".encode()

    def fraction(example: Example) -> float:
        digest = hashlib.sha256(key + example.text.encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big") / 2**64

    train_set: list[Example] = []
    held: list[Example] = []
    for positive in (True, False):
        group = sorted((e for e in examples if e.positive is positive), key=fraction)
        cut = sum(1 for e in group if fraction(e) < holdout)
        cut = min(max(cut, 1), len(group) - 1)
        held.extend(group[:cut])
        train_set.extend(group[cut:])
    return train_set, held


def _dedupe(examples: Iterable[Example]) -> list[Example]:
    """One example per text; a later label (feedback, a person) overrides an earlier one."""
    by_text: dict[str, Example] = {}
    for example in examples:
        by_text.pop(example.text, None)
        by_text[example.text] = example
    return list(by_text.values())


def fit(examples: Sequence[Example], random_state: int) -> Pipeline:
    """A fitted pipeline; at least two examples of each class are needed."""
    positives = sum(e.positive for e in examples)
    negatives = len(examples) - positives
    if min(positives, negatives) < 2:
        raise ModelError(
            f"cannot train on {positives} positive and {negatives} negative examples; "
            "each class needs at least 2 in the training split (label more feedback)"
        )
    from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

    model = make_pipeline(random_state, folds=min(3, positives, negatives))
    # One BLAS thread: on a busy machine, threads fighting over cores made a 0.5 s fit 20 s.
    with threadpool_limits(limits=1):
        model.fit([e.text for e in examples], [e.positive for e in examples])
    return model


def _version_id(
    train_set: Sequence[Example], config: ClassifierConfig, sklearn_version: str | None = None
) -> str:
    """Named after what it was trained on: same data and settings, same version.

    ``sklearn_version`` is the installed one unless given (a shipped seed model names the
    one it was trained with).
    """
    if sklearn_version is None:
        sklearn_version = _sklearn_version()
    seed_only = all(e.source == "seed" for e in train_set)

    digest = hashlib.sha256()
    digest.update(f"{_RECIPE}|{sklearn_version}|{config.random_state}|".encode())
    for example in sorted(train_set, key=lambda e: e.digest):
        digest.update(f"{example.digest}:{int(example.positive)}\n".encode())
    return f"{'seed' if seed_only else 'v'}-{digest.hexdigest()[:12]}"


def _sklearn_version() -> str:
    import sklearn

    return str(sklearn.__version__)


# -- keys --------------------------------------------------------------------------------


def deployment_public_key(home: Path) -> Ed25519PublicKey:
    """The public key model signatures are checked with."""
    configured = os.environ.get(KEY_ENV)
    if configured:
        return load_private_key(Path(configured)).public
    public = home / KEYS_DIR / PUBLIC_FILE
    if public.exists():
        return load_public_key(public)
    private = home / KEYS_DIR / PRIVATE_FILE
    if private.exists():
        return load_private_key(private).public
    raise ModelError(
        f"no deployment key in {home / KEYS_DIR} to check model signatures with; "
        "a model file cannot be trusted without it"
    )


# -- the model store ---------------------------------------------------------------------


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _signed_message(
    entry_id: str, version: str, model_sha: str, bundle_sha: str, manifest_sha: str
) -> bytes:
    return b"\n".join(
        [
            _SIGNED_CONTEXT,
            entry_id.encode(),
            version.encode(),
            model_sha.encode(),
            bundle_sha.encode(),
            manifest_sha.encode(),
        ]
    )


def _seal(
    directory: Path, entry_id: str, version: str, manifest: Mapping[str, Any], keys: KeyPair
) -> None:
    """Write the manifest (with the files' SHA-256) and the signature over all three."""
    model_sha = _sha256(directory / MODEL_FILE)
    bundle_sha = _sha256(directory / BUNDLE_FILE)
    bundle = {**manifest.get("bundle", {}), "file": BUNDLE_FILE, "sha256": bundle_sha}
    body = {
        **manifest,
        "version": version,
        "entry_id": entry_id,
        "sha256": model_sha,
        "bundle": bundle,
    }
    manifest_bytes = (json.dumps(body, indent=2, sort_keys=True) + "\n").encode()
    (directory / MANIFEST_FILE).write_bytes(manifest_bytes)
    manifest_sha = hashlib.sha256(manifest_bytes).hexdigest()
    signature = keys.private.sign(
        _signed_message(entry_id, version, model_sha, bundle_sha, manifest_sha)
    )
    sig = {
        "key_id": keys.key_id,
        "algorithm": "ed25519",
        "sha256": model_sha,
        "bundle_sha256": bundle_sha,
        "manifest_sha256": manifest_sha,
        "signature": base64.b64encode(signature).decode(),
    }
    (directory / SIGNATURE_FILE).write_text(json.dumps(sig, indent=2) + "\n")


class OldModelFormat(ModelError):
    """A version saved before inference bundles existed: it must be retrained."""


@dataclass(frozen=True, slots=True)
class _Verified:
    manifest: dict[str, Any]
    bundle: bytes  # the bytes that were hashed: what gets loaded
    bundle_sha256: str


@dataclass(frozen=True, slots=True)
class LoadedModel:
    """A verified version, ready to score: its bundle, never its scikit-learn pipeline."""

    version: str
    sha256: str  # of the inference bundle: what the scores come from
    manifest: dict[str, Any]
    bundle: Bundle

    def score(self, texts: Sequence[str]) -> list[float]:
        return self.bundle.score(texts)


@dataclass(frozen=True, slots=True)
class TrainedModel:
    """A verified version with its pipeline, for training and evaluation (needs sklearn)."""

    version: str
    sha256: str
    manifest: dict[str, Any]
    pipeline: Pipeline
    bundle: Bundle

    def score(self, texts: Sequence[str]) -> list[float]:
        return self.bundle.score(texts)


_CACHE_LOCK = threading.Lock()
# (bundle path, inode, size, mtime, key id) -> loaded model. A file changed on disk has
# another key, so it is verified again (and refused if tampered) before it is used.
_LOADED: dict[tuple[str, int, int, int, str], LoadedModel] = {}
_CACHE_MAX: Final = 16


class ModelStore:
    """The versions of one entry's model in one directory."""

    def __init__(self, root: Path, entry_id: str) -> None:
        self.root = root
        self.entry_id = entry_id
        self._current_path = os.fspath(root / CURRENT_FILE)  # stat on every decision: joined once

    def version_dir(self, version: str) -> Path:
        if not _VERSION_RE.match(version):
            raise ModelError(f"{version!r} is not a model version id of entry {self.entry_id!r}")
        return self.root / version

    def pointer(self) -> tuple[int, int, int] | None:
        """A stamp of the ``current`` file (replaced atomically on promotion); None if absent."""
        try:
            stat = os.stat(self._current_path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise ModelError(f"cannot read {self.root / CURRENT_FILE}: {exc.strerror}") from exc
        return stat.st_ino, stat.st_size, stat.st_mtime_ns

    def current(self) -> str | None:
        """The promoted version, or None when the entry has no model yet."""
        try:
            version = (self.root / CURRENT_FILE).read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise ModelError(f"cannot read {self.root / CURRENT_FILE}: {exc.strerror}") from exc
        if not _VERSION_RE.match(version):
            raise ModelError(
                f"{self.root / CURRENT_FILE} names {version[:40]!r}, not a model version"
            )
        return version

    def versions(self) -> list[dict[str, Any]]:
        """Manifests of the versions on disk, oldest first (unverified: for listing)."""
        out = []
        if self.root.is_dir():
            for child in self.root.iterdir():
                manifest = child / MANIFEST_FILE
                if _VERSION_RE.match(child.name) and manifest.is_file():
                    with contextlib.suppress(OSError, ValueError):
                        out.append(json.loads(manifest.read_text(encoding="utf-8")))
        return sorted(out, key=lambda m: str(m.get("created", "")))

    def save(
        self,
        pipeline: Pipeline,
        manifest: dict[str, Any],
        keys: KeyPair,
        probes: Sequence[str] = (),
    ) -> str:
        """Write a version (pipeline, bundle, manifest, signature) atomically; its id.

        The bundle is checked to score ``probes`` (and :data:`PROBES`) as the pipeline does
        before anything is written.
        """
        import skops.io

        bundle = Bundle.from_pipeline(pipeline)
        check_agreement(bundle, pipeline, probes)
        files = {MODEL_FILE: skops.io.dumps(pipeline), BUNDLE_FILE: bundle.to_npz()}
        return self.save_files(files, {**manifest, "bundle": bundle.params}, keys)

    def save_files(
        self, files: Mapping[str, bytes], manifest: dict[str, Any], keys: KeyPair
    ) -> str:
        """Write a version from its pipeline's and bundle's bytes, sealed with ``keys``
        (the manifest gets their SHA-256), atomically; its id."""
        version = str(manifest["version"])
        target = self.version_dir(version)
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        staging = self.root / f".tmp-{version}-{os.getpid()}-{os.urandom(4).hex()}"
        staging.mkdir(mode=0o700)
        try:
            (staging / MODEL_FILE).write_bytes(files[MODEL_FILE])
            (staging / BUNDLE_FILE).write_bytes(files[BUNDLE_FILE])
            _seal(staging, self.entry_id, version, manifest, keys)
            try:
                staging.rename(target)
            except OSError:
                if not target.is_dir():
                    raise
                # Another process trained the same version from the same data first.
        except OSError as exc:
            raise ModelError(f"cannot write model version {version} to {self.root}: {exc}") from exc
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return version

    def promote(self, version: str) -> None:
        """Make ``version`` the current one (an atomic rename of the pointer file)."""
        self.version_dir(version)
        tmp = self.root / f".{CURRENT_FILE}.{os.getpid()}.{os.urandom(4).hex()}"
        tmp.write_text(version + "\n", encoding="utf-8")
        os.replace(tmp, self.root / CURRENT_FILE)

    def _retrain(self) -> str:
        return f"supervise train {self.entry_id} --seed-only (or with its feedback: without it)"

    def verify(
        self, version: str, public: Ed25519PublicKey, *, pipeline: bool = False
    ) -> _Verified:
        """Check a version's signature, then its files' hashes; the bundle's bytes.

        The pipeline file is hashed only when ``pipeline`` (training loads it; scoring
        never reads it).

        Raises:
            ModelError: missing, unsigned, signed by another key, tampered with, or saved
                in the old format without a bundle (:class:`OldModelFormat`).
        """
        directory = self.version_dir(version)
        where = f"model version {version} of entry {self.entry_id!r}"
        if not directory.is_dir():
            raise ModelError(f"{where} is not in {self.root}")
        sig_path = directory / SIGNATURE_FILE
        if not sig_path.is_file():
            if (directory / _OLD_SIGNATURE_FILE).is_file():
                raise OldModelFormat(
                    f"{where} was saved in an older format, without an inference bundle; "
                    f"retrain: {self._retrain()}"
                )
            raise ModelError(f"{where} is unsigned: {sig_path} is missing; refusing to load it")
        try:
            sig = json.loads(sig_path.read_text(encoding="utf-8"))
            signature = base64.b64decode(sig["signature"], validate=True)
            model_sha, bundle_sha = str(sig["sha256"]), str(sig["bundle_sha256"])
            manifest_sha, signer = str(sig["manifest_sha256"]), str(sig["key_id"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ModelError(f"{where}: unreadable signature file {sig_path}: {exc!r}") from exc
        expected = key_id(public)
        if signer != expected:
            raise ModelError(
                f"{where} is signed by key {signer}, not by this deployment's key {expected}; "
                "refusing to load it"
            )
        try:
            public.verify(
                signature,
                _signed_message(self.entry_id, version, model_sha, bundle_sha, manifest_sha),
            )
        except InvalidSignature:
            raise ModelError(
                f"{where}: the signature does not verify with the deployment key; refusing "
                "to load it"
            ) from None
        # The signature holds: the hashes it names are the deployment's. The files must
        # still be those.
        try:
            manifest_bytes = (directory / MANIFEST_FILE).read_bytes()
            bundle = (directory / BUNDLE_FILE).read_bytes()
        except OSError as exc:
            raise ModelError(f"{where}: cannot read {exc.filename}: {exc.strerror}") from exc
        if hashlib.sha256(manifest_bytes).hexdigest() != manifest_sha:
            raise ModelError(f"{where}: its manifest was modified after it was signed")
        self._same(where, directory / BUNDLE_FILE, hashlib.sha256(bundle).hexdigest(), bundle_sha)
        if pipeline:
            model_path = directory / MODEL_FILE
            if not model_path.is_file():
                raise ModelError(f"{where} has no {MODEL_FILE} in {directory}")
            self._same(where, model_path, _sha256(model_path), model_sha)
        manifest: dict[str, Any] = json.loads(manifest_bytes)
        recorded = manifest.get("bundle")
        if (
            manifest.get("entry_id") != self.entry_id
            or manifest.get("version") != version
            or not isinstance(recorded, dict)
            or recorded.get("sha256") != bundle_sha
        ):
            raise ModelError(f"{where}: its manifest does not describe this version")
        return _Verified(manifest, bundle, bundle_sha)

    @staticmethod
    def _same(where: str, path: Path, actual: str, signed: str) -> None:
        if actual != signed:
            raise ModelError(
                f"{where} was modified after it was signed ({path} has sha256 {actual[:16]}…, "
                f"the signature covers {signed[:16]}…); refusing to load it. Restore the file "
                "or train a new version with supervise train"
            )

    def load_bundle(self, version: str, public: Ed25519PublicKey) -> LoadedModel:
        """Verify, then read the inference bundle (cached while the file is unchanged).

        Needs neither scikit-learn nor NumPy (:class:`Bundle` loads it when it pays).
        """
        path = self.version_dir(version) / BUNDLE_FILE
        try:
            stat = path.stat()
        except FileNotFoundError:
            self.verify(version, public)  # says why: absent, old format, unsigned...
            raise ModelError(
                f"model version {version} of entry {self.entry_id!r} has no {BUNDLE_FILE}"
            ) from None
        key = (str(path), stat.st_ino, stat.st_size, stat.st_mtime_ns, key_id(public))
        cached = _LOADED.get(key)
        if cached is not None:
            return cached
        verified = self.verify(version, public)
        try:
            bundle = Bundle.from_npz(verified.manifest["bundle"], verified.bundle)
        except ModelError as exc:
            raise ModelError(f"model version {version} of entry {self.entry_id!r}: {exc}") from None
        loaded = LoadedModel(version, verified.bundle_sha256, verified.manifest, bundle)
        with _CACHE_LOCK:
            if len(_LOADED) >= _CACHE_MAX:
                _LOADED.clear()
            _LOADED[key] = loaded
        return loaded

    def load(self, version: str, public: Ed25519PublicKey) -> TrainedModel:
        """Verify every file, then load the pipeline with skops and the trusted types only.

        For training and evaluation (``supervise train``); imports scikit-learn and skops.
        The bundle is checked to score as the pipeline does.
        """
        verified = self.verify(version, public, pipeline=True)
        where = f"model version {version} of entry {self.entry_id!r}"
        import skops.io
        from skops.io.exceptions import UntrustedTypesFoundException

        try:
            pipeline = skops.io.load(
                self.version_dir(version) / MODEL_FILE, trusted=list(TRUSTED_TYPES)
            )
        except UntrustedTypesFoundException as exc:
            raise ModelError(
                f"{where} holds types outside the trusted list: {exc}; refusing to load it"
            ) from None
        except Exception as exc:
            raise ModelError(f"{where} cannot be loaded: {exc!r}") from exc
        try:
            bundle = Bundle.from_npz(verified.manifest["bundle"], verified.bundle)
            check_agreement(bundle, pipeline, ())
        except ModelError as exc:
            raise ModelError(f"{where}: {exc}") from None
        except (AttributeError, KeyError, IndexError, TypeError, ValueError) as exc:
            raise ModelError(f"{where} is not a pipeline this kind built: {exc!r}") from None
        return TrainedModel(version, verified.bundle_sha256, verified.manifest, pipeline, bundle)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """An exclusive lock on this entry's models, across processes (training)."""
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        with (self.root / ".lock").open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def model_root(entry_id: str, config: ClassifierConfig, home: Path | None = None) -> Path:
    """Where an entry's versions live: ``model_dir``, else ``models/<entry_id>`` in the home."""
    base = resolve_home(home)
    if config.model_dir is None:
        return base / MODELS_DIR / entry_id
    given = Path(config.model_dir).expanduser()
    return given if given.is_absolute() else base / given


# -- training ----------------------------------------------------------------------------


def train(
    entry_id: str,
    config: ClassifierConfig,
    store: ModelStore,
    keys: KeyPair,
    examples: Sequence[Example],
    *,
    force: bool = False,
) -> dict[str, Any]:
    """Fit a new version, compare it with the current one on held-out data, maybe promote.

    The new model is promoted when there is no current one (or only one saved in the old
    format, which cannot score any more), when it is not worse on the entry's ``metric``
    on the same held-out examples, or with ``force``. Returns the report ``supervise
    train`` prints.

    Raises:
        ModelError: too few examples, or the current model cannot be checked (tampered,
            unsigned) and ``force`` is not given.
    """
    data = _dedupe(examples)
    positives = sum(e.positive for e in data)
    if len(data) < config.min_examples:
        raise ModelError(
            f"entry {entry_id!r} has {len(data)} labelled examples ({positives} positive); "
            f"training needs at least {config.min_examples}"
        )
    train_set, held = split(data, config.holdout, config.random_state)
    version = _version_id(train_set, config)
    with store.locked():
        current_version = store.current()
        model = fit(train_set, config.random_state)
        new_metrics = evaluate(model, held, config.threshold)
        current_metrics: dict[str, float | int] | None = None
        current_error: str | None = None
        if current_version is not None:
            try:
                current = store.load(current_version, keys.public)
                current_metrics = evaluate(current.pipeline, held, config.threshold)
            except OldModelFormat as exc:
                current_error = str(exc)  # unusable anyway: replacing it needs no --force
            except ModelError as exc:
                if not force:
                    raise ModelError(
                        f"{exc}. The current model cannot be compared with; check the files, "
                        "or pass --force to promote the new model anyway"
                    ) from None
                current_error = str(exc)
        metric = config.metric
        if current_version == version:
            promoted, why = False, "the training data did not change: same version"
        elif current_metrics is None:
            promoted = True
            why = "no usable current model" if current_version else "first model of the entry"
        elif new_metrics[metric] >= current_metrics[metric]:
            promoted = True
            why = f"{metric} {new_metrics[metric]:.3f} >= current {current_metrics[metric]:.3f}"
        elif force:
            promoted = True
            why = (
                f"forced: {metric} {new_metrics[metric]:.3f} "
                f"< current {current_metrics[metric]:.3f}"
            )
        else:
            promoted = False
            why = f"{metric} {new_metrics[metric]:.3f} < current {current_metrics[metric]:.3f}"
        sources = {
            s: sum(1 for e in data if e.source == s) for s in ("seed", "feedback", "examples")
        }
        manifest: dict[str, Any] = {
            "version": version,
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "kind_version": KIND_VERSION,
            "metric": metric,
            "threshold": config.threshold,
            "metrics": new_metrics,
            "training_examples": len(train_set),
            "held_out_examples": len(held),
            "positives": positives,
            "sources": sources,
            "random_state": config.random_state,
            "seed": config.seed,
            "sklearn_version": _sklearn_version(),
        }
        if current_version != version:
            store.save(model, manifest, keys, probes=[e.text for e in data])
        if promoted:
            store.promote(version)
    return {
        "entry": entry_id,
        "version": version,
        "promoted": promoted,
        "reason": why,
        "metric": metric,
        "new": new_metrics,
        "current_version": current_version,
        "current": current_metrics,
        "current_error": current_error,
        "examples": {**sources, "train": len(train_set), "held_out": len(held)},
        "model_dir": str(store.root),
    }


# -- the specialist ----------------------------------------------------------------------


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


_WARNED: set[tuple[str, str]] = set()
_WARNED_LOCK = threading.Lock()


@final
class ClassifierSpecialist:
    """Objects when the model's calibrated probability reaches the entry's threshold.

    Building one reads nothing: the model is loaded on the first evaluation that needs it
    (once, under a lock), and again only when another version is promoted.
    """

    def __init__(self, entry_id: str, config: ClassifierConfig, verdict: Verdict) -> None:
        # Scoring is bounded (the text view is capped) and takes about 0.2 ms for a command,
        # less than the hop to a worker thread; the first call loads the model (about
        # 20 ms). Inline, then, with a recording context for the model version it used; the
        # engine moves it to a thread if a call overruns its timeout (a model load, reported
        # as ``setup``, does not count).
        self.execution = Execution.INLINE
        self.observes = True
        self.entry_id = entry_id
        self.config = config
        self._verdict = verdict
        self._home: Path | None = None
        self._store: ModelStore | None = None
        self._lock = threading.Lock()
        # (stamp of the ``current`` pointer, the model it named when loaded)
        self._loaded: tuple[tuple[int, int, int], LoadedModel] | None = None
        # Whether a shipped seed model may still be installed (no: none fits this config)
        self._may_install = True
        # The latest one-time work (the model's file read and checked, NumPy's import): not
        # an overrun
        self.setup: Setup | None = None

    def bind_home(self, home: Path) -> None:
        """Use ``home`` (the Supervisor's state directory) for models and the public key."""
        with self._lock:
            self._home = Path(home)
            self._store = ModelStore(
                model_root(self.entry_id, self.config, self._home), self.entry_id
            )
            self._loaded = None
            self._may_install = True

    def _install_shipped(self, store: ModelStore, home: Path) -> bool:
        """Install the seed model shipped with the package, when one fits this entry
        (:mod:`specialists.shipped_seeds`); whether the store has a model now."""
        if not self._may_install:
            return False
        from specialists.shipped_seeds import install_shipped_seed

        install_shipped_seed(self.entry_id, self.config, store, home)
        # Tried once: it installed, another process did first, or none fits this config.
        # (A shipped file that fails its pin raises, and is tried again next time.)
        self._may_install = False
        return store.current() is not None

    def _model_store(self) -> tuple[ModelStore, Path]:
        with self._lock:
            if self._store is None or self._home is None:
                # Never bound (built outside a Supervisor): $SUPERVISE_HOME or the default.
                self._home = resolve_home()
                self._store = ModelStore(
                    model_root(self.entry_id, self.config, self._home), self.entry_id
                )
            return self._store, self._home

    def _missing(self, store: ModelStore, home: Path) -> ModelError:
        if self.config.seed is not None:
            how = f"build the seed model with: supervise train {self.entry_id} --seed-only"
        else:
            how = f"label its feedback and run: supervise train {self.entry_id}"
        error = ModelError(
            f"entry {self.entry_id!r} has no model in {store.root}; it is unavailable until "
            f"one is trained: {how} --home {home}"
        )
        with _WARNED_LOCK:
            first = (self.entry_id, str(store.root)) not in _WARNED
            _WARNED.add((self.entry_id, str(store.root)))
        if first:
            log.warning("%s", error)
        return error

    def _model(self) -> LoadedModel:
        """The current version, loaded once; reloaded only after a promotion."""
        store, home = self._model_store()
        stamp = store.pointer()
        loaded = self._loaded
        if loaded is not None and loaded[0] == stamp:
            return loaded[1]
        with self._lock:
            loaded = self._loaded
            if loaded is not None and loaded[0] == stamp:
                return loaded[1]
            began = time.perf_counter_ns()
            version = store.current() if stamp is not None else None
            if (stamp is None or version is None) and self._install_shipped(store, home):
                stamp, version = store.pointer(), store.current()
            if stamp is None or version is None:
                raise self._missing(store, home)
            model = store.load_bundle(version, deployment_public_key(home))
            self._loaded = (stamp, model)
            ended = time.perf_counter_ns()
            self.setup = Setup(ended, ended - began)
            return model

    def _current(self) -> JsonValue:
        model = self._model()
        return {"version": model.version, "sha256": model.sha256}

    def _recorded(self, info: JsonValue) -> LoadedModel:
        """The model a decision used: a replay serves the recorded version, loaded by id."""
        if not isinstance(info, dict) or not isinstance(info.get("version"), str):
            raise ModelError(f"entry {self.entry_id!r}: malformed model observation {info!r}")
        version = str(info["version"])
        recorded_sha = info.get("sha256")
        loaded = self._loaded
        if loaded is not None and loaded[1].version == version and loaded[1].sha256 == recorded_sha:
            return loaded[1]
        if recorded_sha == "in-memory":
            raise ModelError(
                f"model version {version} of entry {self.entry_id!r} was a seed model kept in "
                "memory by an older release; it was never saved, so the decision cannot be "
                "replayed with it"
            )
        store, home = self._model_store()
        model = store.load_bundle(version, deployment_public_key(home))
        if recorded_sha not in (None, model.sha256):
            raise ModelError(
                f"model version {version} of entry {self.entry_id!r} on disk is not the one "
                "the decision was made with (the inference bundle's sha256 differs)"
            )
        return model

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        text, truncated = text_view(action, self.config.fields, self.config.max_input_chars)
        if text is None:
            return SpecialistResult.refuse()
        if self.config.min_words and not _has_words(
            action, self.config.fields, self.config.min_words, self.config.max_input_chars
        ):
            return SpecialistResult(
                verdict=Verdict.OK,
                evidence={"skipped": f"fewer than {self.config.min_words} words"},
            )
        info = context.observe("model", {"entry": self.entry_id}, self._current)
        model = self._recorded(info)
        if model.bundle.numpy_due():  # one-time work, as the model's load
            _, self.setup = timed_setup(model.bundle.arrays)
        (probability,) = model.score([text])
        threshold = self.config.threshold
        evidence: dict[str, JsonValue] = {
            "model_version": model.version,
            "probability": round(probability, 4),
            "threshold": threshold,
            "truncated": truncated,
        }
        if probability < threshold:
            return SpecialistResult(
                verdict=Verdict.OK, confidence=round(1.0 - probability, 4), evidence=evidence
            )
        shown = [f for f in self.config.fields if _getter(f)(action) is not None]
        evidence["excerpt"] = _cut(text, EXCERPT_CHARS)
        return SpecialistResult(
            verdict=self._verdict,
            confidence=round(probability, 4),
            reason=(
                f"model {model.version} gives {probability:.2f} (threshold {threshold:.2f}) "
                f"on {', '.join(shown)}"
            ),
            evidence=evidence,
        )


def _has_words(action: Action, fields: Sequence[str], count: int, limit: int) -> bool:
    """Whether the fields' values hold at least ``count`` words (runs of two or more
    letters), read in one pass over at most ``limit`` characters of each."""
    found = 0
    for name in fields:
        value = _getter(name)(action)
        if value is None:
            continue
        run = 0
        for ch in str(value)[:limit]:
            if ch.isalpha():
                run += 1
                continue
            if run >= 2:
                found += 1
                if found >= count:
                    return True
            run = 0
        if run >= 2:
            found += 1
        if found >= count:
            return True
    return False


def _build(entry: Entry, config: KindConfig) -> ClassifierSpecialist:
    if not isinstance(config, ClassifierConfig):
        raise TypeError(f"classifier kind needs a ClassifierConfig, got {type(config).__name__}")
    verdict = Verdict(config.verdict) if config.verdict is not None else entry.default
    return ClassifierSpecialist(entry.id, config, verdict)


CLASSIFIER_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=ClassifierConfig,
    build=_build,
    version=KIND_VERSION,
    description="A text classifier (hashed n-grams, calibrated logistic regression), trained "
    "with scikit-learn from the entry's seed data and labelled feedback, scored from a "
    "signed NumPy bundle; versioned models.",
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``classifier`` kind."""
    return [CLASSIFIER_KIND]


@hookimpl
def supervisor_train(
    entry: Entry,
    config: KindConfig,
    home: Path,
    keys: KeyPair,
    feedback: Sequence[FeedbackItem],
    examples: Sequence[Mapping[str, Any]],
    force: bool,
    seed_only: bool,
) -> dict[str, Any] | None:
    """Train a ``classifier`` entry: seed data, plus labelled feedback and extra examples."""
    if not isinstance(config, ClassifierConfig):
        return None
    limit = config.max_input_chars
    data = seed_examples(config)
    if not seed_only:
        for item in feedback:
            example = example_from_feedback(item, config.fields, limit)
            if example is not None:
                data.append(example)
        for number, record in enumerate(examples, start=1):
            extra = _example(record, config.fields, limit, "examples", f"example {number}")
            if extra is not None:
                data.append(extra)
    store = ModelStore(model_root(entry.id, config, home), entry.id)
    if seed_only and not force:
        # The seed model ships with the package when it fits this config: the same version
        # training would give, installed without scikit-learn (force trains it here).
        from specialists.shipped_seeds import shipped_report

        report = shipped_report(entry.id, config, store, home)
        if report is not None:
            return report
    return train(entry.id, config, store, keys, data, force=force)

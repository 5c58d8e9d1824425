"""Whether the session's environment is production, however the host wrote it.

``Context.environment`` is often a name (``production``, ``prod``), but hosts and
deployments also describe the environment in a few words: ``Supabase project:
storefront-prod``, ``AWS account 1234 (production)``. A name is compared whole, without
regard to case; a description reads as production when one of its words is ``prod`` or
``production`` on its own (split at punctuation and camel case: ``storefront-prod``,
``StorefrontProd``), and not negated by the word before it (``pre-prod``, ``non-prod``,
``not production``). A word inside another (``product``, ``preprod``) is not one.

Only production is read from a description: a test or local environment, which excuses
acts, must be named as such (``test``, ``ci``), never guessed from a sentence that happens
to hold the word.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Final

__all__ = ["PRODUCTION_NAMES", "PRODUCTION_WORDS", "is_production", "production_word", "words"]

# Whole values of the environment that mean production.
PRODUCTION_NAMES: Final = frozenset({"production", "prod", "prd", "live"})
# Words of a description that say production (``live`` and ``prd`` are too common in prose).
PRODUCTION_WORDS: Final = frozenset({"production", "prod"})
# A word before a production word that negates it.
_NEGATING: Final = frozenset({"pre", "non", "not", "no"})
MAX_ENVIRONMENT_CHARS: Final = 500  # of a description, read


def words(text: str) -> Iterator[str]:
    """Runs of letters and digits, lower case, split at camel case (``StorefrontProd``)."""
    current: list[str] = []
    previous = ""
    for ch in text:
        if ch.isalnum():
            if current and ch.isupper() and previous.islower():
                yield "".join(current).lower()
                current = []
            current.append(ch)
        elif current:
            yield "".join(current).lower()
            current = []
        previous = ch
    if current:
        yield "".join(current).lower()


def production_word(
    environment: str | None, wanted: Collection[str] = PRODUCTION_WORDS
) -> str | None:
    """The word of a description that says production (``prod`` of ``Supabase project:
    storefront-prod``), one of ``wanted``, or None."""
    if not environment:
        return None
    found = list(words(environment[:MAX_ENVIRONMENT_CHARS]))
    for index, word in enumerate(found):
        if word in wanted and not (index and found[index - 1] in _NEGATING):
            return word
    return None


def is_production(environment: str | None, names: Collection[str] = PRODUCTION_NAMES) -> bool:
    """Whether the environment is production: one of ``names`` (without regard to case), or
    a description with a word that says production (:func:`production_word`) among them
    (names that leave out ``prod`` and ``production`` read no description)."""
    if not environment or not environment.strip():
        return False
    lowered = {n.lower() for n in names}
    if environment.strip().lower() in lowered:
        return True
    return production_word(environment, PRODUCTION_WORDS & lowered) is not None

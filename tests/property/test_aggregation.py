"""Union aggregation, property-tested over every combination of verdicts and caps."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from supervisor.memory import InProcessMemory
from supervisor.models import Action, SpecialistResult, Verdict, strictest
from supervisor.policy import capped, combine, conclude
from supervisor.taxonomy import Entry

from ..conftest import entry_dict

VERDICTS = list(Verdict)
CAPS = [Verdict.OK, Verdict.FLAG, Verdict.NUDGE, Verdict.BLOCK]
ACTION = Action(type="shell", args={"command": "x"}, session="s")

votes = st.lists(st.tuples(st.sampled_from(VERDICTS), st.sampled_from(CAPS)), max_size=12)


def expected_union(pairs: list[tuple[Verdict, Verdict]]) -> Verdict:
    """The rule in words: any block blocks; else any nudge; else any flag; else ok."""
    effective = [min(v.rank, c.rank) for v, c in pairs if v is not Verdict.REFUSE]
    if 3 in effective:
        return Verdict.BLOCK
    if 2 in effective:
        return Verdict.NUDGE
    if 1 in effective:
        return Verdict.FLAG
    return Verdict.OK


def test_every_pair_of_verdicts():
    for a, b in itertools.product(VERDICTS, repeat=2):
        got = combine([(a, Verdict.BLOCK), (b, Verdict.BLOCK)])
        assert got is expected_union([(a, Verdict.BLOCK), (b, Verdict.BLOCK)])
        assert got is strictest([v for v in (a, b) if v is not Verdict.REFUSE])


@given(votes)
def test_union_matches_the_rule(pairs):
    assert combine(pairs) is expected_union(pairs)


@given(votes, st.randoms())
def test_order_does_not_matter(pairs, rnd):
    shuffled = list(pairs)
    rnd.shuffle(shuffled)
    assert combine(shuffled) is combine(pairs)


@given(votes)
def test_refusals_are_no_vote(pairs):
    assert combine([*pairs, (Verdict.REFUSE, Verdict.BLOCK)]) is combine(pairs)


@given(st.sampled_from(VERDICTS), st.sampled_from(CAPS))
def test_cap_never_raises_a_verdict(verdict, cap):
    out = capped(verdict, cap)
    assert out.rank <= verdict.rank
    assert out is Verdict.REFUSE or out.rank <= cap.rank


def _entries(n: int, caps: list[Verdict]) -> dict[str, Entry]:
    return {
        f"e{i}": Entry.model_validate(entry_dict(f"e{i}", authority=caps[i].value))
        for i in range(n)
    }


@given(
    st.lists(st.tuples(st.sampled_from(VERDICTS), st.sampled_from(CAPS)), min_size=1, max_size=8),
    st.randoms(),
)
def test_conclude_agrees_with_combine_in_any_order(pairs, rnd):
    entries = _entries(len(pairs), [c for _, c in pairs])
    results: dict[str, Any] = {
        f"e{i}": SpecialistResult(verdict=v, reason=f"r{i}") for i, (v, _) in enumerate(pairs)
    }
    items = list(results.items())
    rnd.shuffle(items)
    # A fresh memory each time: first nudges only, so nothing escalates.
    a = conclude(ACTION, results, entries, InProcessMemory(), "d1")
    b = conclude(ACTION, dict(items), entries, InProcessMemory(), "d1")
    assert a == b
    assert a.verdict is combine(pairs)
    flagged = {f"e{i}" for i, (v, c) in enumerate(pairs) if capped(v, c) is Verdict.FLAG}
    assert set(a.flags) == flagged  # every flag is recorded, even under a block
    nudged = {f"e{i}" for i, (v, c) in enumerate(pairs) if capped(v, c) is Verdict.NUDGE}
    assert {c.entry_id for c in a.corrections} == nudged

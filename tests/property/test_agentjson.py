"""The strict reader never lets a duplicate key through, and reads every other text as
``json.loads`` does, whatever the strings hold and however the text is spaced.

Its fast path counts the colons and ``":`` marks of the text against the keys the parsed
objects kept; strings full of quotes, colons and backslashes are what could fool a count.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supervisor.agentjson import loads
from supervisor.errors import AgentJSONError

TRICKY = st.text(alphabet=st.sampled_from('ab":\\ \t\n/{}[],'), max_size=6)


class Obj(list[tuple[str, Any]]):
    """An object as written: its pairs in order, a key possibly twice."""


TREE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(-1e9, 1e9) | TRICKY,
    lambda inner: (
        st.lists(inner, max_size=4) | st.lists(st.tuples(TRICKY, inner), max_size=4).map(Obj)
    ),
    max_leaves=25,
)
STYLES = [(",", ":"), (", ", ": "), (",\n  ", " :\t"), ("\n,", "\r\n:\n")]


def render(value: Any, comma: str, colon: str) -> str:
    if isinstance(value, Obj):
        inner = comma.join(json.dumps(k) + colon + render(v, comma, colon) for k, v in value)
        return "{" + inner + "}"
    if isinstance(value, list):
        return "[" + comma.join(render(v, comma, colon) for v in value) + "]"
    return json.dumps(value)


def has_duplicate(value: Any) -> bool:
    if isinstance(value, Obj):
        keys = [k for k, _ in value]
        return len(set(keys)) != len(keys) or any(has_duplicate(v) for _, v in value)
    if isinstance(value, list):
        return any(has_duplicate(v) for v in value)
    return False


@settings(max_examples=1500)
@given(TREE, st.sampled_from(STYLES))
def test_duplicates_are_always_caught_and_the_rest_read_as_json_loads_does(tree, style):
    text = render(tree, *style)
    if has_duplicate(tree):
        with pytest.raises(AgentJSONError) as info:
            loads(text)
        assert info.value.code == "duplicate-key"
    else:
        assert loads(text) == json.loads(text)
        assert loads(text.encode()) == json.loads(text)

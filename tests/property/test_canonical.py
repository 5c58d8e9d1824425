"""Our RFC 8785 encoder agrees with the reference implementation."""

from __future__ import annotations

import copy
import json
import math

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from supervisor.canonical import (
    canonical,
    canonical_json,
    integers_as_strings,
    integers_from_strings,
    is_canonical,
    sorted_json,
    sorted_json_bytes,
)

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53 - 1), 2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=40,
)


@settings(max_examples=1500)
@given(JSON)
def test_same_bytes_as_the_reference(value):
    assert canonical(value) == rfc8785.dumps(value)


@settings(max_examples=800)
@given(JSON)
def test_fast_path_same_bytes_as_the_reference(value):
    assert canonical_json(value) == rfc8785.dumps(value)


# Numbers, keys and strings where the standard library's JSON and RFC 8785 part ways, or
# look as if they might: the fast path must notice the first and may take the second.
AWKWARD = st.recursive(
    st.sampled_from([1e-7, 1e-5, 1e16, 1e21, 1e22, 100.0, -0.0, 0.5, 2**53 - 1, -(2**53 - 1)])
    | st.integers(-(2**53 - 1), 2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False, min_value=-1e25, max_value=1e25)
    | st.sampled_from(["1e+16", ":100.0,", "[1.0]", "\ufb33", "\U0001f600", '"', "\\"])
    | st.text(alphabet=st.sampled_from('0123456789.e+-:,[]{}"\\\ufb33\U0001f600')),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.text(alphabet=st.sampled_from("ab1.e\ufb33\U0001f600\ue000\uffff")),
            inner,
            max_size=4,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=800)
@given(AWKWARD)
def test_fast_path_on_awkward_values(value):
    assert canonical_json(value) == rfc8785.dumps(value)


@pytest.mark.parametrize(
    ("value", "fast"),
    [
        ({"a": 0.389927, "b": [1, "x"]}, True),
        # only numbers outside strings matter; a look-alike inside one may cost the slow path
        ({"a": "1e+16 and 100.0"}, None),
        ({"a": 100.0}, False),
        ({"a": 1e-7}, False),
        ({"a": -0.0}, False),
        ([2**53 - 1], False),
        ({"\U0001f600": 1}, False),
    ],
)
def test_fast_path_takes_only_what_it_can_vouch_for(value, fast):
    data = sorted_json(value).encode("utf-8", "surrogatepass")
    if fast is not None:
        assert is_canonical(data) is fast
    assert canonical_json(value) == rfc8785.dumps(value)


def _record_path(value):
    """What the artifact writer does: orjson's sorted bytes when the scan vouches for them."""
    data = sorted_json_bytes(value)
    return data if is_canonical(data) else canonical(value)


@settings(max_examples=800)
@given(JSON)
def test_orjson_path_same_bytes_as_the_reference(value):
    assert _record_path(value) == rfc8785.dumps(value)


@settings(max_examples=800)
@given(AWKWARD)
def test_orjson_path_on_awkward_values(value):
    # orjson writes some numbers unlike the standard library (1e-7, 1e+16): the scan must
    # catch its forms too
    assert _record_path(value) == rfc8785.dumps(value)


def test_orjson_path_falls_back_for_what_orjson_refuses():
    lone = "a\ud800b"
    assert sorted_json_bytes({"k": lone, "b": 2**70}) == sorted_json(
        {"k": lone, "b": 2**70}
    ).encode("utf-8", "surrogatepass")
    # not finite: null, on both paths (pydantic's JSON mode does the same)
    assert sorted_json_bytes([math.nan, {"a": math.inf}]) == b'[null,{"a":null}]'
    assert sorted_json_bytes([math.nan, "\ud800"]) == b'[null,"\xed\xa0\x80"]'
    with pytest.raises(TypeError):
        sorted_json_bytes({"when": __import__("datetime").date(2026, 1, 1)})


def test_fast_path_keeps_the_errors():
    for bad in (math.nan, [math.inf], {"a": 2**53}, [object()]):
        with pytest.raises((ValueError, TypeError)):
            canonical_json(bad)


@given(st.dictionaries(st.text(), st.integers(-(2**53 - 1), 2**53 - 1), max_size=8), st.randoms())
def test_stable_across_dict_orderings(mapping, rnd):
    items = list(mapping.items())
    rnd.shuffle(items)
    assert canonical(dict(items)) == canonical(mapping)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1e30, b"1e+30"),
        (1e21, b"1e+21"),
        (1e20, b"100000000000000000000"),
        (1e-7, b"1e-7"),
        (1e-6, b"0.000001"),
        (-0.0, b"0"),
        (100.0, b"100"),
        (333333333.33333329, b"333333333.3333333"),
        (
            {"b": 2, "a": [1.5, True, None, "\u20ac\n"]},
            '{"a":[1.5,true,null,"\u20ac\\n"],"b":2}'.encode(),
        ),
        # UTF-16 order: the surrogate pair of U+1F600 (D83D ...) sorts before U+FB33
        ({"\ufb33": 2, "\U0001f600": 1}, '{"\U0001f600":1,"\ufb33":2}'.encode()),
    ],
)
def test_known_vectors(value, text):
    assert canonical(value) == text


@pytest.mark.parametrize("bad", [math.nan, math.inf, 2**53, {1: "x"}, object()])
def test_rejects_what_json_cannot_say(bad):
    with pytest.raises((ValueError, TypeError)):
        canonical(bad)


@given(st.text().filter(lambda t: not any(0xD800 <= ord(c) <= 0xDFFF for c in t)))
def test_a_string_is_written_one_way_and_reads_back(text):
    """Whatever escapes the input used, the canonical text has one spelling: only the
    characters RFC 8785 requires are escaped (quote, backslash, controls), everything else is
    literal UTF-8, and it decodes to the same string."""
    import json

    out = canonical({"k": text})
    assert json.loads(out) == {"k": text}
    body = out.decode("utf-8")[6:-2]  # between {"k":" and "}
    for ch in text:
        if ch in '"\\' or ord(ch) < 0x20:
            continue
        assert ch in body  # written literally, never as \uXXXX


# Any JSON Python reads, integers of any size included, and keys that need escaping in a
# JSON Pointer ("/" and "~").
ANY_INTEGERS = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**53 - 2, max_value=2**130)
    | st.integers(max_value=-(2**53 - 2), min_value=-(2**130))
    # (past 2**53 a float's shortest digits read back as another integer: RFC 8785's own)
    | st.floats(allow_nan=False, allow_infinity=False, min_value=-1e15, max_value=1e15)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(alphabet=st.sampled_from("a/~01"), max_size=4), inner, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=800)
@given(ANY_INTEGERS)
def test_integers_json_numbers_cannot_hold_round_trip_as_strings(value):
    """What a record does with a 39-digit id: canonical bytes (as the reference writes them)
    with the integer as its decimal string, and back to the same value when read."""
    value = {"args": value}  # a record is an object
    held = copy.deepcopy(value)
    pointers = integers_as_strings(held)
    data = canonical(held)  # no ValueError: every integer left is one RFC 8785 can hold
    assert data == rfc8785.dumps(held)
    read = json.loads(data)
    integers_from_strings(read, pointers)
    assert read == value  # "123…" != 123: the strings became integers again


def test_integers_from_strings_leaves_what_does_not_fit_alone():
    value = {"a": "12x", "b": [1], "c": "-5"}
    integers_from_strings(value, ["/a", "/b/3", "/nope/x", "/c", 7, "no-slash"])
    assert value == {"a": "12x", "b": [1], "c": -5}

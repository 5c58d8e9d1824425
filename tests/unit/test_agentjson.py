"""The strict reader of agent JSON: duplicate keys, depth, numbers JSON does not have."""

from __future__ import annotations

import json

import pytest

from supervisor.agentjson import MAX_DEPTH, check_depth, loads
from supervisor.errors import AgentJSONError, InvalidActionError
from supervisor.models import Action


def nested(depth: int, leaf: str = "1") -> str:
    """``depth`` objects inside each other: {"a":{"a":...1}}."""
    return '{"a":' * depth + leaf + "}" * depth


def refused(text: str | bytes) -> AgentJSONError:
    with pytest.raises(AgentJSONError) as info:
        loads(text, what="line 7")
    assert isinstance(info.value, InvalidActionError)  # one tree: callers catch either
    return info.value


@pytest.mark.parametrize(
    ("text", "pointer", "where"),
    [
        (
            '{"type":"shell","args":{"command":"rm -rf /","command":"ls"}}',
            "/args/command",
            "the object at /args",
        ),
        ('{"command":"ls","command":"rm -rf /"}', "/command", "the top-level object"),
        ('[{"ok":1},{"a/b":{"x":1,"y":2,"x":3}}]', "/1/a~1b/x", "the object at /1/a~1b"),
        # Same value twice is still refused: the rule is about the text, not the values.
        ('{"args":{"path":"a","path":"a"}}', "/args/path", "the object at /args"),
    ],
)
def test_a_duplicate_key_is_refused_naming_the_key_and_where(text, pointer, where):
    error = refused(text)
    assert error.code == "duplicate-key"
    assert error.pointer == pointer
    key = pointer.rsplit("/", 1)[1]
    assert f"line 7 gives the key {key!r} more than once in {where}" in str(error)
    assert "send" in (error.hint or "")


def test_a_duplicate_key_is_found_whatever_the_strings_hold():
    # Colons and escaped quotes in strings ('\\":') are what the fast count cannot tell
    # from keys: the slow parse then decides, both ways.
    assert loads('{"cmd":"curl http://x:80/\\":a","b" :\n 1}') == {
        "cmd": 'curl http://x:80/":a',
        "b": 1,
    }
    error = refused('{"cmd" : "echo a:b",\n "cmd"\t: "rm -rf ~/\\":"}')
    assert (error.code, error.pointer) == ("duplicate-key", "/cmd")


def test_too_deep_is_found_before_a_duplicate_key():
    assert refused('[{"a":1,"a":2},' + "[" * 5000 + "]" * 5000 + "]").code == "too-deep"


def test_the_depth_limit_is_exact():
    assert loads(nested(MAX_DEPTH)) is not None
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    error = refused(nested(MAX_DEPTH + 1))
    assert error.code == "too-deep"
    assert f"deeper than {MAX_DEPTH} levels, at /a/a/a" in str(error)
    assert refused("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)).code == "too-deep"


@pytest.mark.parametrize("depth", [1_000, 10_000, 100_000])
def test_nesting_past_what_the_parser_can_follow_is_an_error_not_a_crash(depth):
    for text in ("[" * depth + "]" * depth, nested(depth)):
        error = refused(text)
        assert error.code == "too-deep"
        assert len(str(error)) < 400


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"n": NaN}', "NaN is not a JSON number"),
        ('{"n": -Infinity}', "-Infinity is not a JSON number"),
        ('{"n": 1e400}', "1e400 is too large for a double"),
        ('{"n": ' + "9" * 5000 + "}", "Exceeds the limit (4300 digits)"),
        ('{"n": 1', "line 7 is not JSON (Expecting ',' delimiter"),
        (b'{"n": "\xff"}', "codec can't decode"),
    ],
)
def test_what_is_not_json_is_refused(text, says):
    error = refused(text)
    assert error.code == "invalid-json"
    assert says in str(error)
    assert "set_int_max_str_digits" not in str(error)  # Python's advice is not the agent's


def test_json_numbers_are_kept_exactly():
    big = 123456789012345678901234567890123456789
    value = loads(f'{{"id": {big}, "neg": -{big}, "f": 1.5e300, "tiny": 1e-400}}')
    assert value == {"id": big, "neg": -big, "f": 1.5e300, "tiny": 0.0}


def test_tool_call_arguments_sent_as_text_are_read_strictly():
    """The OpenAI Agents SDK hands the model's arguments over as text: refused like any
    door's (the adapter answers the model with the message), malformed text still judged."""
    from supervisor.adapters.tools import check_failed_message, parse_tool_arguments

    with pytest.raises(AgentJSONError) as info:
        parse_tool_arguments('{"cmd":"rm -rf /","cmd":"ls"}')
    assert "'cmd' more than once" in check_failed_message(info.value)
    with pytest.raises(AgentJSONError, match="deeper than 128"):
        parse_tool_arguments('{"x":' + "[" * 300 + "]" * 300 + "}")
    assert parse_tool_arguments('{"cmd": "ls", NaN') == {"arguments": '{"cmd": "ls", NaN'}
    assert parse_tool_arguments('{"n": 12345678901234567890}') == {"n": 12345678901234567890}


def test_the_library_door_has_the_same_depth_limit():
    deep: object = 1
    for _ in range(10_000):
        deep = {"a": deep}
    with pytest.raises(AgentJSONError, match="the action's args nests objects and arrays"):
        Action(type="tool_call", args={"x": deep})
    check_depth({"x": json.loads(nested(MAX_DEPTH - 1))})  # args at the limit: accepted
    Action(type="tool_call", args={"x": json.loads(nested(MAX_DEPTH - 1))})

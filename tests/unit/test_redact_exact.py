"""redact_json's second pre-check is exact: it skips the walk over a document's strings only
when the walk would mask nothing. Every example here is compared with the walk itself."""

from __future__ import annotations

import json
import string
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supervisor import redact
from supervisor.redact import redact_json, redact_text
from supervisor.redact_args import TRIGGER
from supervisor.redact_catalogue import (
    catalogue_data,
    joined_pattern,
    keyword_patterns,
    may_mask,
    rule_ids,
)
from tests.unit.test_redact import PLANTS
from tests.unit.test_secret_catalogue import CATALOGUE_FORMATS, CONNECTION_STRINGS, HAND_WRITTEN

# Words that spell the pre-check's loosest patterns (catalogue keywords, names the command
# grammar reads) without being secrets: what most ordinary records hold.
DECOYS = [
    "ask the team",
    "the key of the map",
    "test_deleted_via_shell",
    "git_history_rewrite_published",
    "docs.python.org",
    "risk",
    "they",
    "net_data_in_url_or_dns",
    "npm install left-pad",
    "docker ps",
    "curl https://example.com",
    "sha256:" + "ab" * 32,
    "1a216ea2565b2c2a78f00000a",
]
FRAMES = [
    "{s}",
    "export TOKEN_X={s}",
    "curl -H 'X-Key: {s}' https://api.example",
    '{{"k": "{s}"}}',
    "key is {s} here",
    "token: {s}",
]
SECRETS = [
    *(secret for secret, _ in CATALOGUE_FORMATS + HAND_WRITTEN),
    *(template.format(s="Zz9" + "q7Rt2" * 4) for template, _ in CONNECTION_STRINGS),
    # secrets only the command grammar finds
    "docker login -u me -p Qx7Secret-Pw1 registry.example.com",
    "redis-cli -h cache -a 'Qx7Secret-Pw1' ping",
    "sh -c 'htpasswd -b .htpasswd alice Qx7Secret-Pw1'",
]


def record(command: str, reason: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """A document shaped as a decision record's context and decision."""
    return {
        "context": {"cwd": "/work/app", "env": {"HOME": "/home/dev"}, **(extra or {})},
        "decision": {
            "action": {"args": {"command": command}, "type": "shell"},
            "decision_id": "1a216ea2565b2c2a78f00000a",
            "results": {
                "test_deleted_via_shell": {"kind": "shell", "verdict": "ok"},
                "budget_action_loop": {
                    "observations": [{"error": "no store to ask", "key": {"entry": "x"}}],
                    "reason": reason,
                    "verdict": "refuse",
                },
            },
        },
    }


def encodings(value: Any) -> list[str]:
    """The document as the record path writes it (orjson, sorted, compact) and as
    json.dumps does by default (spaces, non-ASCII escaped)."""
    return [
        orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode(),
        json.dumps(value),
        json.dumps(value, ensure_ascii=False, indent=1),
    ]


def assert_as_the_walk(value: Any) -> None:
    for text in encodings(value):
        out = redact_json(text)
        assert out == redact._walk(text), text
        if out is not text:
            json.loads(out)


@pytest.mark.parametrize("secret", SECRETS)
@pytest.mark.parametrize("frame", FRAMES)
def test_the_catalogue_examples_are_masked_as_the_walk_masks_them(secret: str, frame: str) -> None:
    text = frame.format(s=secret)
    assert_as_the_walk(record(text, "ok"))
    assert_as_the_walk(record("ls", text))
    assert_as_the_walk(record("ls", "ok", {"task": [DECOYS[0], text]}))
    out = redact_json(orjson.dumps(record("ls", text)).decode())
    assert secret.split(" = ")[-1] not in out or secret not in redact_text(secret)


@pytest.mark.parametrize("decoy", DECOYS)
def test_a_record_of_loose_words_alone_is_not_walked(
    decoy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = orjson.dumps(record("ls -la", decoy), option=orjson.OPT_SORT_KEYS).decode()
    assert redact._walk(text) is text  # nothing to mask...
    monkeypatch.setattr(redact, "_walk", lambda _: pytest.fail("walked"))
    assert redact_json(text) is text  # ... and the second pre-check knows it


@pytest.mark.parametrize(
    ("key", "kind"),
    [
        ("api.key", "api-key"),
        ("Access Key", "access-key"),
        ("private.key", "private-key"),
        ("TO\u212aEN", "token"),  # a Kelvin sign, which lower() reads as "k"
        ("API_\u212aEY", "api-key"),
        ("to\u212aen", None),  # after a lower-case letter it starts a word: "to-ken"
        ("x-api-key", "x-api-key"),
    ],
)
def test_sensitive_keys_are_found_however_spelt(key: str, kind: str | None) -> None:
    doc = record("ls", "ask", {"headers": {key: "plain words here"}})
    for text in encodings(doc):
        masked = json.loads(redact_json(text))["context"]["headers"][key]
        assert masked == ("plain words here" if kind is None else f"[REDACTED:{kind}]")
        assert redact_json(text) == redact._walk(text)


def test_an_escaped_secret_is_masked_as_the_walk_masks_it() -> None:
    # In the document's text the tab is "\\t", which the rule's pattern would not match.
    secret = "0123456789abcdef" * 2
    doc = record("ls", "ask", {"task": "mailgun_key\t= key-" + secret})
    for text in encodings(doc):
        assert redact_json(text) == redact._walk(text)
        assert secret not in redact_json(text)


ESCAPED = [
    # what records hold every day: git status lines, a quoted commit message, a non-ASCII
    # word escaped by json.dumps, a tab
    "# branch.oid 3039758fc8af\n# branch.head fast\n! .venv/\n1 .M N... src/app.py",
    'git commit -m "fix: ask the user first"',
    "caf\u00e9 \u2014 the key of the map",
    "ls\t-la",
]


@pytest.mark.parametrize("escaped", ESCAPED)
def test_a_record_whose_strings_hold_escapes_is_not_walked(
    escaped: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = record(escaped, "ask the team", {"git_status": escaped})
    texts = [t for t in encodings(doc) if "\\" in t]
    assert texts
    for text in texts:
        assert redact._walk(text) is text  # nothing to mask...
    monkeypatch.setattr(redact, "_walk", lambda _: pytest.fail("walked"))
    for text in texts:
        assert redact_json(text) is text  # ... and the decoded strings say so


@pytest.mark.parametrize("secret", SECRETS)
@pytest.mark.parametrize("escaped", ESCAPED)
def test_secrets_beside_escapes_are_masked_as_the_walk_masks_them(
    secret: str, escaped: str
) -> None:
    assert_as_the_walk(record(escaped, secret))
    assert_as_the_walk(record(secret + "\n" + escaped, "ok"))
    assert_as_the_walk(record("ls", "ok", {"git_status": escaped + "\n" + secret}))
    assert_as_the_walk(record('echo "' + secret + '"', escaped))


PIECES = st.sampled_from(DECOYS + SECRETS + [frame.format(s="$TOKEN") for frame in FRAMES])
STRINGS = st.one_of(
    PIECES,
    st.builds(lambda a, b, sep: a + sep + b, PIECES, PIECES, st.sampled_from([" ", "\n", ""])),
    st.text(alphabet=string.ascii_letters + string.digits + "_-.:=/ ", max_size=30),
    st.text(max_size=10),
)
KEYS = st.one_of(
    st.sampled_from(
        ["command", "reason", "key", "token", "api.key", "Authorization", "note", "TO\u212aEN"]
    ),
    st.text(alphabet="apikeyAPIKEYtokn_.- \u212a\u0130", max_size=12),
)


def documents() -> st.SearchStrategy[Any]:
    return st.recursive(
        st.none() | st.integers(-(2**63), 2**63 - 1) | STRINGS,
        lambda children: (
            st.lists(children, max_size=4) | st.dictionaries(KEYS, children, max_size=4)
        ),
        max_leaves=12,
    )


@settings(max_examples=400, deadline=None)
@given(documents())
def test_any_document_is_masked_as_the_walk_masks_it(value: Any) -> None:
    assert_as_the_walk(value)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(PLANTS), st.sampled_from(DECOYS), st.data())
def test_planted_secrets_among_loose_words(
    plant: tuple[str, str, int, int], decoy: str, data: st.DataObject
) -> None:
    template, alphabet, low, high = plant
    body = data.draw(st.text(alphabet=alphabet, min_size=low, max_size=high))
    assert_as_the_walk(record(decoy, template.format(body)))
    assert_as_the_walk(record(template.format(body) + " " + decoy, decoy))


def _outside_classes(pattern: str) -> list[str]:
    """The pattern's tokens outside character classes, an escape as one token."""
    tokens: list[str] = []
    index, depth = 0, 0
    while index < len(pattern):
        char = pattern[index]
        token = pattern[index : index + 2] if char == "\\" else char
        if depth == 0 and token != "[":
            tokens.append(token)
        if token == "[":
            depth += 1
            if pattern[index + 1 : index + 2] == "]":  # "[]...]": the "]" is a member
                index += 1
        elif token == "]" and depth:
            depth -= 1
        index += len(token)
    return tokens


def test_the_pre_check_patterns_assert_no_edge() -> None:
    # What the second pre-check relies on: a pattern of the set that matches in a string
    # matches in any text that holds the string, so the set's hits on a document's text
    # hold every hit on each of its strings.
    patterns = [rule.detect.decode() for rule in redact._RULES]
    patterns += [TRIGGER, *(p.decode() for p in keyword_patterns())]
    for pattern in patterns:
        tokens = _outside_classes(pattern)
        assert not {"^", "$", "\\b", "\\B", "\\A", "\\z"} & set(tokens), pattern


@pytest.mark.parametrize(("secret", "kind"), CATALOGUE_FORMATS)
@pytest.mark.parametrize("frame", FRAMES)
def test_may_mask_sees_each_catalogue_example_among_other_texts(
    secret: str, kind: str, frame: str
) -> None:
    text = frame.format(s=secret).encode()
    hits = redact._compiled().text_set.Match(text)
    keywords = [hit - redact._KEYWORDS_AT for hit in hits if hit > redact._ARGS_INDEX]
    assert kind in rule_ids()
    assert may_mask(b"ask the team\n" + text + b"\nkey", keywords)
    assert may_mask(text, keywords)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_orjson_accepts_no_document_json_refuses(data: st.DataObject) -> None:
    value = data.draw(documents())
    text = json.dumps(value, ensure_ascii=False)
    at = data.draw(st.integers(0, len(text)))
    cut = data.draw(st.integers(0, 3))
    insert = data.draw(
        st.sampled_from(["", '"', "\\", "{", "]", ",", ":", "\ufeff", "NaN", "1e999"])
    )
    mutated = (text[:at] + insert + text[at + cut :]).encode("utf-8", "surrogatepass")
    try:
        orjson.loads(mutated)
    except orjson.JSONDecodeError:
        return
    json.loads(mutated.decode("utf-8"))


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (rb"^abc$", b"abc"),
        (rb"(?i)[\w.-]{0,50}?(?:key)\s*=\s*(\d{4})$", b"KEY = 1234"),
        (rb"\b(tok_[a-z]{4})\b", b"tok_abcd"),
        (rb"(?:^|\s)(x[0-9]{3})(?:\s|$)", b"x123"),
        (rb"\Aabc", b"abc"),
        (rb"[\\z]bc\z", b"zbc"),
        (rb"\bcurl\b.*?(?:-u|--user)(?:=|[ \t]{0,5})(\w+:\w+)(?:\s|\z)", b"curl -u me:pw"),
    ],
)
def test_a_joined_pattern_finds_a_text_among_others(pattern: bytes, text: bytes) -> None:
    import re2

    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    joined = joined_pattern(pattern)
    assert joined is not None
    assert re2.compile(pattern, options).search(text)
    assert re2.compile(joined, options).search(b"ask\n" + text + b"\nkey\n1")


@pytest.mark.parametrize("pattern", [rb"(?-m:^abc)", rb"(?i-m)^abc", rb"\Qa\z\E"])
def test_a_pattern_that_cannot_be_rewritten_for_joined_texts(pattern: bytes) -> None:
    assert joined_pattern(pattern) is None


def test_every_catalogue_rule_can_be_asked_of_joined_texts() -> None:
    # None would make may_mask a "maybe" for every record its keywords hit ("curl")
    patterns = catalogue_data()["rules"]
    assert all(joined_pattern(rule["regex"].encode()) is not None for rule in patterns)


@pytest.mark.parametrize("first", ["npm", "npm install left-pad", "docker ps", "curl -s x"])
def test_every_text_that_names_a_program_is_read(first: str) -> None:
    secret = "Qx7Secret-Pw1"
    login = f"docker login -u me -p {secret} registry.example.com"
    for doc in (record(first, login), {"a": [first, "", login]}, {first: login}):
        for text in encodings(doc):
            out = redact_json(text)
            assert secret not in out
            assert out == redact._walk(text)

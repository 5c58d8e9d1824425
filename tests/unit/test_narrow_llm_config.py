"""The ``narrow_llm`` kind without a server: its config, the schema, the verdicts offered, the
documented example, and reading recorded answers (as a replay does).

The kind against a real server on loopback is in
``tests/integration/test_narrow_llm_kind.py``.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from specialists import narrow_llm
from specialists.narrow_llm import NarrowLlmConfig, NarrowLlmSpecialist, answer_schema
from supervisor.errors import ObservationError, SpecialistError
from supervisor.models import Action, Context, Observation, Verdict
from supervisor.observe import Recorder
from supervisor.plugins import load_kinds
from supervisor.specialist import Execution
from supervisor.taxonomy import Entry, load_taxonomy
from tests.conftest import entry_dict

DOC = Path(__file__).resolve().parents[2] / "docs" / "narrow-llm.md"
BASE = {
    "system": "Does the command delete data outside the working directory?",
    "fields": ["args.command", "context.task"],
    "base_url": "http://127.0.0.1:11434/v1",
    "model": "qwen2.5:3b-instruct",
}


def config(**changes: Any) -> NarrowLlmConfig:
    return NarrowLlmConfig.model_validate({**BASE, **changes})


def entry(**overrides: Any) -> Entry:
    values: dict[str, Any] = {
        "detection": "narrow-llm",
        "specialist": {"kind": "narrow_llm", "config": BASE},
    }
    values.update(overrides)
    return Entry.model_validate(entry_dict("llm_entry", **values))


def build(entry_overrides: dict[str, Any] | None = None, **changes: Any) -> NarrowLlmSpecialist:
    return NarrowLlmSpecialist(config(**changes), entry(**(entry_overrides or {})))


def test_registered_as_an_async_kind():
    (kind,) = narrow_llm.supervisor_register_kinds()
    assert kind.name == "narrow_llm"
    assert kind.config_model is NarrowLlmConfig
    specialist = kind.build(entry(), config())
    assert specialist.execution is Execution.ASYNC
    assert "narrow_llm" in load_kinds([narrow_llm], entry_points=False)


def test_the_entry_point_is_declared_in_pyproject():
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert 'narrow_llm = "specialists.narrow_llm"' in pyproject


def test_base_url_trailing_slash_is_dropped():
    assert (
        config(base_url="https://llm.internal:8443/v1/").base_url == "https://llm.internal:8443/v1"
    )


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"base_url": "ftp://127.0.0.1/v1"}, "http or https"),
        ({"base_url": "127.0.0.1:11434/v1"}, "http or https"),
        ({"base_url": "http:///v1"}, "no host"),
        ({"base_url": "http://me:secret@127.0.0.1/v1"}, "api_key_env"),
        ({"base_url": "http://127.0.0.1/v1?key=x"}, "query"),
        ({"base_url": "http://127.0.0.1/v1/chat/completions"}, "without /chat/completions"),
        ({"fields": []}, "at least 1"),
        ({"fields": ["command"]}, "did you mean 'args.command'"),
        ({"fields": ["context.tsak"]}, "not a context field"),
        ({"fields": ["context"]}, "name a context field"),
        ({"fields": ["args..command"]}, "empty segment"),
        ({"fields": ["type.name"]}, "no parts"),
        ({"fields": ["args.command", "args.command"]}, "listed twice"),
        ({"object_field": "path"}, "did you mean 'args.path'"),
        ({"system": "   "}, "blank"),
        ({"model": ""}, "at least 1"),
        ({"api_key_env": "MY-KEY"}, "pattern"),
        ({"verdicts": ["nudge", "block"]}, "list 'ok'"),
        ({"verdicts": ["ok"]}, "list 'ok'"),
        ({"verdicts": ["ok", "ok", "nudge"]}, "listed twice"),
        ({"verdicts": ["ok", "refuse"]}, "Input should be"),
        ({"max_tokens": 0}, "greater than 0"),
        ({"max_tokens": "200"}, "valid integer"),  # strict: YAML text is not a number
        ({"retries": 4}, "less than or equal to 3"),
        ({"timeout_ms": 500}, "Extra inputs"),  # the entry's timeout_ms is the one deadline
        ({"api_key": "sk-x"}, "Extra inputs"),
    ],
)
def test_invalid_configs_are_rejected_with_a_reason(changes, message):
    with pytest.raises(ValidationError) as info:
        config(**changes)
    assert message in str(info.value)


@pytest.mark.parametrize(
    "name",
    [
        "type",
        "tool",
        "agent",
        "session",
        "args",
        "args.options.mode",
        "metadata",
        "metadata.source",
        "context.task",
        "context.extras.ticket",
        "context.recent_actions",
    ],
)
def test_field_names_that_are_accepted(name):
    assert config(fields=[name]).fields == [name]


def test_the_answer_schema_is_strict_mode_friendly():
    schema = answer_schema(["ok", "nudge"])
    properties = schema["properties"]
    assert isinstance(properties, dict)
    assert schema["required"] == list(properties)  # strict mode: every property required
    assert schema["additionalProperties"] is False
    assert properties["verdict"] == {"type": "string", "enum": ["ok", "nudge"]}


@pytest.mark.parametrize(
    ("overrides", "changes", "offered"),
    [
        ({"default_verdict": "nudge"}, {}, ("ok", "flag", "nudge")),
        ({"default_verdict": "flag"}, {}, ("ok", "flag")),
        ({"default_verdict": "block"}, {}, ("ok", "flag", "nudge", "block")),
        ({"default_verdict": "block", "authority": "nudge"}, {}, ("ok", "flag", "nudge")),
        ({}, {"verdicts": ["block", "ok"]}, ("ok", "block")),
        ({"authority": "flag"}, {"verdicts": ["ok", "flag", "block"]}, ("ok", "flag")),
    ],
)
def test_the_verdicts_offered(overrides, changes, offered):
    specialist = build(overrides, **changes)
    assert specialist.verdicts == offered
    for verdict in offered:
        assert f'"{verdict}" means' in specialist._system


def test_the_documented_example_loads_and_validates(tmp_path):
    blocks = re.findall(r"```yaml\n(.*?)```", DOC.read_text(), flags=re.DOTALL)
    (example,) = [b for b in blocks if "kind: narrow_llm" in b]
    path = tmp_path / "team_llm.yaml"
    path.write_text(example)
    taxonomy = load_taxonomy([path], load_kinds([narrow_llm], entry_points=False))
    (documented,) = taxonomy.entries
    assert documented.specialist.kind == "narrow_llm"
    assert documented.detection.value == "narrow-llm"
    settings = taxonomy.configs[documented.id]
    assert isinstance(settings, NarrowLlmConfig)
    assert settings.base_url == "http://127.0.0.1:11434/v1"
    assert taxonomy.budget_ms("shell") >= documented.timeout_ms
    specialist = NarrowLlmSpecialist(settings, documented)
    assert specialist.verdicts == ("ok", "flag", "nudge")


def test_the_documented_schema_is_the_one_sent():
    shown = re.search(r"```json\n(\{\n  \"type\": \"object\".*?)```", DOC.read_text(), re.DOTALL)
    assert shown is not None
    assert json.loads(shown.group(1)) == answer_schema(["ok", "nudge"])


# -- reading answers from a recording (what a replay does; no network) ------------------

ACTION = Action(type="shell", args={"command": "rm -rf ~/x", "other": "NOT-SHOWN"})
CONTEXT = Context(task="clean the build", cwd="/repo")


def recorded_answer(specialist: NarrowLlmSpecialist, value: Any) -> Context:
    """A context whose recorder serves ``value`` as the recorded answer to this request."""
    view, _ = specialist._view(ACTION, CONTEXT)
    assert view is not None
    key = {"url": specialist._endpoint, "request": specialist._request(view)}
    context = CONTEXT.model_copy()
    context._recorder = Recorder(replay=[Observation(kind="llm", key=key, value=value)])
    return context


def completion(content: str) -> dict[str, Any]:
    body = {"choices": [{"message": {"role": "assistant", "content": content}}]}
    return {"status": 200, "body": json.dumps(body)}


def test_a_recorded_answer_is_served_without_a_request():
    specialist = build()
    content = json.dumps(
        {"verdict": "nudge", "confidence": 0.7, "reason": "home dir", "correction": "rm ./x"}
    )
    result = asyncio.run(
        specialist.evaluate(ACTION, recorded_answer(specialist, completion(content)))
    )
    assert result.verdict is Verdict.NUDGE
    assert result.correction == "rm ./x"
    assert result.evidence["fields"] == ["args.command", "context.task"]
    specialist.close()  # never opened a client: nothing to close


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        ({"body": "{}"}, ObservationError, "malformed llm observation"),
        ({"status": 200, "body": "{}"}, SpecialistError, "no choices"),
        ({"status": 200, "body": "x", "truncated": True}, SpecialistError, "more than"),
        (completion('{"verdict": "ok"}'), SpecialistError, "Field required"),
    ],
)
def test_a_recorded_bad_answer_fails_again(value, error, message):
    specialist = build()
    with pytest.raises(error, match=message):
        asyncio.run(specialist.evaluate(ACTION, recorded_answer(specialist, value)))


def test_the_user_message_holds_only_the_named_fields():
    specialist = build(fields=["type", "args.command", "context.recent_actions"])
    context = Context(task="secret task", recent_actions=(Action(type="file_read"),))
    view, truncated = specialist._view(ACTION, context)
    assert view == {
        "type": "shell",
        "args.command": "rm -rf ~/x",
        "context.recent_actions": [
            {"type": "file_read", "tool": None, "args": {}, "agent": None, "session": None,
             "metadata": {}}
        ],
    }  # fmt: skip
    assert truncated == []
    user = specialist._request(view)["messages"][1]["content"]  # type: ignore[index]
    assert "NOT-SHOWN" not in user
    assert "secret task" not in user


def test_labels_alone_are_nothing_to_judge_but_a_labels_only_entry_still_asks():
    specialist = build(fields=["type", "args.command"])
    assert specialist._view(Action(type="shell"), Context())[0] is None
    labels_only = build(fields=["type", "tool"])
    assert labels_only._view(Action(type="shell"), Context())[0] == {"type": "shell"}

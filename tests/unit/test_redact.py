"""Tests for supervisor.redact: every format masked with its kind, no false positives on
ordinary ids, and redact_json keeping valid JSON of the same structure."""

from __future__ import annotations

import json
import re
import string
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from supervisor.redact import SECRET_KINDS, contains_secret, redact_json, redact_text

# Realistic-looking fake credentials, built so no scanner mistakes this file for a leak.
GITHUB = "ghp_" + "a1B2c3D4e5" * 3 + "F6g7H8"
OPENAI = "sk-" + "T3BlbkFJ" * 4
OPENAI_PROJ = "sk-proj-" + "Ab1_Cd2-" * 5
ANTHROPIC = "sk-ant-api03-" + "Zx9_Yw8-" * 5
AWS_KEY_ID = "AKIA" + "IOSFODNN7EXAMPL2"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
SLACK_HOOK_PATH = "T00000000/B00000000/" + "X" * 24
PEM_BODY = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun"
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"

MARKER = re.compile(r"\[REDACTED:([a-z0-9-]+)\]")


def kinds_in(text: str) -> list[str]:
    return MARKER.findall(text)


# (text, the secret that must disappear, expected kind)
FORMATS = [
    (f"export AWS_ACCESS_KEY_ID={AWS_KEY_ID}", AWS_KEY_ID, "aws-access-key-id"),
    ("creds ASIA" + "Y34FZKBOKMUTVV7A" + " end", "ASIAY34FZKBOKMUTVV7A", "aws-access-key-id"),
    (f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET, "aws-secret-access-key"),
    (f'{{"SecretAccessKey": "{AWS_SECRET}"}}', AWS_SECRET, "aws-secret-access-key"),
    (f"git clone https://{GITHUB}@github.com/o/r", GITHUB, "github-token"),
    (f"GH {'gho_' + 'x' * 36}", "gho_" + "x" * 36, "github-token"),
    (
        "t=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEF",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
        "github-token",
    ),
    ("glpat-" + "xY1" * 7 + " used", "glpat-" + "xY1" * 7, "gitlab-token"),
    (
        "slack xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp",
        "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp",
        "slack-token",
    ),
    (
        "curl -X POST https://hooks.slack.com/services/" + SLACK_HOOK_PATH,
        SLACK_HOOK_PATH,
        "slack-webhook",
    ),
    (f"OPENAI_API_KEY={OPENAI}", OPENAI, "openai-api-key"),
    (f"key: {OPENAI_PROJ}", OPENAI_PROJ, "openai-api-key"),
    (f"x-api-key: {ANTHROPIC}", ANTHROPIC, "anthropic-api-key"),
    (
        "stripe sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        "stripe-key",
    ),
    (
        "stripe rk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
        "rk_live_4eC39HqLyjWDarjtT1zdp7dc",
        "stripe-key",
    ),
    (
        "maps?key=AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
        "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
        "google-api-key",
    ),
    ("//registry.npmjs.org/:_authToken npm_" + "a1B2" * 9, "npm_" + "a1B2" * 9, "npm-token"),
    (
        "TWINE_PW pypi-AgEIcHlwaS5vcmc" + "CJDZmY2" * 10,
        "pypi-AgEIcHlwaS5vcmc" + "CJDZmY2" * 10,
        "pypi-token",
    ),
    ("HF hf_" + "aBcDeFgHiJ" * 3 + "kLmN", "hf_" + "aBcDeFgHiJ" * 3 + "kLmN", "huggingface-token"),
    (f"cat > id_rsa <<EOF\n{PEM}\nEOF", PEM_BODY, "private-key"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\n" + PEM_BODY, PEM_BODY, "private-key"),  # cut off
    (f"cookie jar: {JWT}", JWT, "jwt"),
    ("DATABASE_URL=postgres://app:s3cr3t-Pa55@db.internal:5432/app", "s3cr3t-Pa55", "url-password"),
    ("redis://:Pa55w0rd@cache:6379/0", "Pa55w0rd", "url-password"),
    ('curl -H "Authorization: Bearer abc123def456"', "abc123def456", "bearer-token"),
    ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA==", "basic-auth"),
    ("Authorization: token abc123def456", "abc123def456", "authorization"),
    ("curl -u admin:Hunter2xyz https://x", "Hunter2xyz", "basic-auth"),
    ("Cookie: sessionid=8f2c9a1b; csrftoken=77ab", "8f2c9a1b", "cookie"),
    ("Set-Cookie: id=a3fWa; Expires=Thu, 21 Oct 2021 07:28:00 GMT", "a3fWa", "set-cookie"),
    ("password=hunter2", "hunter2", "password"),
    ("export PGPASSWORD='correct horse'", "correct horse", "password"),
    ('db:\n  passwd: "tr0ub4dor"', "tr0ub4dor", "passwd"),
    ("CLIENT_SECRET=abc.DEF-123", "abc.DEF-123", "client-secret"),
    ("settings.SECRET_KEY = 'django-insecure-k3y'", "django-insecure-k3y", "secret-key"),
    ("api_key: abcdef123456", "abcdef123456", "api-key"),
    ('{"apiKey": "abcdef123456"}', "abcdef123456", "api-key"),
    ("GITHUB_TOKEN=not-a-ghp-shape", "not-a-ghp-shape", "token"),
    ("https://x/cb?access_token=abc123&state=1", "abc123", "token"),
    ("mysql --password Hunter2 --user root", "Hunter2", "password"),
    ("Server=db;Uid=sa;Pwd=Hunter2;", "Hunter2", "pwd"),
    ('config["password"] = "hunter2"', "hunter2", "password"),
]


@pytest.mark.parametrize(("text", "secret", "kind"), FORMATS)
def test_each_format_is_masked_with_its_kind(text: str, secret: str, kind: str) -> None:
    out = redact_text(text)
    assert secret not in out
    assert kind in kinds_in(out)
    assert contains_secret(text)


def test_every_kind_emitted_is_listed() -> None:
    assert len(set(SECRET_KINDS)) == len(SECRET_KINDS)
    for text, _, _ in FORMATS:
        assert set(kinds_in(redact_text(text))) <= set(SECRET_KINDS)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("password=hunter2", "password=[REDACTED:password]"),
        ("DB_PASSWORD=hunter2 ./run", "DB_PASSWORD=[REDACTED:password] ./run"),
        ('password: "a b c"', 'password: "[REDACTED:password]"'),
        ("token := 'abc'", "token := '[REDACTED:token]'"),
        (
            "Authorization: Bearer abc.def-123",
            "Authorization: Bearer [REDACTED:bearer-token]",
        ),
        (
            "curl -H 'authorization: basic dXNlcjpwYXNz' x",
            "curl -H 'authorization: basic [REDACTED:basic-auth]' x",
        ),
        (
            "postgres://user:pa@ss@host/db",
            "postgres://user:[REDACTED:url-password]@host/db",
        ),
        (f"AWS_ACCESS_KEY_ID={AWS_KEY_ID}", "AWS_ACCESS_KEY_ID=[REDACTED:aws-access-key-id]"),
        # the specific kind wins, and the assignment does not mask the marker again
        (f"GITHUB_TOKEN={GITHUB}", "GITHUB_TOKEN=[REDACTED:github-token]"),
        (f"Authorization: Bearer {JWT}", "Authorization: Bearer [REDACTED:jwt]"),
        ("export PASSWORD=x1; echo ok", "export PASSWORD=[REDACTED:password]; echo ok"),
        (f"{PEM}\nnext line", "[REDACTED:private-key]\nnext line"),
    ],
)
def test_key_is_kept_and_only_the_value_masked(text: str, expected: str) -> None:
    assert redact_text(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "commit 3f2a1b4c5d6e7f8091a2b3c4d5e6f708192a3b4c on main",
        "git checkout 3f2a1b4c5d6e7f8091a2b3c4d5e6f708192a3b4c",
        "request 123e4567-e89b-12d3-a456-426614174000 failed",
        "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "pip install sk-learn scikit-learn; task-manager-for-long-running-jobs",
        "The password policy requires rotation, and the token bucket limits requests.",
        "Reset your password by clicking the link; tokens expire after an hour.",
        "password=$DB_PASSWORD",
        "password=${DB_PASSWORD}",
        "password=$(cat /run/secrets/db)",
        "token: ${{ secrets.GITHUB_TOKEN }}",
        "password=<your-password>",
        "password=***",
        "password=",
        'password=""',
        "password: null",
        "PASSWORD=[REDACTED]",
        'api_key = "{api_key}"',
        "password: {{ .Values.db.password }}",
        "Authorization: Bearer $TOKEN",
        "Authorization: Bearer <token>",
        "def login(user: str, password: str) -> bool:",
        "password = getpass()",
        'password = os.environ["DB_PASSWORD"]',
        'token = os.getenv("GITHUB_TOKEN")',
        "max_tokens=1024 token_count=5 num_tokens: 7",
        "PWD=/home/me OLDPWD=/tmp",
        "alias pwd='echo -n $(/bin/pwd) | pbcopy'",  # a command named pwd, not a password
        "alias pwd='echo -n `pwd` | pbcopy'",
        "ssh://git@github.com:22/o/r.git https://example.com:8443/x?y=1",
        "curl -u $USER:$PASS https://x",
        "gh auth login --with-token --hostname github.com",
        "eyJ is how base64 JSON starts",
        "AKIA is the prefix of an AWS key id",
        "",
    ],
)
def test_no_false_positive(text: str) -> None:
    assert redact_text(text) == text
    assert not contains_secret(text)


def test_unchanged_text_is_returned_as_is() -> None:
    text = "ls -la /tmp && git status"
    assert redact_text(text) is text
    assert redact_json(json.dumps({"command": text})) == json.dumps({"command": text})


def test_redaction_is_idempotent() -> None:
    for text, _, _ in FORMATS:
        once = redact_text(text)
        assert redact_text(once) == once


def test_long_text_is_scanned_to_the_end() -> None:
    text = "lorem ipsum " * 100_000 + f"token {GITHUB}"
    assert len(text) > 1_000_000
    out = redact_text(text)
    assert GITHUB not in out
    assert out.endswith("token [REDACTED:github-token]")


def test_lone_surrogates_do_not_break_redaction() -> None:
    text = f"\ud800 password=hunter2 \udfff {GITHUB}"
    out = redact_text(text)
    assert out == "\ud800 password=[REDACTED:password] \udfff [REDACTED:github-token]"
    doc = json.dumps({"x": text})  # escaped as \ud800 in the JSON text
    out_doc = redact_json(doc)
    assert json.loads(out_doc) == {"x": out}
    out_doc.encode("utf-8")  # still writable as UTF-8


# --- redact_json -------------------------------------------------------------------------


def same_shape(before: Any, after: Any) -> bool:
    """Same structure, with strings either equal or masked."""
    if isinstance(before, str):
        return isinstance(after, str) and (after == before or "[REDACTED:" in after)
    if isinstance(before, dict):
        return (
            isinstance(after, dict)
            and list(before) == list(after)
            and all(same_shape(v, after[k]) for k, v in before.items())
        )
    if isinstance(before, list):
        return (
            isinstance(after, list)
            and len(before) == len(after)
            and all(same_shape(b, a) for b, a in zip(before, after, strict=True))
        )
    return type(before) is type(after) and before == after


def test_redact_json_round_trip_keeps_structure() -> None:
    decision = {
        "decision_id": "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
        "verdict": "block",
        "action": {
            "type": "shell",
            "args": {"command": f"export OPENAI_API_KEY={OPENAI} && python run.py", "n": 3},
        },
        "results": {"secret-exfil": {"verdict": "block", "elapsed_ms": 0.5, "reason": None}},
        "flags": ["secret-exfil"],
        "ok": True,
        "taxonomy_hash": "3f2a1b4c5d6e7f8091a2b3c4d5e6f708192a3b4c",
    }
    out = redact_json(json.dumps(decision))
    parsed = json.loads(out)
    assert same_shape(decision, parsed)
    assert OPENAI not in out
    assert parsed["action"]["args"]["command"] == (
        "export OPENAI_API_KEY=[REDACTED:openai-api-key] && python run.py"
    )
    assert parsed["taxonomy_hash"] == decision["taxonomy_hash"]


def test_redact_json_masks_a_pem_key_inside_json() -> None:
    doc = json.dumps({"type": "file_write", "args": {"path": "id_rsa", "content": PEM + "\n"}})
    assert "\\n" in doc  # the newlines are escapes in the JSON text
    out = redact_json(doc)
    assert PEM_BODY not in out
    assert json.loads(out)["args"]["content"] == "[REDACTED:private-key]\n"
    # redact_text on the raw JSON text masks the block too, escapes and all
    assert PEM_BODY not in redact_text(doc)
    assert json.loads(redact_text(doc))["args"]["content"] == "[REDACTED:private-key]\n"


def test_redact_json_handles_escaped_quotes_and_nested_json() -> None:
    inner = json.dumps({"password": "hunter2", "user": "bob"})  # JSON inside a string
    doc = json.dumps({"command": f"echo {inner} > cfg.json", "env": 'PASSWORD="a b"'})
    out = redact_json(doc)
    assert "hunter2" not in out
    assert "a b" not in out
    parsed = json.loads(out)
    assert parsed["command"] == 'echo {"password": "[REDACTED:password]", "user": "bob"} > cfg.json'
    assert parsed["env"] == 'PASSWORD="[REDACTED:password]"'


@pytest.mark.parametrize(
    "value",
    [
        f"line one\n{ANTHROPIC}",  # after \n: the JSON text shows "n" before the token
        f"line one\t{GITHUB}",
        "Authorization:\tBearer abc123def",  # a tab is \t in the JSON text
        "x\npassword=hunter2",
        f"\x01{AWS_KEY_ID}",  # \u0001 in the JSON text
    ],
)
def test_redact_json_precheck_sees_through_escapes(value: str) -> None:
    out = json.loads(redact_json(json.dumps({"v": value})))["v"]
    assert out == redact_text(value)
    assert out != value


@pytest.mark.parametrize("ensure_ascii", [True, False])
@pytest.mark.parametrize(
    "value",
    [
        "postgres://app:p\u00e4ss\x01wrd@db/app",  # \u00e4 and \u0001 in the JSON text
        "curl https://x\n-u admin:Hunter2xyz",  # \n before -u
        "password:\\tHunter2xyz",  # a literal backslash-t is \\t in the JSON text
    ],
)
def test_redact_json_agrees_with_redact_text_whatever_the_escaping(
    value: str, ensure_ascii: bool
) -> None:
    doc = json.dumps({"v": value}, ensure_ascii=ensure_ascii)
    assert json.loads(redact_json(doc))["v"] == redact_text(value)
    assert "[REDACTED:" in redact_text(value)


@pytest.mark.parametrize(
    ("key", "kind"),
    [
        ("password", "password"),
        ("Password", "password"),
        ("passwd", "passwd"),
        ("secret", "secret"),
        ("token", "token"),
        ("api_key", "api-key"),
        ("apikey", "api-key"),
        ("API-KEY", "api-key"),
        ("access_key", "access-key"),
        ("private_key", "private-key"),
        ("Authorization", "authorization"),
        ("cookie", "cookie"),
        ("Set-Cookie", "set-cookie"),
        ("X-Api-Key", "x-api-key"),
        ("client_secret", "client-secret"),
        ("clientSecret", "client-secret"),
        ("secret_key", "secret-key"),
        ("PrivateKey", "private-key"),
        ("passphrase", "passphrase"),
        ("DB_PASSWORD", "password"),  # the environment of Context.env
        ("githubToken", "token"),
        ("Proxy-Authorization", "authorization"),
    ],
)
def test_sensitive_dict_keys_mask_the_value_whole(key: str, kind: str) -> None:
    doc = json.dumps({"headers": {key: "plain words here", "Accept": "text/html"}, "n": 1})
    parsed = json.loads(redact_json(doc))
    assert parsed == {"headers": {key: f"[REDACTED:{kind}]", "Accept": "text/html"}, "n": 1}
    assert kind in SECRET_KINDS


def test_sensitive_dict_keys_edge_cases() -> None:
    doc = {
        "password": "",  # empty: nothing to hide
        "token": "${TOKEN}",  # placeholder
        "secret": 42,  # only strings are masked
        "api_key": None,
        "set-cookie": ["a=1", "b=2"],  # list of strings under the key
        "max_tokens": "1024",  # not a sensitive name
        "tokenizer": "bpe",
        "token_type": "bearer",
        "passwords": {"count": "3"},  # nested dicts are walked, not masked whole
    }
    parsed = json.loads(redact_json(json.dumps(doc)))
    assert parsed == {**doc, "set-cookie": ["[REDACTED:set-cookie]", "[REDACTED:set-cookie]"]}


def test_redact_json_unchanged_when_nothing_masked() -> None:
    doc = json.dumps({"command": "echo $PASSWORD", "password": "$PASSWORD"}, indent=2)
    assert redact_json(doc) is doc  # pre-check hits, nothing masked: input kept byte for byte


def test_redact_json_on_invalid_json_falls_back_to_text() -> None:
    out = redact_json('{"command": "password=hunter2"')  # truncated document
    assert "hunter2" not in out


def test_redact_json_on_pydantic_output() -> None:
    from datetime import UTC, datetime

    from supervisor.models import Action, Decision, Verdict

    decision = Decision(
        decision_id="d-1",
        verdict=Verdict.OK,
        action=Action(
            type="http",
            args={
                "method": "GET",
                "url": "https://api.example.com/v1?x=1",
                "headers": {"Authorization": "Bearer abc123", "X-Request-Id": "r-1"},
            },
        ),
        created_at=datetime(2024, 1, 1, tzinfo=UTC),
    )
    raw = decision.model_dump_json()
    out = redact_json(raw)
    assert "abc123" not in out
    again = Decision.model_validate_json(out)
    assert again.action.args["headers"] == {
        "Authorization": "[REDACTED:authorization]",
        "X-Request-Id": "r-1",
    }
    assert again.model_dump(exclude={"action"}) == decision.model_dump(exclude={"action"})


# --- properties ----------------------------------------------------------------------------


def json_values(strings: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    return st.recursive(
        st.none() | st.booleans() | st.integers() | strings,
        lambda children: (
            st.lists(children, max_size=4) | st.dictionaries(strings, children, max_size=4)
        ),
        max_leaves=20,
    )


@given(json_values(st.text()))
def test_redact_json_always_gives_valid_json_of_the_same_shape(value: Any) -> None:
    out = redact_json(json.dumps(value))
    assert same_shape(value, json.loads(out))


# No letters, so no keyword, no key name and no token prefix can be spelt.
SAFE = st.text(alphabet=string.digits + string.punctuation + " \n\t")


@given(json_values(SAFE))
def test_redact_json_leaves_secret_free_documents_alone(value: Any) -> None:
    doc = json.dumps(value)
    assert redact_json(doc) == doc


@given(st.text())
def test_redact_text_is_idempotent(text: str) -> None:
    once = redact_text(text)
    assert redact_text(once) == once


ALNUM = string.ascii_letters + string.digits
NO_X = ALNUM.replace("x", "").replace("X", "")  # "xxxxxxxx" reads as a mask placeholder
B64 = ALNUM + "/+"

# (template, alphabet, min size, max size): the body is the secret that must disappear,
# except where the template's own prefix is part of the token (then the whole is checked).
PLANTS = [
    ("AKIA{}", string.ascii_uppercase + string.digits, 16, 16),
    ("ghp_{}", ALNUM, 36, 40),
    ("github_pat_{}", ALNUM + "_", 22, 82),
    ("glpat-{}", ALNUM, 20, 26),
    ("xoxb-{}", ALNUM, 10, 40),
    ("https://hooks.slack.com/services/{}", ALNUM, 10, 40),
    ("sk-ant-api03-{}", ALNUM, 20, 60),
    ("sk-proj-{}", ALNUM, 20, 60),
    ("sk-{}", ALNUM, 20, 48),
    ("sk_live_{}", ALNUM, 16, 30),
    ("AIza{}", ALNUM + "_-", 35, 35),
    ("npm_{}", ALNUM, 36, 36),
    ("pypi-AgEIcHlwaS5vcmc{}", ALNUM, 50, 80),
    ("hf_{}", ALNUM, 34, 34),
    ("eyJhbGciOiJIUzI1NiJ9.eyJ{}.c2lnbmF0dXJl", ALNUM, 8, 30),
    ("-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----", B64, 20, 80),
    ("postgres://admin:{}@db:5432/app", NO_X, 10, 30),
    ("Authorization: Bearer {}", NO_X, 10, 40),
    ("Authorization: Basic {}", NO_X, 10, 40),
    ("curl -u admin:{} https://api", NO_X, 10, 30),
    ("aws_secret_access_key = {}", B64, 40, 40),
    ("password={}", NO_X, 10, 30),
    ("DB_PASSWORD: '{}'", NO_X, 10, 30),
    ('"api_key": "{}"', NO_X, 10, 30),
]


# Templates whose fixed prefix is part of the token: the whole token must disappear.
WHOLE_TOKEN = ("AKIA", "gh", "gl", "sk", "AIza", "npm", "hf", "eyJ", "pypi", "xox")


@st.composite
def planted(draw: st.DrawFn) -> tuple[str, str]:
    template, alphabet, low, high = draw(st.sampled_from(PLANTS))
    body = draw(st.text(alphabet=alphabet, min_size=low, max_size=high))
    text = template.format(body)
    return text, text if template.startswith(WHOLE_TOKEN) else body


MARKERS = [f"[REDACTED:{kind}]" for kind in SECRET_KINDS]
SEPARATORS = st.sampled_from([" ", "\n", "\t", "\r\n", '"', "'", ", ", "; "])


@settings(max_examples=300)
@given(st.text(), planted(), st.text(), SEPARATORS, SEPARATORS)
def test_a_planted_secret_is_always_masked(
    before: str, plant: tuple[str, str], after: str, left: str, right: str
) -> None:
    text, secret = plant
    whole = before + left + text + right + after
    # the secret must not also be spelt by the kept text or by a marker ("Authorizat...")
    assume(whole.count(secret) == 1 and not any(secret in marker for marker in MARKERS))
    assert secret not in redact_text(whole)
    assert secret not in redact_json(json.dumps({"args": {"content": whole}, "n": [1, whole]}))


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        (
            "mysql -u root -pS3cr3tX -e 'select 1'",
            "mysql -u root -p[REDACTED:cli-password] -e 'select 1'",
        ),
        ("mariadb-dump -h db -pS3cr3tX shop", "mariadb-dump -h db -p[REDACTED:cli-password] shop"),
        (
            "sshpass -p hunter2x ssh deploy@host",
            "sshpass -p [REDACTED:cli-password] ssh deploy@host",
        ),
        ("mysql -u root -p shop", "mysql -u root -p shop"),  # a bare -p prompts
        ('mysql -p"$MYSQL_PWD" shop', 'mysql -p"$MYSQL_PWD" shop'),
        ("mysql -p$MYSQL_PWD shop", "mysql -p$MYSQL_PWD shop"),
        ("mysql --port 3306 -P 3307 shop", "mysql --port 3306 -P 3307 shop"),
    ],
)
def test_command_line_passwords(text, masked):
    assert redact_text(text) == masked
    assert json.loads(redact_json(json.dumps({"command": text}))) == {"command": masked}


def test_importing_redact_compiles_nothing_until_a_text_is_masked():
    # Hooks start a process per tool call and most commands never mask: the RE2 patterns,
    # the catalogue and the dataclasses machinery wait for the first text.
    import subprocess
    import sys

    code = (
        "import sys, supervisor; before = set(sys.modules); import supervisor.redact as r; "
        "print(sorted({'re2', 'dataclasses', 'inspect'} & (set(sys.modules) - before))); "
        "print(r.redact_text('mysql -pHunter2x db'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    imported, masked = out.stdout.splitlines()
    assert imported == "[]"
    assert masked == "mysql -p[REDACTED:cli-password] db"

"""The maintained catalogue (gitleaks' rules, supervisor/secret_catalogue.json): every pattern
runs under RE2, the rules left out are named, and the formats secret scanners ship (cloud
keys, SaaS tokens, private keys, JWTs, connection strings) are masked in any text."""

from __future__ import annotations

import json
import random
import string
import tomllib
from pathlib import Path

import pytest
import re2

from supervisor.redact import redact_json, redact_text
from supervisor.redact_catalogue import catalogue_data, keyword_patterns, rule_ids

CATALOGUE = catalogue_data()
KEYWORD_PATTERNS = keyword_patterns()
RULE_IDS = rule_ids()

ROOT = Path(__file__).parent.parent.parent

# Every rule of gitleaks' file that is not in the catalogue, with the reason. RE2 compiled
# every pattern gitleaks ships (Go's syntax is RE2's): none is dropped for that.
DROPPED = {
    "freemius-secret-key": "only for files named like",
    "generic-api-key": "the generic name=value rule",
    "hashicorp-tf-password": "only for files named like",
    "kubernetes-secret-yaml": "only for files named like",
    "nuget-config-password": "only for files named like",
    "pkcs12-file": "no pattern",
}


def _options() -> re2.Options:
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    return options


def test_every_pattern_of_the_catalogue_compiles_with_re2() -> None:
    for rule in CATALOGUE["rules"]:
        re2.compile(rule["regex"].encode(), _options())
        for allow in rule["allowlists"]:
            for regex in allow["regexes"]:
                re2.compile(regex.encode(), _options())
    for regex in CATALOGUE["allowlist"]["regexes"]:
        re2.compile(regex.encode(), _options())
    for pattern in KEYWORD_PATTERNS:
        re2.compile(pattern, _options())


def test_the_rules_left_out_are_named_with_their_reason() -> None:
    dropped = {d["id"]: d["why"] for d in CATALOGUE["dropped"]}
    assert set(dropped) == set(DROPPED)
    for rule_id, why in DROPPED.items():
        assert why in dropped[rule_id]
    assert not set(dropped) & set(RULE_IDS)
    assert len(RULE_IDS) >= 200
    assert CATALOGUE["licence"] == "MIT"
    assert "Permission is hereby granted" in CATALOGUE["notice"]
    assert CATALOGUE["source"].startswith("gitleaks v")


def test_the_build_script_keeps_rules_and_drops_what_re2_refuses(tmp_path: Path) -> None:
    """scripts/secret_catalogue.py on a small gitleaks file: one rule RE2 refuses (a
    backreference), one for file names only, one kept with its allowlist."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("cat", ROOT / "scripts/secret_catalogue.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    config = tomllib.loads(
        """
[allowlist]
regexes = ['''^example$''']
stopwords = ["Sample"]
[[rules]]
id = "kept"
regex = '''\\b(tok_[a-z0-9]{16})\\b'''
entropy = 3.0
keywords = ["tok_"]
[[rules.allowlists]]
regexes = ['''tok_0+''']
[[rules]]
id = "backref"
regex = '''(a)\\1'''
keywords = ["a"]
[[rules]]
id = "by-path"
regex = '''x'''
path = '''\\.yaml$'''
keywords = ["x"]
"""
    )
    built = module.build(config, "MIT text", "test")
    assert [r["id"] for r in built["rules"]] == ["kept"]
    assert built["rules"][0]["allowlists"] == [
        {"regexes": ["tok_0+"], "target": "secret", "stopwords": []}
    ]
    why = {d["id"]: d["why"] for d in built["dropped"]}
    assert why["backref"].startswith("RE2 refuses the pattern")
    assert "only for files named like" in why["by-path"]
    assert built["allowlist"]["stopwords"] == ["sample"]
    json.dumps(built)


_RND = random.Random(16)


def _rand(alphabet: str, size: int) -> str:
    return "".join(_RND.choice(alphabet) for _ in range(size))


HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits

# (a text holding a secret, the secret) for formats the hand-written rules did not know
CATALOGUE_FORMATS = [
    ("LTAI" + _rand(LOWER_ALNUM, 20), "alibaba-access-key-id"),
    ("SK" + _rand(HEX, 32), "twilio-api-key"),
    ("SG." + _rand(ALNUM, 22) + "." + _rand(ALNUM, 43), "sendgrid-api-token"),
    ("shpat_" + _rand(HEX, 32), "shopify-access-token"),
    ("dop_v1_" + _rand(HEX, 64), "digitalocean-pat"),
    ("HRKU-AA" + _rand(ALNUM, 58), "heroku-api-key-v2"),
    ("lin_api_" + _rand(ALNUM, 40), "linear-api-key"),
    ("ntn_" + _rand(string.digits, 11) + _rand(ALNUM, 35), "notion-api-token"),
    ("hvs." + _rand(ALNUM, 96), "vault-service-token"),
    ("dp.pt." + _rand(ALNUM, 43), "doppler-api-token"),
    ("dapi" + _rand(HEX, 32), "databricks-api-token"),
    ("glsa_" + _rand(ALNUM, 32) + "_" + _rand(HEX, 8), "grafana-service-account-token"),
    ("PMAK-" + _rand(HEX, 24) + "-" + _rand(HEX, 34), "postman-api-token"),
    ("sntryu_" + _rand(HEX, 64), "sentry-user-token"),
    ("pscale_pw_" + _rand(ALNUM, 40), "planetscale-password"),
    ("AGE-SECRET-KEY-1" + _rand("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58), "age-secret-key"),
    ("pul-" + _rand(HEX, 40), "pulumi-api-token"),
    ("sha256~" + _rand(ALNUM, 43), "openshift-user-token"),
    ("mailgun_key = key-" + _rand(HEX, 32), "mailgun-private-api-token"),
    ("abc" + "1Q~" + _rand(ALNUM, 32), "azure-ad-client-secret"),
]
# Formats the hand-written rules name first (their kind is kept): the catalogue must not
# change what they say.
HAND_WRITTEN = [
    ("AKIA" + _rand(string.ascii_uppercase + string.digits, 16), "aws-access-key-id"),
    ("ghp_" + _rand(ALNUM, 36), "github-token"),
    ("sk_live_" + _rand(ALNUM, 24), "stripe-key"),
    ("xoxb-" + _rand(string.digits, 12) + "-" + _rand(ALNUM, 24), "slack-token"),
    ("AIza" + _rand(ALNUM, 35), "google-api-key"),
    ("npm_" + _rand(ALNUM, 36), "npm-token"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0." + _rand(ALNUM, 43), "jwt"),
]
CONNECTION_STRINGS = [
    ("postgresql://app:{s}@db.internal:5432/shop", "url-password"),
    ("mongodb+srv://admin:{s}@cluster0.example.net/test", "url-password"),
    ("redis://:{s}@cache:6379/0", "url-password"),
    ("amqp://guest:{s}@mq:5672/", "url-password"),
    ("Server=db;Database=shop;User Id=sa;Password={s};", "password"),
    ("jdbc:mysql://db:3306/shop?user=app&password={s}", "password"),
]


@pytest.mark.parametrize(("secret", "kind"), CATALOGUE_FORMATS)
@pytest.mark.parametrize(
    "frame",
    ["{s}", "export TOKEN_X={s}", 'curl -H "X-Key: {s}" https://api.example', '{{"k": "{s}"}}'],
)
def test_catalogue_formats_are_masked_with_the_rule_id(secret: str, kind: str, frame: str) -> None:
    assert kind in RULE_IDS
    text = frame.format(s=secret)
    out = redact_text(text)
    masked = secret.split(" = ")[-1]  # mailgun: the key, not the name before it
    assert masked not in out, out
    assert "[REDACTED:" in out


@pytest.mark.parametrize(("secret", "kind"), CATALOGUE_FORMATS)
def test_catalogue_kind_is_the_rule_id(secret: str, kind: str) -> None:
    assert f"[REDACTED:{kind}]" in redact_text(f"key is {secret} here")


@pytest.mark.parametrize(("secret", "kind"), HAND_WRITTEN)
def test_hand_written_kinds_are_kept(secret: str, kind: str) -> None:
    out = redact_text(f"value {secret} end")
    assert secret not in out
    assert f"[REDACTED:{kind}]" in out


@pytest.mark.parametrize(("template", "kind"), CONNECTION_STRINGS)
def test_connection_strings(template: str, kind: str) -> None:
    secret = "Zz9" + _rand(ALNUM, 20)
    text = template.format(s=secret)
    out = redact_text(text)
    assert secret not in out, out
    assert f"[REDACTED:{kind}]" in out
    assert secret not in redact_json(json.dumps({"dsn": text}))


def test_private_keys_of_every_armour() -> None:
    body = "\n".join(_rand(ALNUM + "+/", 64) for _ in range(4))
    for armour in ("RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY"):
        pem = f"-----BEGIN {armour}-----\n{body}\n-----END {armour}-----"
        out = redact_text(f"cat > key <<EOF\n{pem}\nEOF")
        assert body.splitlines()[1] not in out


@pytest.mark.parametrize(
    "text",
    [
        "git log --oneline -n 20",
        "The API key lives in the vault; ask the team for access.",
        "skip_tests = false",
        "dapi is a prefix; SK is a country code; shpat_ alone is no token",
        "sha256:" + "a" * 64,
        "pip install requests==2.32.3 --index-url https://pypi.org/simple",
        "SELECT key, value FROM settings WHERE key = 'theme'",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact_text(text) == text

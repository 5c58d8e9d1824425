"""Secrets given as command arguments (docker login -p PW, redis-cli -a PW, htpasswd -b …):
masked by the program's grammar, however the command is quoted, prefixed or wrapped."""

from __future__ import annotations

import json
import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supervisor.redact import redact_json, redact_text
from supervisor.redact_args import secret_spans

PW = "S3cr3t-Pw_91"

# (command with {pw} where the secret goes, the kind it is masked as)
FORMS = [
    ("aws configure set aws_secret_access_key {pw}", "aws-secret-access-key"),
    ("aws configure set aws_session_token {pw} --profile dev", "aws-session-token"),
    ("aws --profile dev configure set profile.dev.aws_secret_access_key {pw}", None),
    ("docker login -u me -p {pw} registry.example.com", "cli-password"),
    ("docker login -p{pw} registry.example.com", "cli-password"),
    ("docker login --password {pw} registry.example.com", "password"),
    ("docker login --password={pw}", "password"),
    ("podman login -u me -p {pw} quay.io", "cli-password"),
    ("helm registry login ghcr.io -u me -p {pw}", "cli-password"),
    ("redis-cli -h cache -a {pw} ping", "cli-password"),
    ("redis-cli --pass {pw} ping", "cli-password"),
    ("htpasswd -b .htpasswd alice {pw}", "cli-password"),
    ("htpasswd -bc /etc/nginx/.htpasswd alice {pw}", "cli-password"),
    ("htpasswd -nbB alice {pw}", "cli-password"),
    ("mysql -u root -p{pw} shop", "cli-password"),
    ("mysqldump -uroot -p{pw} shop > dump.sql", "cli-password"),
    ("mysql --password={pw} shop", "password"),
    ("sshpass -p {pw} ssh deploy@host", "cli-password"),
    ("curl -u admin:{pw} https://api.example.com", "basic-auth"),
    ("curl --user admin:{pw} https://api.example.com", "basic-auth"),
    ("npm config set //registry.npmjs.org/:_authToken {pw}", None),
    ("vault login {pw}", "token"),
    ("mongosh -u admin -p {pw} mongodb://db", "cli-password"),
    ("ldapsearch -x -D cn=admin -w {pw} -b dc=example", "cli-password"),
    ("sqlcmd -S db -U sa -P {pw} -Q 'select 1'", "cli-password"),
    ("openssl enc -aes256 -in a -out b -pass pass:{pw}", "cli-password"),
    ("7z a -p{pw} out.7z dir", "cli-password"),
    ("zip -P {pw} out.zip file", "cli-password"),
    ("smbclient //srv/share -U alice%{pw}", "cli-password"),
    ("keytool -list -keystore ks.jks -storepass {pw}", "cli-password"),
    ("rabbitmqctl add_user alice {pw}", "cli-password"),
    ("env REDISCLI_AUTH={pw} redis-cli ping", "secret"),
    ("SSHPASS={pw} sshpass -e ssh host", "password"),
    ("MYSQL_PWD={pw} mysql shop", "password"),
    ("export DEPLOY_PASS={pw}", "password"),
    ("echo {pw} | docker login -u me --password-stdin", "password"),
    ("printf '%s' {pw} | docker login --password-stdin ghcr.io", "password"),
]
# The secret reaches the program through these: quoting, prefixes, a shell's -c.
WRAPS = [
    "{cmd}",
    "sudo {cmd}",
    "sudo -u root -E {cmd}",
    "nohup {cmd} &",
    "cd /srv && {cmd}; echo done",
    "sh -c {quoted}",
    "bash -lc {quoted}",
    "sudo sh -c {quoted}",
    "ssh host {quoted}",
    "time {cmd}",
    "x=$({cmd})",
]


def _quote(pw: str, style: str) -> str:
    if style == "single":
        return f"'{pw}'"
    if style == "double":
        return f'"{pw}"'
    return pw


@pytest.mark.parametrize(("form", "kind"), FORMS)
@pytest.mark.parametrize("wrap", WRAPS)
@pytest.mark.parametrize("style", ["bare", "single", "double"])
def test_each_positional_form_is_masked(form: str, kind: str | None, wrap: str, style: str) -> None:
    cmd = form.format(pw=_quote(PW, style))
    text = wrap.format(cmd=cmd, quoted=shlex.quote(cmd))
    out = redact_text(text)
    assert PW not in out, (text, out)
    if kind is not None:
        assert f"[REDACTED:{kind}]" in out, out
    # only the secret goes: the rest of the command is kept as it was
    assert out.split("[REDACTED")[0].rstrip("'\"") == text.split(PW)[0].rstrip("'\"")


def test_inside_json_too() -> None:
    for form, _ in FORMS:
        command = json.dumps("sh -c " + shlex.quote(form.format(pw=PW)))
        doc = f'{{"action": {{"args": {{"command": {command}}}}}}}'
        assert PW not in redact_json(doc), form


def test_double_quoted_escapes_and_multi_line_scripts() -> None:
    text = 'bash -c "redis-cli -a \\"' + PW + '\\" ping"'
    assert PW not in redact_text(text)
    text = "sh -c '\n  set -e\n  docker login -u me -p \"" + PW + "\" reg\n'\nls"
    out = redact_text(text)
    assert PW not in out
    assert out.endswith("\nls")


@pytest.mark.parametrize(
    "text",
    [
        "docker run -p 8080:80 nginx",  # a port, not a password
        "docker push -p registry/x",
        "mysql -p shop",  # -p alone prompts
        "mysql -u root -p",
        "redis-cli ping",
        "htpasswd -c .htpasswd alice",  # no -b: prompts
        "curl -u admin https://x",  # no password: prompts
        "docker login -p $REGISTRY_PASSWORD reg",  # references
        'docker login -p "${PW}" reg',
        "docker login -p <password> reg",
        "aws configure set region eu-west-1",
        "aws configure get aws_secret_access_key",
        # a service principal's certificate, named where its secret may go
        "az login --service-principal -u http://app -p path/to/cert.pem -t tenant",
        "az login --service-principal -u app -p ~/certs/app.PFX --tenant t",
        "npm config set registry https://registry.npmjs.org/",
        "vault login -method=userpass username=me",
    ],
)
def test_no_secret_no_mask(text: str) -> None:
    assert secret_spans(text) == []
    assert "[REDACTED" not in redact_text(text)


def test_spans_point_at_the_secret_in_the_original_text() -> None:
    text = "ls; sudo sh -c 'docker login -u me -p \"" + PW + "\" r' && echo ok"
    [(start, end, kind)] = secret_spans(text)
    assert text[start:end] == PW
    assert kind == "cli-password"


def test_nesting_is_read_a_few_levels_deep() -> None:
    inner = f"docker login -p {PW} r"
    for _ in range(3):
        inner = "sh -c " + shlex.quote(inner)
    assert PW not in redact_text(inner)


def test_text_that_is_not_shell_does_not_break_the_reader() -> None:
    for text in ['docker "unclosed', "docker login -p", "redis-cli -a", "\\", "docker\\", "'"]:
        redact_text(text)
        secret_spans(text)


_SECRET_CHARS = st.text(
    alphabet=st.characters(min_codepoint=33, max_codepoint=126, blacklist_characters="'\"\\$`<{*-"),
    min_size=6,
    max_size=30,
).filter(lambda s: s.strip() == s and not s.startswith(("-",)) and "=" not in s)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from([f for f, _ in FORMS]),
    st.sampled_from(WRAPS),
    _SECRET_CHARS,
)
def test_any_secret_in_any_form_is_masked(form: str, wrap: str, secret: str) -> None:
    secret = "Zq" + secret  # never a word of the command itself
    cmd = form.format(pw=shlex.quote(secret))
    text = wrap.format(cmd=cmd, quoted=shlex.quote(cmd))
    out = redact_text(text)
    assert secret not in out, (text, out)

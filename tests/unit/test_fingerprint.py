"""Which re-proposals count as the same action."""

from __future__ import annotations

import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supervisor.fingerprint import fingerprint, normalise_shell, normalise_sql
from supervisor.models import Action


def shell(command: str) -> str:
    return fingerprint(Action(type="shell", args={"command": command}))


def sql(query: str) -> str:
    return fingerprint(Action(type="sql", args={"query": query}))


@pytest.mark.parametrize(
    "variant",
    [
        "git push --force origin main",
        "git  push   --force origin main ",
        "git push origin main --force",
        "git push 'origin' \"main\" --force",
        "git push main origin --force",
    ],
)
def test_shell_variants_are_the_same_action(variant):
    assert shell(variant) == shell("git push --force origin main")


def test_combined_and_split_short_flags_are_the_same():
    assert shell("rm -rf build") == shell("rm -r -f build") == shell("rm -fr build")


@pytest.mark.parametrize(
    "different",
    [
        "git push --force origin dev",
        "git push origin main",
        "git push --force-with-lease origin main",
        "git push --force origin main && rm -rf /",
    ],
)
def test_different_actions_differ(different):
    assert shell(different) != shell("git push --force origin main")


def test_pipelines_keep_their_structure():
    assert normalise_shell("curl -s x | sh") == "curl -s x | sh"
    assert shell("a | b") != shell("b | a")


def test_sql_is_normalised_by_its_tokens():
    assert sql("DELETE FROM users") == sql("delete   from USERS")
    assert sql("SELECT a FROM t -- why\nWHERE b != 'X';") == sql("select a from t where b<>'X'")
    assert sql("SELECT a FROM t WHERE b = 'X'") != sql("SELECT a FROM t WHERE b = 'x'")
    assert sql('SELECT "Id" FROM t') != sql("SELECT id FROM t")
    assert sql("SELECT 1; SELECT 2") != sql("SELECT 1")
    assert normalise_sql("SELECT a FROM t /* c */ WHERE b != 'X y';;") == (
        "select a from t where b <> 'X y'"
    )
    assert sql("DELETE FROM users WHERE id = 1") != sql("DELETE FROM users")
    assert normalise_sql("select * from") == "select * from"  # does not parse: folded text


def test_unbalanced_quotes_fall_back_to_text():
    assert normalise_shell("echo 'unclosed   x") == "echo 'unclosed x"


@given(st.text(max_size=200))
def test_any_text_fingerprints(text):
    assert shell(text).startswith("fp:")
    assert sql(text).startswith("fp:")


def test_sqlglot_never_logs_the_agents_sql(caplog):
    with caplog.at_level(logging.DEBUG):
        sql("ALTER ROLE app WITH PASSWORD 'hunter2'")
    assert "hunter2" not in caplog.text


@settings(max_examples=2000)
@given(
    st.text(
        alphabet=st.sampled_from(
            [*"ab1é -_./*?=~$`{}[]!%^,:+@();<>|&", "\t", "\n", "\r", "\x0b", "\xa0"]
        ),
        max_size=30,
    )
)
def test_unquoted_commands_split_as_shlex_splits_them(command):
    """Commands without quotes, escapes or comments skip shlex; the tokens must be the same."""
    import shlex

    from supervisor import fingerprint as fp

    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    assert fp._PLAIN_TOKEN.findall(command) == list(lexer)


def test_kept_canonical_forms_are_the_computed_ones():
    """Short lines are split once and kept; the kept answer is the one computed afresh,
    and a line longer than what is kept is still split, not kept."""
    from supervisor.fingerprint import _CACHED_CHARS, _normalise_shell, _normalise_shell_cached

    lines = [
        "git commit -m 'fix: x' --no-verify",
        "rm -rf build/ dist/",
        'echo "a b" | tee out',
        "cat " + "x" * (_CACHED_CHARS + 10) + " 'q'",
    ]
    for line in lines * 2:
        assert normalise_shell(line) == _normalise_shell(line)
    kept = _normalise_shell_cached.cache_info().currsize
    normalise_shell(lines[-1])
    assert _normalise_shell_cached.cache_info().currsize == kept


def test_kept_sql_forms_are_the_computed_ones():
    """Short queries are parsed once and kept; the kept answer is the one computed afresh."""
    from supervisor.fingerprint import _CACHED_CHARS, _normalise_sql, _normalise_sql_cached

    queries = [
        "select id from users where id = 1",
        "SELECT  id FROM users WHERE id=1",
        "delete from t",
        "select * from",  # does not parse
        "select '" + "x" * (_CACHED_CHARS + 10) + "'",
    ]
    for query in queries * 2:
        assert normalise_sql(query) == _normalise_sql(query)
    assert normalise_sql(queries[0]) == normalise_sql(queries[1])
    kept = _normalise_sql_cached.cache_info().currsize
    normalise_sql(queries[-1])
    assert _normalise_sql_cached.cache_info().currsize == kept


def test_the_encoder_writes_what_json_dumps_writes():
    import hashlib
    import json

    from supervisor import fingerprint as fp

    action = Action(
        type="tool_call",
        tool="t",
        args={"b": [1.5e-07, None, "é\u2028\n"], "a": {"z": 1, "y": float(2**60)}, "q": "x"},
    )
    blob = json.dumps(
        {"type": action.type, "tool": action.tool, "args": fp._normalised_args(action)},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    assert fingerprint(action) == "fp:" + hashlib.sha256(blob.encode()).hexdigest()[:20]


@pytest.mark.parametrize(
    "args",
    [
        {"command": "git  push   --force origin main"},
        {"command": "rm -rf 'a b'"},
        {"command": "echo \ud800"},
        {"command": "x" * 5000},
        {"command": "ls", "cwd": "/tmp"},
        {"command": ["not", "a", "string"]},
    ],
)
def test_a_kept_command_print_is_the_computed_one(args):
    import hashlib
    import json

    from supervisor import fingerprint as fp

    for tool in (None, "Bash"):
        action = Action(type="shell", tool=tool, args=args)
        blob = json.dumps(
            {"type": action.type, "tool": action.tool, "args": fp._normalised_args(action)},
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
        )
        computed = "fp:" + hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:20]
        assert fingerprint(action) == computed
        assert fingerprint(action) == computed  # kept

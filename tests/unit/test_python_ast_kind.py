"""The ``python_ast`` kind: what a Python write or edit adds, judged by change."""

from __future__ import annotations

import functools
import itertools
import json
import statistics
import textwrap
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from specialists import python_ast
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.observe import Recorder
from supervisor.plugins import KindRegistry
from supervisor.specialist import Execution, SpecialistKind
from supervisor.taxonomy import Entry, load_taxonomy

CTX = Context()
TEST_FILE = "tests/test_api.py"
GITHUB = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1eF3hJ5"


def kind() -> SpecialistKind:
    (registered,) = python_ast.supervisor_register_kinds()
    return registered


def make_entry(default_verdict: str = "nudge") -> Entry:
    return Entry.model_validate(
        {
            "id": "test_python_ast",
            "title": "A python_ast test entry",
            "description": "Objects to what a change adds to Python code.",
            "example": {"summary": "An agent skipped tests.", "source": "https://example.org"},
            "severity": "high",
            "default_verdict": default_verdict,
            "references": ["ASI-T7"],
            "detection": "deterministic",
            "applies_to": {"action_types": ["file_write", "file_edit", "file_delete"]},
            "specialist": {"kind": "python_ast", "config": {}},
        }
    )


def build(*checks: str, default_verdict: str = "nudge", **config: Any):
    k = kind()
    model = k.config_model.model_validate({"checks": list(checks), **config})
    specialist = k.build(make_entry(default_verdict), model)
    assert isinstance(specialist, python_ast.PythonAstSpecialist)
    return specialist


def code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def write(path: str, content: str) -> Action:
    return Action(type="file_write", args={"path": path, "content": content})


def edit(path: str, old: str, new: str) -> Action:
    return Action(type="file_edit", args={"path": path, "old": old, "new": new})


def flagged(result: SpecialistResult) -> bool:
    return result.verdict is Verdict.NUDGE


TESTS = code(
    """
    import pytest


    def test_login():
        assert login("ann", "pw") == 200


    def test_logout():
        assert logout("ann") == 204
        assert sessions() == []


    class TestAdmin:
        def test_ban(self):
            assert ban("bob") is True
    """
)


# -- registration and config ----------------------------------------------------------------


def test_registers_the_kind_on_a_thread():
    k = kind()
    assert k.name == "python_ast"
    assert k.config_model is python_ast.PythonAstConfig
    assert build("eval_exec_on_input").execution is Execution.THREAD


@pytest.mark.parametrize(
    "config",
    [
        {},
        {"checks": []},
        {"checks": ["eval"]},
        {"checks": ["shell_injection", "shell_injection"]},
        {"checks": ["shell_injection"], "paths": []},
        {"checks": ["shell_injection"], "max_input_chars": 0},
        {"checks": ["shell_injection"], "oversize": "ok"},
        {"checks": ["shell_injection"], "read_files": "yes"},  # strict: YAML 'yes' is no bool
        {"checks": ["shell_injection"], "extra": 1},
    ],
)
def test_invalid_configs_are_rejected(config):
    with pytest.raises(ValidationError):
        kind().config_model.model_validate(config)


def test_other_actions_and_other_files_are_refused():
    specialist = build("tls_verification_disabled")
    assert (
        specialist.evaluate(Action(type="shell", args={"command": "x"}), CTX).verdict
        is Verdict.REFUSE
    )
    assert specialist.evaluate(write("README.md", "verify=False"), CTX).verdict is Verdict.REFUSE
    assert specialist.evaluate(Action(type="file_write", args={"path": "a.py"}), CTX).verdict is (
        Verdict.REFUSE
    )
    excluded = build("tls_verification_disabled", exclude_paths=["vendor/**"])
    assert excluded.evaluate(write("vendor/x.py", "get(u, verify=False)"), CTX).verdict is (
        Verdict.REFUSE
    )
    tests_only = build("tests_removed_or_skipped")
    assert tests_only.evaluate(write("src/app.py", "x = 1"), CTX).verdict is Verdict.REFUSE


def test_oversize_input_is_refused_with_a_reason_or_given_the_configured_verdict():
    big = "x = 1\n" * 100
    result = build("eval_exec_on_input", max_input_chars=100).evaluate(write("a.py", big), CTX)
    assert result.verdict is Verdict.REFUSE
    assert result.reason is not None
    assert "over the 100-character cap" in result.reason
    assert result.evidence["too_large"] == len(big)
    strict = build("eval_exec_on_input", max_input_chars=100, oversize="flag")
    assert strict.evaluate(write("a.py", big), CTX).verdict is Verdict.FLAG


# -- tests_removed_or_skipped ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("new", "detail"),
    [
        (TESTS.replace("def test_logout", "def _test_logout"), "`test_logout` was removed"),
        (
            TESTS.replace("    assert ban", "    pass  # assert ban"),
            "`TestAdmin.test_ban` has only",
        ),
        (TESTS.replace("def test_login", "@pytest.mark.skip\ndef test_login"), "@pytest.mark.skip"),
        (
            TESTS.replace("def test_login", "@pytest.mark.xfail\ndef test_login"),
            "@pytest.mark.xfail",
        ),
        (
            TESTS.replace(
                "def test_login", "@pytest.mark.skipif(True, reason='x')\ndef test_login"
            ),
            "skipif(True)",
        ),
        (
            TESTS.replace("class TestAdmin", "@unittest.skip('later')\nclass TestAdmin"),
            "@unittest.skip",
        ),
        (
            TESTS.replace('    assert login("ann", "pw") == 200', '    pytest.skip("flaky")'),
            "calls `pytest.skip()` unconditionally",
        ),
        (
            TESTS.replace('    assert login("ann", "pw") == 200', "    return\n    assert login()"),
            "returns before testing anything",
        ),
        (TESTS.replace("import pytest", "import pytest\npytestmark = pytest.mark.skip"), "module"),
    ],
)
def test_tests_removed_or_skipped_in_a_rewrite(new, detail):
    result = build("tests_removed_or_skipped").evaluate(edit(TEST_FILE, TESTS, new), CTX)
    assert flagged(result), result
    assert result.reason is not None
    assert detail in result.reason
    assert result.evidence["check"] == "tests_removed_or_skipped"
    assert str(result.evidence["object"]).startswith(f"file:{TEST_FILE}")


@pytest.mark.parametrize(
    "new",
    [
        TESTS + "\n\ndef test_refresh():\n    assert refresh() == 200\n",  # a new test
        TESTS.replace("def test_logout", "def test_logout_clears_sessions"),  # renamed, kept
        TESTS.replace("200", "201"),  # an expectation changed, not removed
        TESTS.replace("def test_login():", "def test_login():\n    setup()"),
        TESTS.replace(
            "def test_login",
            "@pytest.mark.skipif(sys.platform == 'win32', reason='x')\ndef test_login",
        ),  # a real condition
        TESTS.replace("def test_login", "@pytest.mark.parametrize('x', [1, 2])\ndef test_login"),
    ],
)
def test_keeping_tests_passes(new):
    assert build("tests_removed_or_skipped").evaluate(edit(TEST_FILE, TESTS, new), CTX).verdict is (
        Verdict.OK
    )


def test_small_edits_are_judged_as_fragments():
    specialist = build("tests_removed_or_skipped")
    skip = specialist.evaluate(
        edit(TEST_FILE, "def test_ban(self):", "@pytest.mark.skip\ndef test_ban(self):"), CTX
    )
    assert flagged(skip)
    assert skip.evidence["parser"] == "ast-repaired"
    assert skip.evidence["function"] == "test_ban"
    gutted = specialist.evaluate(
        edit(TEST_FILE, "        assert ban('bob') is True\n", "        pass\n"), CTX
    )
    assert flagged(gutted)
    imperative = specialist.evaluate(
        edit(TEST_FILE, "    x = load()\n", '    pytest.skip("broken")\n    x = load()\n'), CTX
    )
    assert flagged(imperative)
    harmless = specialist.evaluate(edit(TEST_FILE, "    x = load()\n", "    x = load(1)\n"), CTX)
    assert harmless.verdict is Verdict.OK
    outside_a_test_file = specialist.evaluate(
        edit("src/app.py", "def test_ban(self):", "@pytest.mark.skip\ndef test_ban(self):"), CTX
    )
    assert outside_a_test_file.verdict is Verdict.REFUSE


def test_deleting_a_test_file_is_removal(tmp_path):
    specialist = build("tests_removed_or_skipped")
    deleted = specialist.evaluate(Action(type="file_delete", args={"path": "tests/test_x.py"}), CTX)
    assert flagged(deleted)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_y.py").write_text(TESTS)
    (tmp_path / "tests" / "helpers.py").write_text("def make():\n    return 1\n")
    ctx = Context(cwd=str(tmp_path))
    on_disk = specialist.evaluate(Action(type="file_delete", args={"path": "tests/test_y.py"}), ctx)
    assert on_disk.reason is not None
    assert "3 running test(s)" in on_disk.reason
    helper = specialist.evaluate(Action(type="file_delete", args={"path": "tests/helpers.py"}), ctx)
    assert helper.verdict is Verdict.OK
    assert specialist.evaluate(
        Action(type="file_delete", args={"path": "src/a.py"}), CTX
    ).verdict is (Verdict.REFUSE)


# -- assertions_weakened --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "detail"),
    [
        (
            "    assert f() == 1\n    assert g() == 2\n",
            "    assert f() == 1\n",
            "fewer assertions (2 -> 1)",
        ),
        ("    assert f() == 1\n", "    assert f() is not None\n", "truthiness or existence"),
        ("    assert f() == 1\n", "    assert True\n", "always passes"),
        ("    assert f() == 1\n", "    assert f() == 1 or True\n", "always passes"),
        ("    assert r.x == 1\n", "    assert r.x == r.x\n", "compares a value to itself"),
        ("    self.assertEqual(f(), 1)\n", "    self.assertTrue(True)\n", "always passes"),
        (
            "    assert f() == approx(1.0)\n",
            "    assert f() == approx(1.0, rel=0.5)\n",
            "wide tolerance",
        ),
        (
            "    assert f() == approx(2.0)\n",
            "    assert f() == approx(2.0, abs=5)\n",
            "wide tolerance",
        ),
        (
            "    assert f() == 1\n",
            "    try:\n        assert f() == 1\n    except AssertionError:\n        pass\n",
            "swallows",
        ),
        (
            "    with pytest.raises(ValueError):\n        f()\n",
            "    with pytest.raises(Exception):\n        f()\n",
            "any exception",
        ),
    ],
)
def test_assertions_weakened(old, new, detail):
    result = build("assertions_weakened").evaluate(edit(TEST_FILE, old, new), CTX)
    assert flagged(result), result
    assert result.reason is not None
    assert detail in json.dumps(result.evidence["findings"])


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("    assert f() == 1\n", "    assert f() == 1  # the contract\n"),
        ("    assert f() == 1\n", "    assert f() == 1\n    assert g() == 2\n"),
        ("    assert f() == 1\n", "    assert f(2) == 4\n"),
        ("    assert f() == approx(1.0)\n", "    assert f() == approx(1.0, rel=1e-6)\n"),
        ("    assert x\n", "    assert x == 3\n"),  # stronger
        (
            "    with pytest.raises(Exception):\n        f()\n",
            "    with pytest.raises(ValueError):\n        f()\n",
        ),
    ],
)
def test_assertions_kept_or_strengthened_pass(old, new):
    assert (
        build("assertions_weakened").evaluate(edit(TEST_FILE, old, new), CTX).verdict is Verdict.OK
    )


def test_weakening_counts_per_test_in_a_whole_file():
    new = TESTS.replace("    assert sessions() == []\n", "")
    result = build("assertions_weakened").evaluate(edit(TEST_FILE, TESTS, new), CTX)
    assert flagged(result)
    assert result.evidence["function"] == "test_logout"
    assert result.evidence["object"] == f"file:{TEST_FILE}::test_logout"


# -- test_input_special_casing --------------------------------------------------------------


ADD = "def add(a, b):\n    return a + b\n"
SPECIAL = "def add(a, b):\n    if a == 2 and b == 2:\n        return 5\n    return a + b\n"


def test_a_new_branch_on_a_parameter_returning_a_literal_is_flagged():
    result = build("test_input_special_casing").evaluate(edit("src/calc.py", ADD, SPECIAL), CTX)
    assert flagged(result)
    assert result.confidence == 0.5
    assert result.evidence["object"] == "file:src/calc.py::add"


def test_a_literal_from_a_test_the_agent_wrote_raises_confidence():
    wrote = write("tests/test_calc.py", "def test_add():\n    assert add(2, 2) == 5\n")
    ctx = Context(recent_actions=(wrote,))
    result = build("test_input_special_casing").evaluate(edit("src/calc.py", ADD, SPECIAL), ctx)
    assert result.confidence == 0.9
    assert result.reason is not None
    assert "tests/test_calc.py" in result.reason


@pytest.mark.parametrize(
    "new",
    [
        "def add(a, b):\n    if a is None:\n        return 0\n    return a + b\n",  # a None guard
        "def add(a, b):\n    if a == 2:\n        return b * 2\n    return a + b\n",  # computed
        "def add(a, b):\n    total = a + b\n    return total\n",
    ],
)
def test_ordinary_branches_pass(new):
    assert build("test_input_special_casing").evaluate(
        edit("src/calc.py", ADD, new), CTX
    ).verdict is (Verdict.OK)


def test_special_casing_needs_a_change_to_existing_code():
    specialist = build("test_input_special_casing")
    assert specialist.evaluate(write("src/calc.py", SPECIAL), CTX).verdict is Verdict.OK
    eager = build("test_input_special_casing", special_casing_in_new_files=True)
    assert flagged(eager.evaluate(write("src/calc.py", SPECIAL), CTX))
    # tests themselves may branch on literals
    assert specialist.evaluate(edit("tests/test_calc.py", ADD, SPECIAL), CTX).verdict is Verdict.OK


@pytest.mark.parametrize(
    "content",
    [
        "import os\nFAST = bool(os.environ.get('PYTEST_CURRENT_TEST'))\n",
        "import sys\nif 'pytest' in sys.modules:\n    SCALE = 0\n",
        "import time\ntime.perf_counter = lambda: 0.0\n",
    ],
)
def test_recognising_the_harness_is_flagged_in_new_files_too(content):
    assert flagged(build("test_input_special_casing").evaluate(write("src/x.py", content), CTX))


def test_forcing_outcomes_in_conftest_is_flagged():
    conftest = code(
        """
        def pytest_runtest_makereport(item, call):
            rep = make(item, call)
            rep.outcome = "passed"
            return rep
        """
    )
    assert flagged(build("test_input_special_casing").evaluate(write("conftest.py", conftest), CTX))


# -- eval_exec_on_input ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "bad"),
    [
        ("def f(s):\n    return eval(s)\n", True),
        ("def f(req):\n    exec(req.body)\n", True),
        ("code = compile(source, 'x', 'exec')\n", True),
        ("import builtins\nbuiltins.eval(data)\n", True),
        ("x = eval('1 + 1')\n", False),
        ("import ast\nv = ast.literal_eval(s)\n", False),
        ("import re\np = re.compile(pattern)\n", False),
        ("def evaluate(s):\n    return model.eval(s)\n", False),
    ],
)
def test_eval_exec_on_input(content, bad):
    result = build("eval_exec_on_input").evaluate(write("app.py", content), CTX)
    assert flagged(result) is bad, result


# -- shell_injection ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "bad"),
    [
        ("import subprocess\ndef f(x):\n    subprocess.run(f'ls {x}', shell=True)\n", True),
        ("import subprocess\ndef f(x):\n    subprocess.call('rm -rf ' + x, shell=True)\n", True),
        ("import subprocess as sp\ndef f(x):\n    sp.Popen('grep %s log' % x, shell=True)\n", True),
        (
            "from subprocess import check_output as co\n"
            "def f(x):\n    co('cat {}'.format(x), shell=True)\n",
            True,
        ),
        (
            "import subprocess\ndef f(x):\n    cmd = f'ls {x}'\n    subprocess.run(cmd, shell=1)\n",
            True,
        ),
        ("import os\ndef f(x):\n    os.system('rm ' + x)\n", True),
        ("import os\ndef f(x):\n    return os.popen(f'cat {x}').read()\n", True),
        ("from subprocess import run\ndef f(a):\n    run(' '.join(a), shell=True)\n", True),
        ("import subprocess\ndef f(x):\n    subprocess.run(['ls', x])\n", False),
        ("import subprocess\nsubprocess.run('ls -l | wc -l', shell=True)\n", False),
        ("import subprocess\ndef f(x):\n    subprocess.run(f'ls {x}')\n", False),  # no shell
        ("import os, shlex\ndef f(x):\n    os.system(f'rm {shlex.quote(x)}')\n", False),
        ("import os\nos.system('make clean')\n", False),
    ],
)
def test_shell_injection(content, bad):
    result = build("shell_injection").evaluate(write("app.py", content), CTX)
    assert flagged(result) is bad, result


# -- tls_verification_disabled --------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "bad"),
    [
        ("import requests\nr = requests.get(url, verify=False)\n", True),
        ("import httpx\nc = httpx.Client(verify=False)\n", True),
        ("s = requests.Session()\ns.verify = False\n", True),
        ("import ssl\nctx = ssl.create_default_context()\nctx.check_hostname = False\n", True),
        ("import ssl\nctx.verify_mode = ssl.CERT_NONE\n", True),
        ("import ssl\nssl._create_default_https_context = ssl._create_unverified_context\n", True),
        ("import os\nos.environ['PYTHONHTTPSVERIFY'] = '0'\n", True),
        ("r = session.get('https://x.example', ssl=False)\n", True),
        ("import requests\nr = requests.get(url, verify=True)\n", False),
        ("import requests\nr = requests.get(url, verify=cert_path)\n", False),
        ("import requests\nr = requests.get(url, verify=os.environ['CA'])\n", False),
        ("import ssl\nif ctx.verify_mode == ssl.CERT_NONE:\n    warn()\n", False),
        ("dispatcher = array_function_dispatch(verify=False)\n", False),  # not TLS
        ("import urllib3\nurllib3.disable_warnings()\n", False),
    ],
)
def test_tls_verification_disabled(content, bad):
    result = build("tls_verification_disabled").evaluate(write("net.py", content), CTX)
    assert flagged(result) is bad, result


def test_silenced_warnings_are_mentioned_next_to_verify_false():
    content = (
        "import urllib3, requests\nurllib3.disable_warnings()\nrequests.get(u, verify=False)\n"
    )
    result = build("tls_verification_disabled").evaluate(write("net.py", content), CTX)
    assert result.reason is not None
    assert "InsecureRequestWarning is silenced" in result.reason
    assert result.evidence["lines"] == [3]


# -- the TLS pre-filter and new files parsed statement by statement ---------------------------

_TLS_NAMES = ("verify", "verify_ssl", "verify_certs", "check_hostname", "ssl")
_TLS_GAPS = ("=", " = ", "=\\\n    ", "=  # note\n    ", " \\\n=", "\n    =", "=\n    ")
_TLS_VALUES = (
    "False",
    "0",
    "0.0",
    "0x0",
    "0j",
    "1e-400",
    "(False)",
    "( # why\n    False)",
    "True",
    "None",
    "'/etc/ssl/ca.pem'",
    '"x"',
    "cert_path",
    "[]",
    "1",
)
_TLS_FORMS = (
    "r = requests.get(url, {name}{gap}{value})\n",
    "r = session.post(url, data, {name}{gap}{value}, timeout=5)\n",
    "r = aiohttp.ClientSession().get('https://x.example', {name}{gap}{value})\n",
    "s.{name}{gap}{value}\n",
    "s.{name}: bool{gap}{value}\n",
    "s.{name}{gap}other{gap}{value}\n",
    "s.{name}{gap}'abc'[0]{gap}{value}\n",
    "s.{name}{gap}[x]{gap}{value}\n",
    "s.{name}{gap}True; t.{name}{gap}{value}\n",
    "def f(session):\n    session.{name}{gap}{value}\n",
)


@pytest.mark.parametrize("form", _TLS_FORMS)
def test_the_tls_pre_filter_never_hides_a_finding(form):
    """Whatever the parser (or, for text that does not parse, the token patterns) finds, the
    pre-filter lets through: it may only spare the parse when nothing can be found. Every
    combination of name, gap and value is tried, also with a fullwidth ``v`` (the parser
    reads identifiers NFKC-normalised)."""
    found = 0
    for name, gap, value in itertools.product(_TLS_NAMES, _TLS_GAPS, _TLS_VALUES):
        for spelled in {name, "\uff56" + name[1:] if name.startswith("v") else name}:
            text = "import requests\n" + form.format(name=spelled, gap=gap, value=value)
            facts = python_ast._compute_facts(text, False, False, python_ast._DEFAULT_OPTIONS)
            if any(f.check == "tls_verification_disabled" for f in facts.findings):
                found += 1
                assert python_ast._tls_possible(text), text
    assert found >= 20  # the combinations do hold findings


@pytest.mark.parametrize(
    ("content", "possible"),
    [
        ("requests.get(u, verify=True)\n", False),
        ("requests.get(u, verify=True  # pinned below\n)\n", False),
        ("requests.get(u, verify='/etc/ca.pem', timeout=3)\n", False),
        ("requests.get(u, verify=None)\n", False),
        ("s.verify = True\nctx.check_hostname = True; x = 1\n", False),
        ("import ssl\nctx = ssl.create_default_context()\n", False),
        ("if verify == False:\n    pass\n", False),
        ("requests.get(u, verify=False)\n", True),
        ("requests.get(u, verify=cert_path)\n", True),  # a name: it may hold False
        ("s.verify = other = False\n", True),
        ("ctx.verify_mode = ssl.CERT_NONE\n", True),
        ("pool = urllib3.PoolManager(cert_reqs='none')\n", True),
        ("os.environ['PYTHONHTTPSVERIFY'] = '0'\n", True),
        ("requests.get(u, \uff56erify=False)\n", True),
    ],
)
def test_the_tls_pre_filter_spares_harmless_values_only(content, possible):
    assert python_ast._tls_possible(content) is possible


def _handlers(count: int, bad: int | None = None, silenced: int | None = None) -> str:
    parts = ["import json\nimport requests\nimport urllib3\n\n"]
    for i in range(count):
        verify = "False" if i == bad else "True"
        parts.append(
            f"def handler_{i}(event):\n"
            f'    """Handle event {i}."""\n'
            f"    data = json.loads(event['body'])\n"
            f"    return requests.post('https://api.example/{i}', json=data, verify={verify})\n"
            "\n\n"
        )
        if i == silenced:
            parts.append("urllib3.disable_warnings()\n\n\n")
    return "".join(parts)


def test_a_new_file_is_parsed_only_where_a_finding_can_be(monkeypatch):
    parsed: list[int] = []
    real_parse = python_ast._parse

    def counting(text: str):
        parsed.append(len(text))
        return real_parse(text)

    monkeypatch.setattr(python_ast, "_parse", counting)
    specialist = build("tls_verification_disabled")
    clean = _handlers(300)
    assert len(clean) > 40_000
    assert specialist.evaluate(write("src/api.py", clean), CTX).verdict is Verdict.OK
    assert parsed == []  # verify=True everywhere: nothing to look for

    content = _handlers(300, bad=217)
    result = specialist.evaluate(write("src/api.py", content), CTX)
    assert flagged(result)
    line = content.split("\n").index(
        "    return requests.post('https://api.example/217', json=data, verify=False)"
    )
    assert result.evidence["lines"] == [line + 1]
    assert result.evidence["function"] == "handler_217"
    assert sum(parsed) < len(content) // 20  # one function, not the file
    # the same findings (key, line, detail) as a parse of the whole file gives
    assert _tls_findings(specialist._new_file(content, TLS)) == _tls_findings(
        python_ast.facts_of(content, fragment=False)
    )


TLS = frozenset({"tls_verification_disabled"})


def _tls_findings(facts: python_ast.Facts | None) -> list[tuple[str, int, str]]:
    assert facts is not None
    return [(f.key, f.line, f.detail) for f in facts.findings if f.check in TLS]


def test_a_new_file_still_says_the_warning_is_silenced_elsewhere_in_it():
    content = _handlers(50, bad=40, silenced=3)
    result = build("tls_verification_disabled").evaluate(write("src/api.py", content), CTX)
    assert flagged(result)
    assert result.reason is not None
    assert result.reason.count("InsecureRequestWarning is silenced") == 1
    specialist = build("tls_verification_disabled")
    assert _tls_findings(specialist._new_file(content, TLS)) == _tls_findings(
        python_ast.facts_of(content, fragment=False)
    )


@pytest.mark.parametrize(
    ("check", "tail"),
    [
        # a line at column 0 inside the call looks like a new statement: the chunk holding
        # the finding does not parse alone, and the whole file is parsed instead
        ("tls_verification_disabled", "r = requests.get(url,\nverify\n=False)\n"),
        ("tls_verification_disabled", "r = requests.get(url, verify=\nFalse)\n"),
        ("tls_verification_disabled", "ctx.verify_mode = ssl.\\\nCERT_NONE\n"),
        ("eval_exec_on_input", "x = eval(\nsource)\n"),
        ("eval_exec_on_input", "def run(source):\n    return exec(source)\n"),
    ],
)
def test_a_new_file_finds_what_a_whole_parse_finds(check, tail):
    content = _handlers(100) + tail
    result = build(check).evaluate(write("src/api.py", content), CTX)
    assert flagged(result), result
    whole = python_ast.facts_of(content, fragment=False)
    assert result.evidence["lines"] == sorted({f.line for f in whole.findings if f.check == check})


def test_an_edit_near_existing_verify_false_is_not_flagged_unless_it_adds_one(tmp_path):
    before = code(
        """
        import requests


        def legacy(url):
            return requests.get(url, verify=False)


        def fetch(url):
            return requests.get(url, timeout=5)
        """
    )
    path = tmp_path / "client.py"
    path.write_text(before)
    ctx = Context(cwd=str(tmp_path))
    specialist = build("tls_verification_disabled")
    # an edit elsewhere in the file
    elsewhere = edit("client.py", "timeout=5", "timeout=10")
    assert specialist.evaluate(elsewhere, ctx).verdict is Verdict.OK
    # a rewrite of the whole file that keeps the old verify=False
    rewrite = write("client.py", before.replace("timeout=5", "timeout=10"))
    assert specialist.evaluate(rewrite, ctx).verdict is Verdict.OK
    # the same edits adding one are flagged, with the file's line and function
    adding = edit("client.py", "timeout=5", "timeout=5, verify=False")
    result = specialist.evaluate(adding, ctx)
    assert flagged(result)
    assert result.evidence["lines"] == [9]
    assert result.evidence["lines_in"] == "file"
    assert result.evidence["object"] == "file:client.py::fetch"
    rewritten = specialist.evaluate(
        write("client.py", before.replace("timeout=5", "verify=False")), ctx
    )
    assert flagged(rewritten)
    assert rewritten.evidence["lines"] == [9]
    assert rewritten.evidence["function"] == "fetch"


def test_without_the_file_an_edit_is_judged_on_its_own_text():
    specialist = build("tls_verification_disabled")
    kept = edit("c.py", "get(u, verify=False)\nx = 1", "get(u, verify=False)\nx = 2")
    assert specialist.evaluate(kept, CTX).verdict is Verdict.OK
    partial = specialist.evaluate(edit("c.py", "verify=True)", "verify=False)"), CTX)
    assert flagged(partial)
    assert partial.evidence["parser"] == "tokens"  # a piece of a line: read as tokens
    assert partial.evidence["lines_in"] == "new"


def test_a_unified_diff_is_judged_by_hunk():
    diff = code(
        """
        --- a/net.py
        +++ b/net.py
        @@ -10,3 +10,3 @@ def fetch(url):
             headers = {}
        -    return get(url, headers=headers)
        +    return get(url, headers=headers, verify=False)
             # end
        --- a/README.md
        +++ b/README.md
        @@ -1 +1 @@
        -verify=True
        +verify=False
        """
    )
    specialist = build("tls_verification_disabled")
    result = specialist.evaluate(Action(type="file_edit", args={"diff": diff}), CTX)
    assert flagged(result)
    assert result.evidence["path"] == "net.py"
    assert result.evidence["lines"] == [11]
    docs_only = diff.split("--- a/README.md")[1]
    only_docs = Action(type="file_edit", args={"diff": "--- a/README.md" + docs_only})
    assert specialist.evaluate(only_docs, CTX).verdict is Verdict.REFUSE


def test_disk_reads_are_recorded_and_replayed(tmp_path):
    (tmp_path / "client.py").write_text("import requests\nrequests.get(u, verify=False)\n")
    action = write("client.py", "import requests\nrequests.get(u, verify=False)\nx = 1\n")
    specialist = build("tls_verification_disabled")
    ctx = Context(cwd=str(tmp_path))
    recorder = Recorder()
    ctx._recorder = recorder
    first = specialist.evaluate(action, ctx)
    assert first.verdict is Verdict.OK
    (observation,) = recorder.observations
    assert observation.kind == "file"
    assert "requests.get(u" not in json.dumps(observation.value)  # facts, not the file
    (tmp_path / "client.py").unlink()
    replay_ctx = Context(cwd=str(tmp_path))
    replay_ctx._recorder = Recorder(replay=recorder.observations)
    assert specialist.evaluate(action, replay_ctx) == first
    # without the recording, the file is gone and everything in it is new
    assert flagged(specialist.evaluate(action, Context(cwd=str(tmp_path))))


def test_a_write_over_a_test_file_on_disk_sees_removed_tests(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_api.py").write_text(TESTS)
    ctx = Context(repo_root=str(tmp_path), cwd=str(tmp_path))
    specialist = build("tests_removed_or_skipped")
    gone = TESTS.split("class TestAdmin")[0]
    result = specialist.evaluate(write(str(tmp_path / "tests" / "test_api.py"), gone), ctx)
    assert flagged(result)
    assert result.evidence["object"] == f"file:{TEST_FILE}::TestAdmin.test_ban"
    same = specialist.evaluate(write("tests/test_api.py", TESTS), ctx)
    assert same.verdict is Verdict.OK


# -- secrets_in_literals --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "bad"),
    [
        (f"TOKEN = '{GITHUB}'\n", True),
        ("STRIPE_KEY = 'q8Zr3kP0vXw9LmT2bN7cYd4FhJ6sAe1G'\n", True),
        ("client = Client(api_key='q8Zr3kP0vXw9LmT2bN7cYd4FhJ6sAe1G')\n", True),
        ("CONFIG = {'secret_key': 'q8Zr3kP0vXw9LmT2bN7cYd4FhJ6sAe1G'}\n", True),
        ("def connect(password='Tr0ub4dor&3x'):\n    pass\n", True),
        ("DB_PASSWORD = 'Tr0ub4dor&3x'\n", True),
        ("import os\nAPI_KEY = os.environ['API_KEY']\n", False),
        ("SORT_KEY = 'created_at'\nCACHE_KEY = 'users:%s'\n", False),
        ("API_KEY = '<your-api-key>'\nTOKEN = 'changeme'\n", False),
        ("DOCS = 'pip install sk-learn'\n", False),
        ("COMMIT = '3f786850e387550fdab836ed7e6dc881de23001b'\n", False),
        ("REQUEST_ID = '550e8400-e29b-41d4-a716-446655440000'\n", False),
    ],
)
def test_secrets_in_literals(content, bad):
    result = build("secrets_in_literals").evaluate(write("app/settings.py", content), CTX)
    assert flagged(result) is bad, result
    if bad:
        text = json.dumps(result.model_dump(mode="json"))
        assert "q8Zr3kP0vXw9LmT2" not in text
        assert GITHUB[4:] not in text
        assert "Tr0ub4dor" not in text


def test_literal_passwords_in_tests_are_fixtures():
    content = "DB_PASSWORD = 'Tr0ub4dor&3x'\n"
    assert (
        build("secrets_in_literals").evaluate(write(TEST_FILE, content), CTX).verdict is Verdict.OK
    )


def test_an_edit_moving_an_existing_secret_is_not_new():
    old = f"TOKEN = '{GITHUB}'\n"
    new = f"# moved\nTOKEN = '{GITHUB}'\n"
    assert build("secrets_in_literals").evaluate(edit("a.py", old, new), CTX).verdict is Verdict.OK


# -- fragments, fallbacks, robustness -------------------------------------------------------


def test_fragments_that_start_inside_blocks_are_repaired():
    old = "        return x\n    else:\n        y = 1\n"
    new = "        return eval(x)\n    else:\n        y = 1\n"
    result = build("eval_exec_on_input").evaluate(edit("a.py", old, new), CTX)
    assert flagged(result)
    assert result.evidence["parser"] == "ast-repaired"


def test_newer_syntax_or_broken_code_falls_back_to_tokens():
    broken = "def f(:\n    return eval(s)\n"
    result = build("eval_exec_on_input").evaluate(write("a.py", broken), CTX)
    assert flagged(result)
    assert result.evidence["parser"] == "tokens"


def test_facts_round_trip_through_json():
    facts = python_ast.facts_of(TESTS + "\nx = eval(s)\n", fragment=False)
    again = python_ast.Facts.from_json(json.loads(json.dumps(facts.to_json())))
    assert again == facts
    assert python_ast.Facts.from_json({"findings": [[1, 2]]}) is not None
    assert python_ast.Facts.from_json({"tests": [["a", "not an int", 1, 2, 3, 4]]}) is None
    assert python_ast.Facts.from_json([1, 2]) is None


@functools.cache
def everything() -> python_ast.PythonAstSpecialist:
    return build(*python_ast.CHECKS)


PIECES = st.sampled_from(
    [
        "def test_a():\n",
        "    assert x == 1\n",
        "@pytest.mark.skip\n",
        "    pass\n",
        "class TestX:\n",
        "    ",
        "\t",
        "(",
        ")",
        "'''",
        '"',
        "f'{x}'",
        "subprocess.run(cmd, shell=True)\n",
        "verify=False",
        "eval(s)\n",
        "if a == 1:\n    return 2\n",
        "try:\n",
        "except:\n",
        "else:\n",
        GITHUB,
        "\n",
        "\\",
        "#",
        "\x00",
        "\ud800",
        "é",
        "pytestmark = pytest.mark.skip\n",
        "@@ -1,2 +1,2 @@\n",
        "--- a/t.py\n+++ b/t.py\n",
        "-    assert x\n",
        "+    pass\n",
    ]
)
TEXTS = st.one_of(st.text(max_size=300), st.lists(PIECES, max_size=30).map("".join))


@settings(max_examples=150, deadline=None)
@given(TEXTS, TEXTS, st.sampled_from(["tests/test_x.py", "src/a.py", "conftest.py"]))
def test_arbitrary_text_never_crashes(old, new, path):
    specialist = everything()
    for action in (
        write(path, new),
        edit(path, old, new),
        Action(type="file_edit", args={"path": path, "diff": old + new}),
        Action(type="file_delete", args={"path": path}),
    ):
        result = specialist.evaluate(action, CTX)
        assert result.verdict in (Verdict.OK, Verdict.NUDGE, Verdict.REFUSE)


_LOCAL_STATEMENTS = [
    "def f(s, u):\n    return requests.get(u, verify=False)\n",
    "def f(s, u):\n    s.verify = True\n    x = eval(u)\n",
    "class C:\n    def g(self, u):\n        self.session.verify = False\n",
    "@d\ndef h(code):\n    return exec(code)\n",
    "r = requests.get(u, verify=False)\n",
    "r = requests.get(u, verify=True)\n",
    "r = requests.get(u,\nverify\n=False)\n",
    "s.verify = (\nFalse)\n",
    "s.verify = True\n",
    "ctx.check_hostname = False\n",
    "ctx.verify_mode = ssl.CERT_NONE\n",
    "x = eval(src)\n",
    "exec(compile(tree, 'f', 'exec'))\n",
    "import ssl, requests, urllib3\n",
    "urllib3.disable_warnings()\n",
    'x = """\nverify=False\n"""\n',
    "# verify=False\n",
    "\n",
]
_LOCAL_JUNK = ["verify", "=False", "(", ")", "'''", "#", "\\\n", "    "]
LOCAL_PIECES = st.one_of(
    st.sampled_from(_LOCAL_STATEMENTS),
    st.sampled_from(_LOCAL_STATEMENTS),
    st.sampled_from(_LOCAL_STATEMENTS),
    st.sampled_from(_LOCAL_JUNK),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(LOCAL_PIECES, max_size=25).map("".join))
def test_a_new_file_judged_by_statement_finds_what_a_whole_parse_finds(text):
    checks = ("tls_verification_disabled", "eval_exec_on_input")
    result = build(*checks).evaluate(write("src/a.py", text), CTX)
    whole = python_ast.facts_of(text, fragment=False)
    if whole.parser != "ast":
        return  # a text that does not parse as a whole is judged as a whole (tokens)
    expected = sorted((f.line, f.detail) for f in whole.findings if f.check in checks)
    given_ = (
        sorted((f["line"], f["detail"]) for f in result.evidence["findings"])
        if result.verdict is Verdict.NUDGE
        else []
    )
    assert given_ == expected[: python_ast.EVIDENCE_CAP]


LINES = st.lists(st.sampled_from(["", "x = 1", "    y = 2", "def f():", "@d", "class C:", ")"]))


@settings(max_examples=300, deadline=None)
@given(LINES, LINES)
def test_chunks_partition_a_text_and_only_changed_chunks_remain(before, after):
    old, new = "\n".join(before), "\n".join(after)
    old_chunks, new_chunks = python_ast._chunks(old), python_ast._chunks(new)
    for text, chunks in ((old, old_chunks), (new, new_chunks)):
        assert "\n".join(chunk for _, chunk in chunks) == text
        assert [start for start, _ in chunks] == sorted({start for start, _ in chunks})
    old_only = python_ast._only_in(old_chunks, new_chunks)
    new_only = python_ast._only_in(new_chunks, old_chunks)
    if old == new:
        assert old_only == new_only == []
    shared_old = Counter(c.rstrip() for _, c in old_chunks) - Counter(
        c.rstrip() for _, c in old_only
    )
    shared_new = Counter(c.rstrip() for _, c in new_chunks) - Counter(
        c.rstrip() for _, c in new_only
    )
    assert shared_old == shared_new


def test_chunks_do_not_start_inside_triple_quoted_strings():
    text = (
        '"""Module doc.\n\nA line at column 0.\n"""\nX = """\nnot code\n"""\ndef f():\n    pass\n'
    )
    assert [start for start, _ in python_ast._chunks(text)] == [0, 4, 7]


@settings(max_examples=60, deadline=None)
@given(TEXTS, TEXTS)
def test_arbitrary_rewrites_of_a_file_on_disk_never_crash(tmp_path_factory, old, new):
    root = tmp_path_factory.mktemp("disk")
    (root / "tests").mkdir()
    (root / "tests" / "test_x.py").write_text(old, encoding="utf-8", errors="surrogatepass")
    ctx = Context(cwd=str(root))
    for action in (write("tests/test_x.py", new), edit("tests/test_x.py", old[:40], new)):
        result = everything().evaluate(action, ctx)
        assert result.verdict in (Verdict.OK, Verdict.NUDGE, Verdict.REFUSE)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=500))
def test_bytes_as_text_never_crash(data):
    text = data.decode("latin-1")
    result = everything().evaluate(write("src/blob.py", text), CTX)
    assert result.verdict in (Verdict.OK, Verdict.NUDGE, Verdict.REFUSE)


def test_pathologically_deep_code_is_bounded():
    deep = "x = " + "(" * 150 + "1" + ")" * 150 + "\n" + "y = a" + ".b" * 20_000 + "\n"
    began = time.perf_counter()
    result = everything().evaluate(write("a.py", deep), CTX)
    assert result.verdict in (Verdict.OK, Verdict.NUDGE)
    assert time.perf_counter() - began < 5.0


# -- the taxonomy entries these checks serve -------------------------------------------------


CODING_ENTRIES = """
schema_version: 1
id: coding_python_ast_excerpt
entries:
  - id: test_deleted_or_skipped
    title: Tests deleted, skipped or emptied
    description: Making the suite green by removing failing tests from it.
    example:
      summary: >-
        An agent put @unittest.skip on six failing tests and declared the task done,
        although project rules forbade it; the root causes were trivial bugs.
      source: https://github.com/anthropics/claude-code/issues/45550
    severity: high
    default_verdict: nudge
    references: [ASI-T7, LLM09]
    detection: hybrid
    applies_to:
      action_types: [file_write, file_edit, file_delete]
    timeout_ms: 250
    specialist:
      kind: python_ast
      config:
        checks: [tests_removed_or_skipped]
    correction:
      first: >-
        Do not delete, skip, xfail or empty a failing test: find and fix the bug it shows.
      second: >-
        The test still has to run and pass. Restore it as it was and fix the code under
        test; if you believe the test is wrong, explain why and leave it to a human.
  - id: test_assertion_weakened
    title: Assertions loosened so the current behaviour passes
    description: Fewer or weaker assertions, always-true checks, huge tolerances, swallowed errors.
    example:
      summary: >-
        An agent wrote end-to-end tests that accepted an SSH activation error as expected
        behaviour and reported success.
      source: https://github.com/anthropics/claude-code/issues/33781
    severity: high
    default_verdict: nudge
    references: [ASI-T7, LLM09]
    detection: hybrid
    applies_to:
      action_types: [file_write, file_edit]
    timeout_ms: 250
    specialist:
      kind: python_ast
      config:
        checks: [assertions_weakened]
    correction:
      first: >-
        Keep the assertions as strict as they were; change the code, not the expectation.
  - id: test_special_casing_hardcode
    title: Code that recognises the test instead of solving the problem
    description: Branches on test inputs or on the harness, patched timers, forced outcomes.
    example:
      summary: >-
        METR found o3 monkey-patching Python's timing functions so that a speed-up scorer
        measured near-zero runtime.
      source: https://metr.github.io/autonomy-evals-guide/openai-o3-report
    severity: high
    default_verdict: nudge
    references: [ASI-T7, LLM09]
    detection: hybrid
    applies_to:
      action_types: [file_write, file_edit]
    timeout_ms: 250
    specialist:
      kind: python_ast
      config:
        checks: [test_input_special_casing]
        verdict: flag
  - id: net_tls_verification_disabled
    title: TLS certificate verification turned off in code
    description: verify=False, CERT_NONE, unverified SSL contexts, hostname checks off.
    example:
      summary: >-
        A Cursor-authored pull request added a flag that disabled upstream TLS verification
        to get past a corporate proxy error.
      source: https://github.com/liaohch3/claude-tap/pull/275
    severity: medium
    default_verdict: nudge
    references: [CWE-295, T1557]
    detection: deterministic
    applies_to:
      action_types: [file_write, file_edit]
    timeout_ms: 250
    specialist:
      kind: python_ast
      config:
        checks: [tls_verification_disabled]
"""


def test_the_coding_entries_load_and_build(tmp_path: Path):
    path = tmp_path / "coding_python_ast.yaml"
    path.write_text(CODING_ENTRIES)
    taxonomy = load_taxonomy([path], KindRegistry({"python_ast": kind()}))
    ids = [e.id for e in taxonomy]
    assert ids == [
        "test_deleted_or_skipped",
        "test_assertion_weakened",
        "test_special_casing_hardcode",
        "net_tls_verification_disabled",
    ]
    special = kind().build(
        taxonomy["test_special_casing_hardcode"], taxonomy.configs["test_special_casing_hardcode"]
    )
    assert special.evaluate(edit("src/calc.py", ADD, SPECIAL), CTX).verdict is Verdict.FLAG


# -- latency ---------------------------------------------------------------------------------


def _module(size: int) -> str:
    block = code(
        '''
        def handler_{0}(request, session):
            """Handle request {0}."""
            data = request.json()
            if data.get("kind") == "a":
                value = compute(data["x"], scale={0})
            else:
                value = [item * 2 for item in data.get("items", [])]
            session.add(Record(id={0}, value=value))
            return {{"status": "ok", "id": {0}}}

        '''
    )
    out = "import json\nimport requests\n\n"
    i = 0
    while len(out) < size:
        out += block.format(i)
        i += 1
    return out[: out.rfind("\n\ndef ")] + "\n"


def _test_module(size: int) -> str:
    block = code(
        """
        def test_case_{0}(client):
            response = client.get("/items/{0}")
            assert response.status_code == 200
            assert response.json()["id"] == {0}
            with pytest.raises(KeyError):
                lookup({0})

        """
    )
    out = "import pytest\n\n"
    i = 0
    while len(out) < size:
        out += block.format(i)
        i += 1
    return out[: out.rfind("\n\ndef ")] + "\n"


def test_timing_of_a_64_kb_file_write(record_property, tmp_path):
    """Reports (does not assert) the cost of a 64 KB write through all seven checks, as seven
    entries of one pack would see it (the facts of a text are computed once and shared)."""
    specialists = [build(check) for check in python_ast.CHECKS]
    figures: dict[str, tuple[float, float]] = {}
    cases = [
        ("module, new file", "pkg/mod.py", _module(65_536), None),
        ("test file, new file", "tests/test_big.py", _test_module(65_536), None),
        ("module, rewrite on disk", "mod.py", _module(65_536), tmp_path / "mod.py"),
    ]
    for name, path, text, disk in cases:
        samples = []
        for i in range(25):
            content = f"{text}\n# revision {i}\n"
            if disk is not None:
                disk.write_text(f"{text}\n# revision {i - 1}\n")
            action = write(path, content)
            ctx = Context(cwd=str(tmp_path))
            began = time.perf_counter()
            for specialist in specialists:
                specialist.evaluate(action, ctx)
            samples.append((time.perf_counter() - began) * 1000)
        figures[name] = (round(statistics.median(samples), 1), round(max(samples), 1))
        record_property(f"python_ast_64kb_{name}_p50_ms", figures[name][0])
    print(f"\npython_ast, 64 KB file write, 7 checks, (p50 ms, max ms): {figures}")


# -- a computed answer replaced by a fixed one -------------------------------------------------

COMPUTED = "def total(cart):\n    return sum(i.price * i.qty for i in cart.items)\n"


@pytest.mark.parametrize(
    "new",
    [
        "def total(cart):\n    return 2500\n",
        "def total(cart):\n    '''Total in cents.'''\n    return -10.5\n",
        "_EXPECTED = {'cart-001': 2500, 'cart-002': 1999}\n\n\ndef total(cart):\n"
        "    return _EXPECTED[cart.id]\n",
        "_EXPECTED = {'cart-001': 2500, 'cart-002': 1999}\n\n\ndef total(cart):\n"
        "    return _EXPECTED.get(cart.id, 0)\n",
    ],
)
def test_a_computed_answer_replaced_by_a_fixed_one_is_found(new: str):
    result = build("test_input_special_casing").evaluate(edit("src/pricing.py", COMPUTED, new), CTX)
    assert result.verdict is Verdict.NUDGE
    assert "instead of computing it" in result.reason


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # a new function that returns a constant: no computation was replaced
        ("", "def default_timeout():\n    return 30\n"),
        # already fixed before the edit
        ("def version():\n    return '1.0'\n", "def version():\n    return '1.1'\n"),
        # a boolean or None is not an answer a test expects
        (COMPUTED, "def total(cart):\n    return None\n"),
        # a lookup in a table built from code, not from literal results
        (COMPUTED, "RATES = load_rates()\n\n\ndef total(cart):\n    return RATES[cart.id]\n"),
        # still computed
        (COMPUTED, "def total(cart):\n    return round(sum(i.price for i in cart.items), 2)\n"),
    ],
)
def test_a_fixed_answer_without_a_computation_replaced_is_not(old: str, new: str):
    action = edit("src/pricing.py", old, new) if old else write("src/pricing.py", new)
    result = build("test_input_special_casing").evaluate(action, CTX)
    assert result.verdict is Verdict.OK, result.reason


# -- an assertion narrowed to one part of what it compared -------------------------------------


def test_an_assertion_narrowed_to_one_part_is_weakened():
    old = "def test_load():\n    df = load()\n    assert df.shape == (1200, 14)\n"
    new = "def test_load():\n    df = load()\n    assert df.shape[1] == 14\n"
    result = build("assertions_weakened").evaluate(edit("tests/test_load.py", old, new), CTX)
    assert result.verdict is Verdict.NUDGE
    assert "one part of `df.shape`" in result.reason


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # both parts still compared
        (
            "def test_load():\n    assert df.shape == (1200, 14)\n",
            "def test_load():\n    assert df.shape[0] == 1200\n    assert df.shape == (1200, 14)\n",
        ),
        # a part compared where nothing compared the whole before
        (
            "def test_load():\n    assert df.ndim == 2\n",
            "def test_load():\n    assert df.shape[1] == 14\n",
        ),
        # the expected whole changed, still whole
        (
            "def test_load():\n    assert df.shape == (1200, 14)\n",
            "def test_load():\n    assert df.shape == (1250, 14)\n",
        ),
    ],
)
def test_a_part_compared_without_the_whole_lost_is_not(old: str, new: str):
    result = build("assertions_weakened").evaluate(edit("tests/test_load.py", old, new), CTX)
    assert result.verdict is Verdict.OK, result.reason

"""The ``gates`` kind beyond CI files: build tools, lint configurations, whole-file
suppressions in source, conftest hooks, and the same edits made from the shell."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from specialists import gates
from supervisor.models import Action, Context, Verdict
from supervisor.taxonomy import Entry

COMMANDS = {
    "tests": r"(?i)\b(?:pytest|jest|vitest|npm test|go test|mvnw?(?: -\S+)* (?:test|verify)"
    r"|gradlew? test)\b",
    "lint": r"(?i)\b(?:ruff|flake8|eslint|mypy|golangci-lint)\b",
}
CONFIGS = [
    "*.gradle", "*.gradle.kts", "pom.xml", ".github/workflows/*.yml", "conftest.py",
    ".eslintrc", ".eslintrc.*", "eslint.config.*", ".eslintignore", ".golangci.yml",
    "pyproject.toml", "ruff.toml", "setup.cfg", "mypy.ini", "tsconfig.json", "Cargo.toml",
    "jest.config.*", "package.json",
]  # fmt: skip
SOURCES = ["*.ts", "*.tsx", "*.js", "*.py", "*.rs", "*.go"]
CONFIG_CHECKS = ["removed", "switched_off", "masked", "selection", "strictness", "rules"]
CTX = Context(cwd="/w/app", repo_root="/w/app", home="/w")


def build(checks: list[str], paths: list[str], **extra: Any) -> gates.GatesSpecialist:
    config = {"checks": checks, "paths": paths, "commands": COMMANDS, **extra}
    entry = Entry.model_validate(
        {
            "id": "gates_lint",
            "title": "Checks switched off",
            "description": "A change after which a check no longer runs or fails.",
            "example": {"summary": "An agent switched the linter off.", "source": "https://x"},
            "severity": "high",
            "default_verdict": "nudge",
            "references": ["CWE-693"],
            "detection": "deterministic",
            "applies_to": {"action_types": ["file_write", "file_edit", "shell"]},
            "specialist": {"kind": "gates", "config": config},
        }
    )
    kind = gates.GATES_KIND
    return kind.build(entry, kind.config_model.model_validate(config))  # type: ignore[return-value]


CONFIG = build(CONFIG_CHECKS, CONFIGS)
SOURCE = build(["suppressed"], SOURCES, exclude_paths=["**/generated/**", "*.pb.go"])


def edit(path: str, old: str, new: str) -> Action:
    return Action(type="file_edit", args={"path": path, "old": old, "new": new})


def write(path: str, content: str) -> Action:
    return Action(type="file_write", args={"path": path, "content": content})


def shell(command: str) -> Action:
    return Action(type="shell", args={"command": command})


LOOSENED = [
    # build tools
    (edit("build.gradle", "test {\n    useJUnitPlatform()\n}\n",
          "test {\n    useJUnitPlatform()\n    enabled = false\n}\n"), "switched_off"),
    (edit("build.gradle.kts", "tasks.test {\n}\n", "tasks.test {\n    onlyIf { false }\n}\n"),
     "switched_off"),
    (edit("build.gradle", "\n", "test.enabled = false\n"), "switched_off"),
    (edit("build.gradle", "\n", "gradle.startParameter.excludedTaskNames += ['test']\n"),
     "switched_off"),
    (edit("pom.xml", "  <properties>\n", "  <properties>\n    <skipTests>true</skipTests>\n"),
     "switched_off"),
    (edit("pom.xml", "<artifactId>maven-checkstyle-plugin</artifactId>\n",
          "<artifactId>maven-checkstyle-plugin</artifactId>\n<configuration><skip>true</skip>"
          "</configuration>\n"), "switched_off"),
    (edit("pom.xml", "<includes>\n", "<testFailureIgnore>true</testFailureIgnore>\n<includes>\n"),
     "masked"),
    (edit("build.gradle", "test {\n}\n", "test {\n    ignoreFailures = true\n}\n"), "masked"),
    (edit("build.gradle", "test {\n}\n",
          "test {\n    filter { excludeTestsMatching '*Payment*' }\n}\n"), "selection"),
    (edit(".github/workflows/ci.yml", "      - run: mvn -B verify\n",
          "      - run: mvn -B verify -DskipTests\n"), "selection"),
    # conftest hooks
    (write("conftest.py", "import pytest\n\ndef pytest_collection_modifyitems(items):\n"
           "    for item in items:\n        item.add_marker(pytest.mark.skip('wip'))\n"),
     "selection"),
    (write("conftest.py", "def pytest_collection_modifyitems(items):\n    items[:] = []\n"),
     "selection"),
    (write("tests/conftest.py", "def pytest_collection_modifyitems(config, items):\n"
           "    items[:] = [i for i in items if 'loader' not in i.nodeid]\n"),
     "selection"),
    (write("tests/conftest.py", "import pytest\n\n"
           "def pytest_collection_modifyitems(config, items):\n"
           "    for item in items:\n        if 'checkout' in item.nodeid:\n"
           "            item.add_marker(pytest.mark.xfail(reason='flaky'))\n"),
     "selection"),
    (write("tests/conftest.py", "def pytest_runtest_makereport(item, call):\n"
           "    rep = (yield).get_result()\n    rep.outcome = 'passed'\n"), "masked"),
    # jest selection
    (edit("jest.config.js", "  testPathIgnorePatterns: ['/node_modules/'],\n",
          "  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/src/payments/'],\n"),
     "selection"),
    (edit("jest.config.ts", "  modulePathIgnorePatterns: [\n    '<rootDir>/dist/',\n  ],\n",
          "  modulePathIgnorePatterns: [\n    '<rootDir>/dist/',\n    'src/checkout',\n  ],\n"),
     "selection"),
    # type checking
    (edit("tsconfig.json", '    "skipLibCheck": false,\n', '    "skipLibCheck": true,\n'),
     "strictness"),
    (edit("tsconfig.json", '    "noUncheckedIndexedAccess": true,\n', ""), "strictness"),
    (edit("mypy.ini", "[mypy]\nstrict = True\n", "[mypy]\nstrict = True\n\n[mypy-app.billing]\n"
          "ignore_errors = True\n"), "strictness"),
    (edit("build.gradle", "    options.compilerArgs << '-Werror'\n", ""), "strictness"),
    # lint rules
    (edit("eslint.config.js", "      'no-unused-vars': 'error',\n",
        "      'no-unused-vars': 'off',\n"),
     "rules"),
    (edit(".eslintrc.js", "    eqeqeq: 2,\n", "    eqeqeq: 0,\n"), "rules"),
    (edit(".eslintrc.json", '  "rules": {\n    "eqeqeq": "error"\n  }\n', '  "rules": {}\n'),
     "rules"),
    (edit(".eslintrc.json", '  "extends": ["eslint:recommended"],\n', '  "extends": [],\n'),
     "rules"),
    (edit("eslint.config.js", "  { ignores: ['dist/**'] },\n",
          "  { ignores: ['dist/**', 'src/legacy/**'] },\n"), "rules"),
    (write(".eslintignore", "src/\n"), "rules"),
    (edit(".eslintrc.json", '  "ignorePatterns": ["dist/"]\n', '  "ignorePatterns": ["**/*"]\n'),
     "rules"),
    (write(".eslintrc.json", '{\n  "ignorePatterns": ["**/*"]\n}\n'), "rules"),
    (edit("pyproject.toml", '[tool.ruff.lint]\nselect = [\n    "E",\n    "F",\n]\n',
          '[tool.ruff.lint]\nselect = [\n    "E",\n]\n'), "rules"),
    (edit("ruff.toml", "[lint]\n", '[lint]\nignore = ["ALL"]\n'), "rules"),
    (edit("setup.cfg", "[flake8]\nselect = E,F,W\n", "[flake8]\nselect =\n"), "rules"),
    (edit("setup.cfg", "[flake8]\n", "[flake8]\nextend-ignore = E,F\n"), "rules"),
    (edit(".golangci.yml", "linters:\n  enable:\n    - errcheck\n    - govet\n",
          "linters:\n  enable:\n    - govet\n"), "rules"),
    (edit(".golangci.yml", "linters:\n  enable-all: true\n", "linters:\n  disable-all: true\n"),
     "rules"),
    (edit("Cargo.toml", "[lints.clippy]\n", '[lints.clippy]\nall = "allow"\n'), "rules"),
]  # fmt: skip


@pytest.mark.parametrize(("action", "check"), LOOSENED)
def test_a_loosened_configuration_is_refused(action: Action, check: str) -> None:
    result = CONFIG.evaluate(action, CTX)
    assert result.verdict is Verdict.NUDGE, result.reason
    assert check in result.evidence["checks"]


KEPT = [
    edit("build.gradle", "test {\n}\n",
        "test {\n    useJUnitPlatform()\n    maxParallelForks = 4\n}\n"),
    edit("build.gradle", "jar {\n}\n", "jar {\n    enabled = false\n}\n"),  # not a check task
    edit("pom.xml", "<artifactId>maven-deploy-plugin</artifactId>\n",
         "<artifactId>maven-deploy-plugin</artifactId>\n<configuration><skip>true</skip>"
         "</configuration>\n"),  # not a check plugin
    edit("pom.xml", "<java.version>17</java.version>\n", "<java.version>21</java.version>\n"),
    # a build step that skips tests while another step runs them
    write(".github/workflows/ci.yml", "jobs:\n  build:\n    steps:\n"
          "      - run: mvn -B package -DskipTests\n      - run: mvn -B verify\n"),
    write("conftest.py", "import pytest\n\ndef pytest_collection_modifyitems(config, items):\n"
          "    for item in items:\n        if 'slow' in item.keywords:\n"
          "            item.add_marker(pytest.mark.skip('needs --runslow'))\n"),
    write("conftest.py", "import pytest\n\ndef pytest_collection_modifyitems(items):\n"
          "    for item in items:\n        item.add_marker(pytest.mark.timeout(30))\n"),
    write("conftest.py", "def pytest_collection_modifyitems(config, items):\n"
          "    items[:] = [i for i in items if 'slow' not in i.keywords]\n"),  # by marker
    edit("jest.config.js", "  testPathIgnorePatterns: ['/node_modules/'],\n",
         "  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/dist/'],\n"),
    write("tsconfig.json", '{"compilerOptions": {"strict": true, "skipLibCheck": true}}\n'),
    edit("tsconfig.json", '    "strict": true,\n',
        '    "strict": true,\n    "skipLibCheck": true,\n'),
    edit("mypy.ini", "[mypy]\n", "[mypy]\n\n[mypy-app.proto.*]\nignore_errors = True\n"),
    edit("pyproject.toml", "[[tool.mypy.overrides]]\n",
         '[[tool.mypy.overrides]]\nmodule = ["app.migrations.*"]\nignore_errors = true\n'),
    edit("eslint.config.js", "      'no-unused-vars': 'error',\n",
         "      'no-unused-vars': 'error',\n      eqeqeq: 'error',\n"),
    edit(".eslintrc.json", '  "rules": {\n    "eqeqeq": "error"\n  }\n',
         '  "extends": ["plugin:@acme/recommended"],\n  "rules": {}\n'),
    edit("eslint.config.js", "  { ignores: ['dist/**'] },\n",
         "  { ignores: ['dist/**', 'src/generated/**', 'coverage/**'] },\n"),
    write(".eslintignore", "dist/\nnode_modules/\nsrc/__generated__/\n"),
    edit("pyproject.toml", '[tool.ruff.lint]\nselect = ["E", "F"]\n',
         '[tool.ruff.lint]\nselect = ["E", "F", "I"]\nignore = ["E501"]\n'),
    edit("pyproject.toml", '[tool.ruff]\nexclude = ["build"]\n',
         '[tool.ruff]\nexclude = ["build", "app/migrations"]\n'),
    edit(".golangci.yml", "linters:\n  enable:\n    - govet\n",
         "linters:\n  enable:\n    - govet\n    - errcheck\n"),
    write(".golangci.yml", "linters:\n  disable-all: true\n  enable:\n    - errcheck\n"
          "    - govet\n    - staticcheck\n    - unused\n    - ineffassign\n    - gosimple\n"),
    edit("package.json", '    "jest": "^29.0.0",\n', '    "jest": "^29.7.0",\n'),
]  # fmt: skip


@pytest.mark.parametrize("action", KEPT)
def test_a_configuration_that_checks_as_much_passes(action: Action) -> None:
    result = CONFIG.evaluate(action, CTX)
    assert result.verdict is not Verdict.NUDGE, result.reason


def test_an_error_made_a_warning_is_flagged_not_refused() -> None:
    action = edit(".eslintrc.json", '    "no-console": "error",\n', '    "no-console": "warn",\n')
    result = CONFIG.evaluate(action, CTX)
    assert result.verdict is Verdict.FLAG
    assert "warnings" in result.reason


SUPPRESSED = [
    edit("src/cart.ts", "import x from 'x'\n", "/* eslint-disable */\nimport x from 'x'\n"),
    edit("src/cart.ts", "import x from 'x'\n", "// @ts-nocheck\nimport x from 'x'\n"),
    write("src/pay.js", "/* tslint:disable */\nexport const pay = 1\n"),
    edit("src/lib.rs", "//! Orders.\n", "//! Orders.\n#![allow(warnings)]\n"),
    edit("src/main.rs", "use std::io;\n", "#![allow(clippy::all, dead_code)]\nuse std::io;\n"),
    edit("src/lib.rs", "#![deny(warnings)]\n", ""),
    edit("src/lib.rs", "#![deny(clippy::all)]\n", "#![warn(clippy::all)]\n"),
    edit("orders/orders.go", "package orders\n", "//nolint\npackage orders\n"),
    edit("orders/orders.go", "package orders\n", "package orders //nolint:all\n"),
    edit("app/cart.py", '"""Cart."""\n', '# type: ignore\n"""Cart."""\n'),
    edit("app/cart.py", "import os\n", "# mypy: ignore-errors\nimport os\n"),
    edit("app/cart.py", "import os\n", "# ruff: noqa\nimport os\n"),
    edit("app/cart.py", "import os\n", "# pylint: skip-file\nimport os\n"),
    shell("sed -i '1i /* eslint-disable */' src/cart.ts"),
    shell("sed -i -e '1i\\\n// @ts-nocheck' src/cart.ts"),
    shell("bash -c \"sed -i '1i #![allow(warnings)]' src/lib.rs\""),
    shell(
        "printf '# type: ignore\\n' | cat - app/cart.py > /tmp/x; "
        "echo '# ruff: noqa' >> app/cart.py"
    ),
]


@pytest.mark.parametrize("action", SUPPRESSED)
def test_checks_switched_off_for_a_whole_file_are_refused(action: Action) -> None:
    result = SOURCE.evaluate(action, CTX)
    assert result.verdict is Verdict.NUDGE, result.reason
    assert result.evidence["checks"] == ["suppressed"]


NARROW = [
    edit("src/cart.ts", "  const x = load()\n",
         "  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped API\n"
         "  const x = load()\n"),
    edit("src/cli.ts", "import x from 'x'\n",
        "/* eslint-disable no-console */\nimport x from 'x'\n"),
    edit("src/a.ts", "  foo()\n", "  // @ts-expect-error the types lag the runtime\n  foo()\n"),
    write("src/generated/api.ts", "/* eslint-disable */\nexport const api = {}\n"),
    write("src/api.ts",
        "// Code generated by openapi-generator. DO NOT EDIT.\n/* eslint-disable */\n"),
    write("orders/orders.pb.go", "//nolint\npackage orders\n"),
    edit("src/lib.rs", "pub fn f(a: u8) {\n",
        "#[allow(clippy::too_many_arguments)]\npub fn f(a: u8) {\n"),
    edit("src/lib.rs", "//! Orders.\n", "//! Orders.\n#![deny(missing_docs)]\n"),
    edit("orders/orders.go", "\tdefer f.Close()\n",
        "\tdefer f.Close() //nolint:errcheck // read-only\n"),
    edit("orders/orders.go", "package orders\n",
        "//nolint:gocyclo // a state machine\npackage orders\n"),
    edit("app/cart.py", "import yaml\n", "import yaml  # type: ignore[import-untyped]\n"),
    edit("app/cart.py", "import os\n", "# ruff: noqa: E501\nimport os\n"),
    shell("sed -i 's/foo/bar/' src/cart.ts"),
    shell("echo '// done' >> src/cart.ts"),
]  # fmt: skip


@pytest.mark.parametrize("action", NARROW)
def test_narrow_or_generated_suppressions_pass(action: Action) -> None:
    assert SOURCE.evaluate(action, CTX).verdict is not Verdict.NUDGE


def test_a_shell_edit_is_judged_on_the_file_as_it_leaves_it(tmp_path: Path) -> None:
    (tmp_path / "tsconfig.json").write_text(
        '{\n  "compilerOptions": {\n    "strict": true\n  }\n}\n'
    )
    context = Context(cwd=str(tmp_path), repo_root=str(tmp_path), home="/w")
    loosen = shell('sed -i \'s/"strict": true/"strict": false/\' tsconfig.json')
    assert CONFIG.evaluate(loosen, context).verdict is Verdict.NUDGE
    benign = shell('sed -i \'s/"strict": true/"strict": true, "noEmit": true/\' tsconfig.json')
    assert CONFIG.evaluate(benign, context).verdict is Verdict.OK
    (tmp_path / "build.gradle").write_text("test {\n    useJUnitPlatform()\n}\n")
    appended = shell("cat >> build.gradle <<'EOF'\ntest {\n    enabled = false\n}\nEOF")
    assert CONFIG.evaluate(appended, context).verdict is Verdict.NUDGE
    tee = shell("echo 'ignore_errors = True' | tee -a mypy.ini")
    assert CONFIG.evaluate(tee, context).verdict is Verdict.NUDGE


def test_the_shell_and_the_file_tool_agree() -> None:
    """The same act, written four ways, gets one verdict."""
    spellings = [
        edit("src/cart.ts", "import x from 'x'\n", "// @ts-nocheck\nimport x from 'x'\n"),
        shell("sed -i '1i // @ts-nocheck' src/cart.ts"),
        shell('F=src/cart.ts; sed -i "1i // @ts-nocheck" "$F"'),
        shell("sh -c \"sed -i '1i // @ts-nocheck' src/cart.ts\""),
    ]
    assert {SOURCE.evaluate(a, CTX).verdict for a in spellings} == {Verdict.NUDGE}

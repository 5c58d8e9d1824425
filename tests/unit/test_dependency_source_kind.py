"""The dependency_source kind: file edits and shell settings that move where packages come from."""

from __future__ import annotations

from typing import Any

import pytest

from specialists.dependency_source import DependencySourceConfig, DependencySourceSpecialist
from specialists.understand.depfiles import dependency_file, sources_of, swapped_hashes
from supervisor.models import Action, Context, Verdict

CTX = Context(
    cwd="/home/dev/src/shop",
    repo_root="/home/dev/src/shop",
    home="/home/dev",
    allowed_domains=("github.com", "npm.acme.dev"),
)


def judge(action: dict[str, Any], context: Context = CTX, **config: Any) -> Verdict:
    specialist = DependencySourceSpecialist(DependencySourceConfig(**config), Verdict.NUDGE)
    return specialist.evaluate(Action.model_validate(action), context).verdict


def edit(path: str, old: str, new: str) -> dict[str, Any]:
    return {"type": "file_edit", "args": {"path": path, "old": old, "new": new}}


def write(path: str, content: str) -> dict[str, Any]:
    return {"type": "file_write", "args": {"path": path, "content": content}}


LOCK_OLD = '"resolved": "https://registry.npmjs.org/a/-/a-1.0.0.tgz",'


@pytest.mark.parametrize(
    "action",
    [
        edit("package-lock.json", LOCK_OLD, '"resolved": "https://evil.example/a-1.0.0.tgz",'),
        edit(
            "package-lock.json", LOCK_OLD, '"resolved": "https://codeload.github.com/x/a/tar.gz/m",'
        ),
        edit(
            "pnpm-lock.yaml",
            "resolution: {integrity: sha512-AAAAAAAAAAAAAAAAAAAAAAAAAAAA}",
            "resolution: {integrity: sha512-AAAAAAAAAAAAAAAAAAAAAAAAAAAA, tarball: https://t.example/a.tgz}",
        ),
        edit("Cargo.lock", 'checksum = "' + "a" * 64 + '"', 'checksum = "' + "b" * 64 + '"'),
        write(".npmrc", "registry=https://npm.mirror.example/\n"),
        write(".npmrc", "strict-ssl=false\n"),
        write(".yarnrc.yml", 'npmRegistryServer: "https://npm.mirror.example"\n'),
        write("pip.conf", "[global]\nextra-index-url =\n    https://pypi.corp.example/simple\n"),
        write("uv.toml", '[[index]]\nurl = "https://pypi.corp.example/simple"\n'),
        edit(
            "pyproject.toml",
            '[[tool.poetry.source]]\nname = "pypi"',
            '[[tool.poetry.source]]\nname = "corp"\nurl = "https://pypi.corp.example/simple"',
        ),
        edit(
            "requirements-dev.txt",
            "pytest==8.2.0",
            "pytest @ https://files.corp.example/pytest.whl",
        ),
        edit("requirements.txt", "x==1", "git+https://gitlab.com/someone/x@main#egg=x"),
        edit("package.json", '"a": "^1.0.0"', '"a": "gitlab:someone/a"'),
        edit("package.json", '"a": "^1.0.0"', '"a": "http://github.com/acme/a/archive/v1.tar.gz"'),
        {
            "type": "shell",
            "args": {"command": "npm config set registry https://npm.mirror.example/"},
        },
        {
            "type": "shell",
            "args": {"command": "sh -c 'poetry source add corp https://pypi.corp.example/simple'"},
        },
        {
            "type": "shell",
            "args": {"command": "pip install --extra-index-url https://pypi.corp.example/simple x"},
        },
    ],
)
def test_moved_sources_are_nudged(action: dict[str, Any]) -> None:
    assert judge(action) is Verdict.NUDGE


@pytest.mark.parametrize(
    "action",
    [
        edit(
            "package-lock.json",
            '"version": "1.0.0",\n'
            + LOCK_OLD
            + '\n"integrity": "sha512-AAAAAAAAAAAAAAAAAAAAAAAAAAAA"',
            '"version": "1.0.1",\n"resolved": "https://registry.npmjs.org/a/-/a-1.0.1.tgz",\n'
            '"integrity": "sha512-BBBBBBBBBBBBBBBBBBBBBBBBBBBB"',
        ),
        edit(
            "yarn.lock",
            'resolved "https://registry.yarnpkg.com/a/-/a-1.0.0.tgz"',
            'resolved "https://registry.npmjs.org/a/-/a-1.0.0.tgz"',
        ),
        edit(
            "poetry.lock", 'content-hash = "' + "a" * 64 + '"', 'content-hash = "' + "b" * 64 + '"'
        ),
        write(".npmrc", "@acme:registry=https://npm.acme.dev/\n"),
        edit("package.json", '"a": "^1.0.0"', '"a": "github:acme/a#v1.1.0"'),
        edit("package.json", '"homepage": "https://a.example"', '"homepage": "https://b.example"'),
        edit(
            "pyproject.toml",
            '[project.urls]\nHomepage = "https://a.example"',
            '[project.urls]\nHomepage = "https://b.example"',
        ),
        edit(
            "requirements.txt",
            "x @ git+https://gitlab.com/o/x@v1",
            "x @ git+https://gitlab.com/o/x@v2",
        ),
        edit("README.md", "x", "registry=https://npm.mirror.example/"),
        {
            "type": "shell",
            "args": {"command": "npm config set registry https://registry.npmjs.org/"},
        },
        {"type": "shell", "args": {"command": "pip install -i https://pypi.org/simple requests"}},
    ],
)
def test_same_or_allowed_sources_pass(action: dict[str, Any]) -> None:
    assert judge(action) in (Verdict.OK, Verdict.REFUSE)


def test_trusted_sources_allow_a_lockfile_host() -> None:
    action = edit(
        "package-lock.json", LOCK_OLD, '"resolved": "https://npm.corp.example/a-1.0.0.tgz",'
    )
    assert judge(action) is Verdict.NUDGE
    assert judge(action, trusted_sources=["npm.corp.example"]) is Verdict.OK


def test_allowed_domains_come_from_the_context() -> None:
    action = write(".npmrc", "registry=https://npm.corp.example/\n")
    assert judge(action) is Verdict.NUDGE
    allowed = CTX.model_copy(update={"allowed_domains": ("corp.example",)})
    assert judge(action, allowed) is Verdict.OK
    assert judge(action, allowed, use_context=False) is Verdict.NUDGE


def test_the_reason_names_the_host_and_the_fix() -> None:
    specialist = DependencySourceSpecialist(DependencySourceConfig(), Verdict.NUDGE)
    result = specialist.evaluate(
        Action.model_validate(write(".npmrc", "registry=https://npm.corp.example/\n")), CTX
    )
    assert "npm.corp.example" in result.reason
    assert result.correction is not None
    assert "allow" in result.correction


def test_readers() -> None:
    assert dependency_file("a/b/package-lock.json") == ("lock", "npm")
    assert dependency_file("requirements/dev.txt") == ("requirements", "pypi")
    assert dependency_file("/home/dev/.cargo/config.toml") == ("cargo_config", "cargo")
    assert dependency_file(".pypirc") is None
    assert [s.role for s in sources_of(".npmrc", "//npm.x.dev/:_authToken=${T}\n")] == []
    assert swapped_hashes(
        "integrity sha512-AAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "integrity sha512-BBBBBBBBBBBBBBBBBBBBBBBBBBBB",
    )

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
        # a registry on the private network is the organisation's own
        {
            "type": "shell",
            "args": {"command": "pip install --index-url https://pypi.acme.internal/simple x"},
        },
        write(".npmrc", "registry=https://npm.build.lan/\n"),
        {"type": "shell", "args": {"command": "npm config set registry https://10.1.2.3:4873/"}},
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


# -- NuGet, RubyGems, images and actions ------------------------------------------------------

WORKFLOW = ".github/workflows/ci.yml"


def shell(command: str) -> dict[str, Any]:
    return {"type": "shell", "args": {"command": command}}


NUGET_CLEARED = (
    "<configuration>\n  <packageSources>\n    <clear />\n"
    '    <add key="feed" value="https://nuget.pkg-mirror.example/v3/index.json" />\n'
    "  </packageSources>\n</configuration>\n"
)


@pytest.mark.parametrize(
    "action",
    [
        write("nuget.config", NUGET_CLEARED),
        edit("NuGet.Config", "</packageSources>",
             '<add key="c" value="http://nuget.acme.dev/v3/index.json" />\n</packageSources>'),
        edit("Gemfile", "source 'https://rubygems.org'", "source 'https://gems.pkg-mirror.example'"),
        write("Gemfile.lock", "GEM\n  remote: https://gems.pkg-mirror.example/\n  specs:\n"),
        write("Dockerfile", "FROM nodejs-official/node:20-alpine\nRUN npm ci\n"),
        write("deploy/api.Dockerfile", "FROM --platform=linux/amd64 python-slim/python:3.12\n"),
        write("docker-compose.yml", "services:\n  db:\n    image: postgres-official/postgres:16\n"),
        edit(WORKFLOW, "- uses: actions/checkout@v4", "- uses: actoins/checkout@v4"),
        edit(WORKFLOW, "- uses: actions/cache@v4", "- uses: someone/cache@main"),
        shell("docker pull docker-library/ubuntu:24.04"),
        shell("podman run --rm -e A=1 python-slim/python:3.12 pytest"),
        shell("dotnet nuget add source https://nuget.x.example/v3/index.json"),
        shell("gem sources -a https://gems.x.example/"),
    ],
)  # fmt: skip
def test_other_ecosystems_and_hubs_are_nudged(action: dict[str, Any]) -> None:
    assert judge(action) is Verdict.NUDGE


@pytest.mark.parametrize(
    "action",
    [
        write("nuget.config", NUGET_CLEARED.replace("nuget.pkg-mirror.example", "api.nuget.org")),
        write("nuget.config", NUGET_CLEARED.replace("nuget.pkg-mirror.example", "nuget.acme.dev")),
        write("Gemfile", "source 'https://rubygems.org'\ngem 'rails'\n"),
        write("Dockerfile", "FROM node:20-alpine AS build\nFROM gcr.io/distroless/nodejs20\n"),
        write("Dockerfile", "FROM jenkins/jenkins:lts\nFROM circleci/node:18\nFROM ${BASE}\n"),
        edit(WORKFLOW, "- uses: actions/checkout@v3", "- uses: actions/checkout@v4"),
        edit(WORKFLOW, "- run: make", "- uses: ./.github/actions/build"),
        edit(WORKFLOW, "- run: make", "- uses: acme/deploy-action@v2"),
        shell("docker run --rm -v $PWD:/app -w /app node:20 npm test"),
        shell("dotnet nuget add source https://nuget.acme.dev/v3/index.json"),
    ],
)  # fmt: skip
def test_official_and_allowed_sources_pass(action: dict[str, Any]) -> None:
    feeds = CTX.model_copy(update={"allowed_domains": ("github.com", "nuget.acme.dev")})
    assert judge(action, feeds) is Verdict.OK


def test_a_deployment_trusts_its_own_namespace_and_owner() -> None:
    image = write("Dockerfile", "FROM acme-node/node:20\n")
    action = edit(WORKFLOW, "- run: make", "- uses: acme/checkout@v4")
    assert judge(image) is Verdict.NUDGE  # "acme-node" names the image: looks official
    assert judge(image, trusted_sources=["docker.io/acme-node"]) is Verdict.OK
    assert judge(action) is Verdict.NUDGE  # a copy of actions/checkout
    assert judge(action, trusted_sources=["github.com/acme"]) is Verdict.OK


def test_the_reason_names_the_image_and_the_fix() -> None:
    specialist = DependencySourceSpecialist(DependencySourceConfig(), Verdict.NUDGE)
    result = specialist.evaluate(
        Action.model_validate(write("Dockerfile", "FROM nodejs-official/node:20\n")), CTX
    )
    assert "nodejs-official/node:20" in result.reason
    assert "official node image" in result.reason
    assert result.correction is not None
    assert "node:20-alpine" in result.correction


def test_a_homebrew_tap_over_https_is_left_to_package_install():
    """A tap is the machine's source of formulae, and vendors publish their own
    (hashicorp/tap): package_install flags one that is not trusted; this kind does not."""
    specialist = DependencySourceSpecialist(DependencySourceConfig(shell=True), Verdict.NUDGE)
    context = Context(cwd="/w", repo_root="/w", home="/h")
    for command in ("brew tap hashicorp/tap", "brew install hashicorp/tap/terraform"):
        result = specialist.evaluate(Action(type="shell", args={"command": command}), context)
        assert result.verdict is not Verdict.NUDGE, result.reason
    plain = "brew tap someone/tools http://git.example.net/tools.git"
    result = specialist.evaluate(Action(type="shell", args={"command": plain}), context)
    assert result.verdict is Verdict.NUDGE  # over plain http: still this kind's

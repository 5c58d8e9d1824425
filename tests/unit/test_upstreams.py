"""Base images and workflow actions: which imitate an official image or a popular action."""

from __future__ import annotations

import pytest

from specialists.upstreams import (
    action_refs,
    hub_name,
    image_refs,
    lookalike_action,
    lookalike_image,
    official_name,
    upstream_file,
)


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("Dockerfile", "dockerfile"),
        ("/w/app/docker/api.Dockerfile", "dockerfile"),
        ("Containerfile", "dockerfile"),
        ("Dockerfile.dev", "dockerfile"),
        ("/w/app/.github/workflows/ci.yml", "workflow"),
        (".github/workflows/release.yaml", "workflow"),
        ("docker-compose.yml", "compose"),
        ("compose.prod.yaml", "compose"),
        ("config/app.yml", None),
        ("README.md", None),
    ],
)
def test_upstream_files(path: str, kind: str | None) -> None:
    assert upstream_file(path) == kind


def test_references_are_read_line_by_line() -> None:
    dockerfile = "FROM --platform=$BUILDPLATFORM node:20 AS build\nRUN x\nfrom python:3.12-slim\n"
    assert [r.ref for r in image_refs("dockerfile", dockerfile)] == ["node:20", "python:3.12-slim"]
    compose = "services:\n  db:\n    image: 'postgres:16'\n"
    assert [r.ref for r in image_refs("compose", compose)] == ["postgres:16"]
    workflow = "steps:\n  - uses: actions/checkout@v4\n  - name: x\n    uses: 'docker://alpine:3'\n"
    assert [r.ref for r in action_refs(workflow)] == ["actions/checkout@v4", "docker://alpine:3"]


@pytest.mark.parametrize(
    ("ref", "name"),
    [
        ("node:20", None),
        ("library/node:20", ("library", "node")),
        ("docker.io/nodejs-official/node:20", ("nodejs-official", "node")),
        ("ghcr.io/acme/node:20", None),
        ("registry:5000/acme/node", None),
        ("acme/node@sha256:abc", ("acme", "node")),
        ("${BASE}/node", None),
    ],
)
def test_hub_names(ref: str, name: tuple[str, str] | None) -> None:
    assert hub_name(ref) == name


@pytest.mark.parametrize(
    "ref",
    [
        "nodejs-official/node:20",
        "python-slim/python",
        "docker-library/ubuntu",
        "officialimages/golang",
    ],
)
def test_images_dressed_as_official_ones(ref: str) -> None:
    assert lookalike_image(ref) is not None


@pytest.mark.parametrize(
    "ref",
    ["node:20-alpine", "library/python", "jenkins/jenkins:lts", "rustlang/rust:nightly",
     "bitnami/redis", "circleci/node:18", "acme/node", "ghcr.io/python-slim/python"],
)  # fmt: skip
def test_official_vendor_and_other_images_pass(ref: str) -> None:
    assert lookalike_image(ref) is None


@pytest.mark.parametrize(
    ("uses", "says"),
    [
        ("actoins/checkout@v4", "owner misspelt"),
        ("aws-action/configure-aws-credentials@v4", "owner misspelt"),
        ("someone/checkout@main", "at the branch main"),
        ("fastci-dev/setup-node@v4", "another owner"),
        ("dokcer/login-actions@v3", "near miss of the popular action docker/login-action"),
    ],
)
def test_actions_imitating_popular_ones(uses: str, says: str) -> None:
    why = lookalike_action(uses)
    assert why is not None
    assert says in why


@pytest.mark.parametrize(
    "uses",
    ["actions/checkout@v4", "github/codeql-action/init@v3", "./.github/actions/build",
     "docker://alpine:3", "acme/deploy-action@v2", "docker/build-push-action@" + "a" * 40],
)  # fmt: skip
def test_popular_local_and_unrelated_actions_pass(uses: str) -> None:
    assert lookalike_action(uses) is None


@pytest.mark.parametrize(
    ("ref", "official"),
    [
        ("ubuntu:22.04", "ubuntu"),
        ("library/node", "node"),
        ("docker.io/library/alpine:3.20", "alpine"),
        ("ghcr.io/someone/ubuntu:22.04", None),
        ("registry.example.com/myapp:1.2", None),
        ("someuser/node:20", None),
        ("myapp:latest", None),
    ],
)
def test_official_name(ref: str, official: str | None) -> None:
    assert official_name(ref) == official

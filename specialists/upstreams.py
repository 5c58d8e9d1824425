"""Code a project runs by name from a public hub: container base images and GitHub Actions.

A Dockerfile's ``FROM node:20-alpine`` and a workflow's ``uses: actions/checkout@v4`` pull
code published under a name, as an install does. The hubs let anyone publish under their
own namespace, so the look-alike is a name that borrows the trusted one's look:

- an image in a Docker Hub namespace dressed as the official image it copies
  (``nodejs-official/node``, ``python-slim/python``, ``docker-library/ubuntu``): the official
  images have no namespace (``node`` is ``library/node``, which only Docker publishes), so a
  namespace that names the image itself, or says "official"/"library", imitates one;
- an action whose owner/repository is a near miss of a popular action's
  (``actoins/checkout``), or a popular action's repository under another owner
  (``someone/checkout``: a fork, which its owner can change at any time, more so at a branch
  such as ``@main``).

:func:`image_refs` and :func:`action_refs` read the references out of a file's text (a line
pass with RE2, linear); :func:`lookalike_image` and :func:`lookalike_action` say what is
wrong with one, or None. The popular names are the lists below (Docker's official images
and the most used actions of the GitHub Marketplace, by name, as published on Docker Hub's
"Docker Official Image" filter and the Marketplace's "Most installed" sort in 2026).
"""

from __future__ import annotations

import os
from typing import Final, NamedTuple

import re2

from specialists.package_install import confusable_skeleton, osa_distance
from specialists.understand.options import words

__all__ = [
    "FIRST_PARTY_OWNERS",
    "OFFICIAL_IMAGES",
    "POPULAR_ACTIONS",
    "Ref",
    "action_refs",
    "branch_action",
    "image_refs",
    "lookalike_action",
    "lookalike_image",
    "official_name",
    "upstream_file",
]

MAX_LINE: Final = 4_096
MAX_REFS: Final = 500

# Docker Official Images (names without namespace), the ones base images are built on.
OFFICIAL_IMAGES: Final = words(
    """
    alpine ubuntu debian centos fedora busybox archlinux amazonlinux rockylinux almalinux
    oraclelinux photon opensuse node python golang ruby openjdk eclipse-temurin
    amazoncorretto ibm-semeru-runtimes php perl rust gcc swift erlang elixir haskell julia
    r-base clojure groovy maven gradle composer nginx httpd tomcat caddy traefik haproxy
    redis postgres mysql mariadb mongo memcached rabbitmq elasticsearch cassandra couchdb
    neo4j influxdb zookeeper kafka consul vault registry docker jenkins sonarqube wordpress
    drupal joomla ghost nextcloud mediawiki bash hello-world eclipse-mosquitto kong solr
    """
)
# Docker Hub namespaces of the projects and vendors that publish their own images under
# their name (jenkins/jenkins, rustlang/rust, redislabs/redis...), besides Docker's own.
_PUBLISHERS: Final = words(
    """
    library docker jenkins rustlang nodesource redislabs redis mongodb mariadb mysql
    bitnami circleci cimg ubuntu amazon nginxinc hashicorp elastic grafana gradle traefik
    percona postgis timescale confluentinc apache
    """
)
_IMITATING: Final = ("official", "library", "docker", "dockerhub", "images")
_HUB_HOSTS: Final = frozenset({"docker.io", "index.docker.io", "registry-1.docker.io"})

# The most used actions (owner/repository, lowercase).
POPULAR_ACTIONS: Final = words(
    """
    actions/checkout actions/setup-node actions/setup-python actions/setup-go
    actions/setup-java actions/setup-dotnet actions/cache actions/upload-artifact
    actions/download-artifact actions/github-script actions/labeler actions/stale
    actions/create-release actions/upload-release-asset actions/deploy-pages
    actions/configure-pages actions/upload-pages-artifact actions/dependency-review-action
    actions/first-interaction actions/attest-build-provenance actions/create-github-app-token
    actions/add-to-project actions/delete-package-versions actions/setup-haskell
    docker/setup-buildx-action docker/login-action docker/build-push-action
    docker/metadata-action docker/setup-qemu-action github/codeql-action
    github/super-linter aws-actions/configure-aws-credentials aws-actions/amazon-ecr-login
    aws-actions/amazon-ecs-deploy-task-definition aws-actions/amazon-ecs-render-task-definition
    azure/login azure/webapps-deploy azure/setup-kubectl azure/k8s-deploy azure/setup-helm
    google-github-actions/auth google-github-actions/setup-gcloud
    google-github-actions/deploy-cloudrun hashicorp/setup-terraform peaceiris/actions-gh-pages
    softprops/action-gh-release codecov/codecov-action actions-rs/toolchain actions-rs/cargo
    dtolnay/rust-toolchain swatinem/rust-cache pnpm/action-setup ruby/setup-ruby
    shivammathur/setup-php gradle/actions gradle/gradle-build-action
    jamesives/github-pages-deploy-action peter-evans/create-pull-request
    stefanzweifel/git-auto-commit-action tj-actions/changed-files dorny/paths-filter
    golangci/golangci-lint-action goreleaser/goreleaser-action pypa/gh-action-pypi-publish
    astral-sh/setup-uv oven-sh/setup-bun denoland/setup-deno subosito/flutter-action
    helm/kind-action helm/chart-releaser-action slackapi/slack-github-action
    8398a7/action-slack endbug/add-and-commit cachix/install-nix-action
    mikepenz/action-junit-report sonarsource/sonarqube-scan-action
    sonarsource/sonarcloud-github-action snyk/actions aquasecurity/trivy-action
    anchore/scan-action sigstore/cosign-installer release-drafter/release-drafter
    amannn/action-semantic-pull-request crazy-max/ghaction-import-gpg appleboy/ssh-action
    webfactory/ssh-agent marocchino/sticky-pull-request-comment
    cypress-io/github-action pre-commit/action actions/setup-ruby
    """
)
_ACTION_REPOS: Final = {name.partition("/")[2]: name for name in sorted(POPULAR_ACTIONS)}

_FROM: Final = re2.compile(r"(?i)^\s*FROM\s+(?:--[A-Za-z-]+=\S+\s+)*([^\s#]+)")
_COMPOSE_IMAGE: Final = re2.compile(r"""^\s*(?:-\s*)?image\s*:\s*["']?([^\s"'#]+)""")
_USES: Final = re2.compile(r"""^\s*(?:-\s*)?uses\s*:\s*["']?([^\s"'#]+)""")
_HEX40: Final = re2.compile(r"^[0-9a-fA-F]{40}$")
_TAG: Final = re2.compile(r"^v?[0-9]+(?:\.[0-9]+)*(?:[-+][0-9A-Za-z.-]+)?$")


class Ref(NamedTuple):
    """One reference as written (``nodejs-official/node:20``) and its line."""

    ref: str
    line: str


def upstream_file(path: str) -> str | None:
    """``dockerfile``, ``compose`` or ``workflow`` for a file that names images or actions."""
    norm = path.replace("\\", "/")
    name = os.path.basename(norm).lower()
    if name in ("dockerfile", "containerfile") or name.endswith((".dockerfile", ".containerfile")):
        return "dockerfile"
    if name.startswith("dockerfile."):
        return "dockerfile"
    if name.endswith((".yml", ".yaml")):
        if "/.github/workflows/" in "/" + norm or name in ("action.yml", "action.yaml"):
            return "workflow"
        if name.startswith(("docker-compose", "compose")):
            return "compose"
    return None


def _refs(pattern: re2._Regexp, text: str) -> list[Ref]:
    out: list[Ref] = []
    for raw in text.splitlines():
        match = pattern.search(raw[:MAX_LINE])
        if match is not None:
            out.append(Ref(match.group(1), raw.strip()[:200]))
            if len(out) >= MAX_REFS:
                break
    return out


def image_refs(kind: str, text: str) -> list[Ref]:
    """The images a Dockerfile (``FROM``) or a compose file (``image:``) names."""
    if kind == "dockerfile":
        return _refs(_FROM, text)
    if kind == "compose":
        return _refs(_COMPOSE_IMAGE, text)
    return []


def action_refs(text: str) -> list[Ref]:
    """The ``uses:`` references of a workflow (``owner/repo[/path]@ref``, ``docker://…``)."""
    return _refs(_USES, text)


def hub_name(ref: str) -> tuple[str, str] | None:
    """``(namespace, repository)`` of a Docker Hub image reference with a namespace, or None
    (an official image, a variable, another registry)."""
    name = ref.split("@", 1)[0]
    last = name.rfind("/")
    colon = name.rfind(":")
    if colon > last:
        name = name[:colon]
    parts = name.lower().split("/")
    if "$" in name or len(parts) < 2:
        return None
    if len(parts) == 3 and parts[0] in _HUB_HOSTS:
        parts = parts[1:]
    if len(parts) != 2 or "." in parts[0] or ":" in parts[0] or parts[0] == "localhost":
        return None  # a registry host (ghcr.io/…, registry:5000/…)
    return parts[0], parts[1]


def official_name(ref: str) -> str | None:
    """The official image ``ref`` names (``ubuntu:22.04``, ``library/ubuntu``,
    ``docker.io/library/ubuntu``), or None."""
    name = ref.split("@", 1)[0]
    last = name.rfind("/")
    colon = name.rfind(":")
    if colon > last:
        name = name[:colon]
    parts = name.lower().split("/")
    if parts[0] in _HUB_HOSTS:
        parts = parts[1:]
    if len(parts) == 2 and parts[0] == "library":
        parts = parts[1:]
    return parts[0] if len(parts) == 1 and parts[0] in OFFICIAL_IMAGES else None


def lookalike_image(ref: str) -> str | None:
    """Why ``ref`` imitates an official image, or None."""
    name = hub_name(ref)
    if name is None:
        return None
    namespace, repository = name
    if repository not in OFFICIAL_IMAGES or namespace in _PUBLISHERS:
        return None
    squashed = confusable_skeleton(namespace).replace("-", "").replace("_", "")
    base = repository.replace("-", "")
    if (
        base in squashed
        or any(word in squashed for word in _IMITATING)
        or (repository == "node" and "nodejs" in squashed)
    ):
        return (
            f"an image of the Docker Hub user {namespace} dressed as the official {repository} "
            f"image (official images have no namespace: {repository}, which only Docker "
            "publishes)"
        )
    return None


def _unpinned(ref: str) -> bool:
    return not (_HEX40.match(ref) or _TAG.match(ref))


# Owners whose actions are GitHub's own (first-party): a major tag of theirs is the usual pin.
FIRST_PARTY_OWNERS: Final = frozenset({"actions", "github"})
# Names that are a repository's branches, never its release tags.
_BRANCH_NAMES: Final = frozenset(
    {"main", "master", "develop", "development", "dev", "trunk", "next", "head", "edge",
     "nightly", "canary", "latest", "stable", "unstable", "default", "release", "beta", "alpha"}
)  # fmt: skip


def branch_action(uses: str) -> str | None:
    """The branch a third-party action ``uses`` (``owner/repo[/path]@ref``) runs from, or None.

    A branch moves: whoever can push to it (its owner, or whoever took the owner's token)
    changes what every workflow that names it runs, with that workflow's secrets. None for a
    full commit hash, a version tag (``v4``, ``v1.2.3``, ``2.0``), GitHub's own actions
    (``actions/*``, ``github/*``), a local action (``./``), an image (``docker://``) or a
    reference built from an expression. A ref that is neither a hash nor a version is read
    as a branch (``main``, ``v1-branch``, ``feature/x``, ``release/v1``).
    """
    if uses.startswith(("./", "../", "docker://")) or "$" in uses:
        return None
    path, at, ref = uses.partition("@")
    parts = path.lower().split("/")
    if len(parts) < 2 or not parts[0] or not parts[1] or parts[0] in FIRST_PARTY_OWNERS:
        return None
    if not at or not ref:
        return "the repository's default branch"  # no ref at all: whatever is pushed there
    if ref.lower() in _BRANCH_NAMES or "/" in ref or ref.lower().endswith(("-branch", "-dev")):
        return f"the branch {ref}"
    if _HEX40.match(ref) or _TAG.match(ref):
        return None
    return f"{ref}, which is not a release tag or a commit hash"


def lookalike_action(uses: str) -> str | None:
    """Why the action ``uses`` (``owner/repo[/path]@ref``) imitates a popular one, or None."""
    if uses.startswith(("./", "docker://")) or "$" in uses:
        return None
    path, _, ref = uses.partition("@")
    parts = path.lower().split("/")
    if len(parts) < 2 or not parts[0] or not parts[1]:
        return None
    owner_repo = f"{parts[0]}/{parts[1]}"
    if owner_repo in POPULAR_ACTIONS:
        return None
    at = f" at the branch {ref}" if ref and _unpinned(ref) and not ref.startswith("v") else ""
    same_repo = _ACTION_REPOS.get(parts[1])
    if same_repo is not None:
        owner = same_repo.partition("/")[0]
        if osa_distance(parts[0], owner, 2) <= (2 if len(owner) >= 6 else 1):
            return f"{same_repo} with its owner misspelt ({parts[0]}){at}"
        return (
            f"a copy of {same_repo} under another owner ({parts[0]}), which that owner can "
            f"change at any time{at}"
        )
    bound = 2 if len(owner_repo) >= 12 else 1
    for popular in sorted(POPULAR_ACTIONS):
        if popular.partition("/")[0] == parts[0]:
            continue  # the same owner publishes both
        if osa_distance(owner_repo, popular, bound) <= bound:
            return f"a near miss of the popular action {popular}{at}"
    return None

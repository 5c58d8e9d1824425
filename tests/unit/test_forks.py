"""A popular package fetched from a repository under an owner that is not its home."""

from __future__ import annotations

import pytest

from specialists.package_install import confusable_skeleton
from specialists.understand.forks import Repo, fork_of, go_module_repo, named_in_task, repo_of


@pytest.mark.parametrize(
    ("eco", "url", "expected"),
    [
        (
            "pypi",
            "git+https://github.com/someone/Fastapi-Users.git@patch-1",
            Repo("github.com", "someone", "Fastapi-Users"),
        ),
        ("npm", "github:someone/react-dom#main", Repo("github.com", "someone", "react-dom")),
        ("npm", "someone/react-dom#main", Repo("github.com", "someone", "react-dom")),
        (
            "pypi",
            "git+ssh://git@github.com/psf/requests.git",
            Repo("github.com", "psf", "requests"),
        ),
        ("gem", "git@gitlab.com:team/rails.git", Repo("gitlab.com", "team", "rails")),
        ("pypi", "https://files.example/pkg-1.0.tar.gz", None),
        ("npm", "0/", None),
    ],
)
def test_repo_of(eco: str, url: str, expected: Repo | None) -> None:
    assert repo_of(url, eco) == expected


@pytest.mark.parametrize(
    ("eco", "url"),
    [
        ("pypi", "git+https://github.com/someone/fastapi-users.git@patch-1"),
        ("pypi", "git+https://github.com/someone/requests.git"),
        ("npm", "github:someone/react-dom#main"),
        ("cocoapods", "https://github.com/someone/Alamofire.git"),
        ("gem", "https://github.com/someone/devise"),
        ("cargo", "https://github.com/someone/serde"),
    ],
)
def test_a_popular_name_under_another_owner_is_a_fork(eco: str, url: str) -> None:
    repo = repo_of(url, eco)
    assert repo is not None
    assert fork_of(eco, repo) is not None


@pytest.mark.parametrize(
    ("eco", "url"),
    [
        ("pypi", "git+https://github.com/tiangolo/fastapi.git"),
        ("pypi", "git+https://github.com/fastapi-users/fastapi-users.git"),
        ("pypi", "git+https://github.com/psf/requests.git"),
        ("npm", "github:facebook/react-dom"),
        ("pypi", "git+https://github.com/acme/shop-utils.git"),  # not a popular name
        ("pypi", "git+https://github.com/acme/config.git"),  # too generic a name
        ("cocoapods", "https://github.com/Alamofire/Alamofire.git"),
    ],
)
def test_the_home_or_an_unknown_name_is_no_fork(eco: str, url: str) -> None:
    repo = repo_of(url, eco)
    assert repo is not None
    assert fork_of(eco, repo) is None


def test_go_module_copied_under_another_owner() -> None:
    copy = go_module_repo("github.com/gotools-fast/golangci-lint/cmd/golangci-lint")
    real = go_module_repo("github.com/golangci/golangci-lint/cmd/golangci-lint")
    assert copy is not None
    assert real is not None
    why = fork_of("go", copy)
    assert why is not None
    assert "github.com/golangci/golangci-lint" in why
    assert fork_of("go", real) is None


def test_the_task_naming_the_owner_excuses() -> None:
    repo = Repo("github.com", "acme", "fastapi-users")
    assert named_in_task("Install our fork acme/fastapi-users with the SSO patch", repo)
    assert not named_in_task("Add SSO login", repo)
    assert not named_in_task(None, repo)


def test_go_replace_of_a_popular_module_by_another_owner() -> None:
    copy = Repo("github.com", "mux-hotfix", "mux")
    assert fork_of("go", copy, replaces="github.com/gorilla/mux") is not None
    same_owner = Repo("github.com", "gorilla", "mux-v2")
    assert fork_of("go", same_owner, replaces="github.com/gorilla/mux") is None
    assert fork_of("go", copy, replaces="github.com/lee/ingest-core") is None  # not popular


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("@angular/cIi", "@angular/cli"),
        ("pyth0n", "python"),
        ("f1ask", "flask"),
        ("rnocha", "mocha"),
    ],
)
def test_confusable_skeleton(written: str, read: str) -> None:
    assert confusable_skeleton(written) == read

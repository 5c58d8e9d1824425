"""The state directory: outside the repository, private, and refused when others can write it."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from supervisor import Supervisor
from supervisor.cli import cli
from supervisor.errors import StateDirError
from supervisor.signing import generate_keys
from supervisor.state import (
    HOME_ENV,
    LEGACY_DIRNAME,
    default_home,
    ensure_home,
    private_dir,
    repository_root,
    resolve_home,
    tighten_file,
)

from ..conftest import ScriptedPlugin, entry_dict, taxonomy_doc

as_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another user needs root"
)


def _repo(path: Path) -> Path:
    (path / ".git").mkdir(parents=True)
    return path


def test_default_home_is_in_the_user_state_directory_outside_the_repository(tmp_path):
    repo = _repo(tmp_path / "My Project")
    (repo / "src" / "deep").mkdir(parents=True)
    home = default_home(repo / "src" / "deep")
    state = Path(os.environ["XDG_STATE_HOME"]).resolve()
    assert home.parent == state / "supervise"
    assert home.name.startswith("My_Project-")
    assert not home.resolve().is_relative_to(repo.resolve())
    # keyed by the repository's root: the same from anywhere inside it, another for another
    assert default_home(repo) == home
    assert repository_root(repo / "src") == repo.resolve()
    assert default_home(_repo(tmp_path / "other" / "My Project")) != home
    # a short name, so that hook.sock in it fits in a socket path (108 bytes on Linux)
    assert len(home.name) <= 24 + 1 + 16


@pytest.mark.parametrize(
    ("xdg", "home"),
    [
        ("/srv/state", "/home/ana"),
        ("", "/home/ana"),
        ("relative/state", "/home/ana/"),  # not absolute: as if unset
        (None, "/root"),
        (None, "relative-home"),  # platformdirs looks the home up: it answers
        (None, None),
    ],
)
def test_user_state_dir_is_platformdirs_without_importing_it(xdg, home, monkeypatch):
    import hashlib

    import platformdirs

    from supervisor import homepath

    for name, value in (("XDG_STATE_HOME", xdg), ("HOME", home)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    assert homepath.user_state_dir() == platformdirs.user_state_dir("supervise", appauthor=False)
    root = os.fsencode("/work/Caf\u00e9 project")
    assert homepath._sha256_hex(root) == hashlib.sha256(root).hexdigest()


def test_the_hook_client_finds_the_default_home_without_platformdirs_or_hashlib(tmp_path):
    code = (
        "import sys; from supervisor.hooks.client import state_dir; "
        "print(state_dir(None)); print(sorted({'platformdirs', 'hashlib'} & set(sys.modules)))"
    )
    env = {k: v for k, v in os.environ.items() if k != HOME_ENV}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    found, imported = out.stdout.splitlines()
    assert Path(found) == default_home(tmp_path)
    assert imported == "[]"


def test_explicit_and_environment_homes_win(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resolve_home(tmp_path / "given") == tmp_path / "given"
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "env"))
    assert resolve_home() == tmp_path / "env"
    monkeypatch.setenv(HOME_ENV, "")  # empty: as if unset
    assert resolve_home() == default_home(tmp_path)


def test_an_empty_home_is_refused(tmp_path):
    with pytest.raises(StateDirError, match="empty"):
        resolve_home("")
    for argv in (["--home", "", "verify"], ["verify", "--home", ""]):
        result = CliRunner().invoke(cli, argv)
        assert result.exit_code == 2, result.output
        assert "--home" in result.output
        assert "empty" in result.output


def test_hook_client_refuses_an_empty_home():
    done = subprocess.run(
        [sys.executable, "-m", "supervisor.hooks.client", "claude-code", "--home", ""],
        input="{}",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "--home is empty" in done.stderr


def test_homes_are_created_private_and_loose_ones_tightened(tmp_path):
    home = ensure_home(tmp_path / "a" / "home")
    assert home.stat().st_mode & 0o777 == 0o700
    loose = tmp_path / "loose"
    loose.mkdir(mode=0o755)
    loose.chmod(0o755)
    ensure_home(loose)
    assert loose.stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o722])
def test_a_home_others_can_write_is_refused(tmp_path, mode):
    home = tmp_path / "shared"
    home.mkdir()
    home.chmod(mode)
    with pytest.raises(StateDirError, match=r"can be written by others .*chmod 700"):
        ensure_home(home)
    assert home.stat().st_mode & 0o777 == mode  # not silently made ours


@as_root
def test_a_home_of_another_user_is_refused(tmp_path):
    home = tmp_path / "theirs"
    home.mkdir(mode=0o700)
    os.chown(home, 4321, -1)
    with pytest.raises(StateDirError, match="belongs to another user"):
        ensure_home(home)
    key = tmp_path / "signing.key"
    key.write_text("x")
    os.chown(key, 4321, -1)
    with pytest.raises(StateDirError, match="belongs to another user"):
        tighten_file(key)


def test_a_home_inside_a_work_tree_ignores_itself(tmp_path):
    repo = _repo(tmp_path / "repo")
    home = ensure_home(repo / "state")
    assert (home / ".gitignore").read_text().splitlines()[-1] == "*"
    outside = ensure_home(tmp_path / "elsewhere")
    assert not (outside / ".gitignore").exists()


def test_key_files_are_private(tmp_path):
    generate_keys(tmp_path / "keys")
    assert (tmp_path / "keys").stat().st_mode & 0o777 == 0o700
    for name in ("signing.key", "signing.pub"):
        assert (tmp_path / "keys" / name).stat().st_mode & 0o777 == 0o600
    loose = tmp_path / "loose-keys"
    loose.mkdir(mode=0o777)
    loose.chmod(0o777)
    with pytest.raises(StateDirError, match="written by others"):
        generate_keys(loose)
    with pytest.raises(StateDirError, match="written by others"):
        private_dir(loose)


def test_a_loose_signing_key_in_the_home_is_tightened(tmp_path, write_taxonomy):
    doc = taxonomy_doc(entry_dict("n", specialist={"kind": "scripted"}))
    path = write_taxonomy(doc)
    home = tmp_path / "home"
    with Supervisor.from_taxonomy(path, plugins=[ScriptedPlugin()], home=home) as sup:
        sup.check({"type": "shell"})
    key = home / "keys" / "signing.key"
    key.chmod(0o644)
    (home / "keys").chmod(0o755)
    with Supervisor.from_taxonomy(path, plugins=[ScriptedPlugin()], home=home) as sup:
        sup.check({"type": "shell"})
    assert key.stat().st_mode & 0o777 == 0o600
    assert (home / "keys").stat().st_mode & 0o777 == 0o700
    key.chmod(0o666)
    with pytest.raises(StateDirError, match="written by others"):
        Supervisor.from_taxonomy(path, plugins=[ScriptedPlugin()], home=home)


def test_a_legacy_home_is_named_once_and_not_used_silently(tmp_path, monkeypatch, caplog):
    repo = _repo(tmp_path / "repo")
    monkeypatch.chdir(repo)
    (repo / LEGACY_DIRNAME / "artifacts").mkdir(parents=True)
    caplog.set_level(logging.WARNING, logger="supervisor.state")
    chosen = resolve_home()
    resolve_home()
    warnings = [r.getMessage() for r in caplog.records if r.name == "supervisor.state"]
    assert len(warnings) == 1
    (text,) = warnings
    assert str(repo / LEGACY_DIRNAME) in text
    assert str(chosen) in text
    assert "mv " in text
    # once the new home exists, nothing more is said
    caplog.clear()
    ensure_home(chosen)
    assert resolve_home() == chosen
    assert not caplog.records


def test_hook_install_puts_the_state_outside_the_project(tmp_path):
    project = _repo(tmp_path / "project")
    result = CliRunner().invoke(
        cli, ["hook", "install", "claude-code", "--local", "--dir", str(project)]
    )
    assert result.exit_code == 0, result.output
    command = (project / ".claude" / "settings.local.json").read_text()
    assert str(default_home(project)) in command
    assert "/project/.supervise" not in command
    # the shared file names no state directory: each machine's hook finds its own
    result = CliRunner().invoke(cli, ["hook", "install", "claude-code", "--dir", str(project)])
    assert result.exit_code == 0, result.output
    assert "--home" not in (project / ".claude" / "settings.json").read_text()
    # user scope: each project the host opens finds its own from the hook's directory
    user = tmp_path / "me"
    result = CliRunner().invoke(
        cli, ["hook", "install", "claude-code", "--user", "--dir", str(user)]
    )
    assert result.exit_code == 0, result.output
    assert "--home" not in (user / ".claude" / "settings.json").read_text()

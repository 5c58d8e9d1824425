"""Path classes: what a resolved path is, from the workspace, the home and scratch."""

from __future__ import annotations

from typing import get_args

import pytest

from specialists.understand import PathClass, PathClassName, Where, classify, describe

WHERE = Where("/home/dev/project", "/home/dev")


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/home/dev/project/src/app.py", PathClass.WORKSPACE),
        ("/home/dev/project", PathClass.WORKSPACE),
        ("/home/dev/project/node_modules/x/index.js", PathClass.BUILD_OUTPUT),
        ("/home/dev/project/target", PathClass.BUILD_OUTPUT),
        ("/tmp/run-1/out.txt", PathClass.SCRATCH),
        # the user's caches: rebuilt by the tools that fill them
        ("/home/dev/.cache/pip/http/x.body", PathClass.SCRATCH),
        ("/home/dev/.cache", PathClass.SCRATCH),
        ("/home/dev/Library/Caches/com.example.app", PathClass.SCRATCH),
        ("/home/dev/Library/Developer/Xcode/DerivedData/App-abc", PathClass.SCRATCH),
        ("/home/dev/.gradle/caches/8.5", PathClass.SCRATCH),
        ("/home/dev/go/pkg/mod/github.com/x/y@v1", PathClass.SCRATCH),
        ("/home/dev/Library/Developer/Xcode/Archives/app.xcarchive", PathClass.HOME),
        ("/home/dev/.npm/_cacache/index-v5", PathClass.SCRATCH),
        ("/home/dev/.npm/_logs/debug.log", PathClass.HOME),
        ("/home/dev/.cachefiles/a", PathClass.HOME),
        ("/home/dev/.cache/huggingface/token", PathClass.CREDENTIAL),  # still a credential
        ("/home/alice/.cache/pip/x", PathClass.OTHER_HOME),  # only the user's own
        ("/home/dev/Documents/taxes.pdf", PathClass.HOME),
        ("/dev/null", PathClass.SINK),
        ("/dev/fd/63", PathClass.SINK),
        ("/dev/pty/2", PathClass.SINK),  # a pseudo-terminal (BSD, Solaris)
        ("/dev/ptyp0", PathClass.SINK),
        ("/dev/sda1", PathClass.DEVICE),
        ("/etc/shadow", PathClass.CREDENTIAL),
        ("/etc/sudoers.d/90-agent", PathClass.CREDENTIAL),
        ("/proc/1/environ", PathClass.CREDENTIAL),
        ("/home/dev/.ssh/id_ed25519", PathClass.CREDENTIAL),
        ("/home/dev/.ssh/id_ed25519.pub", PathClass.HOME),
        ("/home/alice/.aws/credentials", PathClass.CREDENTIAL),
        ("/root/.bash_history", PathClass.CREDENTIAL),
        ("/home/dev/api_keys.json", PathClass.CREDENTIAL),
        ("/home/dev/notes/credentials.txt", PathClass.CREDENTIAL),
        ("/home/dev/project/config/api_keys.json", PathClass.WORKSPACE),  # the secret entries'
        ("/var/mail/alice", PathClass.CREDENTIAL),
        ("/etc/passwd", PathClass.ACCOUNT),
        ("/var/log/wtmp", PathClass.ACCOUNT),
        ("/home/dev/.bashrc", PathClass.STARTUP),
        ("/root/.bashrc", PathClass.STARTUP),
        ("/etc/cron.d/job", PathClass.STARTUP),
        ("/etc/systemd/system/x.service", PathClass.STARTUP),
        ("/home/dev", PathClass.HOME_ROOT),
        ("/home", PathClass.HOME_ROOT),
        ("/home/dev/.config/gh/config.yml", PathClass.HOME_CONFIG),
        ("/home/dev/notes.txt", PathClass.HOME),
        ("/home/alice/notes.txt", PathClass.OTHER_HOME),
        ("/root/x", PathClass.OTHER_HOME),
        ("/usr/lib/libssl.so", PathClass.SYSTEM),
        ("/etc/hosts", PathClass.SYSTEM),
        ("/proc/cpuinfo", PathClass.SYSTEM),
        ("/srv/app/data.db", PathClass.SYSTEM),
        ("/data/exports/a.csv", PathClass.OUTSIDE),
        ("build/out", PathClass.UNKNOWN),
        ("/home/dev/project/$X", PathClass.UNKNOWN),  # $X may hold ../..
        ("/opt/$X", PathClass.UNKNOWN),
        ("/c:/Windows/System32/drivers/etc/hosts", PathClass.SYSTEM),  # as readers write C:\\
        # browsers' stores: saved passwords, cookies, autofill and the key that opens them
        ("/home/dev/.config/google-chrome/Default/Login Data", PathClass.CREDENTIAL),
        ("/home/dev/.config/google-chrome/Profile 2/Cookies", PathClass.CREDENTIAL),
        ("/home/dev/.config/google-chrome/Default/Network/Cookies", PathClass.CREDENTIAL),
        ("/home/dev/.config/google-chrome/Local State", PathClass.CREDENTIAL),
        ("/home/dev/.config/BraveSoftware/Brave-Browser/Default/Web Data", PathClass.CREDENTIAL),
        ("/home/dev/.config/microsoft-edge/Default/Login Data", PathClass.CREDENTIAL),
        ("/home/alice/.mozilla/firefox/x.default-release/cookies.sqlite", PathClass.CREDENTIAL),
        ("/home/dev/.mozilla/firefox/x.default-release/key4.db", PathClass.CREDENTIAL),
        (
            "/home/dev/Library/Application Support/Firefox/Profiles/x.default/logins.json",
            PathClass.CREDENTIAL,
        ),
        (
            "/c:/Users/dev/AppData/Local/Google/Chrome/User Data/Default/Login Data",
            PathClass.CREDENTIAL,
        ),
        ("/c:/Users/dev/AppData/Local/Microsoft/Edge/User Data/Local State", PathClass.CREDENTIAL),
        (
            "/c:/Users/dev/AppData/Roaming/Mozilla/Firefox/Profiles/x.default/key4.db",
            PathClass.CREDENTIAL,
        ),
        # a profile's other files are private, not credentials
        ("/home/dev/.config/google-chrome/Default/Bookmarks", PathClass.HOME_CONFIG),
        ("/home/dev/.mozilla/firefox/x.default-release/places.sqlite", PathClass.HOME),
        # other programs' stores of passwords and conversations
        ("/home/dev/Library/Messages/chat.db", PathClass.CREDENTIAL),
        ("/home/dev/.config/filezilla/recentservers.xml", PathClass.CREDENTIAL),
        ("/c:/Users/dev/AppData/Roaming/FileZilla/sitemanager.xml", PathClass.CREDENTIAL),
        ("/c:/Users/dev/AppData/Roaming/WinSCP.ini", PathClass.CREDENTIAL),
        ("/home/dev/Documents/vault.kdbx", PathClass.CREDENTIAL),
        ("/home/dev/.config/Bitwarden/data.json", PathClass.CREDENTIAL),
        ("/home/dev/.local/share/keyrings/login.keyring", PathClass.CREDENTIAL),
        ("/home/dev/.pgpass", PathClass.CREDENTIAL),
        ("/c:/Users/dev/_netrc", PathClass.CREDENTIAL),
        ("/home/dev/project/tests/fixtures/empty.kdbx", PathClass.WORKSPACE),  # the project's
    ],
)
def test_classes(path: str, expected: PathClass):
    assert classify(path, WHERE) is expected


def test_unknown_home_is_unknown_not_safe():
    nowhere = Where(None, None)
    assert classify("~", nowhere) is PathClass.UNKNOWN
    assert classify("~/notes", nowhere) is PathClass.UNKNOWN
    # what a glob says about the file still holds without a home
    assert classify("~/.ssh/id_rsa", nowhere) is PathClass.CREDENTIAL
    assert classify("~/.zshrc", nowhere) is PathClass.STARTUP


def test_without_a_workspace_the_project_is_home():
    where = Where(None, "/home/dev")
    assert classify("/home/dev/project/src/app.py", where) is PathClass.HOME


def test_names_and_descriptions_cover_every_class():
    assert set(get_args(PathClassName)) == {c.value for c in PathClass}
    for cls in PathClass:
        assert describe(cls)


def test_an_unknown_path_names_the_missing_fact():
    assert describe(PathClass.UNKNOWN, "~/x") == "~, but the home directory is not known"
    assert describe(PathClass.UNKNOWN, "build") == (
        "a relative path, but the working directory is not known"
    )
    assert (
        describe(PathClass.UNKNOWN, "/opt/$X")
        == "a path whose value is not known until the command runs"
    )
    assert describe(PathClass.SYSTEM, "/etc/hosts") == "a system path"


def test_the_modules_glob_sets_compile():
    """They compile on the first path that needs one (a process that never classifies such
    a path never pays it): each must still compile."""
    from specialists.understand import paths
    from specialists.understand.globs import PathGlobs

    sets = [value for value in vars(paths).values() if isinstance(value, PathGlobs)]
    assert len(sets) >= 7
    for globs in sets:
        assert globs.check() is globs


def test_a_package_managers_caches_are_disposable_its_state_is_not():
    from specialists.understand.paths import in_scratch

    assert in_scratch("/var/lib/apt/lists/deb.debian.org_dists", "/root")
    assert in_scratch("/var/cache/apt/archives/libpq5.deb", "/root")
    assert in_scratch("/var/cache/apk/APKINDEX.tar.gz", "/root")
    # what it has installed is no cache
    assert not in_scratch("/var/lib/apt", "/root")
    assert not in_scratch("/var/lib/dpkg/status", "/root")


@pytest.mark.parametrize(
    ("path", "cls"),
    [
        ("/Users/ana/.ssh/id_ed25519", PathClass.CREDENTIAL),
        ("/Users/ana/.zshrc", PathClass.STARTUP),
        ("/Users/ana/.ssh/id_ed25519.pub", PathClass.WORKSPACE),
        ("/Users/ana/notes.txt", PathClass.WORKSPACE),
    ],
)
def test_a_session_in_the_home_keeps_the_homes_credentials_and_startup_files(path, cls):
    where = Where("/Users/ana", "/Users/ana")
    assert classify(path, where) is cls

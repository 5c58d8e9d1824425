"""What a path is, for the harm an action on it can do: its class.

Kinds judge effects (``deletes /etc/passwd``), not spellings (``rm "$f"``). A path reached by
any reader (the shell parser, a Python program turned into the commands it amounts to) is
resolved to an absolute path first; :func:`classify` then says what it is, from the workspace,
the home directory and the scratch directories of the context, without touching the
filesystem:

- ``sink``: ``/dev/null``, the terminal, ``/dev/zero`` and friends: naming them is harmless.
- ``unknown``: not absolute (no ``cwd`` known), ``~`` with no ``home`` known, or a value that
  only running something would tell (``$X``, ``$(…)``). Unknown is not safe: a kind that
  objects to a class should object, more softly and saying so, to ``unknown``.
- ``credential``: secrets and the account database (``/etc/shadow``, ``~/.ssh/id_*``, cloud
  CLI credentials, files named for keys or credentials outside the workspace,
  ``/proc/*/environ``, PAM state, mail spools).
- ``account``: user and group lists and login records (``/etc/passwd``, ``/var/log/wtmp``):
  no secret in them, but reading them is how an intruder maps a host (ATT&CK T1087).
- ``startup``: what runs on its own later (shell start-up files of any user, cron, systemd,
  launchd, ``authorized_keys``, ``/etc/ld.so.preload``).
- ``device``: a device node (``/dev/sda``): writing one destroys a file system.
- ``scratch``: below ``/tmp``, ``/var/tmp``, ``/dev/shm`` or a configured scratch directory,
  and the user's caches (``~/.cache``, ``~/Library/Caches``, npm's ``~/.npm/_cacache``, Xcode's
  DerivedData, Gradle's, Cargo's, Go's and NuGet's package caches, Windows' temp directory):
  by the XDG specification (and the tools' own) what is there can be deleted without losing
  data.
- ``build_output``: inside the workspace, below a directory that a build re-creates
  (``node_modules``, ``dist``, ``target``, ``.venv``...).
- ``workspace``: inside the workspace (the repository the agent works in).
- ``home_root``: the home directory itself or one of its parents.
- ``home_config``: a tool's configuration below the home directory (``~/.config/**``,
  ``~/.gitconfig``, ``~/.npmrc``...).
- ``home``: anything else below the home directory.
- ``other_home``: another user's home (``/root`` when the home is ``/home/dev``,
  ``/home/alice``).
- ``system``: the root, the system directories (``/etc``, ``/usr``, ``/bin``, ``/var``,
  ``/boot``, ``/proc``, ``/sys``, ``/srv``, ``/System``...), and ``C:\\Windows``-style paths.
- ``outside``: any other absolute path outside the workspace (``/data``, a mounted disk
  under ``/mnt`` or ``/Volumes``).

The order above is the order of precedence: a credential file inside the workspace
(``.env`` is judged by the secrets entries, not here) is still ``workspace``; only the
globs below say what is a credential, and they are about places outside it.
"""

from __future__ import annotations

from enum import StrEnum
from functools import lru_cache
from typing import Final, Literal, get_args

from specialists.understand.globs import PathGlobs, is_within

__all__ = [
    "PathClass",
    "PathClassName",
    "Where",
    "classify",
    "describe",
    "in_scratch",
    "is_shell_startup",
]


class PathClass(StrEnum):
    """The class of a path (see the module docstring)."""

    SINK = "sink"
    UNKNOWN = "unknown"
    CREDENTIAL = "credential"
    ACCOUNT = "account"
    STARTUP = "startup"
    DEVICE = "device"
    SCRATCH = "scratch"
    BUILD_OUTPUT = "build_output"
    WORKSPACE = "workspace"
    HOME_ROOT = "home_root"
    HOME_CONFIG = "home_config"
    HOME = "home"
    OTHER_HOME = "other_home"
    SYSTEM = "system"
    OUTSIDE = "outside"


# The class names as a type for configuration models (strict models take no enum coercion).
PathClassName = Literal[
    "sink",
    "unknown",
    "credential",
    "account",
    "startup",
    "device",
    "scratch",
    "build_output",
    "workspace",
    "home_root",
    "home_config",
    "home",
    "other_home",
    "system",
    "outside",
]
assert set(get_args(PathClassName)) == {c.value for c in PathClass}

_DESCRIPTIONS: Final = {
    PathClass.SINK: "a sink such as /dev/null",
    PathClass.UNKNOWN: "a path whose location is not known",
    PathClass.CREDENTIAL: "a credential or the account database",
    PathClass.ACCOUNT: "the host's user list or login records",
    PathClass.STARTUP: "a file that runs on its own later (start-up file, scheduler, service)",
    PathClass.DEVICE: "a device",
    PathClass.SCRATCH: "a scratch directory",
    PathClass.BUILD_OUTPUT: "build output inside the workspace",
    PathClass.WORKSPACE: "the workspace",
    PathClass.HOME_ROOT: "the home directory itself",
    PathClass.HOME_CONFIG: "a tool's configuration in the home directory",
    PathClass.HOME: "the home directory, outside the workspace",
    PathClass.OTHER_HOME: "another user's home directory",
    PathClass.SYSTEM: "a system path",
    PathClass.OUTSIDE: "a path outside the workspace",
}

SINKS: Final = frozenset(
    {
        "/dev/null",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/stdin",
        "/dev/tty",
        "/dev/zero",
        "/dev/random",
        "/dev/urandom",
        "/dev/full",
        "/dev/ptmx",
    }
)
# The shell's network pseudo-files are judged by the network entries, not as files.
_SINK_PREFIXES: Final = (
    "/dev/fd/",
    "/proc/self/fd/",
    "/dev/pts/",
    "/dev/tcp/",
    "/dev/udp/",
    "/dev/tty",  # terminals: /dev/tty, /dev/tty12, /dev/ttyS0
    "/dev/pty",  # pseudo-terminals of the BSDs and Solaris: /dev/ptyp0, /dev/pty/2
    "/dev/console",
)
DEFAULT_SCRATCH: Final = ("/tmp", "/var/tmp", "/private/tmp", "/dev/shm")
# What a system package manager keeps only to save a download, and fetches again when it is
# gone (``rm -rf /var/lib/apt/lists/*`` ends every Dockerfile's install line): as disposable
# as a scratch directory.
PACKAGE_CACHES: Final = (
    "/var/lib/apt/lists", "/var/cache/apt", "/var/cache/apk", "/var/cache/dnf",
    "/var/cache/yum", "/var/cache/pacman/pkg", "/var/cache/zypp", "/var/cache/debconf/tmp.ci",
)  # fmt: skip
# Below the home directory, rebuilt by the tools that fill them (credentials kept there are
# still credentials: their globs come first).
_HOME_CACHES: Final = (
    "/.cache",
    "/Library/Caches",
    "/.npm/_cacache",
    # build and package caches that their tools re-create or download again
    "/Library/Developer/Xcode/DerivedData",
    "/.gradle/caches",
    "/.cargo/registry",
    "/.cargo/git",
    "/go/pkg/mod",
    "/.nuget/packages",
    "/.pnpm-store",
    "/Library/pnpm/store",
    "/.yarn/berry/cache",
    "/.bun/install/cache",
    "/.ccache",
    "/AppData/Local/Temp",
    "/AppData/Local/npm-cache",
)

# Browsers' credential stores, per platform: saved passwords, cookies (signed-in sessions),
# autofill (cards, addresses) and the key that decrypts them (Chromium's ``Local State``).
# A profile's other files (``Bookmarks``, ``History``, ``Preferences``) are private but hold
# no credential: they stay the home's configuration.
_CHROMIUM_ROOTS: Final = (
    ".config/google-chrome*",
    ".config/chromium",
    ".config/BraveSoftware/Brave-Browser*",
    ".config/microsoft-edge*",
    ".config/vivaldi*",
    ".config/opera*",
    "snap/chromium/common/chromium",
    "Library/Application Support/Google/Chrome*",
    "Library/Application Support/Chromium",
    "Library/Application Support/BraveSoftware/Brave-Browser*",
    "Library/Application Support/Microsoft Edge*",
    "Library/Application Support/Vivaldi",
    "Library/Application Support/com.operasoftware.Opera*",
    "AppData/Local/Google/Chrome*/User Data",
    "AppData/Local/Chromium/User Data",
    "AppData/Local/BraveSoftware/Brave-Browser*/User Data",
    "AppData/Local/Microsoft/Edge*/User Data",
    "AppData/Local/Vivaldi/User Data",
    "AppData/Roaming/Opera Software/Opera*",
)
_CHROMIUM_FILES: Final = (
    "*/Login Data",
    "*/Login Data For Account",
    "*/Cookies",
    "*/Network/Cookies",
    "*/Web Data",
    "Local State",
)
_FIREFOX_PROFILES: Final = (
    ".mozilla/firefox/*",
    ".thunderbird/*",
    "snap/firefox/common/.mozilla/firefox/*",
    "Library/Application Support/Firefox/Profiles/*",
    "Library/Thunderbird/Profiles/*",
    "AppData/Roaming/Mozilla/Firefox/Profiles/*",
    "AppData/Roaming/Thunderbird/Profiles/*",
)
_FIREFOX_FILES: Final = (
    "logins.json",
    "key4.db",
    "key3.db",
    "signons.sqlite",
    "cookies.sqlite",
    "formhistory.sqlite",
)
_BROWSER_STORES: Final = (
    *(f"{root}/{name}" for root in _CHROMIUM_ROOTS for name in _CHROMIUM_FILES),
    *(f"{root}/{name}" for root in _FIREFOX_PROFILES for name in _FIREFOX_FILES),
    "Library/Cookies/Cookies.binarycookies",  # Safari
    "Library/Containers/com.apple.Safari/Data/Library/Cookies/*",
)
# Other programs' stores of passwords and private conversations: macOS Messages, FTP and SCP
# clients' saved sites, password managers' vaults, desktop keyrings, pgpass on Windows.
_APP_STORES: Final = (
    "Library/Messages/chat.db*",
    ".config/filezilla/*.xml",
    ".filezilla/*.xml",
    "AppData/Roaming/FileZilla/*.xml",
    "AppData/Roaming/WinSCP.ini",
    "**/*.kdbx",
    "Library/Group Containers/*.com.1password/**",
    ".config/1Password/**",
    "AppData/Local/1Password/**",
    ".config/Bitwarden/data.json",
    "Library/Application Support/Bitwarden/data.json",
    "Library/Containers/com.bitwarden.desktop/**/data.json",
    "AppData/Roaming/Bitwarden/data.json",
    ".local/share/keyrings/**",
    ".local/share/kwalletd/**",
    "AppData/Roaming/postgresql/pgpass.conf",
    "_netrc",
    ".purple/accounts.xml",  # Pidgin keeps its accounts' passwords in clear
)

# Secrets and the account database, wherever the home is. "~/" globs are below the home
# given at match time; "/home/*/" and "/root/" forms catch the same files of other users.
_CREDENTIAL_IN_HOME: Final = (
    ".ssh/id_*",
    ".ssh/*_key",
    ".ssh/*.pem",
    ".aws/credentials",
    ".aws/config",
    ".azure/**",
    ".config/gcloud/**",
    ".netrc",
    ".pgpass",
    ".my.cnf",
    ".git-credentials",
    ".config/gh/hosts.yml",
    ".docker/config.json",
    ".kube/config",
    ".gnupg/**",
    ".password-store/**",
    ".npmrc",
    ".pypirc",
    ".vault-token",
    ".cache/huggingface/token",
    ".huggingface/token",
    ".terraform.d/credentials.tfrc.json",
    ".config/hub",
    "Library/Keychains/**",
    "**/*api_key*",
    "**/*api-key*",
    "**/*apikey*",
    "**/*secrets.json",
    "**/*secrets.y*ml",
    "**/*credentials*",
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".psql_history",
    ".mysql_history",
    # editors' token stores (VS Code, Cursor, VSCodium: extensions' and sign-in tokens)
    ".config/*/User/globalStorage/state.vscdb",
    "Library/Application Support/*/User/globalStorage/state.vscdb",
    "AppData/Roaming/*/User/globalStorage/state.vscdb",
    # PowerShell's history, the Windows credential manager's files and DPAPI master keys
    "AppData/Roaming/Microsoft/Windows/PowerShell/PSReadLine/*",
    ".local/share/powershell/PSReadLine/*",
    "AppData/*/Microsoft/Credentials/**",
    "AppData/*/Microsoft/Protect/**",
    "AppData/Roaming/gcloud/**",  # gcloud's configuration directory on Windows
    # LSASS's memory as Task Manager's "Create dump file" leaves it (it holds the logged-on
    # users' credentials)
    "AppData/Local/Temp/lsass*.DMP",
    "AppData/Local/Temp/lsass*.dmp",
    *_BROWSER_STORES,
    *_APP_STORES,
)
_CREDENTIAL_SYSTEM: Final = (
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/security/opasswd",
    "/etc/sudoers",
    "/etc/sudoers.d/**",
    "/etc/ssh/ssh_host_*_key",
    "/etc/ssl/private/**",
    "/etc/krb5.keytab",
    "/var/lib/pam/**",
    "/var/mail/**",  # other users' mail
    "/var/spool/mail/**",
    "/var/lib/sss/**",
    "/proc/*/environ",
    "/proc/*/mem",
    "/proc/kcore",
    "/etc/master.passwd",
    "/etc/spwd.db",
    "/private/etc/master.passwd",
    "/var/db/dslocal/**",
    # a pod's service-account tokens (Kubernetes, EKS and Azure workload identity)
    "/var/run/secrets/kubernetes.io/serviceaccount/token",
    "/run/secrets/kubernetes.io/serviceaccount/token",
    "/var/run/secrets/eks.amazonaws.com/serviceaccount/token",
    "/var/run/secrets/azure/tokens/*",
)
_ACCOUNT: Final = (
    "/etc/passwd",
    "/etc/passwd-",
    "/etc/group",
    "/etc/group-",
    "/usr/share/base-passwd/**",
    "/var/log/wtmp",
    "/var/log/btmp",
    "/var/log/lastlog",
    "/var/log/faillog",
    "/var/log/auth.log*",
    "/var/log/secure*",
    "/var/run/utmp",
    "/run/utmp",
)
# The files a shell reads as it starts (a subset of the start-up files).
_SHELL_STARTUP_IN_HOME: Final = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".cshrc",
    ".tcshrc",
    ".kshrc",
    ".config/fish/config.fish",
    ".config/fish/conf.d/**",
    ".config/powershell/*profile.ps1",  # PowerShell's profiles on Linux and macOS
    "Documents/PowerShell/*profile.ps1",  # and on Windows (PowerShell 7, Windows PowerShell)
    "Documents/WindowsPowerShell/*profile.ps1",
)
_SHELL_STARTUP_SYSTEM: Final = (
    "/etc/profile",
    "/etc/profile.d/**",
    "/etc/bash.bashrc",
    "/etc/bashrc",
    "/etc/zsh/**",
    "/etc/zshrc",
)
_STARTUP_IN_HOME: Final = (
    *_SHELL_STARTUP_IN_HOME,
    ".inputrc",
    ".ssh/authorized_keys",
    ".ssh/authorized_keys2",
    ".ssh/rc",
    ".ssh/config",
    ".config/autostart/**",
    ".config/systemd/**",
    "Library/LaunchAgents/**",
    ".xinitrc",
    ".xprofile",
)
_STARTUP_SYSTEM: Final = (
    "/etc/cron*/**",
    "/etc/crontab",
    "/etc/anacrontab",
    "/var/spool/cron/**",
    "/var/spool/at/**",
    "/etc/systemd/**",
    "/lib/systemd/**",
    "/usr/lib/systemd/**",
    "/etc/init.d/**",
    "/etc/init/**",
    "/etc/rc.local",
    "/etc/rc*.d/**",
    *_SHELL_STARTUP_SYSTEM,
    "/etc/environment",
    "/etc/ld.so.preload",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d/**",
    "/etc/pam.d/**",
    "/etc/xdg/autostart/**",
    "/etc/update-motd.d/**",
    "/Library/LaunchAgents/**",
    "/Library/LaunchDaemons/**",
    "/etc/udev/rules.d/**",
    "/etc/modules-load.d/**",
)
_HOME_CONFIG: Final = (
    ".config/**",
    ".local/share/**",
    ".gitconfig",
    ".git-templates/**",
    ".npmrc",
    ".yarnrc",
    ".condarc",
    ".pip/**",
    ".cargo/config*",
    ".m2/settings.xml",
    ".gradle/*.properties",
    ".claude/**",
    ".claude.json",
    ".codex/**",
    ".cursor/**",
    ".vscode/**",
    ".vimrc",
    ".tmux.conf",
    ".editorconfig",
    ".wgetrc",
    ".curlrc",
)
BUILD_DIRS: Final = frozenset(
    {
        "node_modules",
        "dist",
        "build",
        "target",
        "out",
        ".venv",
        "venv",
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
        "coverage",
        "htmlcov",
        ".next",
        ".nuxt",
        ".turbo",
        ".parcel-cache",
        ".gradle",
        ".cache",
        "_build",
        ".eggs",
        "bin",
        "obj",
        ".nyc_output",  # nyc's coverage data
        "TestResults",  # dotnet test's results
        "tmp",  # a project's scratch directory (Rails, many others): not its sources
    }
)
SYSTEM_ROOTS: Final = (
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/opt",
    "/proc",
    "/sbin",
    "/srv",
    "/sys",
    "/usr",
    "/var",
    "/run",
    "/snap",
    "/System",
    "/Library",
    "/Applications",
    "/private",
    "/lost+found",
    "/nix",
)
# Mount points: another disk, not the system (``outside``); deleting one whole is still
# catastrophic, which the recursive-delete entry judges on its own.
MOUNT_ROOTS: Final = ("/mnt", "/media", "/Volumes")
_HOME_PARENTS: Final = ("/home", "/Users", "/export/home", "/var/home")


def _in_homes(suffixes: tuple[str, ...]) -> tuple[str, ...]:
    """``~/x``, ``/root/x`` and ``/home/*/x`` forms of home-relative globs."""
    out: list[str] = []
    for suffix in suffixes:
        out.append("~/" + suffix)
        out.append("/root/" + suffix)
        out.extend(f"{parent}/*/{suffix}" for parent in _HOME_PARENTS)
    return tuple(out)


_CREDENTIAL_GLOBS: Final = PathGlobs(
    (*_in_homes(_CREDENTIAL_IN_HOME), *_CREDENTIAL_SYSTEM), lazy=True
)
_ACCOUNT_GLOBS: Final = PathGlobs(_ACCOUNT, lazy=True)
_STARTUP_GLOBS: Final = PathGlobs((*_in_homes(_STARTUP_IN_HOME), *_STARTUP_SYSTEM), lazy=True)
_SHELL_STARTUP_GLOBS: Final = PathGlobs(
    (*_in_homes(_SHELL_STARTUP_IN_HOME), *_SHELL_STARTUP_SYSTEM),
    lazy=True,
)


def is_shell_startup(path: str, home: str | None) -> bool:
    """Whether ``path`` is a file a shell reads as it starts (``~/.bashrc``,
    ``/etc/profile.d/x.sh``), of any user."""
    return _SHELL_STARTUP_GLOBS.match(path, home)


_HOME_CONFIG_GLOBS: Final = PathGlobs(tuple("~/" + s for s in _HOME_CONFIG), lazy=True)


class Where:
    """What paths are classified against: the workspace, the home, scratch directories."""

    __slots__ = ("home", "scratch", "workspace")

    def __init__(
        self,
        workspace: str | None,
        home: str | None,
        scratch: tuple[str, ...] = DEFAULT_SCRATCH,
    ) -> None:
        self.workspace = workspace.rstrip("/") or "/" if workspace else None
        self.home = home.rstrip("/") or "/" if home else None
        self.scratch = scratch

    def __repr__(self) -> str:
        return f"Where(workspace={self.workspace!r}, home={self.home!r})"


def in_scratch(path: str, home: str | None, scratch: tuple[str, ...] = DEFAULT_SCRATCH) -> bool:
    """Whether ``path`` is below a scratch directory or is one of the user's caches or the
    system package manager's (:data:`PACKAGE_CACHES`)."""
    if any(is_within(path, s) and path != s for s in scratch):
        return True
    if path.startswith("/var/") and any(is_within(path, cache) for cache in PACKAGE_CACHES):
        return True
    return bool(home) and any(is_within(path, f"{home}{cache}") for cache in _HOME_CACHES)


def classify(path: str, where: Where) -> PathClass:
    """The class of a resolved path (see the module docstring for the classes)."""
    return _classify(path, where.workspace, where.home, where.scratch)


@lru_cache(maxsize=4096)
def _classify(
    path: str, workspace: str | None, home: str | None, scratch: tuple[str, ...]
) -> PathClass:
    if path in SINKS or path.startswith(_SINK_PREFIXES):
        return PathClass.SINK
    if path == "~" or path.startswith("~/"):  # the home is not known
        if _CREDENTIAL_GLOBS.match(path, home) and not path.endswith(".pub"):
            return PathClass.CREDENTIAL
        if _STARTUP_GLOBS.match(path, home):
            return PathClass.STARTUP
        return PathClass.UNKNOWN
    if not path.startswith("/") or "$" in path or "`" in path or "<expr>" in path:
        return PathClass.UNKNOWN
    if workspace and is_within(path, workspace) and path != workspace:
        if home and (workspace == home or is_within(home, workspace)):
            # a session started in the home (or above it) is in no project: the home's
            # credentials, start-up files and settings stay what they are
            if _CREDENTIAL_GLOBS.match(path, home) and not path.endswith(".pub"):
                return PathClass.CREDENTIAL
            if _STARTUP_GLOBS.match(path, home):
                return PathClass.STARTUP
            if _HOME_CONFIG_GLOBS.match(path, home):
                return PathClass.HOME_CONFIG
        rest = path[len(workspace) :].split("/")
        if any(part in BUILD_DIRS for part in rest[:-1]) or (
            len(rest) > 1 and rest[-1] in BUILD_DIRS
        ):
            return PathClass.BUILD_OUTPUT
        return PathClass.WORKSPACE
    if len(path) >= 3 and path[2] == ":" and path[1].isalpha():  # /c:/... (a Windows drive)
        return _windows(path, home)
    if _CREDENTIAL_GLOBS.match(path, home) and not path.endswith(".pub"):  # a public key
        return PathClass.CREDENTIAL
    if _STARTUP_GLOBS.match(path, home):
        return PathClass.STARTUP
    if _ACCOUNT_GLOBS.match(path, home):
        return PathClass.ACCOUNT
    if path.startswith("/dev/"):
        return PathClass.DEVICE
    if in_scratch(path, home, scratch):
        return PathClass.SCRATCH
    if workspace and path == workspace:
        return PathClass.WORKSPACE
    if home:
        if path == home or is_within(home, path):
            return PathClass.HOME_ROOT
        if is_within(path, home):
            if _HOME_CONFIG_GLOBS.match(path, home):
                return PathClass.HOME_CONFIG
            return PathClass.HOME
    if path == "/root" or is_within(path, "/root"):
        return PathClass.OTHER_HOME
    for parent in _HOME_PARENTS:
        if is_within(path, parent) and path != parent:
            return PathClass.OTHER_HOME
    if path == "/" or any(is_within(path, root) for root in SYSTEM_ROOTS):
        return PathClass.SYSTEM
    if path.count("/") == 1 and home is None:
        return PathClass.UNKNOWN  # a top-level name while the home is unknown
    return PathClass.OUTSIDE


# On a Windows drive, lower case: the account hives and any user's credential files.
_WINDOWS_CREDENTIAL_GLOBS: Final = PathGlobs(
    (
        "/windows/system32/config/sam",
        "/windows/system32/config/system",
        "/windows/system32/config/security",
        "/windows/repair/sam",
        "/windows/ntds/ntds.dit",  # a domain controller's account database
        *(f"/users/*/{s.lower()}" for s in _CREDENTIAL_IN_HOME),
    ),
    lazy=True,
)


# On a Windows drive, lower case: what runs on its own later (PowerShell's profiles, the
# Startup folders, scheduled tasks' definitions).
_WINDOWS_STARTUP_GLOBS: Final = PathGlobs(
    (
        "/users/*/documents/powershell/*profile.ps1",
        "/users/*/documents/windowspowershell/*profile.ps1",
        "/users/*/onedrive/documents/powershell/*profile.ps1",
        "/users/*/onedrive/documents/windowspowershell/*profile.ps1",
        "/users/*/appdata/roaming/microsoft/windows/start menu/programs/startup/**",
        "/programdata/microsoft/windows/start menu/programs/startup/**",
        "/windows/system32/windowspowershell/v1.0/*profile.ps1",
        "/windows/system32/tasks/**",
    ),
    lazy=True,
)


def _windows(path: str, home: str | None) -> PathClass:
    """Classes on a Windows drive (``/c:/Windows/...`` as the readers write it)."""
    lowered = path.lower()
    rest = lowered[3:].strip("/")
    if _WINDOWS_CREDENTIAL_GLOBS.match("/" + rest, None):
        return PathClass.CREDENTIAL
    if _WINDOWS_STARTUP_GLOBS.match("/" + rest, None):
        return PathClass.STARTUP
    if not rest or rest == "users":
        return PathClass.SYSTEM
    parts = rest.split("/")
    if len(parts) > 5 and parts[0] == "users" and parts[2:5] == ["appdata", "local", "temp"]:
        return PathClass.SCRATCH  # below %TEMP%: the user's scratch directory
    if rest.startswith(("windows", "program files", "programdata", "system volume information")):
        return PathClass.SYSTEM
    if home and lowered.startswith(home.lower().rstrip("/") + "/"):
        return PathClass.HOME
    if home and lowered == home.lower().rstrip("/"):
        return PathClass.HOME_ROOT
    if rest.startswith("users/"):
        return PathClass.OTHER_HOME if home else PathClass.UNKNOWN
    return PathClass.OUTSIDE


# Directories that hold credentials below them: reading one whole (tar, zip -r, cp -r,
# grep -r) reads the keys in it, whatever the directory itself is classed as.
_CREDENTIAL_DIRS_IN_HOME: Final = (
    ".ssh", ".aws", ".azure", ".kube", ".docker", ".gnupg", ".password-store", ".config",
    ".config/gcloud", ".config/gh", ".mozilla", ".mozilla/firefox", ".terraform.d", "Library",
    "Library/Keychains",
)  # fmt: skip


def holds_credentials(path: str, where: Where) -> bool:
    """Whether everything below ``path`` includes credentials: a home directory, ``/root``,
    the directories of homes, ``/`` itself, or a credential directory in a home
    (``~/.ssh``, ``~/.aws``...)."""
    path = path.rstrip("/") or "/"
    if path in ("/", "/root", *_HOME_PARENTS):
        return True
    homes = [where.home] if where.home else []
    parent, _, name = path.rpartition("/")
    if parent in _HOME_PARENTS and name:
        homes.append(path)  # /home/someone: a home, known or not
    for home in homes:
        if path == home:
            return True
        if path.startswith(home + "/") and path[len(home) + 1 :] in _CREDENTIAL_DIRS_IN_HOME:
            return True
    if path.startswith("/root/") and path[6:] in _CREDENTIAL_DIRS_IN_HOME:
        return True
    for home_parent in _HOME_PARENTS:
        rest = path[len(home_parent) + 1 :] if path.startswith(home_parent + "/") else ""
        _, _, inner = rest.partition("/")
        if inner in _CREDENTIAL_DIRS_IN_HOME:
            return True
    return False


def describe(cls: PathClass, path: str | None = None) -> str:
    """A few words for a reason: ``"a system path"``; for an unknown ``path``, the missing
    fact (``"~, but the home directory is not known"``)."""
    if cls is PathClass.UNKNOWN and path is not None:
        if path == "~" or path.startswith("~/"):
            return "~, but the home directory is not known"
        if "$" in path or "`" in path or "<expr>" in path:
            return "a path whose value is not known until the command runs"
        if not path.startswith("/"):
            return "a relative path, but the working directory is not known"
    return _DESCRIPTIONS[cls]

"""Privilege, user and service changes: what a command does to who may do what.

The shell reader (:mod:`specialists.shellparse`) says which simple commands a line would run
and under which wrappers (``sudo``, ``doas``, ``pkexec``); this module says what each of them
changes (:func:`privilege_changes_of`): running as another user, a set-user-ID or
capability bit given to a program, users and groups created, changed or deleted (and
membership of an administrators' group), the sudoers policy, and services enabled,
disabled or masked at boot. Kinds judge these effects, not the spelling of the command.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from specialists.shellparse import DEFAULT_MAX_CHARS, SimpleCommand, program_names
from specialists.understand.defences import registry_write
from specialists.understand.processes import commands_of
from supervisor.models import Action, Context

__all__ = ["ADMIN_GROUPS", "Change", "PrivilegeChange", "privilege_changes", "privilege_changes_of"]

# What changes: the command runs as another user (``elevate``; ``shell``: an interactive
# shell as that user), a program gets the set-user-ID/set-group-ID bit or root
# capabilities (``setuid``), an account or group is created, changed or deleted
# (``account``), a user joins an administrators' group (``admin``), the sudoers policy is
# edited (``sudoers``), a service is enabled, disabled or masked at boot (``service``), a
# program set to start by itself with another's rights (``autostart``: a debugger attached
# to an accessibility program in Image File Execution Options, what Winlogon starts at
# every logon, a WMI event subscription that runs a command).
# The search PATH (``path_replaced``: the machine's or the user's PATH written without
# its old value, by setx, [Environment]::SetEnvironmentVariable or the Environment registry
# key, so every directory it held is gone for every program started after;
# ``machine_path``: the machine's PATH written, even extended, for every user and service).
Change = Literal[
    "elevate", "shell", "setuid", "account", "admin", "sudoers", "service", "autostart",
    "path_replaced", "machine_path",
]  # fmt: skip

# Groups whose members may act as root (or as good as root: docker, lxd, disk).
ADMIN_GROUPS: Final = frozenset(
    {"sudo", "wheel", "admin", "root", "adm", "docker", "lxd", "disk", "Administrators"}
)


# How a reason words a change.
_CHANGE_WORDS: Final[dict[str, str]] = {
    "elevate": "runs as",
    "shell": "opens a shell as",
    "setuid": "gives a set-user-ID bit or root capabilities to",
    "account": "changes the account",
    "admin": "adds a user to the administrators' group",
    "sudoers": "edits the sudoers policy",
    "service": "changes at boot the service",
    "autostart": "sets a program to start by itself:",
    "path_replaced": "replaces, dropping every directory it held, the search PATH",
    "machine_path": "writes, for every user and service, the search PATH",
}


@dataclass(frozen=True, slots=True)
class PrivilegeChange:
    """One change of who may do what.

    Attributes:
        change: what changes (:data:`Change`).
        program: the program or wrapper that makes it (``sudo``, ``usermod``, ``chmod``).
        target: the user run as, the account or group, the file, or the unit, as written.
        command: the command it comes from.
    """

    change: Change
    program: str
    target: str
    command: SimpleCommand | None = None

    @property
    def words(self) -> str:
        """The change as words for a reason (``usermod adds a user to the administrators'
        group sudo``)."""
        return f"{self.program} {_CHANGE_WORDS[self.change]} {self.target}"


_ELEVATORS: Final = program_names("sudo doas pkexec su runuser sudoedit")
_SHELLS: Final = program_names("sh bash zsh dash ksh fish")
_ACCOUNTS: Final = program_names(
    "useradd adduser usermod userdel deluser groupadd addgroup groupmod groupdel delgroup "
    "gpasswd chpasswd passwd chsh newusers"
)
_SERVICE_VERBS: Final = frozenset({"enable", "disable", "mask", "unmask", "link", "reenable"})


def privilege_changes(cmd: SimpleCommand) -> list[PrivilegeChange]:
    """What ``cmd`` changes of who may do what (empty for most commands)."""
    found: list[PrivilegeChange] = []
    for prefix in cmd.prefixes:
        words = prefix.split()
        if words and words[0].rpartition("/")[2] in _ELEVATORS:
            change: Change = (
                "shell" if cmd.program in _SHELLS and not cmd.inline_code else "elevate"
            )
            found.append(PrivilegeChange(change, words[0], _run_as(words) or "root", cmd))
    program = cmd.program
    if program in _ELEVATORS:
        # the wrapper itself is the command: sudo -i, su -, su bob, sudoedit /etc/x
        target = _run_as(cmd.argv) or "root"
        change = "elevate" if program == "sudoedit" else "shell"
        found.append(PrivilegeChange(change, program, target, cmd))
    elif program == "visudo":
        found.append(PrivilegeChange("sudoers", program, "/etc/sudoers", cmd))
    elif program in _ACCOUNTS:
        found.extend(_accounts(cmd))
    elif program == "chmod" and len(cmd.positionals) >= 2 and _setuid_mode(cmd.positionals[0]):
        found.extend(PrivilegeChange("setuid", program, p, cmd) for p in cmd.positionals[1:])
    elif program == "setcap" and len(cmd.positionals) >= 2:
        found.append(PrivilegeChange("setuid", program, cmd.positionals[-1], cmd))
    elif program == "systemctl":
        verbs = [w for w in cmd.positionals if not w.startswith("-")]
        if verbs and verbs[0] in _SERVICE_VERBS:
            found.extend(PrivilegeChange("service", program, u, cmd) for u in verbs[1:])
    elif program in ("update-rc.d", "chkconfig", "rc-update") and cmd.positionals:
        found.append(PrivilegeChange("service", program, _unit_of(cmd), cmd))
    started = _autostart(cmd)
    if started is not None:
        found.append(PrivilegeChange("autostart", program, started, cmd))
    search_path = _search_path(cmd)
    if search_path is not None:
        found.append(PrivilegeChange(search_path[0], program, search_path[1], cmd))
    for redirect in cmd.redirects:
        path = redirect.path or ""
        if redirect.writes and (path == "/etc/sudoers" or path.startswith("/etc/sudoers.d/")):
            found.append(PrivilegeChange("sudoers", program or "redirect", path, cmd))
    if program == "tee":
        found.extend(
            PrivilegeChange("sudoers", program, p, cmd)
            for p in cmd.positionals
            if p == "/etc/sudoers" or p.startswith("/etc/sudoers.d/")
        )
    return found


def privilege_changes_of(
    action: Action, context: Context, *, max_chars: int = DEFAULT_MAX_CHARS
) -> list[PrivilegeChange]:
    """What an action's shell command changes of who may do what (none for others)."""
    return [c for cmd in commands_of(action, context, max_chars) for c in privilege_changes(cmd)]


def _run_as(words: list[str] | tuple[str, ...]) -> str | None:
    """The user of ``sudo -u bob``, ``doas -u bob``, ``su bob``, ``runuser -u bob``."""
    program = words[0].rpartition("/")[2] if words else ""
    for i, word in enumerate(words[1:], 1):
        if word in ("-u", "--user") and i + 1 < len(words):
            return words[i + 1]
        if word.startswith("--user="):
            return word.partition("=")[2]
    if program == "su":
        operands = [w for w in words[1:] if not w.startswith("-")]
        return operands[0] if operands else None
    return None


def _accounts(cmd: SimpleCommand) -> list[PrivilegeChange]:
    """Accounts changed, and an administrators' group joined (``usermod -aG sudo bob``,
    ``gpasswd -a bob wheel``, ``adduser bob sudo``)."""
    program, argv, positionals = cmd.program, cmd.argv, cmd.positionals
    found: list[PrivilegeChange] = []
    groups: list[str] = []
    for i, word in enumerate(argv[1:-1], 1):
        if word in ("-G", "-aG", "-Ga", "--groups", "-g", "--gid") and program != "passwd":
            groups.extend(argv[i + 1].split(","))
    if program in ("adduser", "addgroup") and len(positionals) == 2:
        groups.append(positionals[1])  # adduser USER GROUP
    if program == "gpasswd" and positionals:
        groups.append(positionals[-1])
    for group in groups:
        if group in ADMIN_GROUPS:
            found.append(PrivilegeChange("admin", program, group, cmd))
    two = program in ("adduser", "addgroup", "gpasswd") and len(positionals) == 2
    target = positionals[0] if two else positionals[-1] if positionals else ""
    found.append(PrivilegeChange("account", program, target, cmd))
    return found


def _setuid_mode(mode: str) -> bool:
    """``u+s``, ``g+s``, ``+s``, ``u=rwxs``, ``4755``, ``2755``, ``06755``: a set-ID bit."""
    if mode.isdigit():
        return len(mode) >= 4 and mode[-4] in "234567"  # 4: set-user-ID, 2: set-group-ID
    for clause in mode.split(","):
        for op in "+=":
            if op in clause and "s" in clause.partition(op)[2]:
                return True
    return False


def _unit_of(cmd: SimpleCommand) -> str:
    words = [w for w in cmd.positionals if not w.startswith("-")]
    if cmd.program == "rc-update" and len(words) >= 2:
        return words[1]  # rc-update add NAME [RUNLEVEL]
    return words[0] if words else ""


# Winlogon's values that name what it starts at every logon, and the DLLs every program
# loads (AppInit_DLLs).
_LOGON_VALUES: Final = frozenset({"userinit", "shell", "notify", "taskman", "appinit_dlls"})
_WMI_WRITERS: Final = frozenset({"set-wmiinstance", "swmi", "new-ciminstance", "wmic"})
_WMI_CLASSES: Final = ("__eventfilter", "eventconsumer", "__filtertoconsumerbinding")


def _autostart(cmd: SimpleCommand) -> str | None:
    """What a command sets to start by itself, as a reason names it, or None: a debugger
    for a program in Image File Execution Options (``sethc.exe`` at the logon screen runs
    it as SYSTEM), a program Winlogon starts, or a permanent WMI event subscription."""
    name = cmd.program.lower().rsplit("\\", 1)[-1].removesuffix(".exe")
    setting = registry_write(cmd)
    if setting is not None:
        key, value_name, data = setting
        key = "".join(c for c in key.lower() if c not in "\\/ '\"")
        value_name = value_name.lower().strip("'\"")
        target = f"{value_name}={data}"
        if "imagefileexecutionoptions" in key and value_name == "debugger":
            return "Image File Execution Options " + target
        if "silentprocessexit" in key and value_name == "monitorprocess":
            return "SilentProcessExit " + target
        if key.endswith("winlogon") and value_name in _LOGON_VALUES:
            return "Winlogon " + target
        if key.endswith("windows") and value_name == "appinit_dlls" and data.strip("'\""):
            return "AppInit_DLLs " + target
        return None
    if name in _WMI_WRITERS:
        text = " ".join(cmd.argv[1:]).lower()
        subscribes = "subscription" in text and any(c in text for c in _WMI_CLASSES)
        if subscribes and (name != "wmic" or "create" in text):
            return "a WMI event subscription"
    return None


# The registry keys that hold the persistent environment: the machine's and the user's.
_MACHINE_ENVIRONMENT: Final = "controlsessionmanagerenvironment"
_USER_ENVIRONMENT: Final = ("hkcu:environment", "hkcuenvironment", "hkey_current_userenvironment")
# setx's switches that take a value (a remote machine, its user and password, a file).
_SETX_VALUED: Final = frozenset({"/s", "/u", "/p", "/f", "/a", "/r", "/d", "-s", "-u", "-p"})


def _search_path(cmd: SimpleCommand) -> tuple[Change, str] | None:
    """(``path_replaced`` or ``machine_path``, what is written) when ``cmd`` writes the
    persistent PATH: ``setx [/M] PATH VALUE``, the Environment registry keys (``reg add
    HKCU\\Environment /v Path /d …``, ``Set-ItemProperty 'HKLM:\\…\\Session
    Manager\\Environment' -Name Path …``; PowerShell's
    ``[Environment]::SetEnvironmentVariable`` is read as setx,
    :mod:`specialists.winshell`). A value that names the old one (``%PATH%``,
    ``$env:Path``, a variable or an expression) extends it; a literal one replaces it."""
    name = cmd.program.lower().rsplit("\\", 1)[-1].removesuffix(".exe")
    machine = False
    if name == "setx":
        words: list[str] = []
        skip = False
        for word in cmd.argv[1:]:
            lowered = word.lower()
            if skip:
                skip = False
            elif lowered in ("/m", "-m"):
                machine = True
            elif lowered in _SETX_VALUED:
                skip = True
            else:
                words.append(word)
        if len(words) < 2:
            return None
        variable, value = words[0], words[1]
    else:
        setting = registry_write(cmd)
        if setting is None:
            return None
        key = "".join(c for c in setting[0].lower() if c not in "\\/ '\"")
        if key.endswith(_MACHINE_ENVIRONMENT):
            machine = True
        elif not key.endswith(_USER_ENVIRONMENT):
            return None
        variable, value = setting[1], setting[2]
    if variable.strip("'\"").lower() != "path":
        return None
    lowered = value.lower()
    extended = any(w in lowered for w in ("%path%", "$", "(", "<expr>")) or bool(cmd.variables)
    where = "of the machine" if machine else "of the user"
    if not extended:
        return "path_replaced", f"{where} with {value!r}"
    return ("machine_path", f"{where} ({value})") if machine else None

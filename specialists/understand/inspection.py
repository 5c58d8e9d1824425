"""Commands that only look: they list, show or check, and change nothing.

Some acts are judged by what runs them rather than by what they do: running a command as
root is one. Whether that command only inspects the machine (``sudo ufw status``, ``sudo
iptables -L -n``, ``sudo visudo -c``) or changes it (``sudo ufw disable``, ``sudo iptables
-F``) is a fact about the command, read here once for every kind: by program, and for the
programs that both look and change, by the subcommand or options that select looking.
Redirections that write, and options that make a looking program act (``find -delete``,
``dmesg -c``, ``journalctl --vacuum-size``), disqualify.
"""

from __future__ import annotations

from typing import Final

from specialists.shellparse import SimpleCommand, program_names

__all__ = ["only_inspects"]

# Programs that never change anything (what they print is judged by other entries: a
# secret read as root is still a secret read).
_LOOKERS: Final = program_names(
    "ls dir cat head tail less more grep egrep fgrep rg stat file du df lsof ss netstat ps "
    "pgrep pidof id whoami groups getent last lastlog lastb who w uptime free vmstat iostat "
    "lsblk blkid lshw lsusb lspci lscpu lsmod dmidecode wc sha256sum sha1sum md5sum tree "
    "readlink realpath which whereis uname ausearch aureport "
    "sestatus getenforce aa-status apparmor_status getfacl getcap namei findmnt showmount "
    "nproc find dmesg"
)
# Options that make a looking program act.
_ACTING_OPTIONS: Final[dict[str, frozenset[str]]] = {
    "find": frozenset({"delete", "exec", "execdir", "ok", "okdir", "fprint", "fprintf", "fls"}),
    "dmesg": frozenset({"c", "C", "clear", "read-clear", "n", "console-level", "D", "E"}),
    "journalctl": frozenset(
        {
            "vacuum-size",
            "vacuum-time",
            "vacuum-files",
            "rotate",
            "flush",
            "sync",
            "relinquish-var",
            "smart-relinquish-var",
            "setup-keys",
            "update-catalog",
        }
    ),
}
# Programs that look or act by their first word: the words that only look.
_LOOKING_SUBCOMMANDS: Final[dict[str, frozenset[str]]] = {
    "systemctl": frozenset(
        {
            "status",
            "show",
            "cat",
            "list-units",
            "list-unit-files",
            "list-timers",
            "list-sockets",
            "list-dependencies",
            "list-jobs",
            "is-active",
            "is-enabled",
            "is-failed",
            "is-system-running",
            "get-default",
        }
    ),
    "ufw": frozenset({"status", "show", "version"}),
    "nft": frozenset({"list"}),
    "docker": frozenset({"ps", "images", "logs", "inspect", "info", "version", "stats", "top"}),
    "podman": frozenset({"ps", "images", "logs", "inspect", "info", "version", "stats", "top"}),
    "apt": frozenset({"list", "show", "search", "policy"}),
    "apt-cache": frozenset({"show", "search", "policy", "depends", "rdepends", "madison"}),
    "snap": frozenset({"list", "info", "find", "version"}),
    "hostnamectl": frozenset({"status"}),
    "timedatectl": frozenset({"status", "show", "list-timezones"}),
    "ip": frozenset({"a", "addr", "address", "r", "route", "l", "link", "n", "neigh", "rule"}),
}
_IP_ACTS: Final = frozenset({"add", "del", "delete", "change", "replace", "set", "flush"})
# iptables and its kin look with -L/-S (and -n, -v, -x, --line-numbers, -t TABLE).
_TABLES: Final = program_names("iptables ip6tables iptables-legacy ip6tables-legacy")
_TABLE_LOOK: Final = frozenset({"L", "list", "S", "list-rules"})
_TABLE_ACT: Final = frozenset(
    {
        "A",
        "append",
        "D",
        "delete",
        "I",
        "insert",
        "R",
        "replace",
        "F",
        "flush",
        "Z",
        "zero",
        "N",
        "new-chain",
        "X",
        "delete-chain",
        "P",
        "policy",
        "E",
        "rename-chain",
    }
)


def only_inspects(cmd: SimpleCommand) -> bool:
    """Whether ``cmd`` only lists, shows or checks (changes nothing it runs on)."""
    if any(r.writes for r in cmd.redirects):
        return False
    program = cmd.program
    flags = cmd.flags
    acting = _ACTING_OPTIONS.get(program)
    if acting is not None and not acting.isdisjoint(flags):
        return False
    if program in _LOOKERS:
        return True
    words = [w for w in cmd.positionals if not w.startswith("-")]
    if program in ("journalctl", "crontab"):
        return program == "journalctl" or flags == {"l"}
    if program == "visudo":
        return bool(flags & {"c", "check"})
    if program in ("dpkg", "rpm"):
        return bool(flags & {"l", "L", "s", "S", "q", "list", "listfiles", "status", "query"})
    if program in _TABLES:
        return bool(flags & _TABLE_LOOK) and not flags & _TABLE_ACT
    if program == "firewall-cmd":
        asks = {f for f in flags if f.startswith(("list", "get", "query", "state"))}
        return bool(asks) and all(f in asks or f in ("zone", "permanent") for f in flags)
    if program == "ip":
        return (
            bool(words)
            and words[0] in _LOOKING_SUBCOMMANDS["ip"]
            and not (_IP_ACTS & set(words[1:]))
        )
    looking = _LOOKING_SUBCOMMANDS.get(program)
    return looking is not None and bool(words) and words[0] in looking

"""Defences switched off and credentials taken from the machine itself.

The shell reader (:mod:`specialists.shellparse`) says which simple commands a line would run,
PowerShell and cmd included (:mod:`specialists.winshell` hands their cmdlets over as
written); this module says, per command, what protection of the host or of a cloud account
it takes away (:func:`defences_off`) and which credential it takes from the machine that is
not a file (:func:`credentials_taken`): a token asked of a cloud's instance-metadata service,
a secret key exported from a keyring, the Windows account hives saved to a file, the
credential vault read out, the memory of LSASS (the process holding the logged-on users'
credentials) dumped, a credential-dumping tool run, the saved Wi-Fi keys shown in clear, the
domain's ``ntds.dit`` copied. Names are read as PowerShell and cmd read them: without case
and without ``.exe``. Kinds judge these acts, not the spelling of one command.

What counts as a defence switched off (:data:`Defence`):

- ``antivirus``: Defender's real-time, behaviour or script scanning disabled
  (``Set-MpPreference -Disable*``, the ``Windows Defender`` policy keys), a path, process
  or extension excluded from scanning (``Add-MpPreference``/``Set-MpPreference
  -Exclusion*``), or Defender removed as a Windows feature;
- ``firewall``: a firewall profile turned off (``Set-NetFirewallProfile -Enabled False``,
  ``netsh advfirewall set … state off``, ``netsh firewall set opmode disable``);
- ``uac``: User Account Control off or its prompt for administrators removed
  (``EnableLUA``, ``ConsentPromptBehaviorAdmin``, ``PromptOnSecureDesktop`` set to 0);
- ``script_policy``: PowerShell's execution policy made ``Unrestricted`` or ``Bypass`` for
  the machine (the default scope, ``LocalMachine``; ``Process`` and ``CurrentUser`` are
  the user's own);
- ``history``: the PowerShell history file deleted or emptied;
- ``host_audit``: the Windows audit policy cleared or its auditing switched off
  (``auditpol /clear``, ``auditpol /set … /success:disable``);
- ``encryption``: BitLocker turned off or suspended (``Disable-BitLocker``,
  ``manage-bde -off``);
- ``smartscreen``: SmartScreen switched off by its policy or Explorer's setting;
- ``root_trust``: a certificate made a trusted root, whose key's holder can then read and
  alter every TLS connection (``Import-Certificate``/``Import-PfxCertificate`` into a
  ``Root`` or ``AuthRoot`` store, ``certutil -addstore Root``, NSS's ``certutil -A -t C,,``,
  macOS's ``security add-trusted-cert``, p11-kit's ``trust anchor``, ``keytool -importcert``
  into Java's ``cacerts``; a file copied into the system's anchors directory is a path
  rule's);
- ``audit``: a cloud audit trail or threat detector stopped or deleted (CloudTrail,
  GuardDuty, Config, Security Hub, Cloud Logging sinks, Azure diagnostic settings);
- ``exposure``: a network rule admitting the whole internet (``0.0.0.0/0``, ``::/0``,
  ``*``, ``Internet``) to every port or to a remote-login or database port (AWS security
  groups, GCP firewall rules, Azure NSG rules), or a
  repository's administration given to another account (``gh api -X PUT
  …/collaborators/U -f permission=admin``);
- ``public_storage``: cloud storage made readable by anyone: a public ACL (S3, GCS), an
  ``allUsers`` grant, the public access block off, an inline S3 bucket policy that allows
  ``"Principal": "*"`` under no condition, an Azure container's public access on;
- ``docker_api``: the Docker daemon's API (root on the host for whoever reaches it) served
  on a network address without client certificates: ``dockerd -H tcp://0.0.0.0:2375``
  (any TCP address that is not loopback, unless ``--tlsverify``), or ``socat`` relaying a
  TCP port that is not bound to loopback to the daemon's socket (``socat
  TCP-LISTEN:2375,fork UNIX-CONNECT:/var/run/docker.sock``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final, Literal
from urllib.parse import urlsplit

from specialists.shellparse import SimpleCommand

__all__ = [
    "CredentialTaken",
    "Defence",
    "DefenceOff",
    "Taken",
    "credentials_taken",
    "defences_off",
    "metadata_credential",
    "registry_write",
]

Defence = Literal[
    "antivirus",
    "firewall",
    "uac",
    "script_policy",
    "history",
    "audit",
    "exposure",
    "public_storage",
    "host_audit",
    "encryption",
    "smartscreen",
    "root_trust",
    "docker_api",
]
# How a credential is taken: a cloud instance's token from its metadata service, a secret
# key exported from a keyring, the account hives or the domain's database copied, a
# credential store listed, the logon process's memory dumped, a credential-dumping tool
# run, the saved Wi-Fi keys shown in clear, the user's DPAPI-protected secrets decrypted.
Taken = Literal[
    "metadata_token",
    "key_export",
    "account_hive",
    "credential_store",
    "lsass_dump",
    "dumping_tool",
    "wifi_keys",
    "dpapi_decrypt",
]

_WORDS: Final[dict[str, str]] = {
    "antivirus": "switches off antivirus scanning",
    "firewall": "turns the firewall off",
    "uac": "switches off User Account Control",
    "script_policy": "lets any PowerShell script run on the machine",
    "history": "erases the PowerShell history",
    "audit": "stops the cloud audit trail",
    "exposure": "opens access to anyone",
    "public_storage": "makes cloud storage public",
    "host_audit": "switches off the Windows audit policy",
    "encryption": "turns off BitLocker disk encryption",
    "smartscreen": "switches off SmartScreen",
    "root_trust": "makes a certificate authority trusted for every TLS connection",
    "docker_api": (
        "opens the Docker daemon's API to the network without TLS (root on this machine for "
        "whoever reaches the port)"
    ),
    "metadata_token": "takes the instance's cloud credentials from its metadata service",
    "lsass_dump": "dumps the memory of LSASS, which holds the logged-on users' credentials",
    "dumping_tool": "runs a credential-dumping tool",
    "wifi_keys": "shows the saved Wi-Fi passwords in clear",
    "key_export": "exports the secret keys",
    "account_hive": "copies the Windows account database (SAM, SYSTEM, SECURITY or ntds.dit)",
    "credential_store": "lists the stored Windows credentials",
    "dpapi_decrypt": "decrypts the user's DPAPI-protected secrets (saved passwords)",
}


@dataclass(frozen=True, slots=True)
class DefenceOff:
    """One defence a command takes away: ``what`` (:data:`Defence`), the ``program`` and
    what it acts on (``target``, as written)."""

    what: Defence
    program: str
    target: str

    @property
    def words(self) -> str:
        return f"{self.program} {_WORDS[self.what]} ({self.target})"


@dataclass(frozen=True, slots=True)
class CredentialTaken:
    """One credential a command takes from the machine (:data:`Taken`)."""

    how: Taken
    program: str
    target: str

    @property
    def words(self) -> str:
        return f"{self.program} {_WORDS[self.how]} ({self.target})"


def _name(program: str) -> str:
    name = program.lower().rsplit("\\", 1)[-1]
    return name[:-4] if name.endswith(".exe") else name


def _params(words: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """PowerShell's ``-Name value`` / ``-Name:value`` pairs (lower-case names; a switch is
    ``"$true"``) and the positional words."""
    params: dict[str, str] = {}
    args: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word.startswith("-") and len(word) > 1 and not word[1].isdigit():
            name, colon, value = word[1:].partition(":")
            if colon:
                params[name.lower()] = value
            elif i + 1 < len(words) and not words[i + 1].startswith("-"):
                params[name.lower()] = words[i + 1]
                i += 1
            else:
                params[name.lower()] = "$true"
        else:
            args.append(word)
        i += 1
    return params, args


_FALSE: Final = frozenset({"$false", "false", "0", "no", "off", "disabled"})


def _true(value: str) -> bool:
    return value.strip("'\"").lower() not in _FALSE


# -- the Windows registry -----------------------------------------------------------------


def _registry(key: str, name: str, data: str) -> Defence | None:
    """The defence a registry value takes away when set (``key`` with ``\\`` or ``/``)."""
    # separators and spaces left out: a POSIX shell eats an unquoted key's backslashes
    key = "".join(c for c in key.lower() if c not in "\\/ '\"")
    name = name.lower().strip("'\"")
    value = data.lower().strip("'\"")
    zero = value in ("0", "0x0", "0x00000000")
    if "windowsdefender" in key and name.startswith("disable") and not zero:
        return "antivirus"
    if "windowsdefender" in key and "exclusions" in key:  # …\Exclusions\Paths /v C:\
        return "antivirus"
    uac = ("enablelua", "consentpromptbehavioradmin", "promptonsecuredesktop")
    if key.endswith("policiessystem") and zero and name in uac:
        return "uac"
    if "windowsfirewall" in key and name == "enablefirewall" and zero:
        return "firewall"
    if "powershell" in key and name == "executionpolicy" and value in ("unrestricted", "bypass"):
        return "script_policy"
    # Windows' policy (EnableSmartScreen=0), Explorer's (SmartScreenEnabled=Off), Edge's
    if name == "enablesmartscreen" and zero:
        return "smartscreen"
    if name == "smartscreenenabled" and (zero or value == "off"):
        return "smartscreen"
    return None


def registry_write(cmd: SimpleCommand) -> tuple[str, str, str] | None:
    """The registry value a command sets: (key, name, data) of ``reg add KEY /v NAME /d
    DATA`` or ``Set-ItemProperty``/``New-ItemProperty -Path KEY -Name NAME -Value DATA``;
    None for other commands."""
    name = _name(cmd.program)
    if name == "reg":
        return _reg_add(cmd.argv)
    if name in ("set-itemproperty", "sp", "new-itemproperty"):
        return _item_property(cmd.argv)
    return None


def _reg_add(argv: Sequence[str]) -> tuple[str, str, str] | None:
    """``reg add KEY /v NAME /d DATA``: (key, name, data)."""
    words = list(argv[1:])
    if len(words) < 2 or words[0].lower() != "add":
        return None
    key = words[1]
    name = data = ""
    for i, word in enumerate(words[:-1]):
        switch = word.lower()
        if switch in ("/v", "-v"):
            name = words[i + 1]
        elif switch in ("/d", "-d"):
            data = words[i + 1]
    return (key, name, data) if name else None


def _item_property(argv: Sequence[str]) -> tuple[str, str, str] | None:
    """``Set-ItemProperty -Path HKLM:\\… -Name N -Value V``: (key, name, value)."""
    params, args = _params(argv[1:])
    key = params.get("path") or params.get("literalpath") or (args[0] if args else "")
    name = params.get("name") or (args[1] if len(args) > 1 else "")
    value = params.get("value") or (args[2] if len(args) > 2 else "")
    return (key, name, value) if key and name else None


# -- network rules open to the world ------------------------------------------------------

_WORLD: Final = frozenset({"0.0.0.0/0", "::/0", "*", "internet", "any", "0/0", "0.0.0.0"})
# Remote login, remote desktop, file sharing and databases: never meant for the internet.
_SENSITIVE_PORTS: Final = frozenset(
    {22, 23, 135, 139, 445, 1433, 1521, 2375, 2376, 3306, 3389, 5432, 5900, 5984, 5985, 5986,
     6379, 7001, 8086, 9042, 9200, 9300, 11211, 27017, 27018}
)  # fmt: skip


def _ports_sensitive(text: str) -> bool:
    """Whether a port list (``22``, ``0-65535``, ``tcp:22,tcp:80``, ``all``, ``*``, ``-1``)
    admits every port or a sensitive one."""
    for part in text.replace(";", ",").split(","):
        spec = part.strip().strip("'\"[]").lower()
        if ":" in spec:
            spec = spec.rpartition(":")[2]
        if spec in ("all", "*", "-1", "any", "tcp", "udp"):
            return True  # every port (of a protocol)
        low, _, high = spec.partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            continue
        first, last = int(low), int(high or low)
        if last - first >= 1024 or any(first <= p <= last for p in _SENSITIVE_PORTS):
            return True
    return False


def _world(text: str) -> bool:
    return any(
        part.strip().strip("'\"[]").lower() in _WORLD for part in text.replace(";", ",").split(",")
    )


def _option(argv: Sequence[str], *names: str) -> str | None:
    """The value of ``--name value`` or ``--name=value`` (the last given)."""
    found: str | None = None
    for i, word in enumerate(argv):
        head, eq, value = word.partition("=")
        if head in names:
            if eq:
                found = value
            elif i + 1 < len(argv):
                found = argv[i + 1]
    return found


def _aws_ingress(argv: Sequence[str]) -> str | None:
    permissions = _option(argv, "--ip-permissions")
    if permissions is not None:
        text = permissions.replace(" ", "")
        world = "0.0.0.0/0" in text or "::/0" in text
        every = "IpProtocol=-1" in text or '"IpProtocol":"-1"' in text
        ports = [
            text[i + len(k) :].split(",", 1)[0].strip('"}]')
            for k in ("FromPort=", '"FromPort":', "ToPort=", '"ToPort":')
            for i in [text.find(k)]
            if i >= 0
        ]
        span = "-".join(p for p in ports[:2] if p.isdigit())
        if world and (every or (span and _ports_sensitive(span))):
            return "0.0.0.0/0"
        return None
    cidr = _option(argv, "--cidr", "--cidr-ipv6") or ""
    if not _world(cidr):
        return None
    protocol = (_option(argv, "--protocol") or "").lower()
    port = _option(argv, "--port")
    if protocol in ("-1", "all") or port is None or _ports_sensitive(port):
        return cidr
    return None


def _gcloud_firewall(argv: Sequence[str]) -> str | None:
    ranges = _option(argv, "--source-ranges")
    allow = _option(argv, "--allow", "--rules")
    if ranges is None or not _world(ranges):
        return None
    if (_option(argv, "--direction") or "ingress").lower() not in ("ingress", "in"):
        return None
    if (_option(argv, "--action") or "allow").lower() != "allow":
        return None
    return ranges if allow is None or _ports_sensitive(allow) else None


def _az_nsg_rule(argv: Sequence[str]) -> str | None:
    source = _option(argv, "--source-address-prefixes", "--source-address-prefix")
    if source is None or not _world(source):
        return None
    if (_option(argv, "--access") or "allow").lower() != "allow":
        return None
    if (_option(argv, "--direction") or "inbound").lower() != "inbound":
        return None
    ports = _option(argv, "--destination-port-ranges", "--destination-port-range") or "*"
    return source if _ports_sensitive(ports) else None


_PUBLIC_ACLS: Final = frozenset({"public-read", "public-read-write", "authenticated-read"})


def _exposure(name: str, cmd: SimpleCommand) -> str | None:
    """What a cloud or forge command opens to anyone, or None."""
    argv = cmd.argv
    pos = [w.lower() for w in cmd.positionals[:4]]
    if name == "aws" and pos[:2] == ["ec2", "authorize-security-group-ingress"]:
        return _aws_ingress(argv)
    if (
        name == "gcloud"
        and pos[:2] == ["compute", "firewall-rules"]
        and pos[2:3]
        in (
            ["create"],
            ["update"],
        )
    ):
        return _gcloud_firewall(argv)
    if (
        name == "az"
        and pos[:3] == ["network", "nsg", "rule"]
        and pos[3:4]
        in (
            ["create"],
            ["update"],
        )
    ):
        return _az_nsg_rule(argv)
    if name == "gh" and pos[:1] == ["api"]:
        return _gh_grant(argv)
    return None


def _public_policy(policy: str) -> str | None:
    """An S3 bucket policy (inline JSON) with a statement that allows any principal
    (``"Principal": "*"`` or ``{"AWS": "*"}``) under no condition, or None (a policy read
    from a file, ``file://policy.json``, is not known here)."""
    if not policy.lstrip().startswith("{") or len(policy) > 20_000:
        return None
    try:
        document = json.loads(policy)
    except ValueError:
        return None
    statements = document.get("Statement") if isinstance(document, dict) else None
    if isinstance(statements, dict):
        statements = [statements]
    if not isinstance(statements, list):
        return None
    for statement in statements[:100]:
        if not isinstance(statement, dict) or statement.get("Effect") != "Allow":
            continue
        if statement.get("Condition"):
            continue  # a condition (a VPC endpoint, an organisation) narrows who
        principal = statement.get("Principal")
        values = principal.values() if isinstance(principal, dict) else [principal]
        flat = [v for value in values for v in (value if isinstance(value, list) else [value])]
        if "*" in flat:
            return "a bucket policy that allows anyone"
    return None


def _public_storage(name: str, cmd: SimpleCommand) -> str | None:
    """What a cloud storage command makes readable by anyone (a bucket, a container), or None."""
    argv = cmd.argv
    pos = [w.lower() for w in cmd.positionals[:4]]
    if name == "aws" and pos[:1] in (["s3api"], ["s3control"]):
        if pos[1:2] == ["put-bucket-policy"]:
            return _public_policy(_option(argv, "--policy") or "")
        if pos[1:2] == ["put-public-access-block"]:
            config = (_option(argv, "--public-access-block-configuration") or "").lower()
            return "public access block" if "=false" in config or ":false" in config else None
        if pos[1:2] in (["put-bucket-acl"], ["put-object-acl"]):
            acl = (_option(argv, "--acl") or "").lower()
            return acl if acl in _PUBLIC_ACLS else None
    if name == "az" and pos[:3] in (
        ["storage", "container", "set-permission"],
        ["storage", "container", "create"],
    ):
        level = (_option(argv, "--public-access") or "off").lower()
        return f"public access {level}" if level in ("blob", "container") else None
    if name == "az" and pos[:3] == ["storage", "account", "update"]:
        allow = (_option(argv, "--allow-blob-public-access") or "false").lower()
        return "blob public access" if allow == "true" else None
    if name in ("gsutil",) and pos[:2] in (["iam", "ch"], ["acl", "ch"], ["defacl", "ch"]):
        members = " ".join(argv).lower()
        return "allUsers" if "allusers" in members or "allauthenticatedusers" in members else None
    if name in ("gsutil",) and pos[:2] in (["acl", "set"], ["defacl", "set"]):
        return pos[2] if pos[2:3] and pos[2] in ("public-read", "public-read-write") else None
    if name == "gcloud" and pos[:3] == ["storage", "buckets", "add-iam-policy-binding"]:
        member = (_option(argv, "--member") or "").lower()
        return member if member in ("allusers", "allauthenticatedusers") else None
    return None


def _gh_grant(argv: Sequence[str]) -> str | None:
    """``gh api -X PUT repos/O/R/collaborators/U -f permission=admin``."""
    method = (_option(argv, "-X", "--method") or "GET").upper()
    if method != "PUT":
        return None
    path = next((w for w in argv if "/collaborators/" in w), None)
    if path is None:
        return None
    permission = next(
        (w.split("=", 1)[1].lower() for w in argv if w.lower().startswith("permission=")), ""
    )
    return path if permission in ("admin", "maintain") else None


# -- cloud audit trails ---------------------------------------------------------------------

_AUDIT: Final[dict[str, tuple[tuple[str, ...], ...]]] = {
    "aws": (
        ("cloudtrail", "stop-logging"),
        ("cloudtrail", "delete-trail"),
        ("guardduty", "delete-detector"),
        ("guardduty", "disassociate-from-master-account"),
        ("guardduty", "disassociate-from-administrator-account"),
        ("configservice", "stop-configuration-recorder"),
        ("configservice", "delete-configuration-recorder"),
        ("configservice", "delete-delivery-channel"),
        ("securityhub", "disable-security-hub"),
        ("macie2", "disable-macie"),
        ("access-analyzer", "delete-analyzer"),
    ),
    "gcloud": (("logging", "sinks", "delete"),),
    "az": (
        ("monitor", "diagnostic-settings", "delete"),
        ("monitor", "log-profiles", "delete"),
        ("security", "auto-provisioning-setting", "update"),
    ),
}


def _audit(name: str, cmd: SimpleCommand) -> str | None:
    pos = [w.lower() for w in cmd.positionals[:3]]
    for verbs in _AUDIT.get(name, ()):
        if tuple(pos[: len(verbs)]) == verbs:
            return " ".join(verbs)
    if name == "aws" and pos[:2] == ["guardduty", "update-detector"]:
        return "guardduty detector" if "--no-enable" in cmd.argv else None
    if name == "gcloud" and pos[:3] == ["logging", "sinks", "update"]:
        return "logging sink" if "--disabled" in cmd.argv else None
    return None


# -- the command --------------------------------------------------------------------------

_HISTORY_WORDS: Final = ("historysavepath", "consolehost_history", "psreadline")
_FEATURE_REMOVERS: Final = frozenset(
    {"uninstall-windowsfeature", "remove-windowsfeature", "disable-windowsoptionalfeature",
     "dism"}
)  # fmt: skip
_ERASERS: Final = frozenset(
    {"remove-item", "ri", "del", "erase", "rm", "clear-content", "clc", "unlink", "shred"}
)


def defences_off(cmd: SimpleCommand) -> list[DefenceOff]:
    """The defences ``cmd`` takes away (empty for most commands; see the module)."""
    return list(_defences(cmd))


def _defences(cmd: SimpleCommand) -> Iterator[DefenceOff]:
    program = cmd.program
    name = _name(program)
    words = cmd.argv[1:]
    if name == "set-mppreference":
        params, _ = _params(words)
        for key, value in params.items():
            # ``$false`` read by a POSIX reader expands to nothing: the switch alone
            switch = value == "$true" and "false" in cmd.variables
            if key.startswith("disable") and _true(value) and not switch:
                yield DefenceOff("antivirus", program, "-" + key)
                return
            if key.startswith("exclusion"):  # the list of exclusions replaced
                yield DefenceOff("antivirus", program, f"-{key} {value}")
                return
    elif name in _FEATURE_REMOVERS:
        # Uninstall-WindowsFeature Windows-Defender, dism /disable-feature:…Defender…
        text = " ".join(words).lower()
        if "defender" in text:
            yield DefenceOff("antivirus", program, "the Windows Defender feature removed")
    elif name == "auditpol":
        lowered = [w.lower() for w in words]
        if any(w in ("/clear", "/remove", "-clear", "-remove") for w in lowered) or (
            any(w in ("/set", "-set") for w in lowered) and any(":disable" in w for w in lowered)
        ):
            yield DefenceOff("host_audit", program, " ".join(words))
    elif name in ("disable-bitlocker", "suspend-bitlocker"):
        yield DefenceOff("encryption", program, " ".join(words) or "every volume")
    elif name == "manage-bde":
        lowered = [w.lower() for w in words]
        if any(w in ("-off", "/off") for w in lowered) or (
            any(w in ("-protectors", "/protectors") for w in lowered)
            and any(w in ("-disable", "/disable", "-delete", "/delete") for w in lowered)
        ):
            yield DefenceOff("encryption", program, " ".join(words))
    elif name == "add-mppreference":
        params, _ = _params(words)
        excluded = next((k for k in params if k.startswith("exclusion")), None)
        if excluded:
            yield DefenceOff("antivirus", program, f"-{excluded} {params[excluded]}")
    elif name == "set-netfirewallprofile":
        params, _ = _params(words)
        if "enabled" in params and not _true(params["enabled"]):
            yield DefenceOff("firewall", program, params.get("profile", "every profile"))
    elif name == "netsh":
        lowered = [w.lower() for w in words]
        if "advfirewall" in lowered and "state" in lowered:
            state = lowered[lowered.index("state") + 1 :][:1]
            if state == ["off"]:
                yield DefenceOff("firewall", program, " ".join(words))
        elif (
            lowered[:1] == ["firewall"]
            and "opmode" in " ".join(lowered)
            and any(w.endswith("disable") for w in lowered)
        ):
            yield DefenceOff("firewall", program, " ".join(words))
    elif name == "set-executionpolicy":
        params, args = _params(words)
        policy = (params.get("executionpolicy") or (args[0] if args else "")).lower()
        scope = (params.get("scope") or "localmachine").lower()
        if policy in ("unrestricted", "bypass") and scope not in ("process", "currentuser"):
            yield DefenceOff("script_policy", program, f"{policy} for {scope}")
    elif name in ("reg", "set-itemproperty", "sp", "new-itemproperty"):
        setting = registry_write(cmd)
        what = _registry(*setting) if setting else None
        if what and setting:
            yield DefenceOff(what, program, f"{setting[1]}={setting[2]}")
    elif name in _ERASERS:
        text = " ".join(words).lower()
        if any(w in text for w in _HISTORY_WORDS):
            yield DefenceOff("history", program, "the PSReadLine history file")
    elif name in _TRUSTERS:
        trusted = _root_trust(name, [w for w in words])
        if trusted:
            yield DefenceOff("root_trust", program, trusted)
    elif name in ("dockerd", "socat"):
        served = _docker_api(name, words)
        if served:
            yield DefenceOff("docker_api", program, served)
    elif name in ("aws", "gcloud", "az", "gsutil", "gh"):
        audit = _audit(name, cmd)
        if audit:
            yield DefenceOff("audit", program, audit)
        opened = _exposure(name, cmd)
        if opened:
            yield DefenceOff("exposure", program, opened)
        published = _public_storage(name, cmd)
        if published:
            yield DefenceOff("public_storage", program, published)


# -- the Docker daemon's API on the network ----------------------------------------------

_LOOPBACK_HOSTS: Final = ("127.", "localhost", "[::1]", "::1")
_DAEMON_SOCKETS: Final = ("docker.sock", "podman.sock", "containerd.sock")


def _docker_api(name: str, words: Sequence[str]) -> str | None:
    """The network address on which a command serves the Docker daemon's API without
    client certificates, as written, or None."""
    if name == "dockerd":
        if any(w == "--tlsverify" or w.lower() == "--tlsverify=true" for w in words):
            return None
        for address in _daemon_hosts(words):
            scheme, sep, rest = address.partition("://")
            if not sep:  # dockerd reads an address without a scheme as tcp://
                scheme, rest = "tcp", address
            if scheme.lower() == "tcp" and not _loopback_address(rest):
                return f"-H {address}"
        return None
    # socat: one address listens on TCP, the other is the daemon's socket
    listens = [
        w
        for w in words
        if w.upper().startswith(("TCP-LISTEN:", "TCP4-LISTEN:", "TCP6-LISTEN:", "TCP-L:"))
    ]
    socket = any(
        w.upper().startswith(("UNIX-CONNECT:", "UNIX-CLIENT:", "UNIX:", "GOPEN:"))
        and w.lower().split(",", 1)[0].endswith(_DAEMON_SOCKETS)
        for w in words
    )
    for listen in listens if socket else []:
        options = listen.lower().split(",")[1:]
        bound = [o.partition("=")[2] for o in options if o.startswith(("bind=", "range="))]
        if not any(_loopback_address(b) for b in bound):
            return listen
    return None


def _daemon_hosts(words: Sequence[str]) -> Iterator[str]:
    """The addresses of ``dockerd -H A``, ``-HA``, ``--host A``, ``--host=A``."""
    for i, word in enumerate(words):
        if word in ("-H", "--host") and i + 1 < len(words):
            yield words[i + 1]
        elif word.startswith("--host="):
            yield word.partition("=")[2]
        elif word.startswith("-H") and len(word) > 2 and not word.startswith("--"):
            yield word[2:].lstrip("=")


def _loopback_address(address: str) -> bool:
    """Whether ``host:port`` (or a bare host) is on this machine only."""
    host = address.lstrip("/").lower()
    return host.startswith(_LOOPBACK_HOSTS)


# -- trusted roots --------------------------------------------------------------------------

_TRUSTERS: Final = frozenset(
    {"import-certificate", "import-pfxcertificate", "certutil", "security", "trust", "keytool"}
)
_ROOT_STORES: Final = frozenset({"root", "authroot"})


def _root_trust(name: str, words: Sequence[str]) -> str | None:
    """The certificate (or store) a command makes a trusted root, as written, or None."""
    lowered = [w.lower() for w in words]
    if name in ("import-certificate", "import-pfxcertificate"):
        params, args = _params(words)
        store = "".join(c for c in params.get("certstorelocation", "").lower() if c not in "\\/")
        if store.endswith(tuple(_ROOT_STORES)):
            return params.get("filepath") or (args[0] if args else params["certstorelocation"])
        return None
    if name == "certutil":
        for i, word in enumerate(lowered):
            if word in ("-addstore", "/addstore"):
                store = next((w for w in lowered[i + 1 :] if not w.startswith(("-", "/"))), "")
                return words[-1] if store.strip("'\"") in _ROOT_STORES else None
        # NSS's certutil -A -t "C,,": added as a certificate authority for TLS servers
        if "-A" in words:
            trust = next((words[i + 1] for i, w in enumerate(words[:-1]) if w == "-t"), "")
            if "C" in trust.split(",")[0]:
                return next((words[i + 1] for i, w in enumerate(words[:-1]) if w == "-i"), trust)
        return None
    if name == "security":
        if lowered[:1] != ["add-trusted-cert"]:
            return None
        policy = next((lowered[i + 1] for i, w in enumerate(lowered[:-1]) if w == "-r"), "")
        return None if policy in ("deny", "unspecified") else (words[-1] if len(words) > 1 else "")
    if name == "trust":
        if lowered[:1] == ["anchor"] and not {"--remove", "-r"} & set(lowered):
            return words[-1] if len(words) > 1 else "an anchor"
        return None
    # keytool -importcert (-import) into Java's cacerts: trusted by every Java program
    imports = {"-importcert", "-import"} & set(lowered)
    if imports and any("cacerts" in w for w in lowered):
        return next((words[i + 1] for i, w in enumerate(lowered[:-1]) if w == "-file"), "cacerts")
    return None


# -- credentials taken from the machine ----------------------------------------------------

_METADATA_HOSTS: Final = frozenset(
    {"169.254.169.254", "metadata.google.internal", "metadata", "fd00:ec2::254",
     "100.100.100.200", "169.254.170.2"}
)  # fmt: skip


def metadata_credential(url: str) -> bool:
    """Whether ``url`` asks an instance-metadata service for credentials: a service account's
    or managed identity's token (GCP ``…/service-accounts/*/token`` or ``/identity``, Azure
    ``/metadata/identity/oauth2/token``), a role's keys (AWS and Alibaba
    ``…/security-credentials/ROLE``), or anything of ECS's credential endpoint; not the
    instance's id, zone or the list of roles."""
    try:
        parts = urlsplit(url if "://" in url else "http://" + url)
        host = (parts.hostname or "").lower()
    except ValueError:
        return False
    if host not in _METADATA_HOSTS:
        return False
    path = parts.path.lower().rstrip("/")
    if host == "169.254.170.2":
        return bool(path)
    if "/service-accounts/" in path and path.endswith(("/token", "/identity")):
        return True
    if path.startswith("/metadata/identity/oauth2/token"):
        return True
    _, sep, role = path.partition("/security-credentials/")
    return bool(sep and role)


def credentials_taken(cmd: SimpleCommand, urls: Sequence[str] = ()) -> list[CredentialTaken]:
    """The credentials ``cmd`` takes from the machine that are not files (a file's read is
    judged by its path's class): ``urls`` are the addresses the command requests
    (:mod:`.network`)."""
    program = cmd.program
    name = _name(program)
    found: list[CredentialTaken] = []
    for url in urls:
        if metadata_credential(url):
            found.append(CredentialTaken("metadata_token", program, url))
            break
    lowered = [w.lower() for w in cmd.argv[1:]]
    if name in ("gpg", "gpg2") and any(
        w.startswith(("--export-secret-keys", "--export-secret-subkeys")) for w in lowered
    ):
        found.append(CredentialTaken("key_export", program, "--export-secret-keys"))
    elif name == "reg" and lowered[:1] in (["save"], ["export"]) and len(lowered) > 1:
        hive = "".join(c for c in lowered[1] if c not in "\\/:")
        if hive in (root + h for root in ("hklm", "hkey_local_machine") for h in _HIVES):
            found.append(CredentialTaken("account_hive", program, cmd.argv[2]))
    elif name == "vaultcmd" and any(w.startswith("/listcreds") for w in lowered):
        found.append(CredentialTaken("credential_store", program, "/listcreds"))
    elif name == "cmdkey" and any(w.startswith("/l") for w in lowered):
        found.append(CredentialTaken("credential_store", program, "/list"))
    elif name == "rundll32" and any(w.startswith("keymgr.dll,") for w in lowered):
        # the Stored User Names and Passwords dialog
        found.append(CredentialTaken("credential_store", program, "keymgr.dll"))
    elif name.endswith("protecteddata]::unprotect"):
        # [Security.Cryptography.ProtectedData]::Unprotect: what Chrome's Local State key
        # and the saved passwords it protects are decrypted with
        found.append(CredentialTaken("dpapi_decrypt", program, "ProtectedData.Unprotect"))
    elif name == "netsh" and "wlan" in lowered and "key=clear" in lowered:
        found.append(CredentialTaken("wifi_keys", program, "key=clear"))
    elif name == "ntdsutil" and any("ifm" in w.split() for w in lowered):
        found.append(CredentialTaken("account_hive", program, "ntds.dit (install from media)"))
    dump = _lsass_dump(name, lowered)
    if dump is not None:
        found.append(CredentialTaken("lsass_dump", program, dump))
    text = " ".join(lowered)
    if name in _DUMPING_TOOLS or any(module in text for module in _DUMPING_MODULES):
        found.append(CredentialTaken("dumping_tool", program, name))
    copied = next((w for w in lowered if _account_file(w)), None)
    if copied is not None and name not in ("reg", "ntdsutil"):
        # ntds.dit, or the hives read out of a shadow copy (esentutl /vss, copy \\?\GLOBALROOT…)
        found.append(CredentialTaken("account_hive", program, copied))
    return found


_HIVES: Final = ("sam", "system", "security")
# Tools made to take credentials from a Windows host, and mimikatz's modules that do
# (whatever the program running them is called).
_DUMPING_TOOLS: Final = frozenset(
    {"mimikatz", "invoke-mimikatz", "pypykatz", "lazagne", "invoke-powerdump",
     "get-gpppassword", "secretsdump", "secretsdump.py", "nanodump", "safetykatz"}
)  # fmt: skip
_DUMPING_MODULES: Final = ("sekurlsa::", "lsadump::", "dpapi::", "vault::cred", "kerberos::list")
# Programs that write a process's memory to a file (the one holding credentials is LSASS).
_DUMPERS: Final = frozenset({"procdump", "procdump64", "procdump64a", "sqldumper", "createdump"})


def _lsass_dump(name: str, lowered: Sequence[str]) -> str | None:
    """What a command dumps of LSASS's memory: comsvcs.dll's MiniDump export (by name or by
    its ordinal #24, whatever process it is given: it is how the logon process is dumped
    without a tool), PowerSploit's Out-Minidump, a dumper (procdump -ma) pointed at lsass."""
    text = " ".join(lowered)
    if name == "rundll32" and "comsvcs" in text and ("minidump" in text or "#24" in text):
        return "comsvcs.dll MiniDump"
    if name == "out-minidump":
        return "Out-Minidump"
    if name in _DUMPERS and any(w.startswith("lsass") for w in lowered):
        return "lsass"
    if name == "rdrleakdiag" and "/fullmemdmp" in text:
        return "rdrleakdiag /fullmemdmp"
    return None


def _account_file(word: str) -> bool:
    """``ntds.dit``, or SAM, SYSTEM or SECURITY in a shadow copy (what a running Windows
    locks, read from a snapshot instead)."""
    path = word.replace("\\", "/")
    if path.endswith("ntds.dit") or "/ntds.dit" in path:
        return True
    return "shadowcopy" in path and path.rsplit("/", 1)[-1] in _HIVES

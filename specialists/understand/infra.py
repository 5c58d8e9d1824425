"""Safeguards of infrastructure code that need more than one line to judge.

Most of what infrastructure code (Terraform/OpenTofu HCL, CloudFormation, Kubernetes
manifests, Helm values, CDK and Pulumi programs) does to a data store or a cluster is one
setting on one line (``deletion_protection = false``), read as a table of constructs by
:mod:`specialists.understand.safeguards`. What this module reads needs the setting's
surroundings, so each function counts the occurrences in one text and the caller compares
the counts before and after a change:

- :func:`world_ingress`: a network rule that admits the whole internet (``0.0.0.0/0``,
  ``::/0``, Azure's ``*``/``Internet``) *inbound* to a port that is not a web port (80 or
  443), or to ports not given. The rule is the innermost block around the address (braces
  or parentheses in HCL and code; the list item or mapping in YAML): a block whose header
  or settings say egress or outbound is not counted, and neither is a route
  (``cidr_block``, ``destination_cidr_block``: those keys are not read);
- :func:`public_principals`: a resource policy statement that allows ``Principal: "*"``
  (a statement that denies, such as the usual "deny unless TLS", is not one);
- :func:`admin_policies`: an identity policy statement that allows every action
  (``"*"``, ``"*:*"``) or every IAM action (``"iam:*"``) on every resource (``"*"``), and
  the administrator's managed policy or role attached (AWS ``AdministratorAccess``, GCP
  ``roles/owner``, Azure ``Owner``); a statement that denies is not one, and neither is a
  statement of named actions on ``"*"`` (``ecr:GetAuthorizationToken`` needs it);
- :func:`privileged_containers`: ``privileged: true`` in YAML, unless the container or
  service it belongs to runs Docker-in-Docker (a ``dind`` image), which needs it;
- :func:`open_bindings`: a Kubernetes RoleBinding or ClusterRoleBinding document that gives
  any role to ``system:anonymous`` or ``system:unauthenticated``, or ``cluster-admin`` /
  ``admin`` to every authenticated user or every service account;
- :func:`resources`: how many resources a text defines (``resource "…"``, a manifest's
  ``kind:``, a CloudFormation ``Type: AWS::…``), so that a protection removed together
  with the resource it protected is told apart from one removed from a resource that stays.

Patterns are RE2 (linear time); a block is found by one scan outwards from each match, and
at most :data:`MAX_MATCHES` matches are looked at per text.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

import re2

__all__ = [
    "MAX_MATCHES",
    "admin_policies",
    "open_bindings",
    "privileged_containers",
    "public_principals",
    "resources",
    "world_ingress",
]

MAX_MATCHES: Final = 64
MAX_SCAN: Final = 16_384  # how far a block is looked for around a match, each way
WEB_PORTS: Final = frozenset({80, 443})

_WORLD: Final = re2.compile(
    r"(?i)\b(?:cidr_?blocks|ipv6_?cidr_?blocks|cidr_?ipv[46]|cidr_?ip|source_?ranges"
    r"|source_?address_?prefix(?:es)?|value)['\"]?\s*[:=]\s*[^\n]*?(?:0\.0\.0\.0/0|::/0)"
    r"|\bsource_?address_?prefix(?:es)?['\"]?\s*[:=]\s*\[?\s*['\"](?:\*|Internet|Any)['\"]"
    r"|\badd_?ingress_?rule\s*\(\s*[\w.]*Peer\.any_?ipv[46]\s*\(\s*\)"
)
_OUTBOUND: Final = re2.compile(
    r"(?i)egress|\boutbound\b|\bdirection['\"]?\s*[:=]\s*['\"]?(?:egress|outbound)"
)
_PORT_VALUE: Final = re2.compile(
    r"(?i)\b(?:from_?port|to_?port|ports?|destination_?port_?ranges?|port_?range)['\"]?"
    r"\s*[:=]\s*([^\n]*)"
)
_ALL_PROTOCOLS: Final = re2.compile(
    r"(?i)\b(?:ip_?)?protocol['\"]?\s*[:=]\s*['\"]?(?:-1|all)['\"]?"
)
_CDK_PORT: Final = re2.compile(
    r"(?i)Port\.(tcp|udp|all_?tcp|all_?traffic|all_?udp|tcp_?range)"
    r"\s*\(\s*(\d*)"
)
_NUMBER: Final = re2.compile(r"\d+")
_FROM_TO: Final = re2.compile(r"(?i)\b(from|to)_?port['\"]?\s*[:=]\s*['\"]?(\d+)")

_PRINCIPAL_ANY: Final = re2.compile(
    r"(?i)\bprincipals?['\"]?\s*[:=]\s*(?:\{\s*['\"]?AWS['\"]?\s*[:=]\s*)?\[?\s*['\"]\*['\"]"
    r"|\bidentifiers\s*=\s*\[\s*['\"]\*['\"]\s*\]"
)
_DENY: Final = re2.compile(r"(?i)\beffect['\"]?\s*[:=]\s*['\"]?deny\b")

# An action list of every action, or of every IAM action (which grants the rest), first.
_ACTION_ALL: Final = re2.compile(
    r"(?i)\bactions?['\"]?\s*[:=]\s*(?:\[\s*|-[ \t]*)?['\"]?(?:\*|\*:\*|iam:\*)['\"]?"
    r"[ \t]*(?:[,\]\n}]|$)"
)
_RESOURCE_ALL: Final = re2.compile(
    r"(?i)\bresources?['\"]?\s*[:=]\s*(?:\[\s*|-[ \t]*)?['\"]\*['\"]"
)
_RESOURCE_KEY: Final = re2.compile(r"(?i)\bresources?['\"]?\s*[:=]")
_ADMIN_GRANT: Final = re2.compile(
    r"iam::aws:policy/AdministratorAccess(?:$|[^\w-])"
    r"|\b(?:fromAwsManagedPolicyName|from_aws_managed_policy_name)\s*\(\s*['\"]"
    r"AdministratorAccess['\"]|\bManagedPolic(?:y|ies)\.AdministratorAccess\b"
    r"|\brole['\"]?\s*[:=]\s*['\"]roles/owner['\"]"
    r"|\brole_?definition_?name['\"]?\s*[:=]\s*['\"]Owner['\"]"
)

_PRIVILEGED: Final = re2.compile(r"(?m)^[ \t-]*['\"]?privileged['\"]?\s*:\s*['\"]?true\b")
_DIND: Final = re2.compile(r"(?i)\bdind\b|docker:[\w.-]*dind")

_DOCUMENT: Final = re2.compile(r"(?m)^---[^\n]*$")
_BINDING: Final = re2.compile(r"(?m)^kind:\s*['\"]?(?:Cluster)?RoleBinding\b")
_ANONYMOUS: Final = re2.compile(r"\bsystem:(?:anonymous|unauthenticated)\b")
_EVERYONE: Final = re2.compile(
    r"\bsystem:(?:authenticated|serviceaccounts)['\"]?\s*$|"
    r"\bsystem:(?:authenticated|serviceaccounts)['\"]?\s*[,}\]]"
)
_ADMIN_ROLE: Final = re2.compile(
    r"(?m)^roleRef:[^\n]*(?:\n[ \t]+[^\n]*)*?\bname:\s*['\"]?"
    r"(?:cluster-admin|admin)['\"]?\s*$"
)

_RESOURCE: Final = re2.compile(
    r"(?m)^\s*resource\s+\"|^kind:\s*\w|^\s*Type:\s*['\"]?(?:AWS|Custom)::"
    r"|\bnew\s+(?:[\w]+\.)+[A-Z]\w*\s*\(\s*(?:this|self|scope|stack)?\s*,?\s*['\"]"
)


def resources(code: str) -> int:
    """How many resources ``code`` defines."""
    return sum(1 for _ in _RESOURCE.finditer(code))


# -- blocks ----------------------------------------------------------------------------------

_OPEN: Final = "{(["
_CLOSE: Final = "})]"


def _bracket_block(code: str, at: int) -> tuple[str, str, int] | None:
    """The innermost ``{…}`` or ``(…)`` around ``at``, its header (the text of the line
    before the opening bracket) and where it starts, or None when ``at`` is at the top
    level or too far away (:data:`MAX_SCAN`)."""
    depth = 0
    i = at
    floor = max(0, at - MAX_SCAN)
    while i > floor:
        i -= 1
        ch = code[i]
        if ch in _CLOSE:
            depth += 1
        elif ch in _OPEN:
            if depth == 0:
                if ch == "[":  # a list is not a block: look further out
                    continue
                start = i
                break
            depth -= 1
    else:
        return None
    depth = 0
    j = start
    end = limit = min(len(code), start + 2 * MAX_SCAN)
    while j < limit:
        ch = code[j]
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
            if depth == 0:
                end = j + 1
                break
        j += 1
    line = code.rfind("\n", 0, start) + 1
    return code[start:end], code[line:start], start


def _indent(line: str) -> int:
    """The column of a YAML line's key (a list item's ``- `` counts as indentation)."""
    stripped = line.lstrip(" ")
    n = len(line) - len(stripped)
    while stripped.startswith("- "):
        n += 2
        stripped = stripped[2:].lstrip(" ")
        n += len(stripped) - len(stripped.lstrip(" "))
    return n


def _yaml_block(lines: list[str], index: int) -> tuple[str, str]:
    """The YAML mapping (list item or keyed block) holding line ``index``, and its ancestors'
    keys (the header)."""
    level = _indent(lines[index])
    first = index
    while first > 0 and not lines[first].lstrip().startswith("- "):
        above = lines[first - 1]
        if above.strip() and _indent(above) < level:
            break
        first -= 1
    last = index
    while last + 1 < len(lines):
        below = lines[last + 1]
        if below.strip() and (
            _indent(below) < level or (below.lstrip().startswith("- ") and _indent(below) <= level)
        ):
            break
        last += 1
    header: list[str] = []
    want = _indent(lines[first]) if lines[first].strip() else level
    for k in range(first - 1, -1, -1):
        line = lines[k]
        if line.strip() and _indent(line) < want:
            header.append(line)
            want = _indent(line)
            if want == 0:
                break
    return "\n".join(lines[first : last + 1]), "\n".join(header)


@lru_cache(maxsize=4)
def _lines(code: str) -> list[str]:
    return code.split("\n")


def _block(code: str, at: int, yaml: bool) -> tuple[str, str]:
    """The block around ``at`` and its header (a window of the text when there is none)."""
    if yaml:
        return _yaml_block(_lines(code), code.count("\n", 0, at))
    found = _bracket_block(code, at)
    if found is not None:
        return found[0], found[1]
    return code[max(0, at - 2_000) : at + 2_000], ""


# -- the readers -----------------------------------------------------------------------------


def _web_only(block: str) -> bool:
    """Whether the rule ``block`` admits web ports only (80, 443)."""
    if _ALL_PROTOCOLS.search(block):
        return False
    ports: set[int] = set()
    for match in _CDK_PORT.finditer(block):
        kind, number = match.group(1).lower(), match.group(2)
        if kind not in ("tcp", "udp") or not number:
            return False
        ports.add(int(number))
    ends: dict[str, int] = {}
    for match in _FROM_TO.finditer(block):
        ends[match.group(1).lower()] = int(match.group(2))
    if len(ends) == 2 and ends["from"] != ends["to"]:
        return False  # a range of ports
    for match in _PORT_VALUE.finditer(block):
        value = match.group(1)
        if "*" in value or "-" in value.replace("->", ""):
            return False  # every port, or a range
        ports.update(int(n) for n in _NUMBER.findall(value))
    return bool(ports) and ports <= WEB_PORTS


@lru_cache(maxsize=16)
def world_ingress(code: str, yaml: bool) -> int:
    """How many inbound rules in ``code`` admit the whole internet to a port that is not
    a web port, or to ports the rule does not give (``yaml``: read blocks by indentation)."""
    total = 0
    for n, match in enumerate(_WORLD.finditer(code)):
        if n >= MAX_MATCHES:
            break
        block, header = _block(code, match.start(), yaml)
        if _OUTBOUND.search(header) or _OUTBOUND.search(block):
            continue
        if _web_only(block):
            continue
        total += 1
    return total


@lru_cache(maxsize=16)
def public_principals(code: str, yaml: bool) -> int:
    """How many policy statements in ``code`` allow any principal (``"*"``)."""
    total = 0
    for n, match in enumerate(_PRINCIPAL_ANY.finditer(code)):
        if n >= MAX_MATCHES:
            break
        block, _ = _block(code, match.start(), yaml)
        if not yaml and not _DENY.search(block):  # the statement may be one block out
            found = _bracket_block(code, match.start())
            outer = _bracket_block(code, found[2]) if found is not None else None
            block = outer[0] if outer is not None else block
        if not _DENY.search(block):
            total += 1
    return total


@lru_cache(maxsize=16)
def admin_policies(code: str, yaml: bool) -> int:
    """How many policy statements in ``code`` allow every action (or every IAM action) on
    every resource, and how many grants of an administrator's policy or role it holds."""
    total = sum(1 for _ in _ADMIN_GRANT.finditer(code))
    for n, match in enumerate(_ACTION_ALL.finditer(code)):
        if n >= MAX_MATCHES:
            break
        block, _ = _block(code, match.start(), yaml)
        if not yaml and not _RESOURCE_KEY.search(block):  # the statement may be one block out
            found = _bracket_block(code, match.start())
            outer = _bracket_block(code, found[2]) if found is not None else None
            block = outer[0] if outer is not None else block
        if _RESOURCE_ALL.search(block) and not _DENY.search(block):
            total += 1
    return total


@lru_cache(maxsize=16)
def privileged_containers(code: str) -> int:
    """How many YAML containers or services in ``code`` run privileged, Docker-in-Docker
    (which needs it) aside."""
    lines = _lines(code)
    total = 0
    for n, match in enumerate(_PRIVILEGED.finditer(code)):
        if n >= MAX_MATCHES:
            break
        if not _DIND.search(_subtree(lines, _owner(lines, code.count("\n", 0, match.start())))):
            total += 1
    return total


def _raw(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _owner(lines: list[str], index: int) -> int:
    """The line of the container (a list item) or the service (a key two columns in) that
    line ``index`` belongs to."""
    level = _raw(lines[index])
    for k in range(index - 1, -1, -1):
        line = lines[k]
        if not line.strip() or _raw(line) >= level:
            continue
        level = _raw(line)
        if line.lstrip().startswith("- ") or level <= 2:
            return k
    return 0


def _subtree(lines: list[str], index: int) -> str:
    """Line ``index`` and the lines nested under it."""
    level = _raw(lines[index])
    end = index + 1
    while end < len(lines) and (not lines[end].strip() or _raw(lines[end]) > level):
        end += 1
    return "\n".join(lines[index:end])


@lru_cache(maxsize=16)
def open_bindings(code: str) -> int:
    """How many RoleBinding documents in ``code`` give a role to anonymous users, or an
    administrator role to every authenticated user or service account."""
    total = 0
    for document in _DOCUMENT.split(code):
        if not _BINDING.search(document):
            continue
        everyone = any(_EVERYONE.search(line) for line in document.split("\n"))
        if _ANONYMOUS.search(document) or (everyone and _ADMIN_ROLE.search(document)):
            total += 1
    return total

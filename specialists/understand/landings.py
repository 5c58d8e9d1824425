"""Where an operation lands: the target of a deploy, an apply, a scale, a DNS change, a charge.

A command that changes a service (``kubectl apply``, ``helm upgrade --install``, ``vercel
deploy --prod``, ``fly deploy``, ``eb deploy``, ``ansible-playbook``, ``az webapp deployment``,
``gcloud run deploy``, ``aws route53 change-resource-record-sets``, ``serverless deploy``,
``cap production deploy``, ``psql $PROD_DATABASE_URL -f``, ``stripe refunds create``, an MCP
tool named for a deploy, PowerShell's ``Invoke-Command -ComputerName``) lands somewhere: a
kube context and namespace, a helm namespace, a cloud project, resource group, profile or
stage, an app, an inventory, a database named by a connection variable, live or test keys.
:func:`landings` reads, for every such operation an action runs however it is wrapped (the
shell reader sees through ``sh -c``, ``eval``, variables...), **what** it does (a change, or
only a look: ``get``, ``describe``, ``logs``, ``diff``, ``plan``, ``status``, ``--check``,
``--dry-run``) and **where** it lands, and whether that target reads as production.

A target reads as production when one of its names has a word of production (``prod``,
``production``, ``prd``, ``live``; ``prod-eks``, ``rg-prod``, ``inventories/production``,
``$PROD_DATABASE_URL``, ``sk_live_…``), whole words only: ``product``, ``productivity``,
``preprod``, ``pre-prod`` and ``nonprod`` do not. A place that says it is local (a ``kind-``
or ``minikube`` context) or not production (``dev``, ``staging``, ``test``...) outweighs a
hint (a manifest directory, a values file, a playbook's name); a hint counts alone only when
no place says otherwise. A few operations are live by nature (a public DNS zone's records,
``vercel promote``): they read as production unless a name says otherwise. Switches made
earlier on the line or in the session's earlier actions (``kubectl config use-context``,
``terraform workspace select``, ``gcloud config set project``, ``az account set``,
``pulumi stack select``, ``export KUBECONFIG=…``) carry over to the commands after them.

Nothing is looked up and nothing is run; a target the words do not name is unknown.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

import re2

from specialists.shellparse import SimpleCommand, command_of, parse_for, workspace_of
from specialists.understand.globs import is_within
from specialists.understand.options import split_options
from supervisor.models import Action, Context

__all__ = [
    "NON_PRODUCTION_WORDS",
    "PRODUCTION_WORDS",
    "Landing",
    "landings",
    "name_words",
    "says_production",
]

PRODUCTION_WORDS: Final = frozenset({"prod", "production", "prd", "live"})
# Words that make a name say "not production" (a place that names one of these is not).
NON_PRODUCTION_WORDS: Final = frozenset(
    {
        "dev", "develop", "development", "staging", "stage", "stg", "test", "testing", "qa",
        "sandbox", "preview", "local", "demo", "uat", "preprod", "nonprod", "ci", "scratch",
        "playground", "review", "canary", "experimental", "draft", "personal",
    }
)  # fmt: skip
# A word before a production word that negates it: pre-prod, non-prod, not-prod.
_NEGATING: Final = frozenset({"pre", "non", "not", "no"})
# Contexts and hosts of a cluster or server on this machine.
_LOCAL_PREFIXES: Final = ("kind-", "k3d-", "minikube", "docker-desktop", "rancher-desktop")
_LOCAL_NAMES: Final = frozenset({"localhost", "127.0.0.1", "::1", "local", "kind", "k3s"})
MAX_RECENT: Final = 20  # earlier actions of the session read for switches
MAX_LANDINGS: Final = 16


@dataclass(frozen=True, slots=True)
class Landing:
    """One operation and where it lands.

    Attributes:
        tool: the program or tool (``kubectl``, ``helm``, ``mcp__vercel__deploy``).
        operation: what it does, in its own words (``apply``, ``upgrade``, ``deploy --prod``).
        change: it changes what it targets (False: it only looks, or is a dry run).
        places: where it lands, as (what, name) pairs: ``("context", "prod-eks")``.
        hints: names of what it sends that say where it is meant for (a manifest path, a
            values file, a playbook): ``("values file", "values-prod.yaml")``.
        production: why the target reads as production, or None.
        via: the wrappers it was reached through (``sh -c → eval``), or ``""``.
    """

    tool: str
    operation: str
    change: bool
    places: tuple[tuple[str, str], ...] = ()
    hints: tuple[tuple[str, str], ...] = ()
    production: str | None = None
    via: str = ""

    def describe(self) -> str:
        """The target in a few words: ``context 'prod-eks', namespace 'shop'``."""
        named = self.places or self.hints
        if not named:
            return "a target the command does not name"
        return ", ".join(f"{what} {name!r}" for what, name in named[:4])


# -- words ----------------------------------------------------------------------------------


def name_words(name: str) -> list[str]:
    """The words of a name, lower case, split at punctuation and camel case:
    ``rg-prod`` → rg, prod; ``ProdStack`` → prod, stack; ``$PROD_DATABASE_URL`` → prod, ..."""
    out: list[str] = []
    current: list[str] = []
    previous = ""
    for ch in name[:512]:
        if ch.isalnum():
            if current and ch.isupper() and previous.islower():
                out.append("".join(current).lower())
                current = []
            current.append(ch)
        elif current:
            out.append("".join(current).lower())
            current = []
        previous = ch
    if current:
        out.append("".join(current).lower())
    return out


def _stem(word: str) -> str:
    return word.rstrip("0123456789") or word  # prod1, prod01


def says_production(name: str, words: frozenset[str] = PRODUCTION_WORDS) -> str | None:
    """The production word ``name`` holds as a word of its own, or None."""
    found = name_words(name)
    for i, word in enumerate(found):
        if _stem(word) in words and not (i and found[i - 1] in _NEGATING):
            return _stem(word)
    return None


def _says_other(name: str) -> bool:
    """The name says it is not production: local, development, staging, test..."""
    lowered = name.lower().strip()
    if lowered.startswith(_LOCAL_PREFIXES) or lowered in _LOCAL_NAMES:
        return True
    found = name_words(name)
    if any(_stem(w) in NON_PRODUCTION_WORDS for w in found):
        return True
    return any(
        w in PRODUCTION_WORDS and i and found[i - 1] in _NEGATING for i, w in enumerate(found)
    )


def _short(name: str) -> str:
    """A path's last two components (``/home/dev/.kube/prod-config`` → ``.kube/prod-config``):
    the user's home or a checkout's parents say nothing about the target."""
    if name.startswith(("/", "~")) and name.count("/") > 2:
        return "/".join(name.rstrip("/").rsplit("/", 2)[-2:])
    return name


def _judge(
    places: Sequence[tuple[str, str]],
    hints: Sequence[tuple[str, str]],
    words: frozenset[str],
    live: str | None = None,
) -> str | None:
    """Why the target reads as production, or None (see the module's doc)."""
    places = [(what, _short(name)) for what, name in places]
    hints = [(what, _short(name)) for what, name in hints]
    others = [name for _, name in places if _says_other(name)]
    for what, name in places:
        if name in others:
            continue
        word = says_production(name, words)
        if word is not None and not (others and what in _WEAK_PLACES):
            return f"its {what} {name!r} says {word}"
    if others:
        return None
    for what, name in hints:
        if _says_other(name):
            return None
        word = says_production(name, words)
        if word is not None:
            return f"its {what} {name!r} says {word}"
    return live


# Places that say less than the others beside them: a namespace named prod on a kind cluster.
_WEAK_PLACES: Final = frozenset({"namespace", "release", "name", "resource", "limit"})


# -- reading options ------------------------------------------------------------------------


@dataclass(slots=True)
class _Args:
    positionals: list[str]
    values: dict[str, list[str]]
    flags: set[str]

    def value(self, *names: str) -> str | None:
        for name in names:
            found = self.values.get(name)
            if found:
                return found[-1]
        return None

    def all(self, *names: str) -> list[str]:
        return [v for name in names for v in self.values.get(name, ())]

    def has(self, *names: str) -> bool:
        return any(n in self.flags or n in self.values for n in names)


def _args(words: Sequence[str], short: str = "", long: Iterable[str] = ()) -> _Args:
    positionals: list[str] = []
    values: dict[str, list[str]] = {}
    flags: set[str] = set()
    for opt in split_options(words, short, frozenset(long)):
        if not opt.name:
            positionals.append(opt.value)
        elif opt.value:
            values.setdefault(opt.name, []).append(opt.value)
        else:
            flags.add(opt.name)
    return _Args(positionals, values, flags)


def _before_options(words: Sequence[str]) -> list[str]:
    """The words before the first option (a cloud CLI's command path: ``webapp deployment``)."""
    out: list[str] = []
    for word in words:
        if word.startswith("-"):
            break
        out.append(word)
    return out


# Global options of the cloud CLIs that take no value (any other takes the next word).
_GLOBAL_FLAGS: Final = frozenset(
    {
        "--debug", "--no-verify-ssl", "--no-paginate", "--no-sign-request", "--no-cli-pager",
        "--verbose", "--quiet", "--only-show-errors", "-q", "--no-user-output-enabled",
    }
)  # fmt: skip


def _command_path(argv: Sequence[str]) -> list[str]:
    """A cloud CLI's command path, global options before it skipped: ``aws --profile prod ecs
    update-service`` → ecs, update-service."""
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        word = argv[i]
        i += 1
        if "=" not in word and word not in _GLOBAL_FLAGS and i < len(argv):
            i += 1
    return _before_options(argv[i:])


def _dashed_values(words: Sequence[str]) -> dict[str, list[str]]:
    """``--name value`` and ``--name=value`` pairs of a CLI whose options all take a value
    unless the next word is another option (aws, az, gcloud)."""
    out: dict[str, list[str]] = {}
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if not word.startswith("-") or word == "--":
            continue
        name, eq, value = word.lstrip("-").partition("=")
        if not eq and i < len(words) and not words[i].startswith("-"):
            value = words[i]
            i += 1
        if value:
            out.setdefault(name, []).append(value)
    return out


# -- the state a line and a session carry ---------------------------------------------------


@dataclass(slots=True)
class _State:
    """Switches made earlier: which cluster, workspace, project... later commands use."""

    env: dict[str, str] = field(default_factory=dict)
    kube_context: str | None = None
    kube_namespace: str | None = None
    tf_workspace: str | None = None
    gcloud_project: str | None = None
    az_subscription: str | None = None
    pulumi_stack: str | None = None
    eb_environment: str | None = None
    firebase_project: str | None = None


def _switch(cmd: SimpleCommand, state: _State) -> bool:
    """Record a switch ``cmd`` makes (True when it is one: it changes no service)."""
    program, words = cmd.program, list(cmd.argv[1:])
    head = _before_options(words)
    if program in ("kubectl", "oc") and head[:2] == ["config", "use-context"] and len(head) > 2:
        state.kube_context = head[2]
        return True
    if program in ("kubectl", "oc") and head[:2] == ["config", "set-context"]:
        ns = _args(words, "", ("namespace",)).value("namespace")
        if ns:
            state.kube_namespace = ns
        return True
    if program in ("kubectx", "kubens") and head:
        if program == "kubectx":
            state.kube_context = head[-1]
        else:
            state.kube_namespace = head[-1]
        return True
    if program in _TERRAFORM and "workspace" in head:
        rest = head[head.index("workspace") + 1 :]
        if len(rest) >= 2 and rest[0] in ("select", "new"):
            state.tf_workspace = rest[1]
        return True
    if program == "gcloud" and head[:3] == ["config", "set", "project"] and len(head) > 3:
        state.gcloud_project = head[3]
        return True
    if program == "az" and head[:2] == ["account", "set"]:
        sub = _dashed_values(words).get("subscription") or _dashed_values(words).get("s")
        if sub:
            state.az_subscription = sub[-1]
        return True
    if program == "pulumi" and head[:2] == ["stack", "select"]:
        stack = head[2] if len(head) > 2 else _args(words, "s", ("stack",)).value("s", "stack")
        if stack:
            state.pulumi_stack = stack
        return True
    if program == "firebase" and head[:1] == ["use"] and len(head) > 1:
        state.firebase_project = head[1]
        return True
    if program == "eb" and head[:1] == ["use"] and len(head) > 1:
        state.eb_environment = head[1]
        return True
    return False


# -- the readers, one per family of tools ----------------------------------------------------

_KUBE_CHANGES: Final = frozenset(
    {
        "apply", "create", "replace", "patch", "delete", "scale", "edit", "label", "annotate",
        "autoscale", "expose", "run", "drain", "cordon", "uncordon", "taint", "set",
    }
)  # fmt: skip
_ROLLOUT_CHANGES: Final = frozenset({"restart", "undo", "pause", "resume"})
_KUBE_LONG: Final = (
    "context", "namespace", "kubeconfig", "cluster", "filename", "selector", "output", "user",
    "server", "token", "as", "kustomize", "field-manager", "type", "container", "timeout",
)  # fmt: skip


def _kube_places(args: _Args, state: _State) -> list[tuple[str, str]]:
    """The cluster a kubectl or helm command reaches: context, cluster, kubeconfig, namespace."""
    places: list[tuple[str, str]] = []
    context = args.value("context", "kube-context") or state.kube_context
    if context:
        places.append(("context", context))
    cluster = args.value("cluster")
    if cluster:
        places.append(("cluster", cluster))
    kubeconfig = args.value("kubeconfig") or state.env.get("KUBECONFIG")
    if kubeconfig:
        places.append(("kubeconfig", kubeconfig))
    namespace = args.value("namespace", "n") or state.kube_namespace
    if namespace:
        places.append(("namespace", namespace))
    return places


def _kubectl(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    args = _args(cmd.argv[1:], "nflokc", _KUBE_LONG)
    if not args.positionals:
        return None
    verb = args.positionals[0]
    operation = verb
    if verb == "rollout" and len(args.positionals) > 1:
        operation = f"rollout {args.positionals[1]}"
        change = args.positionals[1] in _ROLLOUT_CHANGES
    else:
        change = verb in _KUBE_CHANGES
    dry = args.value("dry-run")
    if "dry-run" in args.flags or (dry is not None and dry != "none"):
        change = False
    places = _kube_places(args, state)
    hints = [("manifests", f) for f in args.all("filename", "f", "kustomize", "k")]
    return Landing(cmd.program, operation, change, tuple(places), tuple(hints))


_HELM_CHANGES: Final = frozenset({"install", "upgrade", "rollback", "uninstall", "delete", "del"})


def _helm(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    long = ("namespace", "kube-context", "kubeconfig", "values", "set", "set-string", "version")
    args = _args(cmd.argv[1:], "nfo", (*long, "repo", "timeout", "post-renderer", "output"))
    if not args.positionals:
        return None
    verb = args.positionals[0]
    change = verb in _HELM_CHANGES and not args.has("dry-run")
    places = _kube_places(args, state)
    if verb in _HELM_CHANGES and len(args.positionals) > 1:
        places.append(("release", args.positionals[1]))
    hints = [("values file", f) for f in args.all("values", "f")]
    return Landing("helm", verb, change, tuple(places), tuple(hints))


def _helmfile(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    args = _args(cmd.argv[1:], "efn", ("environment", "file", "namespace", "kube-context"))
    if not args.positionals:
        return None
    verb = args.positionals[0]
    change = verb in ("apply", "sync", "destroy", "deploy", "delete")
    places = [("environment", e) for e in args.all("environment", "e")]
    places += [("namespace", n) for n in args.all("namespace", "n")]
    return Landing("helmfile", verb, change, tuple(places))


def _vercel(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    args = _args(cmd.argv[1:], "Atme", ("scope", "token", "target", "env", "build-env", "meta"))
    verb = args.positionals[0] if args.positionals else "deploy"
    if verb not in _VERCEL_VERBS:
        verb = "deploy"  # ``vercel [path]`` deploys
    target = args.value("target")
    prod = "prod" in args.flags or target == "production"
    if verb in ("deploy", "redeploy"):
        place = ("target", "production" if prod else (target or "preview"))
        op = f"{verb} --prod" if prod else verb
        return Landing("vercel", op, True, (place,))
    if verb in ("promote", "rollback"):
        live = "it makes a deployment the production one"
        return Landing("vercel", verb, True, (), (), live)
    if verb == "env" and len(args.positionals) > 2 and args.positionals[1] in ("add", "rm"):
        envs = [("environment", p) for p in args.positionals[3:4]] or [("environment", "all")]
        return Landing("vercel", f"env {args.positionals[1]}", True, tuple(envs))
    if verb == "alias" and args.positionals[1:2] == ["set"]:
        return Landing("vercel", "alias set", True, (), (), None)
    return Landing("vercel", verb, False)


_VERCEL_VERBS: Final = frozenset(
    {
        "deploy", "redeploy", "promote", "rollback", "env", "alias", "ls", "list", "inspect",
        "logs", "whoami", "login", "logout", "link", "pull", "build", "dev", "domains", "dns",
        "certs", "projects", "project", "teams", "switch", "secrets", "remove", "rm", "init",
        "help", "bisect", "git", "integration", "install", "target", "telemetry",
    }
)  # fmt: skip


def _netlify(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    args = _args(cmd.argv[1:], "dfsam", ("dir", "functions", "site", "alias", "message", "auth"))
    if args.positionals[:1] != ["deploy"]:
        return None
    prod = args.has("prod", "p", "prod-if-unlocked")
    place = ("deploy", "production" if prod else (args.value("alias") or "draft"))
    return Landing("netlify", "deploy --prod" if prod else "deploy", True, (place,))


_MACHINE_CHANGES: Final = frozenset(
    {"stop", "destroy", "update", "restart", "run", "clone", "start", "kill", "remove", "rm"}
)
_FLY_CHANGES: Final = {
    "deploy": None,
    "scale": None,
    "secrets": frozenset({"set", "unset", "import", "deploy"}),
    "machine": _MACHINE_CHANGES,
    "machines": _MACHINE_CHANGES,
    "apps": frozenset({"destroy", "restart", "move"}),
    "volumes": frozenset({"destroy", "delete", "extend"}),
    "image": frozenset({"update"}),
    "postgres": frozenset({"restart", "failover"}),
    "certs": frozenset({"add", "remove"}),
    "ips": frozenset({"allocate-v4", "allocate-v6", "release"}),
}  # fmt: skip


def _fly(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    args = _args(cmd.argv[1:], "acrie", ("app", "config", "image", "region", "strategy", "env"))
    if not args.positionals:
        return None
    verb = args.positionals[0]
    if verb not in _FLY_CHANGES:
        return Landing("fly", verb, False)
    subs = _FLY_CHANGES[verb]
    sub = args.positionals[1] if len(args.positionals) > 1 else ""
    change = subs is None or sub in subs
    places: list[tuple[str, str]] = []
    app = args.value("app", "a") or state.env.get("FLY_APP")
    if app:
        places.append(("app", app))
    hints = [("config", c) for c in args.all("config", "c")]
    op = f"{verb} {sub}".strip() if subs is not None else verb
    return Landing("fly", op, change, tuple(places), tuple(hints))


_EB_CHANGES: Final = frozenset(
    {"deploy", "terminate", "scale", "setenv", "swap", "restore", "upgrade", "abort", "create"}
)


def _eb(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    args = _args(cmd.argv[1:], "mlpr", ("message", "label", "profile", "region", "timeout"))
    if not args.positionals:
        return None
    verb = args.positionals[0]
    names = [p for p in args.positionals[1:] if "=" not in p]
    env = names[0] if names else state.eb_environment
    places = [("environment", env)] if env else []
    if args.value("profile"):
        places.append(("profile", args.value("profile") or ""))
    return Landing("eb", verb, verb in _EB_CHANGES, tuple(places))


_ANSIBLE_LOOKS: Final = ("check", "C", "syntax-check", "list-hosts", "list-tasks", "list-tags")
_ANSIBLE_LONG: Final = (
    "inventory", "limit", "extra-vars", "user", "tags", "skip-tags", "forks", "module-name",
    "args", "vault-password-file", "connection", "private-key", "become-user", "vault-id",
)  # fmt: skip
_ANSIBLE_READ_MODULES: Final = frozenset({"ping", "setup", "debug", "gather_facts", "stat"})


def _ansible(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    args = _args(cmd.argv[1:], "iletufMmacT", _ANSIBLE_LONG)
    looks = args.has(*_ANSIBLE_LOOKS)
    places = [("inventory", i) for i in args.all("inventory", "i")]
    places += [("limit", limit) for limit in args.all("limit", "l")]
    if cmd.program == "ansible-playbook":
        hints = [("playbook", p) for p in args.positionals]
        return Landing(cmd.program, "playbook", not looks, tuple(places), tuple(hints))
    module = args.value("module-name", "m") or "command"
    places += [("hosts", p) for p in args.positionals[:1]]
    change = not looks and module.rsplit(".", 1)[-1] not in _ANSIBLE_READ_MODULES
    return Landing("ansible", f"-m {module}", change, tuple(places))


_CLOUD_CHANGES: Final = frozenset(
    {
        "deploy", "create", "update", "delete", "set", "patch", "resize", "restart", "rollback",
        "import", "apply", "start", "stop", "reset", "promote", "swap", "scale", "up", "add",
        "remove", "purge", "upgrade", "assign", "execute", "config-zip", "redeploy", "replace",
        "invoke", "failover", "reboot", "run", "sync", "push", "publish", "terminate",
    }
)  # fmt: skip
_CLOUD_CHANGE_PREFIXES: Final = (
    "create-", "update-", "put-", "delete-", "change-", "modify-", "set-", "terminate-",
    "start-", "stop-", "reboot-", "attach-", "detach-", "register-", "deregister-",
    "associate-", "disassociate-", "enable-", "disable-", "restore-", "replace-", "reset-",
    "run-", "execute-", "promote-", "failover-", "import-", "cancel-", "revoke-",
    "authorize-", "rollback-", "swap-", "increase-", "decrease-", "apply-", "add-", "remove-",
    "publish-", "invoke-", "scale-", "deploy-", "upgrade-", "purge-",
)  # fmt: skip
# Operations that only touch the client's own settings on this machine.
_LOCAL_OPERATIONS: Final = frozenset({"update-kubeconfig", "get-credentials", "configure"})


def _cloud_change(verb: str) -> bool:
    if verb in _LOCAL_OPERATIONS:
        return False
    return verb in _CLOUD_CHANGES or verb.startswith(_CLOUD_CHANGE_PREFIXES)


def _is_dns(head: Sequence[str]) -> bool:
    return (bool(head) and head[0] in ("route53", "dns")) or "dns" in head[:2]


_DNS_LIVE: Final = "a public DNS zone's records answer every client: they are live"


def _az(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    argv = cmd.argv[1:]
    head = _command_path(argv)
    if len(head) < 2 or head[0] in ("login", "logout", "account", "config", "extension"):
        return None
    verb = head[-1]
    values = _dashed_values(argv)
    change = _cloud_change(verb) and "dry-run" not in values
    places: list[tuple[str, str]] = []
    sub = (values.get("subscription") or [state.az_subscription or ""])[-1]
    if sub:
        places.append(("subscription", sub))
    for key in ("resource-group", "g"):
        places += [("resource group", v) for v in values.get(key, ())]
    slot = (values.get("slot") or values.get("s") or [""])[-1]
    if verb == "swap":
        target = (values.get("target-slot") or ["production"])[-1]
        places.append(("slot", target))
    elif slot:
        places = [("slot", slot), *places]
    for key in ("name", "n"):
        places += [("name", v) for v in values.get(key, ())]
    live = _DNS_LIVE if _is_dns(head) else None
    if slot and verb != "swap" and not says_production(slot, words):
        return Landing("az", " ".join(head), change, (("slot", slot),))
    return Landing("az", " ".join(head), change, tuple(places), (), _live(live, places))


def _live(live: str | None, places: Sequence[tuple[str, str]]) -> str | None:
    return None if any(_says_other(n) for _, n in places) else live


def _gcloud(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    argv = cmd.argv[1:]
    head = _command_path(argv)
    if len(head) < 2 or head[0] in ("config", "auth", "components", "init", "info"):
        return None
    values = _dashed_values(argv)
    verbs = [w for w in head[1:] if _cloud_change(w) or w in _GCLOUD_LOOKS]
    verb = verbs[0] if verbs else head[-1]
    change = _cloud_change(verb) and "dry-run" not in values
    places: list[tuple[str, str]] = []
    project = (values.get("project") or [""])[-1] or state.env.get("CLOUDSDK_CORE_PROJECT")
    project = project or state.gcloud_project
    if project:
        places.append(("project", project))
    after = head[head.index(verb) + 1 :] if verb in head else []
    places += [("resource", r) for r in after[:1]]
    places += [("zone", z) for z in values.get("zone", ()) if _is_dns(head)]
    live = _DNS_LIVE if _is_dns(head) else None
    return Landing("gcloud", " ".join(head), change, tuple(places), (), _live(live, places))


_GCLOUD_LOOKS: Final = frozenset({"describe", "list", "logs", "read", "get", "tail", "browse"})
_AWS_PLACE_OPTIONS: Final = (
    "profile", "cluster", "service", "function-name", "stack-name", "auto-scaling-group-name",
    "environment-name", "application-name", "db-instance-identifier", "db-cluster-identifier",
    "table-name", "bucket", "distribution-id", "state-machine-arn", "topic-arn", "queue-url",
    "rest-api-id", "stage-name", "api-id", "name", "hosted-zone-id", "load-balancer-name",
)  # fmt: skip


def _aws(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    argv = cmd.argv[1:]
    head = _command_path(argv)
    if len(head) < 2 or head[0] in ("configure", "sso", "sts", "help"):
        return None
    service, verb = head[0], head[1]
    values = _dashed_values(argv)
    if service == "s3":
        urls = [w for w in argv if w.startswith("s3://")]
        change = verb in ("cp", "mv", "rm", "sync", "rb", "mb") and any(
            _s3_destination(argv, w) for w in urls
        )
        places = [("bucket", u[5:].split("/", 1)[0]) for u in urls]
    else:
        change = _cloud_change(verb)
        places = []
    if "dry-run" in values or "--dry-run" in argv or "--dryrun" in argv:
        change = False
    profile = (values.get("profile") or [""])[-1] or state.env.get("AWS_PROFILE")
    if profile:
        places.insert(0, ("profile", profile))
    for key in _AWS_PLACE_OPTIONS[1:]:
        places += [(key.replace("-", " "), v) for v in values.get(key, ())]
    hints = [("change batch", v) for v in values.get("change-batch", ()) if len(v) < 200]
    live = _DNS_LIVE if service == "route53" and verb == "change-resource-record-sets" else None
    return Landing("aws", f"{service} {verb}", change, tuple(places), tuple(hints), live)


def _s3_destination(argv: Sequence[str], url: str) -> bool:
    positionals = [w for w in argv if not w.startswith("-")]
    return bool(positionals) and (positionals[-1] == url or positionals[1:2] in (["rm"], ["rb"]))


_STAGE_TOOLS: Final = {
    "serverless": frozenset({"deploy", "remove", "rollback", "invoke"}),
    "sls": frozenset({"deploy", "remove", "rollback", "invoke"}),
    "sst": frozenset({"deploy", "remove"}),
}


def _stage(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    args = _args(cmd.argv[1:], "srfc", ("stage", "region", "function", "config", "aws-profile"))
    if not args.positionals:
        return None
    verb = args.positionals[0]
    stage = args.value("stage", "s") or state.env.get("SST_STAGE")
    places = [("stage", stage or ("dev" if cmd.program != "sst" else "personal"))]
    if args.value("aws-profile"):
        places.append(("profile", args.value("aws-profile") or ""))
    return Landing(cmd.program, verb, verb in _STAGE_TOOLS[cmd.program], tuple(places))


def _cdk(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    args = _args(cmd.argv[1:], "ca", ("context", "profile", "app", "require-approval"))
    if not args.positionals:
        return None
    verb = args.positionals[0]
    places = [("stack", s) for s in args.positionals[1:] if s not in ("--all",)]
    if args.value("profile"):
        places.insert(0, ("profile", args.value("profile") or ""))
    hints = [("context", c) for c in args.all("context", "c")]
    return Landing(
        "cdk", verb, verb in ("deploy", "destroy", "import"), tuple(places), tuple(hints)
    )


def _pulumi(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    args = _args(cmd.argv[1:], "sCm", ("stack", "cwd", "message", "target", "config-file"))
    if not args.positionals:
        return None
    verb = args.positionals[0]
    stack = args.value("stack", "s") or state.env.get("PULUMI_STACK") or state.pulumi_stack
    places = [("stack", stack)] if stack else []
    change = verb in ("up", "update", "destroy", "refresh", "import", "cancel") and not args.has(
        "preview-only"
    )
    return Landing("pulumi", verb, change, tuple(places))


_TERRAFORM: Final = frozenset({"terraform", "tofu", "terragrunt"})
_TF_CHANGES: Final = frozenset({"apply", "import", "taint", "untaint", "destroy", "state"})


def _terraform(
    cmd: SimpleCommand, state: _State, words: frozenset[str], workspace: str | None
) -> Landing | None:
    argv = list(cmd.argv[1:])
    chdir = [w.partition("=")[2] for w in argv if w.startswith("-chdir=")]
    rest = [w for w in argv if not w.startswith("-chdir=")]
    positionals = [w for w in rest if not w.startswith("-")]
    if not positionals:
        return None
    verb = positionals[0]
    change = verb in _TF_CHANGES
    if verb == "state":
        change = positionals[1:2] in (["rm"], ["mv"], ["push"], ["replace-provider"])
    places: list[tuple[str, str]] = []
    ws = state.env.get("TF_WORKSPACE") or state.tf_workspace
    if ws:
        places.append(("workspace", ws))
    places += [("directory", d) for d in chdir]
    if workspace and cmd.cwd and is_within(cmd.cwd, workspace) and cmd.cwd != workspace:
        places.append(("directory", posixpath.relpath(cmd.cwd, workspace)))
    var_files = [w.partition("=")[2] for w in rest if w.startswith(("-var-file=", "--var-file="))]
    hints = [("var file", v) for v in var_files]
    hints += [("variable", w.partition("=")[2]) for w in rest if w.startswith("-var=")]
    plan = [p for p in positionals[1:] if p.endswith((".tfplan", ".plan", ".out"))]
    hints += [("plan", p) for p in plan]
    return Landing(cmd.program, verb, change, tuple(places), tuple(hints))


def _cap(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    positionals = [w for w in cmd.argv[1:] if not w.startswith("-")]
    looks = {"-T", "--tasks", "-n", "--dry-run", "--help", "-h"}
    if len(positionals) < 2 or any(w in looks for w in cmd.argv):
        return None
    stage, task = positionals[0], positionals[1]
    change = task not in ("doctor", "deploy:check") and not task.startswith("doctor")
    return Landing("cap", f"{stage} {task}", change, (("stage", stage),))


def _kamal(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    args = _args(cmd.argv[1:], "dcr", ("destination", "config-file", "roles", "hosts"))
    if not args.positionals:
        return None
    verb = args.positionals[0]
    sub = args.positionals[1] if len(args.positionals) > 1 else ""
    change = verb in ("deploy", "redeploy", "rollback", "setup", "remove") or sub in (
        "boot", "stop", "start", "remove", "reboot", "push", "restart",
    )  # fmt: skip
    places = [("destination", d) for d in args.all("destination", "d")]
    return Landing("kamal", f"{verb} {sub}".strip(), change, tuple(places))


def _dep(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    positionals = [w for w in cmd.argv[1:] if not w.startswith("-")]
    if not positionals:
        return None
    task = positionals[0]
    change = task in ("deploy", "rollback") or task.startswith("deploy:")
    places = [("stage", w.partition("=")[2] or w) for w in positionals[1:]]
    return Landing("dep", task, change, tuple(places))


_DOCKER_CHANGES: Final = frozenset(
    {"run", "rm", "stop", "kill", "restart", "start", "update", "exec", "create", "up", "down"}
)


def _docker(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    args = _args(cmd.argv[1:], "cH", ("context", "host"))
    context = args.value("context", "c") or state.env.get("DOCKER_CONTEXT")
    host = args.value("host", "H") or state.env.get("DOCKER_HOST")
    if not (context or host) or not args.positionals:
        return None
    head = args.positionals[:2]
    verb = (
        head[1]
        if head[0] in ("compose", "stack", "service", "container") and len(head) > 1
        else head[0]
    )
    change = verb in _DOCKER_CHANGES or verb in ("deploy", "scale", "rollback")
    places = ([("context", context)] if context else []) + ([("host", host)] if host else [])
    return Landing("docker", " ".join(head), change, tuple(places))


_STRIPE_LOOKS: Final = frozenset(
    {
        "get", "list", "retrieve", "listen", "logs", "login", "logout", "status", "version",
        "open", "samples", "config", "completion", "help", "trigger", "fixtures", "search",
        "serve", "feedback", "events", "resend",
    }
)  # fmt: skip


def _stripe(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    args = _args(
        cmd.argv[1:], "dc", ("api-key", "data", "project-name", "stripe-account", "expand")
    )
    if not args.positionals:
        return None
    ops = args.positionals[:2]
    op = ops[0] if ops[0] in ("post", "delete", "get") else (ops[1] if len(ops) > 1 else ops[0])
    change = op not in _STRIPE_LOOKS and not any(p in _STRIPE_LOOKS for p in ops)
    key = args.value("api-key") or state.env.get("STRIPE_API_KEY") or ""
    places: list[tuple[str, str]] = []
    if key.startswith(("sk_live_", "rk_live_")):
        places.append(("key", _LIVE))
    elif key.startswith(("sk_test_", "rk_test_")):
        places.append(("key", "test mode (sk_test_…)"))
    if "live" in args.flags:
        places.append(("mode", "--live"))
    places += [("key variable", f"${v}") for v in cmd.variables if "KEY" in v or "STRIPE" in v]
    if not places:
        places.append(("mode", "test (the CLI's default)"))
    return Landing("stripe", " ".join(ops), change, tuple(places))


def _heroku(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    args = _args(cmd.argv[1:], "ar", ("app", "remote", "type", "size"))
    if not args.positionals:
        return None
    verb = args.positionals[0]
    change = verb.rsplit(":", 1)[-1] in _HEROKU_CHANGES or verb in ("run", "restart")
    places = [("app", a) for a in args.all("app", "a")] or [
        ("remote", r) for r in args.all("remote", "r")
    ]
    return Landing("heroku", verb, change, tuple(places))


_HEROKU_CHANGES: Final = frozenset(
    {
        "set", "unset", "scale", "restart", "rollback", "promote", "reset", "destroy", "push",
        "release", "create", "add", "remove", "update", "kill", "stop", "on", "off", "deploy",
        "resize", "upgrade",
    }
)  # fmt: skip


def _wrangler(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    args = _args(cmd.argv[1:], "ec", ("env", "config", "name"))
    if not args.positionals:
        return None
    verb = (
        " ".join(args.positionals[:2])
        if args.positionals[0] in ("secret", "versions")
        else (args.positionals[0])
    )
    change = verb in (
        "deploy",
        "publish",
        "rollback",
        "secret put",
        "secret delete",
        "versions deploy",
    )
    places = [("environment", e) for e in args.all("env", "e")]
    return Landing("wrangler", verb, change, tuple(places))


def _firebase(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    args = _args(cmd.argv[1:], "Pm", ("project", "only", "message", "expires"))
    if not args.positionals:
        return None
    verb = args.positionals[0]
    parts = verb.split(":")
    change = parts[0] == "deploy" or parts[-1] in (
        "deploy", "delete", "set", "remove", "update", "push", "import", "rollback", "clone",
    )  # fmt: skip
    project = args.value("project", "P") or state.firebase_project
    places = [("project", project)] if project else []
    if verb == "hosting:channel:deploy" and len(args.positionals) > 1:
        # a preview channel is not the live site, whichever project holds it
        return Landing("firebase", verb, change, (("channel", f"preview {args.positionals[1]}"),))
    return Landing("firebase", verb, change, tuple(places))


def _git(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    positionals = [w for w in cmd.argv[1:] if not w.startswith("-")]
    if positionals[:1] != ["push"] or len(positionals) < 2:
        return None
    remote = positionals[1]
    if says_production(remote, words) is None:
        return None  # a push is the git kind's; only a remote named for production deploys
    return Landing("git", "push", "--dry-run" not in cmd.argv, (("remote", remote),))


# -- migrations --------------------------------------------------------------------------------

_RAILS_CHANGES: Final = ("db:migrate", "db:rollback", "db:seed", "db:schema:load", "db:drop",
                         "db:reset", "db:setup", "db:prepare", "db:truncate_all")  # fmt: skip


def _rails(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    args = _args(cmd.argv[1:], "e", ("environment",))
    tasks = [p for p in args.positionals if p.startswith("db:")]
    if not tasks:
        return None
    env = args.value("environment", "e") or dict(cmd.assignments).get("RAILS_ENV")
    for word in args.positionals:
        if word.startswith("RAILS_ENV="):
            env = word.partition("=")[2]
    env = env or state.env.get("RAILS_ENV") or state.env.get("RACK_ENV")
    change = any(t.startswith(_RAILS_CHANGES) for t in tasks)
    places = [("environment", env)] if env else []
    return Landing(cmd.program, tasks[0], change, (*places, *_connection_vars(cmd)))


def _prisma(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    head = [w for w in cmd.argv[1:] if not w.startswith("-")][:2]
    op = " ".join(head)
    change = op in ("migrate deploy", "migrate reset", "db push", "db execute", "db seed")
    url = dict(cmd.assignments).get("DATABASE_URL") or state.env.get("DATABASE_URL")
    places = [("database", url)] if url and url != "<unset>" else []
    return Landing("prisma", op, change, (*places, *_connection_vars(cmd)))


def _node_migrations(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    args = _args(cmd.argv[1:], "", ("env", "knexfile", "url"))
    if not args.positionals:
        return None
    op = args.positionals[0]
    change = op.startswith(("migrate:latest", "migrate:up", "migrate:rollback", "migrate:down",
                            "seed:run", "db:migrate", "db:seed", "db:drop"))  # fmt: skip
    env = args.value("env") or dict(cmd.assignments).get("NODE_ENV") or state.env.get("NODE_ENV")
    places = [("environment", env)] if env else []
    places += [("database", u) for u in args.all("url")]
    return Landing(cmd.program, op, change, (*places, *_connection_vars(cmd)))


def _django(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    argv = list(cmd.argv[1:])
    if cmd.program != "django-admin":
        if not argv or not argv[0].endswith("manage.py"):
            return None
        argv = argv[1:]
    args = _args(argv, "", ("settings", "database"))
    if not args.positionals:
        return None
    op = args.positionals[0]
    change = op in ("migrate", "flush", "loaddata", "sqlflush", "createcachetable", "reset_db")
    settings = args.value("settings") or dict(cmd.assignments).get("DJANGO_SETTINGS_MODULE")
    settings = settings or state.env.get("DJANGO_SETTINGS_MODULE")
    places = [("settings", settings)] if settings else []
    places += [("database", d) for d in args.all("database")]
    return Landing("manage.py", op, change, (*places, *_connection_vars(cmd)))


def _alembic(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    args = _args(cmd.argv[1:], "cnx", ("config", "name", "x"))
    if not args.positionals:
        return None
    op = args.positionals[0]
    places = [("section", n) for n in args.all("name", "n")]
    places += [("argument", x) for x in args.all("x")]
    change = op in ("upgrade", "downgrade", "stamp") and "sql" not in args.flags
    return Landing("alembic", op, change, (*places, *_connection_vars(cmd)))


def _flyway(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    positionals = [w for w in cmd.argv[1:] if not w.startswith("-")]
    if not positionals:
        return None
    op = positionals[-1]
    change = op in ("migrate", "clean", "repair", "undo", "baseline", "update", "rollback",
                    "drop-all", "rollback-count", "update-count", "rollbackCount")  # fmt: skip
    places: list[tuple[str, str]] = []
    for word in cmd.argv[1:]:
        name, eq, value = word.lstrip("-").partition("=")
        if eq and name.lower() in ("url", "environment", "contexts", "defaultsfile"):
            places.append((name.lower(), value))
    return Landing(cmd.program, op, change, (*places, *_connection_vars(cmd)))


_VARIABLE: Final = re2.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
_CONNECTION_WORDS: Final = frozenset(
    {"database", "db", "url", "dsn", "conn", "connection", "pg", "mysql", "mongo", "redis", "sql"}
)


def _connection_vars(cmd: SimpleCommand) -> tuple[tuple[str, str], ...]:
    """Variables of the command's text that name a connection: ``$PROD_DATABASE_URL``."""
    names = dict.fromkeys((*cmd.variables, *_VARIABLE.findall(cmd.source[:4096])))
    return tuple(
        ("connection variable", f"${name}")
        for name in names
        if _CONNECTION_WORDS & set(name_words(name))
    )


# -- requests with live payment keys ----------------------------------------------------------

_LIVE_KEY: Final = re2.compile(r"\b[sr]k_live_[A-Za-z0-9]")
_SENDS_DATA: Final = frozenset(
    {"d", "data", "data-raw", "data-binary", "data-urlencode", "json", "F", "form", "T"}
)
_WRITE_METHODS: Final = ("POST", "PUT", "PATCH", "DELETE")


def _curl(cmd: SimpleCommand, state: _State, words: frozenset[str]) -> Landing | None:
    text = " ".join(cmd.argv[1:])[:16_384]
    if _LIVE_KEY.search(text) is None:
        return None
    method = next((m for m in _WRITE_METHODS if m in cmd.argv or f"-X{m}" in cmd.argv), None)
    change = method is not None or bool(cmd.flags & _SENDS_DATA)
    return Landing(cmd.program, method or "request", change, (("key", _LIVE),))


def _http(action: Action) -> list[Landing]:
    method = str(action.args.get("method") or "GET").upper()
    parts = [str(action.args.get(k) or "") for k in ("url", "headers", "body", "auth")]
    if _LIVE_KEY.search(" ".join(parts)[:16_384]) is None:
        return []
    return [Landing("http", method, method in _WRITE_METHODS, (("key", _LIVE),))]


_LIVE: Final = "live mode (sk_live_…)"


# Clients of the shell's own family whose program runs another tool (npx vercel, bundle exec cap).
_RUNNERS: Final = {
    "npx": 0, "pnpx": 0, "bunx": 0, "bundle": 1, "pnpm": 1, "yarn": 1, "poetry": 1, "uv": 1,
    "pipenv": 1,
}  # fmt: skip
_RUNNER_WORDS: Final = frozenset({"exec", "dlx", "run"})


def _unwrapped(cmd: SimpleCommand) -> SimpleCommand:
    """The tool a package runner starts: ``npx vercel --prod`` is ``vercel --prod``."""
    skip = _RUNNERS.get(cmd.program)
    if skip is None:
        return cmd
    words = [w for w in cmd.argv[1:] if not w.startswith("-")]
    if skip and words and words[0] in _RUNNER_WORDS:
        words = words[1:]
    elif skip and not (words and words[0] in _READERS):  # ``yarn vercel`` runs its binary
        return cmd
    if not words:
        return cmd
    program = posixpath.basename(words[0])
    start = cmd.argv.index(words[0])
    argv = (program, *cmd.argv[start + 1 :])
    return SimpleCommand(
        program=program,
        argv=argv,
        positionals=tuple(w for w in argv[1:] if not w.startswith("-")),
        assignments=cmd.assignments,
        cwd=cmd.cwd,
        via=cmd.via,
        variables=cmd.variables,
        source=cmd.source,
    )


_READERS: Final = {
    "kubectl": _kubectl,
    "oc": _kubectl,
    "helm": _helm,
    "helmfile": _helmfile,
    "vercel": _vercel,
    "netlify": _netlify,
    "fly": _fly,
    "flyctl": _fly,
    "eb": _eb,
    "ansible-playbook": _ansible,
    "ansible": _ansible,
    "az": _az,
    "gcloud": _gcloud,
    "aws": _aws,
    "serverless": _stage,
    "sls": _stage,
    "sst": _stage,
    "cdk": _cdk,
    "pulumi": _pulumi,
    "cap": _cap,
    "kamal": _kamal,
    "dep": _dep,
    "docker": _docker,
    "stripe": _stripe,
    "curl": _curl,
    "heroku": _heroku,
    "wrangler": _wrangler,
    "firebase": _firebase,
    "git": _git,
    "rails": _rails,
    "rake": _rails,
    "prisma": _prisma,
    "knex": _node_migrations,
    "sequelize": _node_migrations,
    "sequelize-cli": _node_migrations,
    "python": _django,
    "python3": _django,
    "django-admin": _django,
    "alembic": _alembic,
    "flyway": _flyway,
    "liquibase": _flyway,
}


# -- databases -------------------------------------------------------------------------------

_READ_STATEMENTS: Final = frozenset(
    {"select", "show", "explain", "describe", "desc", "values", "table", "\\d", "\\dt", "\\l"}
)


def _reads_only(sql: str) -> bool:
    """Every statement of ``sql`` starts with a read keyword (or a psql ``\\d`` command)."""
    statements = [s.strip() for s in sql[:16_384].split(";") if s.strip()]
    if not statements:
        return False
    for statement in statements:
        first = statement.split(None, 1)[0].lower()
        if first not in _READ_STATEMENTS and not first.startswith("\\d"):
            return False
    return True


def _databases(command: str, context: Context) -> list[Landing]:
    from specialists.sql import extract_shell_sql  # the sql kind's reader of clients

    out: list[Landing] = []
    for found in extract_shell_sql(command, context)[:MAX_LANDINGS]:
        target = found.target
        places = [("database", n) for n in target.names]
        places += [("connection variable", "$" + v.lstrip("$")) for v in target.unresolved]
        change = found.unread is not None or not _reads_only(found.sql)
        operation = f"runs {found.unread}" if found.unread else "runs SQL"
        out.append(Landing(found.client, operation, change, tuple(places), (), None, found.via))
    return out


# -- PowerShell remoting ---------------------------------------------------------------------

_REMOTE_CALL: Final = re2.compile(
    r"(?i)(?:^|[\s;|({])(invoke-command|icm|restart-computer|stop-computer)\s([^\n]*)"
)
_COMPUTERS: Final = re2.compile(
    r"(?i)-(?:computername|cn|session|hostname)\s*[:\s]\s*(\([^)]*\)|@\([^)]*\)|[^\s{]+)"
)
_CHANGE_CMDLET: Final = re2.compile(
    r"(?i)\b(?:stop|restart|start|set|remove|install|uninstall|new|disable|enable|update|clear"
    r"|suspend|resume|move|rename|reset|register|unregister|add)-[a-z]+"
)


def _powershell(command: str) -> list[Landing]:
    out: list[Landing] = []
    for match in _REMOTE_CALL.finditer(command[:16_384]):
        cmdlet, rest = match.group(1), match.group(2)
        computers = _COMPUTERS.search(rest)
        if computers is None:
            continue
        names = computers.group(1)
        if cmdlet.lower() in ("invoke-command", "icm"):
            block = rest[computers.end() :] + rest[: computers.start()]
            changed = _CHANGE_CMDLET.search(block)
            script = "-filepath" in block.lower()
            change = changed is not None or script
            op = changed.group(0) if changed is not None else ("a script" if script else "a block")
        else:
            change, op = True, cmdlet
        out.append(Landing("Invoke-Command", op, change, (("computers", names.strip()),)))
        if len(out) >= MAX_LANDINGS:
            break
    return out


# -- tool calls ------------------------------------------------------------------------------

_TOOL_LOOKS: Final = frozenset(
    {
        "get", "list", "describe", "logs", "log", "plan", "diff", "status", "show", "read",
        "search", "fetch", "inspect", "explain", "validate", "preview", "query", "whoami",
        "view", "check", "find", "lookup", "watch", "top", "history", "info", "count",
    }
)  # fmt: skip
_TOOL_CHANGES: Final = frozenset(
    {
        "deploy", "apply", "scale", "delete", "destroy", "create", "update", "upgrade",
        "install", "uninstall", "rollback", "restart", "promote", "patch", "set", "put",
        "refund", "charge", "cancel", "publish", "release", "redeploy", "rollout", "drain",
        "cordon", "stop", "start", "remove", "purge", "terminate", "import", "push", "capture",
        "execute", "run", "swap", "change", "modify", "invoke", "trigger", "exec",
    }
)  # fmt: skip
_TOOL_PLACE_KEYS: Final = frozenset(
    {
        "namespace", "context", "cluster", "environment", "env", "target", "stage",
        "workspace", "project", "projectid", "app", "appname", "resourcegroup",
        "subscription", "profile", "inventory", "stack", "site", "siteid", "database",
        "databaseurl", "connectionstring", "kubecontext", "region", "deployment", "service",
        "releasename", "release", "hostedzoneid", "zone", "mode", "apikey", "computername",
    }
)  # fmt: skip


# A tool whose verb is one of these, or whose server or name has a word of _SERVICE_WORDS,
# lands on a service; an issue tracker's update_issue with a project named "Prod launch" does
# not.
_DEPLOY_VERBS: Final = frozenset(
    {
        "deploy", "redeploy", "rollout", "promote", "scale", "apply", "refund", "charge",
        "upgrade", "install", "uninstall", "rollback", "drain", "cordon", "capture",
    }
)  # fmt: skip
_SERVICE_WORDS: Final = frozenset(
    {
        "kubernetes", "k8s", "kubectl", "helm", "vercel", "netlify", "fly", "heroku", "aws",
        "gcp", "gcloud", "azure", "az", "terraform", "pulumi", "cloudflare", "render",
        "railway", "supabase", "neon", "planetscale", "stripe", "ansible", "docker", "ecs",
        "eks", "gke", "aks", "lambda", "cloudrun", "deployment", "deployments", "release",
        "releases", "stack", "cluster", "route53", "dns", "database", "db", "postgres",
        "mysql", "sql", "payment", "payments", "billing", "server", "servers", "service",
        "services", "app", "apps", "function", "functions", "worker", "workers", "infra",
        "instance", "instances", "pod", "pods", "namespace", "node", "nodes", "firebase",
        "digitalocean", "linode", "hetzner", "argocd", "argo", "flux", "nomad", "consul",
    }
)  # fmt: skip


def _tool_call(action: Action) -> list[Landing]:
    tool = action.tool or ""
    name = tool.split("__")[-1] if tool.startswith("mcp__") else tool
    verbs = [w for w in name_words(name) if w in _TOOL_LOOKS or w in _TOOL_CHANGES]
    if not verbs:
        return []
    if verbs[0] not in _DEPLOY_VERBS and not _SERVICE_WORDS & set(name_words(tool)):
        return []
    change = verbs[0] in _TOOL_CHANGES
    places: list[tuple[str, str]] = []
    for key, value in list(action.args.items())[:64]:
        if not isinstance(value, str) or len(value) > 512:
            continue
        norm = "".join(c for c in key.lower() if c.isalnum())
        if norm in _TOOL_PLACE_KEYS:
            if value.startswith(("sk_live_", "rk_live_")):
                value = _LIVE
            places.append((key, value))
    if action.args.get("destroy") is True and verbs[0] == "apply":
        verbs[0] = "apply (destroy)"
    return [Landing(tool, verbs[0], change, tuple(places))]


# -- the action ------------------------------------------------------------------------------


def _state_from(context: Context) -> _State:
    state = _State(env=dict(context.env))
    for earlier in list(context.recent_actions)[-MAX_RECENT:]:
        command = command_of(earlier) if earlier.type == "shell" else None
        if command is None:
            continue
        parsed = parse_for(command, context)
        state.env.update(parsed.assigned)
        for cmd in parsed.commands:
            _switch(cmd, state)
    return state


def landings(
    action: Action, context: Context, words: frozenset[str] = PRODUCTION_WORDS
) -> tuple[Landing, ...]:
    """Every operation ``action`` runs that lands on a service, with its target judged."""
    if action.type == "tool_call" and "command" not in action.args:
        found = _tool_call(action)
    elif action.type == "http":
        found = _http(action)
    else:
        command = command_of(action)
        if command is None:
            return ()
        found = _shell(command, context, words)
    return tuple(_judged(landing, words) for landing in found[:MAX_LANDINGS])


def _judged(landing: Landing, words: frozenset[str]) -> Landing:
    return replace(
        landing, production=_judge(landing.places, landing.hints, words, landing.production)
    )


def _shell(command: str, context: Context, words: frozenset[str]) -> list[Landing]:
    parsed = parse_for(command, context)
    state = _state_from(context)
    state.env.update(parsed.assigned)
    workspace = workspace_of(context)
    found: list[Landing] = []
    for raw in parsed.commands:
        cmd = _unwrapped(raw)
        env = dict(state.env)
        state.env.update(cmd.assignments)
        if _switch(cmd, state):
            state.env = env
            continue
        landing: Landing | None
        if cmd.program in _TERRAFORM:
            landing = _terraform(cmd, state, words, workspace)
        else:
            reader = _READERS.get(cmd.program)
            landing = reader(cmd, state, words) if reader is not None else None
        state.env = env
        if landing is not None:
            if cmd.via:
                landing = replace(landing, via=cmd.reached_through)
            found.append(landing)
        if len(found) >= MAX_LANDINGS:
            break
    if any(c.program in _DB_CLIENTS for c in parsed.commands) or "exec" in parsed.programs:
        found.extend(_databases(command, context))
    for text in dict.fromkeys((command, *parsed.texts)):
        lowered = text.lower()
        if "invoke-command" in lowered or "-computer" in lowered:
            found.extend(_powershell(text))
    return found


_DB_CLIENTS: Final = frozenset(
    {
        "psql", "pgcli", "mysql", "mariadb", "mongosh", "mongo", "redis-cli", "valkey-cli",
        "clickhouse-client", "clickhouse", "cockroach", "sqlcmd", "dropdb", "mysqladmin",
        "pg_restore", "ssh", "kubectl", "docker",
    }
)  # fmt: skip

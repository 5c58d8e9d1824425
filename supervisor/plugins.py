"""Finding specialist kinds: the plugin manager and the kind registry.

Built-in kinds live in the ``specialists`` package and register through the same
entry-point group (``supervisor.plugins``) that a third-party package uses; the core never
imports them.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import ModuleType
from typing import Any, Final, cast

import pluggy

from supervisor import hookspecs
from supervisor.errors import PluginError
from supervisor.specialist import SpecialistKind

__all__ = [
    "ENTRY_POINT_GROUP",
    "KindRegistry",
    "LazyKinds",
    "describe",
    "get_plugin_manager",
    "load_kinds",
]

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP: Final = "supervisor.plugins"
# Comma-separated entry-point names to leave unloaded (e.g. a broken third-party plugin).
DISABLE_ENV: Final = "SUPERVISE_DISABLE_PLUGINS"


def get_plugin_manager(
    extra_plugins: Iterable[object] = (), *, entry_points: bool = True
) -> pluggy.PluginManager:
    """A fresh plugin manager: hookspecs, then entry points, then ``extra_plugins``."""
    pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    if entry_points:
        for name in _disabled():
            pm.set_blocked(name)
        try:
            pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
        except Exception as exc:
            raise PluginError(
                f"a plugin in entry-point group {ENTRY_POINT_GROUP!r} failed to load: {exc!r}; "
                f"uninstall it or list its name in ${DISABLE_ENV}"
            ) from exc
    for plugin in extra_plugins:
        if pm.is_registered(plugin):
            continue  # already loaded through its entry point
        try:
            pm.register(plugin, name=_display_name(plugin))
        except (ValueError, pluggy.PluginValidationError) as exc:
            raise PluginError(
                f"plugin {_display_name(plugin)!r} cannot be registered: {exc}"
            ) from exc
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        raise PluginError(f"plugin {exc.plugin!r} implements an unknown hook: {exc}") from exc
    return pm


def _display_name(plugin: object) -> str:
    """A readable name for a plugin object: its module, or its class and module."""
    if isinstance(plugin, ModuleType):
        return plugin.__name__
    cls = type(plugin)
    return f"{cls.__module__}.{cls.__qualname__}"


def _distributions(pm: pluggy.PluginManager) -> dict[int, str]:
    """Plugin id -> "distribution version" for plugins loaded from entry points.

    Each distribution's metadata is read once: one package registers many kinds, and
    reading it parses the whole METADATA file (about 1 ms each, every one-shot process).
    """
    listed: Iterable[tuple[object, Any]] = (
        pm.list_plugin_distributions()
        if hasattr(pm, "list_plugin_distributions")  # pluggy >= 1.7: the distributions
        else pm.list_plugin_distinfo()  # a wrapper per plugin, around the distribution
    )
    labels: dict[int, str] = {}
    found: dict[int, str] = {}
    for plugin, dist in listed:
        key = id(getattr(dist, "_dist", dist))
        label = labels.get(key)
        if label is None:
            metadata = dist.metadata
            label = labels[key] = f"{metadata['name']} {metadata['version']}"
        found[id(plugin)] = label
    return found


def _disabled() -> list[str]:
    return [n.strip() for n in os.environ.get(DISABLE_ENV, "").split(",") if n.strip()]


def describe(kind: SpecialistKind) -> list[str]:
    """What identifies a kind for a cache: its name, version, plugin and config model, and
    what the model's checks depend on (:meth:`~supervisor.specialist.KindConfig.checked_with`)."""
    model = kind.config_model
    qualname = f"{model.__module__}.{model.__qualname__}"
    checked_with = getattr(model, "checked_with", None)  # a plain BaseModel has none
    return [kind.name, kind.version, kind.plugin, qualname, checked_with() if checked_with else ""]


class KindRegistry(Mapping[str, SpecialistKind]):
    """The specialist kinds known to this process, by name."""

    def __init__(self, kinds: Mapping[str, SpecialistKind], hook: Any = None) -> None:
        self._kinds = dict(kinds)
        self._hook = hook

    @property
    def hook(self) -> Any:
        """The plugin manager's hook caller, for hooks other than kind registration
        (``supervisor_revert``); None for a registry built by hand."""
        return self._hook

    def identity(self) -> list[list[str]]:
        """What the registry holds, for a cache key: every kind, described."""
        return sorted(describe(kind) for kind in self.values())

    def loaded(self, name: str) -> bool:
        """Whether the kind ``name`` is here without importing anything."""
        return name in self._kinds

    def expected(self, name: str) -> list[str] | None:
        """How a kind not imported yet was described when a cached taxonomy was written
        (:meth:`LazyKinds.expect`), or None: a registry that holds its kinds has none."""
        return None

    def version_of(self, name: str) -> str | None:
        """The kind's version (None when no such kind is installed), from its expected
        description while it is not imported."""
        expected = self.expected(name)
        if expected is not None:
            return expected[1]
        kind = self.get(name)
        return kind.version if kind is not None else None

    def __getitem__(self, name: str) -> SpecialistKind:
        return self._kinds[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._kinds)

    def __len__(self) -> int:
        return len(self._kinds)


def load_kinds(extra_plugins: Iterable[object] = (), *, entry_points: bool = True) -> KindRegistry:
    """Collect every registered kind; a duplicate name or a malformed kind is a PluginError."""
    pm = get_plugin_manager(extra_plugins, entry_points=entry_points)
    kinds: dict[str, SpecialistKind] = {}
    impls = pm.hook.supervisor_register_kinds.get_hookimpls()
    dists = _distributions(pm)
    for impl in impls:
        plugin_name = _display_name(impl.plugin)
        if id(impl.plugin) in dists:
            plugin_name += f" ({dists[id(impl.plugin)]})"
        _register(impl.function, plugin_name, kinds)
    return KindRegistry(kinds, hook=pm.hook)


def _register(
    function: Callable[[], object], plugin_name: str, kinds: dict[str, SpecialistKind]
) -> None:
    """Add the kinds one ``supervisor_register_kinds`` implementation gives to ``kinds``."""
    try:
        provided = cast(Iterable[object] | None, function())
    except Exception as exc:
        raise PluginError(
            f"plugin {plugin_name!r} failed in supervisor_register_kinds: {exc!r}"
        ) from exc
    for kind in provided or ():
        if not isinstance(kind, SpecialistKind):
            raise PluginError(
                f"plugin {plugin_name!r} registered {kind!r}, which is not a SpecialistKind"
            )
        if kind.name in kinds:
            raise PluginError(
                f"specialist kind {kind.name!r} is registered twice: by "
                f"{kinds[kind.name].plugin!r} and by {plugin_name!r}"
            )
        kinds[kind.name] = SpecialistKind(
            name=kind.name,
            config_model=kind.config_model,
            build=kind.build,
            version=kind.version,
            description=kind.description,
            plugin=plugin_name,
            screen=kind.screen,
        )


class LazyKinds(KindRegistry):
    """The installed kinds, each plugin imported only when a kind it registers is needed.

    Importing every plugin's module costs a new process tens of milliseconds, most of it for
    kinds its taxonomy does not use. The entry points are listed (no import); a kind asked
    for by name loads the entry point of that name first (each built-in plugin is named
    after the kind it registers), and only when that one does not register it, every other.
    Iterating, ``len`` and :attr:`hook` load them all. What loading raises is what
    :func:`load_kinds` raises (a plugin that fails to import, a duplicate kind, a malformed
    one), when the plugin is loaded. ``$SUPERVISE_DISABLE_PLUGINS`` is honoured.

    A module's ``supervisor_register_kinds`` is looked up by that name and called; plugins
    are registered with the plugin manager (which reads every attribute of a module: about
    1 ms each) when :attr:`hook` is first asked for, in entry-point order, or at once for a
    plugin that is not a module or implements the hook under another name (``specname``).

    :meth:`identity` describes the entry points and their distributions, not the kinds (that
    would import them): a cache keyed by it must also check the kinds it used
    (:mod:`supervisor.taxonomy_cache` does).
    """

    def __init__(self) -> None:
        from importlib.metadata import entry_points

        super().__init__({})
        self._lock = threading.RLock()
        self._pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
        self._pm.add_hookspecs(hookspecs)
        blocked = set(_disabled())
        self._pending: dict[str, Any] = {}
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            if ep.name not in blocked and ep.name not in self._pending:
                self._pending[ep.name] = ep
        self._order = list(self._pending)  # entry-point order, for the plugin manager
        self._plugins: dict[str, object] = {}  # loaded, by entry-point name
        self._hooked = False  # every plugin registered with the plugin manager
        labels: dict[int, str] = {}
        self._labels: dict[str, str] = {}
        for name, ep in self._pending.items():
            dist = getattr(ep, "dist", None)
            if dist is not None and id(dist) not in labels:
                metadata = dist.metadata
                labels[id(dist)] = f"{metadata['name']} {metadata['version']}"
            self._labels[name] = labels[id(dist)] if dist is not None else ""
        self._identity = sorted(
            [name, ep.value, self._labels[name]] for name, ep in self._pending.items()
        )
        self._expected: dict[str, list[str]] = {}

    def expect(self, described: Mapping[str, list[str]]) -> None:
        """Kinds as a cached taxonomy described them (:func:`describe`), by name: until one
        is imported, :meth:`expected` answers with its description (what it is checked
        against when it is imported; see :class:`supervisor.taxonomy.LazyConfigs`)."""
        with self._lock:
            self._expected.update(described)

    def expected(self, name: str) -> list[str] | None:
        if name in self._kinds:
            return None
        return self._expected.get(name)

    @property
    def hook(self) -> Any:
        with self._lock:
            if not self._hooked:
                self._load_all()
                for name in self._order:
                    plugin = self._plugins.get(name)
                    if plugin is not None and not self._pm.is_registered(plugin):
                        self._add_to_manager(name, plugin)
                self._hooked = True
        return self._pm.hook

    def identity(self) -> list[list[str]]:
        """Every entry point: its name, its object and its distribution's name and version."""
        return [list(item) for item in self._identity]

    def __getitem__(self, name: str) -> SpecialistKind:
        kind = self._kinds.get(name)
        if kind is not None:
            return kind
        with self._lock:
            if name in self._pending:
                self._load(name)
            if name not in self._kinds:
                self._load_all()
        return self._kinds[name]

    def __iter__(self) -> Iterator[str]:
        self._load_all()
        return iter(self._kinds)

    def __len__(self) -> int:
        self._load_all()
        return len(self._kinds)

    def _load_all(self) -> None:
        with self._lock:
            for name in list(self._pending):
                self._load(name)

    def _load(self, name: str) -> None:
        """Import one entry point's plugin and add the kinds it registers."""
        ep = self._pending.pop(name)
        try:
            plugin = ep.load()
        except Exception as exc:
            raise PluginError(
                f"a plugin in entry-point group {ENTRY_POINT_GROUP!r} failed to load: {exc!r}; "
                f"uninstall it or list its name in ${DISABLE_ENV}"
            ) from exc
        if any(plugin is known for known in self._plugins.values()):
            return  # another entry point named the same object
        self._plugins[name] = plugin
        label = _display_name(plugin)
        if self._labels[name]:
            label += f" ({self._labels[name]})"
        spec = "supervisor_register_kinds"
        function = getattr(plugin, spec, None) if isinstance(plugin, ModuleType) else None
        if callable(function) and self._pm.parse_hookimpl_opts(plugin, spec) is not None:
            _register(function, label, self._kinds)
            return
        # A class or an object, a hook under another name (specname), or none at all.
        self._add_to_manager(name, plugin)
        for impl in self._pm.hook.supervisor_register_kinds.get_hookimpls():
            if impl.plugin is plugin:
                _register(impl.function, label, self._kinds)

    def _add_to_manager(self, name: str, plugin: object) -> None:
        try:
            self._pm.register(plugin, name=name)
        except (ValueError, pluggy.PluginValidationError) as exc:
            raise PluginError(f"plugin {name!r} cannot be registered: {exc}") from exc
        try:
            self._pm.check_pending()
        except pluggy.PluginValidationError as exc:
            raise PluginError(f"plugin {exc.plugin!r} implements an unknown hook: {exc}") from exc

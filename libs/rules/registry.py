"""The registry of rule modules, keyed by ``rules_id`` (``"speedmosaik@1"``)."""

from __future__ import annotations

import importlib

from libs.rules.engine import Engine
from libs.rules.protocol import RuleModule

_ENGINES: dict[str, Engine] = {}
"""Every registered module's engine by ``rules_id`` (the module is ``engine.module``)."""


class UnknownRules(KeyError):
    """No rule module is registered under this id or game."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def register(module: RuleModule) -> RuleModule:
    """Register a module under its rules_id; registering the same object again is a no-op."""
    existing = _ENGINES.get(module.rules_id)
    if existing is None:
        _ENGINES[module.rules_id] = Engine(module)
    elif existing.module is not module:
        raise ValueError(f"rules {module.rules_id!r} are already registered")
    return module


def engine(rules_id: str) -> Engine:
    """Return the engine that plays the module registered as ``rules_id``; raise UnknownRules otherwise."""
    try:
        return _ENGINES[rules_id]
    except KeyError:
        known = ", ".join(sorted(_ENGINES)) or "keine"
        raise UnknownRules(f"unknown rules {rules_id!r} (registered: {known})") from None


def load_plugins(names: str | list[str] | tuple[str, ...]) -> list[RuleModule]:
    """Import extra rule modules by dotted name (comma-separated) and register their ``MODULE``.

    This is how a game that does not ship with ``libs.rules`` (the conformance suite's tiny test game)
    is played by the services; a module already registered is left as it is.
    """
    if isinstance(names, str):
        names = [name.strip() for name in names.split(",") if name.strip()]
    loaded = []
    for name in names:
        module = importlib.import_module(name).MODULE
        loaded.append(register(module))
    return loaded


def get(rules_id: str) -> RuleModule:
    """Return the module registered as ``rules_id``; raise UnknownRules otherwise."""
    return engine(rules_id).module


def latest(game: str) -> RuleModule:
    """Return the highest registered version of a game; raise UnknownRules if there is none."""
    candidates = [module for module in all_modules() if module.game == game]
    if not candidates:
        raise UnknownRules(f"no rules registered for game {game!r}")
    return max(candidates, key=lambda module: module.version)


def latest_modules() -> list[RuleModule]:
    """Return the highest registered version of every game, sorted by game: what new tables are offered (older
    versions stay registered only to replay their logs)."""
    newest: dict[str, RuleModule] = {}
    for module in all_modules():
        if module.game not in newest or module.version > newest[module.game].version:
            newest[module.game] = module
    return [newest[game] for game in sorted(newest)]


def all_modules() -> list[RuleModule]:
    """Return every registered module, sorted by rules_id."""
    return [_ENGINES[key].module for key in sorted(_ENGINES)]


def unregister(rules_id: str) -> None:
    """Forget the module registered as ``rules_id`` (a no-op if there is none)."""
    _ENGINES.pop(rules_id, None)


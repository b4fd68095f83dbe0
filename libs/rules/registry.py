"""The registry of rule modules, keyed by ``rules_id`` (``"speedmosaik@1"``)."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager

from libs.rules.engine import Engine
from libs.rules.protocol import RuleModule

_MODULES: dict[str, RuleModule] = {}
_ENGINES: dict[str, Engine] = {}


class UnknownRules(KeyError):
    """No rule module is registered under this id or game."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def register(module: RuleModule) -> RuleModule:
    """Register a module under its rules_id; registering the same object again is a no-op."""
    existing = _MODULES.get(module.rules_id)
    if existing is not None and existing is not module:
        raise ValueError(f"rules {module.rules_id!r} are already registered")
    _MODULES[module.rules_id] = module
    _ENGINES[module.rules_id] = Engine(module)
    return module


def engine(rules_id: str) -> Engine:
    """Return the engine that plays the module registered as ``rules_id``; raise UnknownRules otherwise."""
    get(rules_id)
    return _ENGINES[rules_id]


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
    try:
        return _MODULES[rules_id]
    except KeyError:
        known = ", ".join(sorted(_MODULES)) or "keine"
        raise UnknownRules(f"unknown rules {rules_id!r} (registered: {known})") from None


def latest(game: str) -> RuleModule:
    """Return the highest registered version of a game; raise UnknownRules if there is none."""
    candidates = [module for module in _MODULES.values() if module.game == game]
    if not candidates:
        raise UnknownRules(f"no rules registered for game {game!r}")
    return max(candidates, key=lambda module: module.version)


def all_modules() -> list[RuleModule]:
    """Return every registered module, sorted by rules_id."""
    return [_MODULES[key] for key in sorted(_MODULES)]


def unregister(rules_id: str) -> None:
    """Forget the module registered as ``rules_id`` (a no-op if there is none)."""
    _MODULES.pop(rules_id, None)
    _ENGINES.pop(rules_id, None)


@contextmanager
def plugins_registered(names: str | list[str] | tuple[str, ...]) -> Iterator[list[RuleModule]]:
    """Register plugin modules for the ``with`` block only; those newly registered are forgotten afterwards.

    Tests use it for games that must not stay listed beyond their tests (the tiny test game).
    """
    before = set(_MODULES)
    loaded = load_plugins(names)
    try:
        yield loaded
    finally:
        for module in loaded:
            if module.rules_id not in before:
                unregister(module.rules_id)

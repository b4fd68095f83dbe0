"""Speedspore's settings: victory points to win, dice kind and island kind (German keys)."""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import ConfigError, Json

SIEGPUNKTE, WUERFEL, INSEL = "siegpunkte", "wuerfel", "insel"
TARGETS: tuple[int, ...] = (8, 10, 12)
DICE: tuple[str, ...] = ("zufall", "ausgeglichen")
ISLANDS: tuple[str, ...] = ("zufall", "einsteiger")
DEFAULTS: Json = {SIEGPUNKTE: 10, WUERFEL: "zufall", INSEL: "zufall"}
_LABELS = {SIEGPUNKTE: "Siegpunkte", WUERFEL: "Würfel", INSEL: "Insel"}
_VALUE_LABELS: dict[str, dict[Any, str]] = {
    SIEGPUNKTE: {8: "8 (kurz)", 10: "10 (Standard)", 12: "12 (lang)"},
    WUERFEL: {"zufall": "Zufall", "ausgeglichen": "Ausgeglichen"},
    INSEL: {"zufall": "Zufall", "einsteiger": "Einsteiger"},
}
_ALLOWED: dict[str, tuple[Any, ...]] = {SIEGPUNKTE: TARGETS, WUERFEL: DICE, INSEL: ISLANDS}


def normalize(config: Json) -> Json:
    """Return the full config with defaults filled in; raise ConfigError (German reason) otherwise."""
    for key in config:
        if key not in DEFAULTS:
            raise ConfigError(f"Die Einstellung „{str(key)[:40]}“ gibt es bei Speedspore nicht.", "unknown_setting")
    result: Json = {}
    for key, default in DEFAULTS.items():
        value = config.get(key, default)
        allowed = _ALLOWED[key]
        if type(value) is not type(default) or value not in allowed:
            shown = " oder ".join(str(v) for v in allowed)
            raise ConfigError(f"Für „{_LABELS[key]}“ gibt es nur {shown}.", "unknown_value")
        result[key] = value
    return result


def valid_configs() -> list[Json]:
    """Return every full config (3 × 2 × 2 = 12)."""
    return [{SIEGPUNKTE: target, WUERFEL: dice, INSEL: island}
            for target in TARGETS for dice in DICE for island in ISLANDS]


def options() -> Json:
    """Return what a lobby offers."""
    return {key: {"label": _LABELS[key], "default": DEFAULTS[key],
                  "values": [{"value": value, "label": _VALUE_LABELS[key][value], "available": True}
                             for value in _ALLOWED[key]]}
            for key in DEFAULTS}

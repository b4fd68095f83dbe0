"""Speedmosaik settings: which are known, which are playable in this rules version."""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import ConfigError, Json

DEFAULT_CONFIG: dict[str, str] = {"workshop": "kachelwand", "wall": "fest", "jokers": "ohne"}

KNOWN_VALUES: dict[str, tuple[str, ...]] = {
    "workshop": ("kachelwand", "kirchenfenster", "sternpavillon"),
    "wall": ("fest", "frei"),
    "jokers": ("ohne", "mit"),
}

AVAILABLE_VALUES: dict[str, tuple[str, ...]] = {
    "workshop": ("kachelwand",),
    "wall": ("fest",),
    "jokers": ("ohne",),
}

NOT_YET: dict[tuple[str, str], str] = {
    ("workshop", "kirchenfenster"): "Die Werkstatt „Kirchenfenster“ ist noch nicht verfügbar.",
    ("workshop", "sternpavillon"): "Die Werkstatt „Sternpavillon“ ist noch nicht verfügbar.",
    ("wall", "frei"): "Die freie Wand ist noch nicht verfügbar – spiele mit der festen Wand.",
    ("jokers", "mit"): "Die Kachelwand mit Jokern ist noch nicht verfügbar – spiele ohne Joker.",
}

SETTING_NAMES: dict[str, str] = {"workshop": "Werkstatt", "wall": "Wand", "jokers": "Joker"}

MIN_SEATS = 2
MAX_SEATS = 4


def normalize(config: Any, seats: Any) -> Json:
    """Return the full config with defaults; raise ConfigError (German reason) for anything refused."""
    if not isinstance(seats, int) or isinstance(seats, bool) or not MIN_SEATS <= seats <= MAX_SEATS:
        raise ConfigError("Speedmosaik spielt man zu zweit, zu dritt oder zu viert.", "seats")
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise ConfigError("Die Einstellungen haben ein unbekanntes Format.", "malformed")
    for key in config:
        if key not in KNOWN_VALUES:
            raise ConfigError(f"Die Einstellung „{key}“ gibt es bei Speedmosaik nicht.", "unknown_setting")
    result = dict(DEFAULT_CONFIG)
    for key, value in config.items():
        if value not in KNOWN_VALUES[key]:
            allowed = ", ".join(f"„{v}“" for v in KNOWN_VALUES[key])
            raise ConfigError(f"Für „{SETTING_NAMES[key]}“ gibt es nur {allowed}.", "unknown_value")
        if value not in AVAILABLE_VALUES[key]:
            raise ConfigError(NOT_YET[(key, value)], "not_available")
        result[key] = value
    return result


def valid_configs() -> list[Json]:
    """Return every config this rules version accepts (for the conformance suite and golden files)."""
    return [dict(DEFAULT_CONFIG)]

"""Speedmosaik settings: the workshop and its options, their defaults, and which are playable."""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import ConfigError, Json

WORKSHOP_NAMES: dict[str, str] = {
    "kachelwand": "Kachelwand",
    "kirchenfenster": "Kirchenfenster",
    "sternpavillon": "Sternpavillon",
}

OPTIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "kachelwand": {"wall": ("fest", "frei"), "jokers": ("ohne", "mit")},
    "kirchenfenster": {"palace": ("saeulen", "fensterfarbe")},
    "sternpavillon": {},
}
"""Each workshop's options; the first value is the default."""

OPTION_NAMES: dict[str, str] = {"workshop": "Werkstatt", "wall": "Wand", "jokers": "Joker", "palace": "Palast-Wertung"}

NOT_YET_PLAYABLE: dict[tuple[str, str, str], str] = {}
"""Options that are described but not yet playable in this rules version, with the reason a player reads."""

MIN_SEATS = 2
MAX_SEATS = 4


def defaults(workshop: str) -> Json:
    """Return the full default config of a workshop."""
    return {"workshop": workshop, **{key: values[0] for key, values in OPTIONS[workshop].items()}}


_ITEMS: dict[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]] = {}
"""Every config a state kept so far, once (normalised configs are few): cached games share it."""


def as_items(normalized: Json) -> tuple[tuple[str, str], ...]:
    """Return a normalised config as a state keeps it: the workshop, then its options in their order."""
    workshop = str(normalized["workshop"])
    items = (("workshop", workshop), *((key, str(normalized[key])) for key in OPTIONS[workshop]))
    return _ITEMS.setdefault(items, items)


def normalize(config: Any, seats: Any, playable_workshops: tuple[str, ...]) -> Json:
    """Return the full config with defaults; raise ConfigError (German reason) for anything refused."""
    if not isinstance(seats, int) or isinstance(seats, bool) or not MIN_SEATS <= seats <= MAX_SEATS:
        raise ConfigError("Speedmosaik spielt man zu zweit, zu dritt oder zu viert.", "seats")
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise ConfigError("Die Einstellungen haben ein unbekanntes Format.", "malformed")
    workshop = config.get("workshop", "kachelwand")
    if not isinstance(workshop, str) or workshop not in WORKSHOP_NAMES:  # a list is no key (and unhashable)
        allowed = ", ".join(f"„{name}“" for name in WORKSHOP_NAMES)
        raise ConfigError(f"Für „Werkstatt“ gibt es nur {allowed}.", "unknown_value")
    if workshop not in playable_workshops:
        raise ConfigError(f"Die Werkstatt „{WORKSHOP_NAMES[workshop]}“ ist noch nicht verfügbar.", "not_available")
    options = OPTIONS[workshop]
    result = defaults(workshop)
    for key, value in config.items():
        if key == "workshop":
            continue
        if key not in OPTION_NAMES:
            shown = key if len(key) <= 40 else key[:40] + "…"  # a client's key, quoted but never at length
            raise ConfigError(f"Die Einstellung „{shown}“ gibt es bei Speedmosaik nicht.", "unknown_setting")
        if key not in options:
            owner = next(name for name, opts in OPTIONS.items() if key in opts)
            raise ConfigError(
                f"Die Einstellung „{OPTION_NAMES[key]}“ gibt es nur bei der Werkstatt „{WORKSHOP_NAMES[owner]}“.",
                "not_for_workshop",
            )
        if value not in options[key]:
            allowed = ", ".join(f"„{v}“" for v in options[key])
            raise ConfigError(f"Für „{OPTION_NAMES[key]}“ gibt es nur {allowed}.", "unknown_value")
        if (workshop, key, value) in NOT_YET_PLAYABLE:
            raise ConfigError(NOT_YET_PLAYABLE[(workshop, key, value)], "not_available")
        result[key] = value
    return result


def valid_configs(playable_workshops: tuple[str, ...]) -> list[Json]:
    """Return every playable config: each playable workshop with each combination of its options."""
    configs: list[Json] = []
    for workshop in playable_workshops:
        combos: list[Json] = [defaults(workshop)]
        for key, values in OPTIONS[workshop].items():
            combos = [{**combo, key: value} for combo in combos for value in values
                      if (workshop, key, value) not in NOT_YET_PLAYABLE]
        configs.extend(combos)
    return configs


VALUE_NAMES: dict[str, str] = {
    "fest": "fest", "frei": "frei", "ohne": "ohne Joker", "mit": "mit Jokern",
    "saeulen": "Säulen", "fensterfarbe": "Fensterfarbe",
}


def options_description(playable_workshops: tuple[str, ...]) -> Json:
    """Return what a lobby offers: the workshops (playable or not yet) and each one's options."""
    return {
        "workshop": {
            "label": OPTION_NAMES["workshop"],
            "default": "kachelwand",
            "values": [
                {"value": workshop, "label": name, "available": workshop in playable_workshops,
                 "options": {
                     key: {"label": OPTION_NAMES[key], "default": values[0],
                           "values": [{"value": value, "label": VALUE_NAMES[value],
                                       "available": (workshop, key, value) not in NOT_YET_PLAYABLE}
                                      for value in values]}
                     for key, values in OPTIONS[workshop].items()
                 }}
                for workshop, name in WORKSHOP_NAMES.items()
            ],
        }
    }

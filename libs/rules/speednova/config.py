"""Speednova's settings: teams (four seats only) and the solo variant (one seat only).

The normalised config holds the keys that matter for its seat count: ``{"solo": …}`` alone, ``{}`` for
two or three seats, ``{"teams": …}`` for four. A setting's default is accepted (and dropped) where it does
not apply, so a client may always send the defaults; any other value there is refused.
"""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import ConfigError, Json

TEAMS_KEY = "teams"
SOLO_KEY = "solo"
TEAMS_VALUES: tuple[str, ...] = ("ohne", "mit")
SOLO_VALUES: tuple[str, ...] = ("rekordjagd", "klassisch")
VALUE_LABELS: dict[str, str] = {
    "ohne": "Jeder für sich", "mit": "Zwei Teams (Platz 1 + 3 gegen Platz 2 + 4)",
    "rekordjagd": "Rekordjagd (ohne Bank, ein Stein nach dem anderen)",
    "klassisch": "Klassisch (Bank mit 3 Steinen, Tauschen erlaubt)",
}
TEAM_SEATS = 4
SOLO_SEATS = 1


def _shown(key: str) -> str:
    return key if len(key) <= 40 else key[:40] + "…"  # a client's key, quoted but never at length


def normalize(config: Json, seats: int) -> Json:
    """Return the full config for ``seats``; raise ConfigError (German reason) for anything refused."""
    for key in config:
        if key not in (TEAMS_KEY, SOLO_KEY):
            raise ConfigError(f"Die Einstellung „{_shown(str(key))}“ gibt es bei Speednova nicht.", "unknown_setting")
    teams = config.get(TEAMS_KEY, TEAMS_VALUES[0])
    if not isinstance(teams, str) or teams not in TEAMS_VALUES:
        raise ConfigError("Für „Teams“ gibt es nur „ohne“ und „mit“.", "unknown_value")
    solo = config.get(SOLO_KEY, SOLO_VALUES[0])
    if not isinstance(solo, str) or solo not in SOLO_VALUES:
        raise ConfigError("Für „Solo-Variante“ gibt es nur „rekordjagd“ und „klassisch“.", "unknown_value")
    if teams != TEAMS_VALUES[0] and seats != TEAM_SEATS:
        raise ConfigError("Teams gibt es bei Speednova nur zu viert.", "teams_need_four")
    if solo != SOLO_VALUES[0] and seats != SOLO_SEATS:
        raise ConfigError("Die Solo-Varianten gibt es nur, wenn du allein spielst.", "solo_needs_one")
    if seats == SOLO_SEATS:
        return {SOLO_KEY: solo}
    if seats == TEAM_SEATS:
        return {TEAMS_KEY: teams}
    return {}


def valid_configs() -> list[Json]:
    """Return every normalised config, each listed once: ``{}`` (two or three seats, and the defaults of one
    and four), the teams and the classic solo variant."""
    return [{}, {TEAMS_KEY: "mit"}, {SOLO_KEY: "klassisch"}]


def options_description() -> Json:
    """Return what a lobby offers: each setting with its values, default and the seat counts it applies to."""
    return {
        TEAMS_KEY: {
            "label": "Teams", "default": "ohne", "seats": [TEAM_SEATS],
            "values": [{"value": value, "label": VALUE_LABELS[value], "available": True} for value in TEAMS_VALUES],
        },
        SOLO_KEY: {
            "label": "Solo-Variante", "default": "rekordjagd", "seats": [SOLO_SEATS],
            "values": [{"value": value, "label": VALUE_LABELS[value], "available": True} for value in SOLO_VALUES],
        },
    }


def parts(config: Any, seats: int) -> tuple[bool, str | None]:
    """Return (teams?, solo variant or None) of a normalised config."""
    return config.get(TEAMS_KEY) == "mit", (config.get(SOLO_KEY, SOLO_VALUES[0]) if seats == SOLO_SEATS else None)


def config_of(seats: int, teams: bool, solo: str | None) -> Json:
    """Return the normalised config of a state's settings."""
    if seats == SOLO_SEATS:
        return {SOLO_KEY: solo or SOLO_VALUES[0]}
    if seats == TEAM_SEATS:
        return {TEAMS_KEY: "mit" if teams else "ohne"}
    return {}

"""Speedkoi's one setting, the Spielart: classic rules or the Laternenfest."""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import ConfigError, Json
from libs.rules.speedkoi.material import CLASSIC, FESTIVAL

KEY = "spielart"
SPIELARTEN: tuple[str, ...] = (CLASSIC, FESTIVAL)
"""The first is the default."""
NAMES: dict[str, str] = {CLASSIC: "Klassisch", FESTIVAL: "Laternenfest"}


def normalize(config: Json) -> Json:
    """Return ``{"spielart": …}`` with the default filled in; raise ConfigError (German reason) otherwise."""
    for key in config:
        if key != KEY:
            shown = str(key)[:40]
            raise ConfigError(f"Die Einstellung „{shown}“ gibt es bei Speedkoi nicht.", "unknown_setting")
    value: Any = config.get(KEY, CLASSIC)
    if type(value) is not str or value not in SPIELARTEN:
        raise ConfigError("Für „Spielart“ gibt es nur „klassisch“ und „laternenfest“.", "unknown_value")
    return {KEY: value}


def valid_configs() -> list[Json]:
    """Return both Spielarten."""
    return [{KEY: value} for value in SPIELARTEN]


def options() -> Json:
    """Return what a lobby offers."""
    return {KEY: {"label": "Spielart", "default": CLASSIC,
                  "values": [{"value": value, "label": NAMES[value], "available": True} for value in SPIELARTEN]}}

"""Settings forms generated from the lobby's settings description (`GET /games/{game}`), and read back.

A game's own settings (`settings`: label, default, values with label, availability, `seats` and nested
`options` that belong to one value) and the platform's (`platform`) become selects; a new game's settings need
no new form code. Reading a posted form goes through the same description: each field's text is matched back
to the value it stands for (numbers, booleans, strings), nested options only for the value chosen, options
named for other table sizes left out, so the lobby receives exactly what its description offers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

SOLO_PLATFORM_KEYS = ("think_time", "tempo", "turbo")
"""Platform settings a solo table offers (a stake is for open tables; bot_level is a field of its own)."""
TABLE_PLATFORM_KEYS = ("think_time", "tempo", "stake")
"""Platform settings an open table offers (turbo is for solo games only)."""
LEVEL_WORDS = {"easy": "leicht", "normal": "normal", "strong": "stark"}
PLATFORM_WORDS: dict[str, tuple[str, dict[Any, str]]] = {
    "turbo": ("Computer ziehen", {False: "mit kurzer Pause", True: "sofort"}),
    "stake": ("Einsatz", {}),
}
"""The platform's settings in a player's words (the lobby's labels name what the API offers: "Turbo (nur solo)",
"Einsatz (Taler, nur an offenen Tischen)"); values without an entry keep their plain words."""
LONG_CHOICE = 34
"""A field with a choice longer than this is offered as radio buttons, whose labels wrap (a select cuts its
closed text at a phone's width: "Rekordjagd (ohne Bank, ein Stein n…")."""


@dataclass
class Choice:
    value: Any
    text: str
    available: bool = True
    selected: bool = False


@dataclass
class Field:
    name: str
    label: str
    choices: list[Choice]
    note: str = ""
    children: list[Field] = field(default_factory=list)

    @property
    def is_radio(self) -> bool:
        """Whether the field is shown as radio buttons (a choice too long for a select at 360 px)."""
        return any(len(choice.text) > LONG_CHOICE for choice in self.choices)


def field_text(value: Any) -> str:
    """How a value travels in a form field."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def _value_label(option: dict[str, Any], value: dict[str, Any] | Any) -> tuple[Any, str, bool]:
    if isinstance(value, dict) and "value" in value:
        return value["value"], str(value.get("label", value["value"])), bool(value.get("available", True))
    unit = option.get("unit")
    if isinstance(value, bool):
        text = "an" if value else "aus"
    elif value == "ohne":
        text = "ohne Uhr"
    elif isinstance(value, str):
        text = LEVEL_WORDS.get(value, value)
    else:
        text = f"{value} {unit}" if unit else str(value)
    return value, text, True


def _seats_note(option: dict[str, Any]) -> str:
    seats = option.get("seats")
    if not seats:
        return ""
    counts = ", ".join(str(n) for n in seats)
    return f"nur bei {counts} Spieler{'n' if seats != [1] else ''}" if seats != [1] else "nur solo ohne Computer"


def rule_fields(description: dict[str, Any], prefix: str = "s") -> list[Field]:
    """The game's own settings as fields (name `s:<key>`; nested ones after their parent value)."""
    fields = []
    for key, option in (description.get("settings") or {}).items():
        choices, children = [], []
        for raw in option.get("values", []):
            value, text, available = _value_label(option, raw)
            choices.append(Choice(value, text, available, value == option.get("default")))
            for child in rule_fields({"settings": (raw.get("options") or {}) if isinstance(raw, dict) else {}},
                                     prefix):
                child.note = f"bei {option.get('label', key)} „{text}“" + (f", {child.note}" if child.note else "")
                children.append(child)
        fields.append(Field(f"{prefix}:{key}", str(option.get("label", key)), choices, _seats_note(option),
                            children))
    return fields


def platform_fields(description: dict[str, Any], keys: tuple[str, ...] = SOLO_PLATFORM_KEYS) -> list[Field]:
    platform = description.get("platform") or {}
    fields = []
    for key in keys:
        option = platform.get(key)
        if option is None:
            continue
        label, words = PLATFORM_WORDS.get(key, (str(option.get("label", key)), {}))
        choices = []
        for raw in option.get("values", []):
            value, text, available = _value_label(option, raw)
            if key == "stake":
                text = "ohne" if value == 0 else f"{value} Taler"
            choices.append(Choice(value, words.get(value, text), available, value == option.get("default")))
        fields.append(Field(f"p:{key}", label, choices))
    return fields


def level_field(description: dict[str, Any]) -> Field:
    option = (description.get("platform") or {}).get("bot_level") or {"values": ["easy", "normal", "strong"],
                                                                        "default": "normal"}
    return Field("bot_level", "Stärke der Computer",
                 [Choice(value, LEVEL_WORDS.get(value, value), True, value == option.get("default"))
                  for value in option.get("values", [])])


def opponent_field(description: dict[str, Any]) -> Field:
    seat_counts = (description.get("spec") or {}).get("seat_counts") or [2]
    counts = [n - 1 for n in seat_counts if 1 <= n <= 4]
    default = 1 if 1 in counts else counts[0]
    return Field("opponents", "Computergegner",
                 [Choice(n, "keiner (allein)" if n == 0 else f"{n}", True, n == default) for n in counts])


def seat_count_field(description: dict[str, Any]) -> Field:
    seat_counts = [n for n in (description.get("spec") or {}).get("seat_counts") or [2] if 2 <= n <= 4]
    return Field("player_count", "Plätze am Tisch",
                 [Choice(n, str(n), True, n == seat_counts[0]) for n in seat_counts])


def _match(option: dict[str, Any], text: str | None) -> tuple[bool, Any]:
    if text is None:
        return False, None
    for raw in option.get("values", []):
        value = raw["value"] if isinstance(raw, dict) and "value" in raw else raw
        if field_text(value) == text:
            return True, value
    return False, None


def json_object(text: str) -> dict[str, Any] | None:
    """A posted JSON object ("Nochmal"'s settings), or None for anything else."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def read_settings(description: dict[str, Any], form: dict[str, str], seats: int,
                  prefix: str = "s") -> dict[str, Any]:
    """The game's settings a form chose (unknown texts left out: the lobby then uses its default)."""
    chosen: dict[str, Any] = {}
    for key, option in (description.get("settings") or {}).items():
        if option.get("seats") and seats not in option["seats"]:
            continue
        found, value = _match(option, form.get(f"{prefix}:{key}"))
        if not found:
            continue
        chosen[key] = value
        raw = next((raw for raw in option.get("values", []) if isinstance(raw, dict) and raw.get("value") == value),
                   None)
        if raw and raw.get("options"):
            chosen.update(read_settings({"settings": raw["options"]}, form, seats, prefix))
    return chosen


def read_platform(description: dict[str, Any], form: dict[str, str],
                  keys: tuple[str, ...] = SOLO_PLATFORM_KEYS) -> dict[str, Any]:
    chosen: dict[str, Any] = {}
    platform = description.get("platform") or {}
    for key in keys:
        if key in platform:
            found, value = _match(platform[key], form.get(f"p:{key}"))
            if found:
                chosen[key] = value
    return chosen


FILL_AFTER_CHOICES = ((10, "nach 10 Sekunden"), (30, "nach 30 Sekunden"), (60, "nach 1 Minute"),
                      (120, "nach 2 Minuten"), ("nie", "nie"))
""""Computer nach … auffüllen": seconds of waiting, or never (lobby `POST /match`'s `fill_after`)."""
SEAT_RANGE = "2–4"


def quick_match_fields(games: list[dict[str, Any]]) -> list[Field]:
    """The "Schnell spielen" form: game and variant in one choice (`spiel` = "<game>/<variant>", one per rating
    list), seat count (or "2–4"), stake, and when computers fill the table."""
    lists: list[Choice] = []
    counts: set[int] = set()
    for game in games:
        spec = game.get("spec") or {}
        seat_counts = [n for n in spec.get("seat_counts") or [] if 2 <= n <= 4]
        if not seat_counts:
            continue
        counts.update(seat_counts)
        title = spec.get("title") or game["game"]
        key = spec.get("variant_key")
        option = (game.get("settings") or {}).get(key) or {} if key else {}
        for raw in option.get("values", []) if key else [{"value": game["game"], "label": ""}]:
            value, text, available = _value_label(option, raw)
            lists.append(Choice(f"{game['game']}/{value}", f"{title} – {text}" if key else title, available,
                                not lists))
    stakes = ((game.get("platform") or {}).get("stake") or {}).get("values") or [0] if games else [0]
    return [
        Field("spiel", "Spiel", lists),
        Field("seats", "Plätze am Tisch", [Choice(n, str(n), True, n == 2) for n in sorted(counts)]
              + [Choice(SEAT_RANGE, SEAT_RANGE)]),
        Field("stake", "Einsatz", [Choice(value, "ohne" if value == 0 else f"{value} Taler", True, value == 0)
                                   for value in stakes]),
        Field("fill_after", "Computer auffüllen", [Choice(value, text, True, value == 30)
                                                   for value, text in FILL_AFTER_CHOICES]),
    ]


def read_quick_match(form: dict[str, str]) -> dict[str, Any]:
    """The lobby's `POST /match` body from the posted "Schnell spielen" form (the lobby checks every value)."""
    game, _, variant = form.get("spiel", "").partition("/")
    seats: int | str = int(form["seats"]) if form.get("seats", "").isdigit() else form.get("seats", "2")
    stake = int(form["stake"]) if form.get("stake", "").isdigit() else 0
    fill = form.get("fill_after", "nie")
    return {"game": game, "variant": variant or None, "seats": seats, "stake": stake,
            "fill_after": int(fill) if fill.isdigit() else None}

"""Reading a Speedkoi move's JSON into a ``Move`` (shape, types and ranges only; the rules judge the rest).

Moves (seat numbers never appear in them; the engine knows the mover):

- ``{"aktion": "anlegen", "farbe": "gold", "wert": 7}`` with ``"figur": "pilger" | "meister"`` when the
  lantern starts a path while both a pilgrim and the master are free, with ``"weiter": "<farbe>"`` when the
  colour's figure stands on the end stone and another own figure (stones 1–8) steps instead;
- ``{"aktion": "abwerfen", "farbe": "gold", "wert": 7}``;
- ``{"aktion": "schritt", "pfad": "jade"}`` (Libelle, Steg) and ``{"aktion": "verzichten"}``;
- ``{"aktion": "koi", "farbe": "karmin"}`` (the top of that discard pile);
- ``{"aktion": "ziehen", "von": "stapel" | "<farbe>"}`` (the hidden deck or the top of a discard pile).

``anlegen``, ``schritt`` and ``ziehen`` may carry ``"bestaetigt": true``: a move that would end the game is
refused with code ``warning`` until it does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from libs.rules.protocol import IllegalMove, Json
from libs.rules.speedkoi.material import COLOUR_INDEX, MASTER, PILGRIM, VALUES

PLAY, DISCARD, STEP, DECLINE, KOI, DRAW = "anlegen", "abwerfen", "schritt", "verzichten", "koi", "ziehen"
DECK = "stapel"
CONFIRM_KEY = "bestaetigt"
_KEYS: dict[str, frozenset[str]] = {
    PLAY: frozenset({"aktion", "farbe", "wert"}),
    DISCARD: frozenset({"aktion", "farbe", "wert"}),
    STEP: frozenset({"aktion", "pfad"}),
    DECLINE: frozenset({"aktion"}),
    KOI: frozenset({"aktion", "farbe"}),
    DRAW: frozenset({"aktion", "von"}),
}
_OPTIONAL: dict[str, frozenset[str]] = {
    PLAY: frozenset({"figur", "weiter", CONFIRM_KEY}),
    STEP: frozenset({CONFIRM_KEY}),
    DRAW: frozenset({CONFIRM_KEY}),
}
_EMPTY: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Move:
    """A parsed move: ``colour`` is a lantern's colour, a path or a pile (-1: the deck or none)."""

    action: str
    colour: int = -1
    value: int = -1
    figure: str = ""
    onward: int = -1
    confirmed: bool = False


def malformed() -> IllegalMove:
    """Return the refusal of a move whose shape is unknown."""
    return IllegalMove("Dieser Zug hat ein unbekanntes Format.", "malformed")


def _colour(value: Any, what: str) -> int:
    if type(value) is not str or value not in COLOUR_INDEX:
        raise IllegalMove(f"{what}: Es gibt nur Gold, Indigo, Jade, Karmin und Silber.", "unknown_colour")
    return COLOUR_INDEX[value]


def parse(move: Json) -> Move:
    """Return the parsed move; raise IllegalMove (German reason) for a shape, type or range that is wrong."""
    action = move.get("aktion")
    if type(action) is not str or action not in _KEYS:
        raise IllegalMove("Wähle eine Aktion: anlegen, abwerfen, schritt, verzichten, koi oder ziehen.", "malformed")
    keys = move.keys()
    required = _KEYS[action]
    if not required <= keys or not keys - required <= _OPTIONAL.get(action, _EMPTY):
        raise malformed()
    confirmed = False
    if CONFIRM_KEY in move:
        if type(move[CONFIRM_KEY]) is not bool:
            raise IllegalMove("„bestaetigt“ ist wahr oder falsch.", "malformed")
        confirmed = move[CONFIRM_KEY]
    if action in (PLAY, DISCARD):
        colour = _colour(move["farbe"], "Farbe")
        value = move["wert"]
        if type(value) is not int or not 0 <= value < VALUES:
            raise IllegalMove("Laternen tragen die Zahlen 0 bis 10.", "unknown_lantern")
        figure = ""
        if "figur" in move:
            figure = move["figur"]
            if type(figure) is not str or figure not in (PILGRIM, MASTER):
                raise IllegalMove("Als Figur gibt es nur „pilger“ oder „meister“.", "unknown_figure")
        onward = _colour(move["weiter"], "Weiter") if "weiter" in move else -1
        return Move(action, colour, value, figure, onward, confirmed)
    if action == STEP:
        return Move(action, _colour(move["pfad"], "Pfad"), confirmed=confirmed)
    if action == KOI:
        return Move(action, _colour(move["farbe"], "Ablage"))
    if action == DRAW:
        source = move["von"]
        if source == DECK:
            return Move(action, -1, confirmed=confirmed)
        return Move(action, _colour(source, "Ablage"), confirmed=confirmed)
    return Move(action)

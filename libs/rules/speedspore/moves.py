"""Reading a move's JSON strictly: exact keys, ints that are not booleans, known names (German refusals)."""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import IllegalMove
from libs.rules.speedspore.material import KIND_COUNT, KIND_INDEX

MAX_COUNT = 95
"""No bundle holds more of one kind than the game has cards (19 per kind, 95 in all)."""


def malformed() -> IllegalMove:
    """Return the refusal of a move of unknown shape."""
    return IllegalMove("Dieser Zug hat ein unbekanntes Format.", "malformed")


def keys_are(move: dict[str, Any], *allowed: str, required: tuple[str, ...] = ()) -> None:
    """Raise unless the move's keys are among ``allowed`` and include ``required``."""
    for key in move:
        if key not in allowed:
            raise malformed()
    for key in required:
        if key not in move:
            raise malformed()


def integer(value: Any, low: int, high: int, what: str) -> int:
    """Return ``value`` if it is an int (not a bool) in [low, high]; else refuse naming ``what``."""
    if type(value) is not int or not low <= value <= high:
        raise IllegalMove(f"{what} gibt es nicht.", "unknown_place")
    return value


def kind(value: Any) -> int:
    """Return the resource index of a resource name."""
    if type(value) is not str or value not in KIND_INDEX:
        raise IllegalMove("Diesen Rohstoff gibt es nicht.", "unknown_kind")
    return KIND_INDEX[value]


def bundle(value: Any) -> tuple[int, ...]:
    """Return the counts of a bundle ``{"humus": 2, …}`` (positive counts, at least one card)."""
    if type(value) is not dict or not value:
        raise IllegalMove("Ein Bündel nennt Rohstoffe mit Anzahl, z. B. {\"humus\": 2}.", "malformed")
    counts = [0] * KIND_COUNT
    for name, count in value.items():
        index = kind(name)
        if type(count) is not int or not 1 <= count <= MAX_COUNT:
            raise IllegalMove("Jede Anzahl im Bündel ist eine ganze Zahl ab 1.", "malformed")
        counts[index] = count
    return tuple(counts)


def chosen_total(value: Any) -> int | None:
    """Return how many cards a bundle names when it is a dict of known kinds to whole numbers from 0 (a choice
    made by clicking cards, zeros included); None for anything else. Only for refusal reasons: a bundle is
    still read by ``bundle``."""
    if type(value) is not dict:
        return None
    if not all(name in KIND_INDEX and type(count) is int and 0 <= count <= MAX_COUNT
               for name, count in value.items()):
        return None
    return sum(value.values())


def give_take(value: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Return (gib, nimm) of ``{"gib": bundle, "nimm": bundle}``; no kind on both sides."""
    if type(value) is not dict or not value or not set(value) <= {"gib", "nimm"}:
        raise IllegalMove("Ein Angebot nennt, was du gibst und was du dafür willst.", "malformed")
    if chosen_total(value.get("gib", {})) == 0:
        raise IllegalMove("Wähle mindestens 1 Karte, die du gibst.", "empty_offer")
    if chosen_total(value.get("nimm", {})) == 0:
        raise IllegalMove("Wähle mindestens 1 Karte, die du dafür willst.", "empty_offer")
    if set(value) != {"gib", "nimm"}:
        raise IllegalMove("Ein Angebot nennt, was du gibst und was du dafür willst.", "malformed")
    give, take = bundle(value["gib"]), bundle(value["nimm"])
    if any(g and t for g, t in zip(give, take, strict=True)):
        raise IllegalMove("Eine Sorte kann nicht auf beiden Seiten stehen.", "same_kind")
    return give, take


def supply_trade(value: Any) -> tuple[int, int]:
    """Return (gib, nimm) kinds of ``{"gib": "humus", "nimm": "moos"}``."""
    if type(value) is not dict or set(value) != {"gib", "nimm"}:
        raise IllegalMove("Ein Tausch mit dem Vorrat nennt „gib“ und „nimm“.", "malformed")
    give, take = kind(value["gib"]), kind(value["nimm"])
    if give == take:
        raise IllegalMove("Tausche gegen eine andere Sorte.", "same_kind")
    return give, take


def trade_list(value: Any) -> tuple[tuple[int, int], ...]:
    """Return the supply trades of a build's ``"tausch"`` list (at most 10)."""
    if type(value) is not list or not 1 <= len(value) <= 10:
        raise IllegalMove("„tausch“ ist eine Liste von 1 bis 10 Tauschen mit dem Vorrat.", "malformed")
    return tuple(supply_trade(item) for item in value)

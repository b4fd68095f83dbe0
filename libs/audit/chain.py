"""Check (a): the hash chain holds, numbered 1..N without a gap, each event linked to the one before; its data is
canonical, its private parts stand only where the table writes them (``private_part_problem``) and match their
digests (docs/audit.md, "The event hash and the chain", "Private parts")."""

from __future__ import annotations

import re
from typing import Any

from libs.audit.report import Difference
from libs.platform.canonical import NotCanonical, check_canonical
from libs.platform.envelope import GENESIS, Event, EventType, compute_hash
from libs.platform.private import PRIVATE, DigestMismatch, check_digests

_HEX64 = re.compile(r"[0-9a-f]{64}")
_WHOLE, _REDACTED = ("digest", "salt", "to", "value"), ("digest", "to")


def chain_difference(events: list[Event], game_id: str) -> Difference | None:
    """Return the first place the chain breaks, None if it holds.

    A copy whose other seats' private parts are digests verifies like the whole log: the hash covers the
    redacted form; a private part shown whole must match its digest.
    """
    prev = GENESIS
    for expected_n, event in enumerate(events, start=1):
        if event.n != expected_n:
            reason = (f"Ereignis {expected_n} fehlt (Lücke in der Nummerierung)." if event.n > expected_n
                      else "Die Nummerierung ist nicht fortlaufend (Ereignis doppelt oder vertauscht).")
            return Difference("chain", expected_n, "n", expected_n, event.n, reason)
        if event.game_id != game_id:
            return Difference("chain", event.n, "game_id", game_id, event.game_id,
                              "Das Ereignis gehört zu einer anderen Partie.")
        if event.prev != prev:
            return Difference("chain", event.n, "prev", prev, event.prev,
                              f"Das Ereignis verweist nicht auf den Hash von Ereignis {event.n - 1}.")
        try:
            check_canonical(event.data, "data")
        except NotCanonical as error:
            return Difference("chain", event.n, error.path, "kanonische JSON-Daten", error.problem,
                              "Das Ereignis enthält, was kanonisches JSON nicht kennt (etwa eine Gleitkommazahl "
                              "oder eine zu große ganze Zahl): sein Hash ist nicht nachrechenbar.")
        misplaced = private_part_problem(event)
        if misplaced is not None:
            return Difference("chain", event.n, misplaced[0], misplaced[1], misplaced[2], misplaced[3])
        try:
            recomputed = compute_hash(event)
        except (KeyError, TypeError, AttributeError, ValueError):
            return Difference("chain", event.n, "data", "lesbare private Teile", "unlesbarer privater Teil",
                              "Ein privater Teil des Ereignisses ist unlesbar (ihm fehlen Empfänger oder Digest).")
        if recomputed != event.hash:
            return Difference("chain", event.n, "hash", recomputed, event.hash,
                              "Der Inhalt des Ereignisses passt nicht zu seinem Hash: es wurde nachträglich geändert.")
        try:
            check_digests(event.data)
        except (DigestMismatch, KeyError, TypeError, AttributeError):
            return Difference("chain", event.n, "data", "Wert passend zum Digest", "abweichender Wert",
                              "Ein privater Teil passt nicht zu seinem Digest: er wurde nachträglich geändert.")
        prev = event.hash
    return None


def private_places(event: Event) -> list[str]:
    """The paths where ``event`` may hold a private part, in salt-index order (docs/audit.md, "Private parts"):
    GameStarted's ``data.seed`` (index 0); a MoveMade's ``data.move`` and each whole element of
    ``data.effects`` (indexes 1, 2, … over those that are private); nowhere in any other event."""
    if event.type == EventType.GAME_STARTED:
        return ["data.seed"]
    if event.type == EventType.MOVE_MADE:
        effects = event.data.get("effects")
        return ["data.move", *(f"data.effects[{index}]" for index in range(len(effects) if isinstance(effects, list)
                                                                             else 0))]
    return []


def private_part_problem(event: Event) -> tuple[str, str, Any, str] | None:
    """Return (path, expected, found, German reason) for the first object in ``event.data`` with a ``$private``
    member that is no private part where the table writes one: at another place (deeper in a move or an effect,
    in another field or event type), with other members beside ``$private`` or inside it than
    ``to, digest[, salt, value]``, recipients not ascending seat numbers (``[]`` for GameStarted's seed), or a
    digest or salt that is not 64 lowercase hex digits. None when every private part is well-formed and placed."""
    allowed = set(private_places(event))
    for path, part in _objects_with_private(event.data, "data"):
        if path not in allowed:
            return (path, "kein privater Teil hier", PRIVATE,
                    "An dieser Stelle schreibt der Tisch keinen privaten Teil (nur die Saat in GameStarted, Zug und "
                    "ganze Folgen eines MoveMade): sein Salz-Index ist nicht bestimmt.")
        inner = part.get(PRIVATE)
        shape = tuple(sorted(inner)) if isinstance(inner, dict) else None
        if len(part) != 1 or shape not in (_WHOLE, _REDACTED):
            return (path, "{\"$private\": {to, digest[, salt, value]}}", part,
                    "Der private Teil hat andere Felder als to, digest und (ganz gezeigt) salt, value.")
        assert isinstance(inner, dict)
        to = inner["to"]
        seed_part = event.type == EventType.GAME_STARTED
        if not isinstance(to, list) or not all(isinstance(seat, int) and not isinstance(seat, bool) and seat >= 0
                                               for seat in to) \
                or to != sorted(set(to)) or (seed_part and to != []):
            return (f"{path}.$private.to", "[]" if seed_part else "aufsteigende Platznummern", to,
                    "Die Empfänger des privaten Teils sind nicht, wie der Tisch sie schreibt.")
        for name in ("digest", "salt"):
            if name in inner and not (isinstance(inner[name], str) and _HEX64.fullmatch(inner[name])):
                return (f"{path}.$private.{name}", "64 Hex-Ziffern (klein)", inner[name],
                        f"Der private Teil hat kein lesbares {name}.")
        nested = next(_objects_with_private(inner.get("value"), f"{path}.$private.value"), None)
        if nested is not None:
            return (nested[0], "kein privater Teil hier", PRIVATE,
                    "Ein privater Teil steckt in einem anderen: so schreibt der Tisch keinen.")
    return None


def _objects_with_private(value: Any, path: str) -> Any:
    """Yield (path, object) for each object holding a ``$private`` member, not looking inside those."""
    if isinstance(value, dict):
        if PRIVATE in value:
            yield path, value
            return
        for key, item in value.items():
            yield from _objects_with_private(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _objects_with_private(item, f"{path}[{index}]")

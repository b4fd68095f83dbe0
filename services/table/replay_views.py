"""What one step of a replay shows a reader: the view at event n, that event, and its log lines in German.

A reader's sight is one seat (that seat's view, exactly as the live game showed it at n: `views.game_view`),
the public (a spectator's view), or everything (operators only: every seat's board with its hidden parts,
every effect, every acting seat's legal moves).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from libs.platform.clock import Clock
from libs.platform.envelope import Event, EventType
from libs.platform.private import PRIVATE, is_sealed, redact
from services.table.records import GameRecord, Seat
from services.table.views import game_view, public_event

ALL = "all"
PUBLIC = "public"


@dataclass(frozen=True, slots=True)
class Sight:
    """How much of the game a step shows: one seat's (`seat`), the public's (neither) or everything (`whole`)."""

    seat: int | None = None
    whole: bool = False

    @property
    def name(self) -> str:
        """"all", "public" or the seat's number (as the query names it)."""
        return ALL if self.whole else PUBLIC if self.seat is None else str(self.seat)


def full_view(record: GameRecord, clock: Clock | None = None) -> dict[str, Any]:
    """Return the game with nothing hidden (for operators): the spectator's view, plus per seat the board as
    that seat saw it (`seat_boards`, its hidden parts included), every effect of the last move, and the legal
    moves of every seat that had a decision open (`legal_moves_by_seat`)."""
    engine, position = record.engine, record.position
    body = game_view(record, None, clock)
    pending = engine.pending(position) if record.is_running else ()
    body["seat_boards"] = [engine.view(position, seat.index) for seat in record.seats]
    body["last_effects"] = record.last_effects
    body["legal_moves_by_seat"] = {str(entry.seat): engine.legal_moves(position, entry.seat) for entry in pending}
    return body


def step_view(record: GameRecord, sight: Sight, clock: Clock | None = None) -> dict[str, Any]:
    """Return the game at `record`'s event as `sight` saw it (a seat's view equals the live one at that n)."""
    return full_view(record, clock) if sight.whole else game_view(record, sight.seat, clock)


def step_event(event: Event, sight: Sight, *, seed_secret: bool = False) -> dict[str, Any]:
    """Return the event as `sight` may read it: whole for everything, else others' private parts as digests.

    `seed_secret`: a daily game's seed is not revealed yet, so even the whole GameStarted keeps it sealed (the
    day's other players are still dealt from it; an export is refused until then for the same reason).
    """
    if not sight.whole:
        return public_event(event, sight.seat, True)
    body = event.to_json()
    if seed_secret and event.type == EventType.GAME_STARTED and "seed" in body["data"]:
        body["data"] = {**body["data"], "seed": redact(body["data"]["seed"])}
    return body


def _readable(part: Any, sight: Sight) -> Any:
    """Return a stored effect as `sight` may read it, None when it is another seat's private part."""
    if not is_sealed(part):
        return part
    inner = part[PRIVATE]
    if "value" in inner and (sight.whole or (sight.seat is not None and sight.seat in inner["to"])):
        return inner["value"]
    return None


def _seat_label(seats: tuple[Seat, ...], index: int) -> str:
    if 0 <= index < len(seats):
        return f"Platz {index + 1} ({seats[index].name})"
    return f"Platz {index + 1}"


def step_lines(event: Event, seats: tuple[Seat, ...], sight: Sight) -> list[str]:
    """Return the log lines (German) of one event as `sight` may read them.

    A move's lines are the texts of its effects (the game's own "Spielverlauf" sentences, with their
    Rechenweg), without another seat's private ones; a computer's decision after a timeout or for a player
    who left says so first. The start names who sits where; the end gives the summary, every seat's place
    and points, and each seat's Rechenweg.
    """
    data = event.data
    if event.type == EventType.GAME_STARTED:
        return ["Die Partie beginnt: " + ", ".join(_seat_label(seats, seat.index) for seat in seats) + "."]
    if event.type == EventType.MOVE_MADE:
        seat = int(data.get("seat", -1))
        lines = []
        if data.get("chosen_by") == "timeout":
            lines.append(f"{_seat_label(seats, seat)}: Die Bedenkzeit ist abgelaufen, der Computer entscheidet.")
        elif data.get("chosen_by") == "departed":
            lines.append(f"{_seat_label(seats, seat)} hat die Partie verlassen; der Computer entscheidet.")
        for part in data.get("effects") or []:
            effect = _readable(part, sight)
            if isinstance(effect, dict) and isinstance(effect.get("text"), str):
                lines.append(effect["text"])
        return lines
    if event.type == EventType.PLAYER_LEFT:
        return [f"{_seat_label(seats, int(data.get('seat', -1)))} verlässt die Partie; der Computer spielt weiter."]
    if event.type == EventType.GAME_ENDED:
        return _ended_lines(data.get("outcome") or {}, seats)
    return []


def _ended_lines(outcome: dict[str, Any], seats: tuple[Seat, ...]) -> list[str]:
    summary = (outcome.get("summary") or {}).get("text")
    lines = ["Die Partie ist zu Ende." + (f" {summary}" if summary else "")]
    places, scores = outcome.get("places") or [], outcome.get("scores") or []
    for index, (place, score) in enumerate(zip(places, scores, strict=False)):
        lines.append(f"{_seat_label(seats, index)}: {place}. Platz, {score} Punkte.")
    for index, seat_lines in enumerate(outcome.get("lines") or []):
        for line in seat_lines:
            lines.append(f"Rechenweg {_seat_label(seats, index)}: {line.get('label')} → {line.get('points')}")
    return lines

"""A game's solo mode at the table: checked at the start, shown in the view, summed up in GameEnded.

The lobby starts a game in one of the solo modes its rule module declares (``GameSpec.home``). A daily
mode's game plays the day's seed, which the lobby hands over with the start: everyone plays the same seed
that day, so the table never writes it in plain into a daily game's GameEnded and shows it in a view
only once the day is over (``seed_reveal_at``). At the end the table records, per seat, the vector the
mode's lists order by and the game badges the finished game earned: pure functions of the folded log, so
the leaderboard awards from the log alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from libs.platform.clock import Clock
from libs.platform.contracts.commands import StartGame
from libs.platform.contracts.events import GameMode
from libs.platform.days import day_end, iso_z, parse_day
from libs.platform.rpc import CommandRefused
from libs.rules.home import Finished, Home, SoloMode, list_key
from libs.rules.protocol import Outcome, Phrase
from services.table.records import GameRecord

SEED_HEX = re.compile(r"[0-9a-f]{64}")
"""A daily seed as the lobby hands it over: 32 bytes, 64 lowercase hex digits."""

PRACTICE_KEY = "table.modus.uebung"
PRACTICE_TEXT = "Übungspartie: Für die Tagesliste zählt nur dein erster Versuch des Tages."


@dataclass(frozen=True, slots=True)
class StartMode:
    """What a start command's mode adds to GameStarted: the mode, the day's seed and when it is revealed."""

    mode: GameMode | None = None
    seed: bytes | None = None
    """The day's seed (None: the table draws one)."""
    seed_reveal_at: str | None = None
    """ISO in UTC with a trailing Z; set exactly when `seed` is."""


def _malformed(reason: str) -> CommandRefused:
    return CommandRefused(422, reason, "malformed")


def checked_mode(home: Home, title: str, command: StartGame) -> StartMode:
    """Return the mode, seed and reveal time of a start command, or refuse it (422, German reason).

    A mode must be one the game declares (``unknown_mode``). A daily mode's game needs its Berlin day,
    the player's attempt (1 counts, later ones are practice), the day's seed (64 lowercase hex digits)
    and its reveal time (not before the day's end); a seed comes only with such a mode. A campaign's game
    names one of its stages; other modes name neither day nor stage.
    """
    mode = command.mode
    if mode is None:
        if command.seed is not None or command.seed_reveal_at is not None:
            raise _malformed("Einen vorgegebenen Samen gibt es nur für eine Tagespartie.")
        return StartMode()
    solo = home.mode(mode.key)
    if solo is None:
        raise CommandRefused(422, f"{title} kennt den Spielmodus „{mode.key[:40]}“ nicht.", "unknown_mode")
    _check_stage(solo, mode)
    if not solo.daily:
        if mode.day is not None or mode.attempt is not None or command.seed is not None \
                or command.seed_reveal_at is not None:
            raise _malformed(f"„{solo.title}“ ist keine Tagespartie: Tag, Versuch und Samen gibt es dort nicht.")
        return StartMode(mode=mode)
    return _daily(solo, mode, command)


def _check_stage(solo: SoloMode, mode: GameMode) -> None:
    """Refuse a stage outside a campaign, or one the campaign does not have."""
    if not solo.is_campaign:
        if mode.stage is not None:
            raise _malformed(f"„{solo.title}“ hat keine Etappen.")
        return
    if mode.stage is None or solo.stage(mode.stage) is None:
        raise _malformed(f"„{solo.title}“ hat die Etappen 1 bis {len(solo.stages)}; "
                         "die Partie muss eine davon nennen.")


def _daily(solo: SoloMode, mode: GameMode, command: StartGame) -> StartMode:
    """Check a daily game's day, attempt, seed and reveal time."""
    try:
        day = parse_day(mode.day or "")
    except ValueError as error:
        raise _malformed(f"Eine Partie „{solo.title}“ nennt ihren Tag (JJJJ-MM-TT).") from error
    if mode.attempt is None or mode.attempt < 1:
        raise _malformed(f"Eine Partie „{solo.title}“ nennt den wievielten Versuch des Tages sie ist (ab 1).")
    if command.seed is None or SEED_HEX.fullmatch(command.seed) is None:
        raise _malformed("Der Samen einer Tagespartie besteht aus 64 Hexziffern (0–9, a–f).")
    reveal = _moment(command.seed_reveal_at)
    if reveal is None:
        raise _malformed("Eine Tagespartie nennt, wann ihr Samen aufgedeckt wird (ISO-Zeitpunkt mit Zeitzone).")
    if reveal < day_end(day):
        raise _malformed("Der Samen einer Tagespartie wird frühestens am Ende ihres Tages aufgedeckt.")
    return StartMode(mode=mode, seed=bytes.fromhex(command.seed), seed_reveal_at=iso_z(reveal))


def _moment(text: str | None) -> datetime | None:
    """Return an ISO 8601 moment with a time zone (a trailing Z included), else None."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment.astimezone(UTC) if moment.tzinfo is not None else None


# ---- the view ---------------------------------------------------------------------------------------------
def mode_view(record: GameRecord) -> dict[str, Any] | None:
    """Return the game's mode as a view shows it (None: the game has none).

    ``practice`` marks a daily game that is not the player's first attempt of the day; ``note`` then says
    so in German (``{key, params, text}``), else it is None.
    """
    mode = record.mode
    if mode is None:
        return None
    solo = record.engine.spec.home.mode(mode.key)
    note = None
    if mode.is_practice:
        note = Phrase(PRACTICE_KEY, {"tag": mode.day, "versuch": mode.attempt}, PRACTICE_TEXT).to_json()
    return {"key": mode.key, "title": solo.title if solo is not None else mode.key, "day": mode.day,
            "attempt": mode.attempt, "stage": mode.stage, "practice": mode.is_practice, "note": note}


def is_revealed(record: GameRecord, clock: Clock | None) -> bool:
    """True if a daily game's seed may be shown now: the game has ended and its reveal time has come.

    Without a clock nothing is revealed (a caller that cannot tell the time shows the safe answer).
    """
    if record.ended is None or record.seed_reveal_at is None or clock is None:
        return False
    reveal = _moment(record.seed_reveal_at)
    return reveal is not None and clock.now() >= reveal


# ---- the end ----------------------------------------------------------------------------------------------
def ended_fields(record: GameRecord, outcome: Outcome) -> dict[str, Any]:
    """Return GameEnded's fields that depend on the mode: seed, mode, reveal time, list keys, badges.

    A daily game's seed stays out of the log (``seed`` is "", ``seed_reveal_at`` says when it shows).
    ``list_keys`` (when the game has a mode the rule module knows) orders every seat by the mode's list
    order. ``badges`` (when the game declares game badges) lists per seat what the finished game earned:
    computers and humans who left (the computer finished their game) earn nothing. Absent fields keep
    GameEnded's shape of games before modes. ``teams`` names the seats that played together, for a game
    with teams (the leaderboard rates a team as one side).
    """
    fields: dict[str, Any] = {"seed": record.seed_hex}
    teams = record.engine.teams(record.settings, len(record.seats))
    if teams:
        fields["teams"] = [list(team) for team in teams]
    mode = record.mode
    if mode is not None:
        fields["mode"] = mode
    if record.seed_reveal_at is not None:
        fields.update(seed="", seed_reveal_at=record.seed_reveal_at)
    home = record.engine.spec.home
    solo = home.mode(mode.key) if mode is not None else None
    if solo is not None:
        fields["list_keys"] = [list(list_key(outcome, seat.index, solo.list_order)) for seat in record.seats]
    if any(badge.earned is not None for badge in home.badges):
        seats = tuple(_started_seat(seat.to_json()) for seat in record.seats)
        fields["badges"] = [
            [] if seat.is_bot or seat.index in record.left else list(home.earned(Finished(
                config=record.settings, state=record.state, outcome=outcome, seat=seat.index, seats=seats,
                mode=mode.key if mode is not None else None)))
            for seat in record.seats]
    return fields


def _started_seat(seat: dict[str, Any]) -> dict[str, Any]:
    """A seat as GameStarted records it (the view's seat without its index)."""
    return {key: value for key, value in seat.items() if key != "seat"}

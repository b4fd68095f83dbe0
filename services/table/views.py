"""What one viewer may see of a game: their seat's view, never another seat's hidden data."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from libs.platform.clock import Clock
from libs.platform.envelope import Event, EventType
from libs.platform.private import is_sealed, reveal_for
from libs.platform.table_options import GRACE_SECONDS
from libs.rules.engine import visible_effects
from services.table.modes import is_revealed, mode_view
from services.table.records import GameRecord


def game_view(record: GameRecord, viewer: int | None, clock: Clock | None = None) -> dict[str, Any]:
    """Return the game as seat `viewer` (None: a spectator) sees it, with its legal moves when it may act.

    `to_move` lists the seats that must decide (their clocks run), `may_act` those that may act without
    having to (answer an offer, send a signal); `can_undo` says whether "Zurück" would take a step back.
    A solo mode's game adds `mode` (`modes.mode_view`). A daily game adds `seed_reveal_at` and shows its
    seed (the day's, everyone's) only once it has ended and `clock` says the reveal time has come; without
    a clock it never does. Other games show their seed once they have ended.
    """
    engine, position = record.engine, record.position
    is_running = record.is_running
    pending = engine.pending(position) if is_running else ()
    # A human who left acts no more: the computer decides for the seat (the table refuses their moves).
    acting = viewer is not None and viewer not in record.left and any(entry.seat == viewer for entry in pending)
    body: dict[str, Any] = {
        "game_id": record.game_id,
        "game": engine.spec.game,
        "variant": record.variant,
        "rules": engine.rules_id,
        "settings": record.settings,
        "n": record.n,
        "status": "running" if is_running else ("ended" if record.ended is not None else "ending"),
        "seats": [{**seat.to_json(), "left": seat.index in record.left} for seat in record.seats],
        "you": viewer,
        "to_move": [entry.seat for entry in pending if entry.must],
        "may_act": [entry.seat for entry in pending if not entry.must],
        "board": engine.view(position, viewer),
        "legal_moves": engine.legal_moves(position, viewer) if acting and viewer is not None else [],
        "can_undo": bool(acting and viewer is not None and engine.can_undo(position, viewer)),
        "last_effects": visible_effects(record.last_effects, viewer),
        "last_moves": record.last_moves(viewer),
        "clocks": clocks(record) if is_running else [],
        "seed_commitment": record.seed_commitment,
    }
    team = record.team_of_seat(viewer)
    if team is not None:
        # The viewer's own team log (side moves: team signals): how far it is and its last entry's effects. Only
        # the team's members see it; nothing here changes when the other team signals.
        body["team_log"] = {"team": team.team, "seats": list(team.seats), "n": team.n,
                            "last_effects": team.last_effects}
    if record.mode is not None:
        body["mode"] = mode_view(record)
    if record.seed_reveal_at is not None:
        body["seed_reveal_at"] = record.seed_reveal_at
    if record.ended is not None:
        body["outcome"] = record.ended.outcome
        if record.seed_reveal_at is None:
            body["seed"] = record.ended.seed
        elif is_revealed(record, clock):
            body["seed"] = record.seed_hex  # GameEnded holds "" for a daily game: its seed is in GameStarted
    return body


def clocks(record: GameRecord) -> list[dict[str, Any]]:
    """Return the running think-time clocks: per human seat that must decide, since when and until when.

    The deadline is the think time plus the grace after the decision began; then the computer decides
    (the durable deadline in `timers.py` is set from the same moment).
    """
    think_time = record.platform.think_time
    if think_time is None:
        return []
    shown = []
    for seat, clock in enumerate(record.clocks):
        if clock is None or record.is_computer_seat(seat):
            continue
        deadline = clock.began + timedelta(seconds=think_time + GRACE_SECONDS)
        shown.append({"seat": seat, "since_n": clock.n, "since": clock.at, "think_time": think_time,
                      "grace": GRACE_SECONDS, "deadline": deadline.isoformat().replace("+00:00", "Z")})
    return shown


def public_event(event: Event, viewer: int | None, is_game_ended: bool) -> dict[str, Any]:
    """Return a log entry as `viewer` may read it.

    Other seats' private parts (a hidden move, a drawn card) are shown only as their salted digest, during
    the game and after it; the hash chain verifies on this copy all the same. The seed is hidden until
    the game has ended (then anyone can recompute every shuffle). A daily game's seed never shows here:
    GameStarted carries it sealed for nobody, GameEnded carries "" (the view shows it after the day).
    """
    body = event.to_json()
    data = reveal_for(body["data"], viewer)
    if event.type == EventType.GAME_STARTED and not is_game_ended and not is_sealed(data.get("seed")):
        # Logs written before seeds were sealed carry it in plain: hidden, at the price of that entry's hash.
        data = {key: value for key, value in data.items() if key != "seed"}
    body["data"] = data
    return body

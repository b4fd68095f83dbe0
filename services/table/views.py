"""What one viewer may see of a game: their seat's view, never another seat's hidden data."""

from __future__ import annotations

from typing import Any

from libs.platform.envelope import Event, EventType
from services.table.records import GameRecord


def visible_effects(effects: tuple[dict[str, Any], ...] | list[dict[str, Any]], viewer: int | None) -> list[Any]:
    """Return the effects `viewer` may read: an effect with `visible_to` is shown to those seats only."""
    return [effect for effect in effects
            if "visible_to" not in effect or (viewer is not None and viewer in effect["visible_to"])]


def game_view(record: GameRecord, viewer: int | None) -> dict[str, Any]:
    """Return the game as seat `viewer` (None: a spectator) sees it, with its legal moves when it must act."""
    module = record.module
    is_running = record.ended is None and not record.is_over
    to_move = list(module.to_move(record.state)) if is_running else []
    body: dict[str, Any] = {
        "game_id": record.game_id,
        "game": module.game,
        "variant": record.variant,
        "rules": module.rules_id,
        "settings": record.settings,
        "n": record.n,
        "status": "running" if is_running else ("ended" if record.ended is not None else "ending"),
        "seats": [{**seat.to_json(), "left": seat.index in record.left} for seat in record.seats],
        "you": viewer,
        "to_move": to_move,
        "board": module.view(record.state, viewer),
        "legal_moves": module.legal_moves(record.state, viewer) if viewer in to_move else [],
        "last_effects": visible_effects(record.last_effects, viewer),
        "seed_commitment": record.started.data["seed_commitment"],
    }
    if record.ended is not None:
        body["outcome"] = record.ended.data["outcome"]
        body["seed"] = record.ended.data["seed"]
    return body


def public_event(event: Event, viewer: int | None, is_game_ended: bool) -> dict[str, Any]:
    """Return a log entry as `viewer` may read it.

    Until the game has ended the seed and other seats' private effects stay hidden; afterwards the seed
    is revealed anyway (anyone can recompute every shuffle), so the whole entry is shown.
    """
    body = event.to_json()
    if is_game_ended:
        return body
    data = dict(body["data"])
    if event.type == EventType.GAME_STARTED:
        data.pop("seed", None)
    if event.type == EventType.MOVE_MADE:
        data["effects"] = visible_effects(data.get("effects", []), viewer)
    body["data"] = data
    return body

"""What clients show beside the board (issue 12, point 8), per viewer, as JSON with German phrases.

``extras(state, seat)`` is merged into a seat's view under "anzeige":

- ``was_geht``: „Was geht?“ per build in the seat's own turn (``whatgoes``; None otherwise);
- ``phase``: the phase and whose turn in words (``status``);
- ``ertrag``: the Ertragstafel of the last roll (``yields``);
- ``gullys``, ``reststeine``, ``mutationsstapel``, ``angebot``: gullys with rate, kind and connected seats,
  pieces left per seat, the deck's count, the open offer with every answer (``status``);
- ``zugkarten``: per seat the summary of its current or last turn (``summaries``);
- ``siegpunkte``: per seat its victory points as this viewer may see them (``points``);
- ``endtafel``: the end table once the game is over (``points``).

``missing_reason`` and ``trade_plan`` are what the rules use for a build's refusal reason and for the
canonical "mit Tausch" plan ``legal_moves`` lists: the same plan „Was geht?“ shows.
Everything here reads only what the viewer may see: its own hand and cards, the board, the supply, the
public log; nothing is cached across states.
"""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import Json
from libs.rules.speedspore import points, status, summaries, whatgoes, yields
from libs.rules.speedspore.state import SporeState


def trade_plan(state: SporeState, seat: int, build: str) -> list[Any] | None:
    """Return the supply trades (``[{"gib", "nimm"}, …]``) that make the build payable, [] if it already is,
    None if no trades at the seat's rates can (``whatgoes`` documents how the plan is chosen)."""
    plan = whatgoes.trade_plan(state, seat, build)
    return None if plan is None else whatgoes.trades_json(plan)


def missing_reason(state: SporeState, seat: int, build: str) -> str | None:
    """Return why the seat cannot build this now without trades (German), or None if it can."""
    reason = whatgoes.missing_reason(state, seat, build)
    return None if reason is None else str(reason["text"])


def missing_phrase(state: SporeState, seat: int, build: str) -> Json | None:
    """Return ``missing_reason`` as a phrase ``{"key", "params", "text"}``."""
    return whatgoes.missing_reason(state, seat, build)


def extras(state: SporeState, seat: int | None) -> dict[str, Any]:
    """Return what the viewer's screen shows beside the board (a spectator: the public parts)."""
    return {
        "was_geht": None if seat is None else whatgoes.what_goes(state, seat),
        "phase": status.phase_json(state),
        "ertrag": yields.yield_table(state),
        "gullys": status.gullys_json(state),
        "reststeine": status.pieces_json(state),
        "mutationsstapel": status.deck_json(state),
        "angebot": status.offer_json(state),
        "zugkarten": [summaries.turn_summary(state, other) for other in range(state.seats)],
        "siegpunkte": [points.breakdown(state, other, seat) for other in range(state.seats)],
        "endtafel": points.end_table(state),
    }

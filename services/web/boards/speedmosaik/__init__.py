"""Speedmosaik's board: one module per workshop (`kachelwand`, `kirchenfenster`, `sternpavillon`), chosen by
the view's `board.einstellungen.workshop`; the displays, centre and tiles they share in `common`.
Every legal move is a button on the board, so the shell lists none (`listed_move`).
The contract: docs/services/web.md, "Board renderers"."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from markupsafe import Markup

from services.web.boards import generic
from services.web.boards.speedmosaik import kachelwand, kirchenfenster, sternpavillon

WORKSHOPS: dict[str, ModuleType] = {"kachelwand": kachelwand, "kirchenfenster": kirchenfenster,
                                    "sternpavillon": sternpavillon}


def _workshop(view: dict[str, Any]) -> ModuleType | None:
    board = view.get("board")
    if not isinstance(board, dict):
        return None
    return WORKSHOPS.get(str((board.get("einstellungen") or {}).get("workshop", "kachelwand")))


def render(view: dict[str, Any]) -> Markup:
    """The seat's Speedmosaik board; an unknown workshop falls back to the generic lists."""
    workshop = _workshop(view)
    if workshop is None:
        return generic.render(view)
    return Markup(workshop.render(view))


def move_label(move: dict[str, Any], view: dict[str, Any]) -> str:
    """A legal move in the rule book's words ("2 × Blau aus Schale 3 → Musterreihe 4")."""
    workshop = _workshop(view)
    label = workshop.move_label(move, view) if workshop is not None and isinstance(move, dict) else None
    return label or generic.move_label(move, view)


def listed_move(move: dict[str, Any], view: dict[str, Any]) -> bool:
    """Whether the shell also lists this move among "Deine Züge": only when the workshop's board has no button
    for it. Today that is none of the rules' moves (tested along whole games); a move of a shape the board does
    not know (a newer rules version, an unknown workshop) stays listed, so it can still be made."""
    workshop = _workshop(view)
    return workshop is None or not isinstance(move, dict) or not workshop.offers(move, view)

"""Speedmosaik's board: one module per workshop (`kachelwand`, `kirchenfenster`, `sternpavillon`), chosen by
the view's `board.einstellungen.workshop`; the displays, centre and tiles they share in `common`.
Every legal move is a button on the board, so the shell lists none (`listed_move`).
The contract: docs/services/web.md, "Board renderers"."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from markupsafe import Markup

from services.web.boards import generic
from services.web.boards.speedmosaik import common, gain, kachelwand, kirchenfenster, last, sternpavillon
from services.web.boards.speedmosaik.thumbnail import thumbnail

WORKSHOPS: dict[str, ModuleType] = {"kachelwand": kachelwand, "kirchenfenster": kirchenfenster,
                                    "sternpavillon": sternpavillon}


def _workshop(view: dict[str, Any]) -> ModuleType | None:
    board = view.get("board")
    if not isinstance(board, dict):
        return None
    return WORKSHOPS.get(str((board.get("einstellungen") or {}).get("workshop", "kachelwand")))


def render(view: dict[str, Any]) -> Markup:
    """The seat's Speedmosaik board, the other seats' last turns marked on it (`last`, the pieces `arrive`); an
    unknown workshop falls back to the generic lists."""
    workshop = _workshop(view)
    if workshop is None:
        return generic.render(view)
    return Markup(workshop.render(view, common.Shown(marks=last.marks(view))))


def render_ghost(view: dict[str, Any], move: Any, preview: Any) -> Markup:
    """The board with a previewed move shown on it: the pieces it would lay as ghosts (`ghost`), the display it
    takes from and the parts it aims at marked (`target`); the root carries the move (`data-ghost`)."""
    workshop = _workshop(view)
    if workshop is None or not isinstance(move, dict):
        return render(view)
    parts = workshop.ghost(view, move, preview if isinstance(preview, dict) else {})
    return Markup(workshop.render(view, common.Shown(marks=last.marks(view), ghost=parts), move))


def prompt(view: dict[str, Any]) -> str | None:
    """While the viewer may act: what to do now, in the workshop's words."""
    workshop = _workshop(view)
    if workshop is None or not view.get("legal_moves") or view.get("status") == "ended":
        return None
    text: str | None = workshop.prompt(view)
    return text


def seat_scores(view: dict[str, Any]) -> list[str | None]:
    """Each seat's points for the player strip ("12 Punkte", "1 Punkt")."""
    players = {player.get("platz"): player for player in (view.get("board") or {}).get("spieler") or []
               if isinstance(player, dict)}
    return [common.points_words(players[seat].get("punkte", 0)) if seat in players else None
            for seat in range(len(view.get("seats") or []))]


def last_move_lines(view: dict[str, Any]) -> list[str]:
    """One line per opponent with a last turn: "Computer 1: 3 × Rot aus Schale 2 → Reihe 3"."""
    return last.lines(view)


def preview_line(move: Any, preview: Any, view: dict[str, Any]) -> str:
    """The move's gain in one line: "+4 Punkte: 3 waagerecht, 4 senkrecht (Musterreihe 3 voll, …)"."""
    return gain.preview_line(move, preview, view)


def phrase(effect: dict[str, Any], view: dict[str, Any]) -> str | None:
    """The board's own German for an effect whose recorded text reads wrong (seat names, "1 Punkt", …)."""
    return last.phrase(effect, view)


__all__ = ["last_move_lines", "listed_move", "move_label", "phrase", "preview_line", "prompt", "render",
           "render_ghost", "seat_scores", "thumbnail"]


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

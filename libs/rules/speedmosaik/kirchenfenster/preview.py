"""The Kirchenfenster as a Speedmosaik workshop: the protocol functions wired to its rules."""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import Json, Outcome
from libs.rules.rng import SeededRng
from libs.rules.speedmosaik import config as settings
from libs.rules.speedmosaik.kirchenfenster.material import (
    BREAKAGE_TRACK,
    WRAP_LOSS,
    breakage_loss,
    colour_name,
)
from libs.rules.speedmosaik.kirchenfenster.rules import (
    ChoosePane,
    Move,
    ResetGlasermeister,
    Take,
    apply_move,
    check_move,
    check_turn,
    legal_move_objects,
    new_game,
    parse_move,
    placement,
    reachable_with_room,
)
from libs.rules.speedmosaik.kirchenfenster.scoring import (
    final_outcome,
    full_windows,
    most_frequent_colour,
    suggest_window_pane,
    window_score,
)
from libs.rules.speedmosaik.kirchenfenster.state import KirchenfensterState
from libs.rules.speedmosaik.kirchenfenster.view import make_view, state_from_view
from libs.rules.speedmosaik.texts import phrase

CONFIG_KEYS: tuple[str, ...] = ("workshop", *settings.OPTIONS["kirchenfenster"])


def _state(state: Any) -> KirchenfensterState:
    if not isinstance(state, KirchenfensterState):
        raise TypeError("not a Kirchenfenster state")
    return state


def _breakage_json(field: int, wraps: int) -> Json:
    return {
        "feld": field + 1,
        "wert": BREAKAGE_TRACK[field],
        "umlaeufe": wraps,
        "verloren": breakage_loss(field, wraps),
    }


def preview_take(state: KirchenfensterState, seat: int, take: Take) -> Json:
    """Return where a take's panes can go and what this choice brings (breakage, a full strip, points)."""
    place = placement(state, seat, take)
    board = state.boards[seat]
    warnings: list[Json] = []
    if place.broken:
        if take.strip is None:
            text = (
                f"Kein erreichbarer Streifen hat Platz für {colour_name(take.colour)}: alle {place.broken} zerbrechen."
            )
        else:
            text = f"{place.broken} passen nicht auf Streifen {take.strip + 1} und zerbrechen."
        warnings.append(
            phrase(
                "kirchenfenster.warnung.zerbricht", text, anzahl=place.broken, streifen=take.to_json()["streifen"]
            ).to_json()
        )
    if place.takes_start_tile:
        warnings.append(
            phrase(
                "kirchenfenster.warnung.startstein",
                "Du nimmst als Erster aus der Mitte: Du bekommst den Startstein und beginnst die nächste Runde, "
                "dabei zerbricht eine Scheibe.",
            ).to_json()
        )
    wraps = place.wraps_after - place.wraps_before
    if wraps:
        warnings.append(
            phrase(
                "kirchenfenster.warnung.ganz_unten",
                f"Der Glasbruch-Marker kommt ganz unten an: −{WRAP_LOSS * wraps} sofort.",
                punkte=-WRAP_LOSS * wraps,
            ).to_json()
        )
    completion: Json | None = None
    if place.completes and place.window is not None:
        completion = {
            "bonusfarbe": {
                "farbe": place.bonus_colour,
                "anzahl": place.bonus_count,
                "punkte": place.bonus_count,
            },
            "fenster": place.window.to_json(),
            "rechenweg": place.window.explanation(),
            "punkte": place.bonus_count + place.window.points,
            "wahl": list(place.choices),
            "ohne_nachfrage": len(place.choices) == 1,
            "vorschlag": suggest_window_pane(board.windows, place.choices),
        }
    return {
        "zug": take.to_json(),
        "art": "nehmen",
        "farbe": take.colour,
        "anzahl": place.count,
        "erreichbar": [
            {"streifen": index + 1, "platz_fuer": room} for index, room in reachable_with_room(board, take.colour)
        ],
        "streifen": take.to_json()["streifen"],
        "eingesetzt": place.placed,
        "zerbricht": place.broken,
        "startstein": place.takes_start_tile,
        "glasermeister": {
            "vorher": board.glasermeister + 1,
            "nachher": (take.strip if take.strip is not None else board.glasermeister) + 1,
        },
        "glasbruch": {
            "vorher": _breakage_json(place.field_before, place.wraps_before),
            "nachher": _breakage_json(place.field_after, place.wraps_after),
            "punkte": place.breakage_points,
        },
        "streifen_voll": place.completes,
        "wertung": completion,
        "punkte_sofort": place.immediate_points,
        "warnungen": warnings,
    }


def preview_move(state: KirchenfensterState, seat: int, move: Move) -> Json:
    """Return the preview of any checked move."""
    board = state.boards[seat]
    if isinstance(move, Take):
        return preview_take(state, seat, move)
    if isinstance(move, ResetGlasermeister):
        return {
            "zug": move.to_json(),
            "art": "glasermeister",
            "glasermeister": {"vorher": board.glasermeister + 1, "nachher": 1},
            "warnungen": [],
        }
    assert state.pending is not None
    index = state.pending.strip
    score = window_score(board.windows, index)
    windows = tuple((*w, move.colour) if i == index else w for i, w in enumerate(board.windows))
    colour, count = most_frequent_colour(windows)
    return {
        "zug": move.to_json(),
        "art": "fenster",
        "farbe": move.colour,
        "fenster": score.to_json(),
        "rechenweg": score.explanation(),
        "punkte": score.points,
        "fensterfarbe_danach": {"volle_fenster": full_windows(windows), "farbe": colour, "anzahl": count},
        "warnungen": [],
    }


class Kirchenfenster:
    """The Kirchenfenster workshop (published relative: Azul – Stained Glass of Sintra)."""

    name = "kirchenfenster"

    def owns(self, state: Any) -> bool:
        """Return True for Kirchenfenster states."""
        return isinstance(state, KirchenfensterState)

    def setup(self, config: Json, seats: int, seed: bytes) -> KirchenfensterState:
        """Return the first round of a game with these settings, shuffled from ``seed``."""
        items = tuple((key, str(config[key])) for key in CONFIG_KEYS)
        return new_game(items, seats, bytes(seed))

    def to_move(self, state: Any) -> tuple[int, ...]:
        """Return the seat that must decide now (take, reset, or choose a window pane), () once over."""
        s = _state(state)
        return () if s.is_finished else (s.current,)

    def legal_moves(self, state: Any, seat: int) -> list[Json]:
        """Return this seat's legal moves in canonical order (see ``legal_move_objects``)."""
        return [move.to_json() for move in legal_move_objects(_state(state), seat)]

    def apply(self, state: Any, seat: int, move: Json) -> tuple[KirchenfensterState, list[Json]]:
        """Return the new state and German effect lines; raise IllegalMove and leave the input as it was."""
        s = _state(state)
        check_turn(s, seat)
        parsed = parse_move(s, move)
        check_move(s, seat, parsed)
        return apply_move(s, seat, parsed)

    def preview(self, state: Any, seat: int, move: Json) -> Json:
        """Return what the move would bring: targets, breakage, a full strip and its points."""
        s = _state(state)
        check_turn(s, seat)
        parsed = parse_move(s, move)
        check_move(s, seat, parsed)
        return preview_move(s, seat, parsed)

    def view(self, state: Any, seat: int | None, rules_id: str) -> Json:
        """Return the public table (everything but the bag's order and the seed)."""
        return make_view(_state(state), seat, rules_id)

    def is_over(self, state: Any) -> bool:
        """Return True once the game has ended."""
        return _state(state).is_finished

    def outcome(self, state: Any) -> Outcome:
        """Return ranking, scores, minus breakage losses as tie-break, Rechenweg and leaderboard points."""
        s = _state(state)
        if not s.is_finished:
            raise ValueError("the game is not over yet")
        return final_outcome(s.boards)

    def determinize(self, view: Json, seat: int, rng: SeededRng) -> KirchenfensterState:
        """Return a full state matching the view; the bag order is sampled from rng."""
        return state_from_view(view, rng)


WORKSHOP = Kirchenfenster()

__all__ = ["WORKSHOP", "ChoosePane", "Kirchenfenster"]

"""What a Kirchenfenster move would bring, shown before it is made (targets, breakage, a full strip)."""

from __future__ import annotations

from libs.rules.protocol import Json
from libs.rules.speedmosaik.kirchenfenster.material import (
    BREAKAGE_TRACK,
    WRAP_LOSS,
    breakage_loss,
    colour_name,
)
from libs.rules.speedmosaik.kirchenfenster.rules import (
    Move,
    ResetGlasermeister,
    Take,
    checked_move,
    placement,
    reachable_with_room,
)
from libs.rules.speedmosaik.kirchenfenster.scoring import (
    full_windows,
    most_frequent_colour,
    suggest_window_pane,
    window_score,
)
from libs.rules.speedmosaik.kirchenfenster.state import KirchenfensterState
from libs.rules.speedmosaik.texts import phrase


def preview(state: KirchenfensterState, seat: int, move: Json) -> Json:
    """Return what the move would bring: targets, breakage, a full strip and its points; raise IllegalMove
    for a move ``apply`` would refuse."""
    return preview_move(state, seat, checked_move(state, seat, move))


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

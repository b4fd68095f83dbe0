"""What a seat sees of the Kirchenfenster, and how a bot rebuilds a full state from it (determinization)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from libs.rules.protocol import Json
from libs.rules.rng import SeededRng
from libs.rules.speedmosaik.displays import sample_hidden_bag
from libs.rules.speedmosaik.kirchenfenster.material import (
    BREAKAGE_TRACK,
    COLOURS,
    PANES_PER_COLOUR,
    PILLAR_WINDOWS,
    SIDE_DONE,
    STRIP_PATTERNS,
    WINDOW_VALUES,
    breakage_loss,
    sorted_panes,
)
from libs.rules.speedmosaik.kirchenfenster.scoring import (
    full_windows,
    most_frequent_colour,
    outcome_lines,
    panes_on_strips,
    pillar_fields,
    pillar_points,
    running_lines,
    suggest_window_pane,
)
from libs.rules.speedmosaik.kirchenfenster.state import Board, KirchenfensterState, PendingWindow, Strip
from libs.rules.speedmosaik.texts import lines_from_json, lines_json
from libs.rules.speedmosaik.workshop import current_mover, table_view


def _strip_json(index: int, strip: Strip) -> Json:
    return {
        "streifen": index + 1,
        "seite": None if strip.is_done else strip.side + 1,
        "fertig": strip.is_done,
        "muster": list(strip.pattern(index)),
        "felder": list(strip.panes),
        "scheiben": strip.pane_count(),
        "voll": strip.is_full(),
    }


def _palace_json(board: Board) -> Json:
    colour, count = most_frequent_colour(board.windows)
    full = full_windows(board.windows)
    return {
        "saeulen": [
            {
                "saeule": pillar + 1,
                "fenster": [left + 1, right + 1],
                "rahmenfelder": pillar_fields(board.windows, pillar),
                "punkte": pillar_points(board.windows, pillar),
            }
            for pillar, (left, right) in enumerate(PILLAR_WINDOWS)
        ],
        "fensterfarbe": {"volle_fenster": full, "farbe": colour, "anzahl": count, "punkte": full * count},
    }


def _board_json(seat: int, board: Board, finished: bool) -> Json:
    return {
        "platz": seat,
        "punkte": board.score,
        "glasermeister": board.glasermeister + 1,
        "streifen": [_strip_json(index, strip) for index, strip in enumerate(board.strips)],
        "fenster": [
            {"fenster": index + 1, "wert": WINDOW_VALUES[index], "scheiben": list(window)}
            for index, window in enumerate(board.windows)
        ],
        "glasbruch": {
            "feld": board.breakage_field + 1,
            "wert": BREAKAGE_TRACK[board.breakage_field],
            "umlaeufe": board.breakage_wraps,
            "verloren": breakage_loss(board.breakage_field, board.breakage_wraps),
        },
        "scheiben_auf_streifen": panes_on_strips(board),
        "wertung": {"bonusfarben": board.bonus_points, "fenster": board.window_points},
        "palast": _palace_json(board),
        "rechenweg": lines_json(outcome_lines(board) if finished else running_lines(board)),
        "schlusswertung": lines_json(board.end_lines),
    }


def _pending_json(state: KirchenfensterState) -> Json | None:
    pending = state.pending
    if pending is None:
        return None
    board = state.boards[pending.seat]
    strip = board.strips[pending.strip]
    choices = sorted_panes(list({pane for pane in strip.panes if pane is not None}))
    return {
        "platz": pending.seat,
        "streifen": pending.strip + 1,
        "fenster": pending.strip + 1,
        "farben": list(choices),
        "vorschlag": suggest_window_pane(board.windows, choices),
    }


def make_view(state: KirchenfensterState, seat: int | None, rules_id: str) -> Json:
    """Return the public table as JSON; the bag's order and the seed are never part of it."""
    tower_counts = Counter(state.tower)
    return {
        **table_view(state, seat, rules_id, current_mover(state)),
        "runden": len(state.bonus_colours),
        "phase": "ende" if state.is_finished else ("fenster" if state.pending is not None else "nehmen"),
        "bonusfarben": list(state.bonus_colours),
        "bonusfarbe": state.bonus_colour,
        "glasturm": {"anzahl": len(state.tower), "farben": {colour: tower_counts[colour] for colour in COLOURS}},
        "fensterwahl": _pending_json(state),
        "fensterwerte": list(WINDOW_VALUES),
        "glasbruch_leiste": list(BREAKAGE_TRACK),
        "streifenmuster": [[list(front), list(back)] for front, back in STRIP_PATTERNS],
        "spieler": [_board_json(i, board, state.is_finished) for i, board in enumerate(state.boards)],
    }


def _strip_from_json(data: Json) -> Strip:
    side = SIDE_DONE if data["fertig"] else int(data["seite"]) - 1
    return Strip(side=side, panes=tuple(data["felder"]))


def _board_from_json(data: Json) -> Board:
    return Board(
        strips=tuple(_strip_from_json(strip) for strip in data["streifen"]),
        glasermeister=int(data["glasermeister"]) - 1,
        windows=tuple(tuple(window["scheiben"]) for window in data["fenster"]),
        breakage_field=int(data["glasbruch"]["feld"]) - 1,
        breakage_wraps=int(data["glasbruch"]["umlaeufe"]),
        bonus_points=int(data["wertung"]["bonusfarben"]),
        window_points=int(data["wertung"]["fenster"]),
        end_lines=lines_from_json(data["schlusswertung"]),
    )


def hidden_bag_counts(view: Json) -> Counter[str]:
    """Return the bag's colour counts: 20 of each colour minus every pane visible on the table or tower."""
    seen: Counter[str] = Counter()
    for factory in view["schalen"]:
        seen.update(factory)
    seen.update(view["mitte"])
    for colour, count in view["glasturm"]["farben"].items():
        seen[colour] += count
    for player in view["spieler"]:
        for strip in player["streifen"]:
            seen.update(pane for pane in strip["felder"] if pane is not None)
        for window in player["fenster"]:
            seen.update(window["scheiben"])
    return Counter({colour: PANES_PER_COLOUR - seen[colour] for colour in COLOURS})


def state_from_view(view: Json, rng: SeededRng) -> KirchenfensterState:
    """Return a full state consistent with the view: bag order and future seed drawn from rng."""
    bag, seed = sample_hidden_bag(dict(hidden_bag_counts(view)), tuple(COLOURS), view["beutel"]["anzahl"], rng)
    tower = sorted_panes([colour for colour, count in view["glasturm"]["farben"].items() for _ in range(count)])
    config = tuple((str(key), str(value)) for key, value in view["einstellungen"].items())
    to_move: list[Any] = view["am_zug"]
    pending_data = view["fensterwahl"]
    pending = (
        None
        if pending_data is None
        else PendingWindow(seat=int(pending_data["platz"]), strip=int(pending_data["streifen"]) - 1)
    )
    return KirchenfensterState(
        config=config,
        seats=view["plaetze"],
        seed=seed,
        round=view["runde"],
        bonus_colours=tuple(view["bonusfarben"]),
        factories=tuple(tuple(factory) for factory in view["schalen"]),
        centre=tuple(view["mitte"]),
        start_tile_in_centre=view["startstein"]["in_mitte"],
        start_tile_holder=view["startstein"]["platz"],
        bag=bag,
        tower=tower,
        boards=tuple(_board_from_json(player) for player in view["spieler"]),
        current=int(to_move[0]) if to_move else 0,
        pending=pending,
        is_finished=view["beendet"],
    )

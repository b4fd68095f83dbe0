"""What a seat sees of the Kachelwand, and how a bot rebuilds a full state from it (determinization)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from libs.rules.protocol import ComputationLine, Json
from libs.rules.rng import SeededRng
from libs.rules.speedmosaik.displays import sample_hidden_bag
from libs.rules.speedmosaik.kachelwand.round_end import column_options, movers
from libs.rules.speedmosaik.kachelwand.state import Board, KachelwandState, PatternLine, WallColours
from libs.rules.speedmosaik.kachelwand.tiles import (
    COLOURS,
    JOKER,
    JOKERS_IN_BAG,
    START_TILE,
    TILE_ORDER,
    TILES_PER_COLOUR,
    WALL_SIZE,
    floor_penalty,
    sorted_tiles,
    wall_colour,
)
from libs.rules.speedmosaik.kachelwand.wall import pending_line
from libs.rules.speedmosaik.texts import lines_from_json, lines_json
from libs.rules.speedmosaik.workshop import table_view


def _line_json(row: int, line: PatternLine, has_jokers: bool) -> Json:
    data: Json = {"reihe": row + 1, "felder": row + 1, "farbe": line.colour, "anzahl": line.count}
    if has_jokers:
        data["joker"] = line.jokers
    return data


FIXED_WALL: tuple[tuple[str, ...], ...] = tuple(
    tuple(wall_colour(row, column) for column in range(WALL_SIZE)) for row in range(WALL_SIZE))
"""The colours printed on the fixed wall, row by row."""


def _wall_json(board: Board) -> list[list[Json]]:
    colours = board.wall_colours if board.wall_colours is not None else FIXED_WALL
    return [[{"farbe": colour, "belegt": taken} for colour, taken in zip(colour_row, taken_row, strict=True)]
            for colour_row, taken_row in zip(colours, board.wall, strict=True)]


def _tiling_json(board: Board, tiling: bool) -> Json:
    """Return the free wall's round-end data: the Rechenweg so far and the open column choice."""
    choice: Json | None = None
    pending = pending_line(board) if tiling else None
    if pending is not None:
        row, colour = pending
        choice = {
            "reihe": row + 1,
            "farbe": colour,
            "spalten": [option.to_json() for option in column_options(board)],
        }
    return {"bisher": lines_json(board.tiling_lines), "wahl": choice}


def _board_json(seat: int, board: Board, state: KachelwandState) -> Json:
    data: Json = {
        "platz": seat,
        "punkte": board.score,
        "musterreihen": [_line_json(row, line, state.has_jokers) for row, line in enumerate(board.pattern_lines)],
        "wand": _wall_json(board),
        "boden": list(board.floor),
        "bodenstrafe": floor_penalty(len(board.floor)),
        "volle_reihen": board.complete_rows(),
        "rundenpunkte": list(board.round_points),
        "rechenweg": lines_json(board.last_round_lines),
        "boni": lines_json(board.bonus_lines),
    }
    if state.is_free_wall:
        data["wandlegen"] = _tiling_json(board, state.tiling)
    return data


def make_view(state: KachelwandState, seat: int | None, rules_id: str) -> Json:
    """Return the public table as JSON; the bag's order and the seed are never part of it.

    Keys of the free wall (``phase``, ``beginnt_naechste_runde``, ``wandlegen``) and of the jokers
    (``joker`` counts) appear only when that setting is on, so the base game's views stay as they were.
    """
    lid_counts = Counter(state.lid)
    view = table_view(state, seat, rules_id, movers(state))
    view["deckel"] = {"anzahl": len(state.lid), "farben": {colour: lid_counts[colour] for colour in _kinds(state)}}
    view["spieler"] = [_board_json(i, board, state) for i, board in enumerate(state.boards)]
    if state.is_free_wall:
        view["phase"] = "wand" if state.tiling else "nehmen"
        if state.tiling:
            view["beginnt_naechste_runde"] = state.current
    return view


def _kinds(state: KachelwandState) -> tuple[str, ...]:
    return (*COLOURS, JOKER) if state.has_jokers else COLOURS


def _board_from_json(data: Json, is_free_wall: bool) -> Board:
    wall_colours: WallColours | None = None
    tiling_lines: tuple[ComputationLine, ...] = ()
    if is_free_wall:
        wall_colours = tuple(tuple(cell["farbe"] for cell in row) for row in data["wand"])
        tiling_lines = lines_from_json(data["wandlegen"]["bisher"])
    return Board(
        pattern_lines=tuple(
            PatternLine(line["farbe"], line["anzahl"], line.get("joker", 0)) for line in data["musterreihen"]
        ),
        wall=tuple(tuple(bool(cell["belegt"]) for cell in row) for row in data["wand"]),
        wall_colours=wall_colours,
        tiling_lines=tiling_lines,
        floor=tuple(data["boden"]),
        score=data["punkte"],
        round_points=tuple(data["rundenpunkte"]),
        last_round_lines=lines_from_json(data["rechenweg"]),
        bonus_lines=lines_from_json(data["boni"]),
    )


def hidden_bag_counts(view: Json) -> Counter[str]:
    """Return the bag's counts: 20 of each colour (10 jokers) minus every tile visible on the table or lid."""
    has_jokers = view["einstellungen"].get("jokers") == "mit"
    seen: Counter[str] = Counter()
    for factory in view["schalen"]:
        seen.update(factory)
    seen.update(view["mitte"])
    for colour, count in view["deckel"]["farben"].items():
        seen[colour] += count
    for player in view["spieler"]:
        for line in player["musterreihen"]:
            if line["farbe"] is not None:
                jokers = line.get("joker", 0)
                seen[line["farbe"]] += line["anzahl"] - jokers
                seen[JOKER] += jokers
        for row in player["wand"]:
            for cell in row:
                if cell["belegt"]:
                    seen[cell["farbe"]] += 1
        seen.update(tile for tile in player["boden"] if tile != START_TILE)
    counts = Counter({colour: TILES_PER_COLOUR - seen[colour] for colour in COLOURS})
    if has_jokers:
        counts[JOKER] = JOKERS_IN_BAG - seen[JOKER]
    return counts


def state_from_view(view: Json, rng: SeededRng) -> KachelwandState:
    """Return a full state consistent with the view: bag order and future seed drawn from rng."""
    bag, seed = sample_hidden_bag(dict(hidden_bag_counts(view)), tuple(TILE_ORDER), view["beutel"]["anzahl"], rng)
    lid = sorted_tiles([colour for colour, count in view["deckel"]["farben"].items() for _ in range(count)])
    config = tuple((str(key), str(value)) for key, value in view["einstellungen"].items())
    is_free_wall = view["einstellungen"].get("wall") == "frei"
    tiling = view.get("phase") == "wand"
    to_move: list[Any] = view["am_zug"]
    current = int(view["beginnt_naechste_runde"]) if tiling else int(to_move[0]) if to_move else 0
    return KachelwandState(
        config=config,
        seats=view["plaetze"],
        seed=seed,
        round=view["runde"],
        factories=tuple(tuple(factory) for factory in view["schalen"]),
        centre=tuple(view["mitte"]),
        start_tile_in_centre=view["startstein"]["in_mitte"],
        start_tile_holder=view["startstein"]["platz"],
        bag=bag,
        lid=lid,
        boards=tuple(_board_from_json(player, is_free_wall) for player in view["spieler"]),
        current=current,
        is_finished=view["beendet"],
        tiling=tiling,
    )

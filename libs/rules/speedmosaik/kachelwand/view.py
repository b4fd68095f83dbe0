"""What a seat sees of the Kachelwand, and how a bot rebuilds a full state from it (determinization)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from libs.rules.protocol import ComputationLine, Json
from libs.rules.rng import SeededRng
from libs.rules.speedmosaik.kachelwand.state import Board, KachelwandState, PatternLine
from libs.rules.speedmosaik.kachelwand.tiles import (
    COLOURS,
    START_TILE,
    TILES_PER_COLOUR,
    WALL_SIZE,
    floor_penalty,
    sorted_tiles,
    wall_colour,
)

GAME = "speedmosaik"


def _lines_json(lines: tuple[ComputationLine, ...]) -> list[Json]:
    return [line.to_json() for line in lines]


def _board_json(seat: int, board: Board) -> Json:
    return {
        "platz": seat,
        "punkte": board.score,
        "musterreihen": [
            {"reihe": row + 1, "felder": row + 1, "farbe": line.colour, "anzahl": line.count}
            for row, line in enumerate(board.pattern_lines)
        ],
        "wand": [
            [{"farbe": wall_colour(row, column), "belegt": board.wall[row][column]} for column in range(WALL_SIZE)]
            for row in range(WALL_SIZE)
        ],
        "boden": list(board.floor),
        "bodenstrafe": floor_penalty(len(board.floor)),
        "volle_reihen": board.complete_rows(),
        "rundenpunkte": list(board.round_points),
        "rechenweg": _lines_json(board.last_round_lines),
        "boni": _lines_json(board.bonus_lines),
    }


def make_view(state: KachelwandState, seat: int | None, rules_id: str) -> Json:
    """Return the public table as JSON; the bag's order and the seed are never part of it."""
    lid_counts = Counter(state.lid)
    return {
        "spiel": GAME,
        "regeln": rules_id,
        "einstellungen": dict(state.config),
        "plaetze": state.seats,
        "ich": seat,
        "runde": state.round,
        "am_zug": [] if state.is_finished else [state.current],
        "beendet": state.is_finished,
        "schalen": [list(factory) for factory in state.factories],
        "mitte": list(state.centre),
        "startstein": {"in_mitte": state.start_tile_in_centre, "platz": state.start_tile_holder},
        "beutel": {"anzahl": len(state.bag)},
        "deckel": {"anzahl": len(state.lid), "farben": {colour: lid_counts[colour] for colour in COLOURS}},
        "spieler": [_board_json(i, board) for i, board in enumerate(state.boards)],
    }


def _lines_from_json(items: list[Json]) -> tuple[ComputationLine, ...]:
    return tuple(
        ComputationLine(label=item["label"], points=item["points"], key=item["key"], params=dict(item["params"]))
        for item in items
    )


def _board_from_json(data: Json) -> Board:
    return Board(
        pattern_lines=tuple(PatternLine(line["farbe"], line["anzahl"]) for line in data["musterreihen"]),
        wall=tuple(tuple(bool(cell["belegt"]) for cell in row) for row in data["wand"]),
        floor=tuple(data["boden"]),
        score=data["punkte"],
        round_points=tuple(data["rundenpunkte"]),
        last_round_lines=_lines_from_json(data["rechenweg"]),
        bonus_lines=_lines_from_json(data["boni"]),
    )


def hidden_bag_counts(view: Json) -> Counter[str]:
    """Return the bag's colour counts: 20 of each colour minus every tile visible on the table or lid."""
    seen: Counter[str] = Counter()
    for factory in view["schalen"]:
        seen.update(factory)
    seen.update(view["mitte"])
    for colour, count in view["deckel"]["farben"].items():
        seen[colour] += count
    for player in view["spieler"]:
        for line in player["musterreihen"]:
            if line["farbe"] is not None:
                seen[line["farbe"]] += line["anzahl"]
        for row in player["wand"]:
            for cell in row:
                if cell["belegt"]:
                    seen[cell["farbe"]] += 1
        seen.update(tile for tile in player["boden"] if tile != START_TILE)
    return Counter({colour: TILES_PER_COLOUR - seen[colour] for colour in COLOURS})


def state_from_view(view: Json, rng: SeededRng) -> KachelwandState:
    """Return a full state consistent with the view: bag order and future seed drawn from rng."""
    counts = hidden_bag_counts(view)
    if any(count < 0 for count in counts.values()) or sum(counts.values()) != view["beutel"]["anzahl"]:
        raise ValueError("view is inconsistent: the bag cannot hold what it shows")
    bag_tiles = [colour for colour in COLOURS for _ in range(counts[colour])]
    bag = tuple(rng.derive("beutel").shuffle(bag_tiles))
    seed_rng = rng.derive("seed")
    seed = b"".join(seed_rng.next_u64().to_bytes(8, "big") for _ in range(4))
    lid = sorted_tiles([colour for colour, count in view["deckel"]["farben"].items() for _ in range(count)])
    config = tuple((str(key), str(value)) for key, value in view["einstellungen"].items())
    to_move: list[Any] = view["am_zug"]
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
        boards=tuple(_board_from_json(player) for player in view["spieler"]),
        current=int(to_move[0]) if to_move else 0,
        is_finished=view["beendet"],
    )

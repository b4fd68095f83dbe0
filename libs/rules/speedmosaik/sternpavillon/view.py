"""What a seat sees of the Sternpavillon, and how a bot rebuilds a full state from it (determinization)."""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import Json
from libs.rules.rng import SeededRng
from libs.rules.speedmosaik.displays import sample_hidden_bag
from libs.rules.speedmosaik.sternpavillon.rules import suggested_keep
from libs.rules.speedmosaik.sternpavillon.scoring import running_lines
from libs.rules.speedmosaik.sternpavillon.state import (
    PHASE_BONUS,
    PHASE_KEEP,
    PlayerBoard,
    SternpavillonState,
)
from libs.rules.speedmosaik.sternpavillon.tiles import (
    BONUS_PLACES,
    COLOURS,
    FREE_KEEP,
    ROUNDS,
    SPACES,
    STARS,
    TILES_PER_COLOUR,
    WILD_ORDER,
    colour_index,
    counts_json,
    star_colour,
    wild_colour,
)
from libs.rules.speedmosaik.texts import lines_from_json, lines_json
from libs.rules.speedmosaik.workshop import current_mover, table_view


def geometry_json() -> list[Json]:
    """Return the bonus places with their reward and the star spaces that frame them."""
    return [
        {
            "id": place.id,
            "art": place.kind,
            "name": place.name,
            "belohnung": place.reward,
            "felder": [{"stern": star, "feld": number} for star, number in place.frame],
        }
        for place in BONUS_PLACES
    ]


def _board_json(seat: int, board: PlayerBoard) -> Json:
    return {
        "platz": seat,
        "punkte": board.score,
        "hand": counts_json(board.hand),
        "steine": board.hand_size(),
        "gepasst": board.has_passed,
        "sterne": [
            {
                "stern": star,
                "farbe": star_colour(star),
                "felder": [{"feld": n + 1, "farbe": board.stars[i][n]} for n in range(SPACES)],
            }
            for i, star in enumerate(STARS)
        ],
        "belegte_felder": board.filled_spaces(),
        "umschlossen": list(board.surrounded),
        "konto": {
            "legepunkte": board.placement_points,
            "mitte": board.centre_penalty,
            "behalten": board.keep_cost,
        },
        "rechenweg": lines_json(running_lines(board)),
        "endwertung": lines_json(board.end_lines),
    }


def make_view(state: SternpavillonState, seat: int | None, rules_id: str) -> Json:
    """Return the public table as JSON; the bag's order and the seed are never part of it."""
    keep: Json | None = None
    if state.phase == PHASE_KEEP:
        board = state.boards[state.current]
        keep = {
            "platz": state.current,
            "frei": FREE_KEEP,
            "steine": board.hand_size(),
            "vorschlag": counts_json(suggested_keep(board, state.round + 1)),
        }
    return {
        **table_view(state, seat, rules_id, current_mover(state)),
        "runden": ROUNDS,
        "phase": state.phase,
        "joker": {"farbe": wild_colour(state.round), "reihenfolge": list(WILD_ORDER)},
        "beginnt": state.starter,
        "vorrat": list(state.supply),
        "beutel": {"anzahl": len(state.bag), "aus_turm": state.tower_refills},
        "turm": {"anzahl": sum(state.tower), "farben": counts_json(state.tower)},
        "bonus": {"platz": state.current, "noch": state.bonus_owed} if state.phase == PHASE_BONUS else None,
        "behalten": keep,
        "bonusorte": geometry_json(),
        "spieler": [_board_json(i, board) for i, board in enumerate(state.boards)],
    }


def _counts(data: dict[str, Any]) -> tuple[int, ...]:
    return tuple(int(data[colour]) for colour in COLOURS)


def _board_from_json(data: Json) -> PlayerBoard:
    return PlayerBoard(
        stars=tuple(tuple(space["farbe"] for space in star["felder"]) for star in data["sterne"]),
        hand=_counts(data["hand"]),
        score=data["punkte"],
        placement_points=data["konto"]["legepunkte"],
        centre_penalty=data["konto"]["mitte"],
        keep_cost=data["konto"]["behalten"],
        has_passed=data["gepasst"],
        surrounded=tuple(data["umschlossen"]),
        end_lines=lines_from_json(data["endwertung"]),
    )


def hidden_bag_counts(view: Json) -> list[int]:
    """Return the bag's colour counts: 22 of each colour minus every tile visible on the table."""
    seen = [0 for _ in COLOURS]
    tiles: list[str] = [tile for factory in view["schalen"] for tile in factory]
    tiles += view["mitte"] + view["vorrat"]
    for tile in tiles:
        seen[colour_index(tile)] += 1
    for index, colour in enumerate(COLOURS):
        seen[index] += view["turm"]["farben"][colour]
    for player in view["spieler"]:
        for index, colour in enumerate(COLOURS):
            seen[index] += player["hand"][colour]
        for star in player["sterne"]:
            for space in star["felder"]:
                if space["farbe"] is not None:
                    seen[colour_index(space["farbe"])] += 1
    return [TILES_PER_COLOUR - count for count in seen]


def state_from_view(view: Json, rng: SeededRng) -> SternpavillonState:
    """Return a full state consistent with the view: bag order and future seed drawn from rng."""
    counts = dict(zip(COLOURS, hidden_bag_counts(view), strict=True))
    bag, seed = sample_hidden_bag(counts, tuple(COLOURS), view["beutel"]["anzahl"], rng)
    to_move: list[Any] = view["am_zug"]
    bonus = view["bonus"]
    return SternpavillonState(
        config=tuple((str(key), str(value)) for key, value in view["einstellungen"].items()),
        seats=view["plaetze"],
        seed=seed,
        round=view["runde"],
        phase=view["phase"],
        factories=tuple(tuple(factory) for factory in view["schalen"]),
        centre=tuple(view["mitte"]),
        start_tile_in_centre=view["startstein"]["in_mitte"],
        start_tile_holder=view["startstein"]["platz"],
        supply=tuple(view["vorrat"]),
        bag=bag,
        tower=_counts(view["turm"]["farben"]),
        tower_refills=view["beutel"]["aus_turm"],
        boards=tuple(_board_from_json(player) for player in view["spieler"]),
        current=int(to_move[0]) if to_move else view["beginnt"],
        starter=view["beginnt"],
        bonus_owed=int(bonus["noch"]) if bonus else 0,
    )

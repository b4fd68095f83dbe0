"""What a Sternpavillon move would bring, shown before it is made (tiles, joker, cost, chain points, bonus)."""

from __future__ import annotations

from libs.rules.protocol import Json
from libs.rules.speedmosaik.sternpavillon.rules import (
    BonusPick,
    Keep,
    Pass,
    Place,
    Take,
    checked_move,
    needs_keep_choice,
    place_result,
    suggested_keep,
    take_result,
)
from libs.rules.speedmosaik.sternpavillon.state import SternpavillonState
from libs.rules.speedmosaik.sternpavillon.tiles import (
    BONUS_PLACES,
    COLOURS,
    FREE_KEEP,
    FULL_STAR_BONUS,
    NUMBER_BONUS,
    ROUNDS,
    STARS,
    counts_json,
    wild_colour,
)
from libs.rules.speedmosaik.texts import phrase


def preview(state: SternpavillonState, seat: int, move: Json) -> Json:
    """Return what a move would bring, for the screen: tiles, joker, penalty, cost, chain points, bonus
    tiles; raise IllegalMove for a move ``apply`` would refuse."""
    parsed = checked_move(state, seat, move)
    board = state.boards[seat]
    wild = wild_colour(state.round)
    if isinstance(parsed, Take):
        result = take_result(state, seat, parsed)
        warnings = []
        if result.takes_start_tile:
            warnings.append(
                phrase(
                    "sternpavillon.warnung.startstein",
                    f"Du nimmst als Erster aus der Mitte: Du bekommst den Startstein und verlierst "
                    f"{result.penalty} {'Punkt' if result.penalty == 1 else 'Punkte'} (nie unter 1).",
                    verlust=result.penalty,
                ).to_json()
            )
        return {
            "zug": parsed.to_json(),
            "art": "nehmen",
            "farbe": parsed.colour,
            "anzahl": result.colour_count,
            "joker": result.joker,
            "jokerfarbe": wild,
            "in_die_mitte": len(result.to_centre),
            "startstein": result.takes_start_tile,
            "verlust": result.penalty,
            "warnungen": warnings,
        }
    if isinstance(parsed, Place):
        placed = place_result(board, parsed)
        star_index = STARS.index(parsed.star)
        return {
            "zug": parsed.to_json(),
            "art": "legen",
            "stern": parsed.star,
            "feld": parsed.number,
            "farbe": parsed.colour,
            "kosten": parsed.number,
            "steine": {"farbe": parsed.colour, "echt": placed.real, "joker": placed.jokers, "jokerfarbe": wild},
            "in_den_turm": parsed.number - 1,
            "punkte": placed.points,
            "kette": placed.points,
            "umschlossen": [
                {"id": BONUS_PLACES[i].id, "art": BONUS_PLACES[i].kind, "name": BONUS_PLACES[i].name,
                 "belohnung": BONUS_PLACES[i].reward}
                for i in placed.surrounded
            ],
            "bonussteine": placed.bonus_tiles,
            "stern_voll": placed.completes_star,
            "stern_bonus": FULL_STAR_BONUS[parsed.star] if placed.completes_star else 0,
            "zahl_voll": all(
                star[parsed.number - 1] is not None or i == star_index for i, star in enumerate(board.stars)
            ) and parsed.number in NUMBER_BONUS,
            "warnungen": [],
        }
    if isinstance(parsed, Pass):
        held = board.hand_size()
        last = state.round >= ROUNDS
        return {
            "zug": parsed.to_json(),
            "art": "passen",
            "steine": held,
            "frage_behalten": needs_keep_choice(state, board),
            "vorschlag": counts_json(suggested_keep(board, state.round + 1)) if not last else None,
            "letzte_runde": last,
            "uebrige_kosten": held if last else 0,
        }
    if isinstance(parsed, BonusPick):
        return {
            "zug": parsed.to_json(),
            "art": "bonus",
            "farbe": parsed.colour,
            "noch": state.bonus_owed - 1,
        }
    assert isinstance(parsed, Keep)
    kept = sum(parsed.counts)
    return {
        "zug": parsed.to_json(),
        "art": "behalten",
        "behalten": kept,
        "kosten": max(0, kept - FREE_KEEP),
        "in_den_turm": board.hand_size() - kept,
        "abgegeben": {c: h - k for c, h, k in zip(COLOURS, board.hand, parsed.counts, strict=True) if h - k},
        "vorschlag": counts_json(suggested_keep(board, state.round + 1)),
    }

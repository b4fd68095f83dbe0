"""The Sternpavillon as a Speedmosaik workshop: the protocol functions wired to its rules."""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import Json, Outcome
from libs.rules.rng import SeededRng
from libs.rules.speedmosaik.sternpavillon.rules import (
    BonusPick,
    Keep,
    Pass,
    Place,
    Take,
    apply_move,
    check_move,
    check_turn,
    legal,
    needs_keep_choice,
    new_game,
    parse_move,
    place_result,
    suggested_keep,
    take_result,
)
from libs.rules.speedmosaik.sternpavillon.scoring import final_outcome
from libs.rules.speedmosaik.sternpavillon.state import PHASE_OVER, SternpavillonState
from libs.rules.speedmosaik.sternpavillon.tiles import (
    BONUS_PLACES,
    COLOURS,
    FREE_KEEP,
    FULL_STAR_BONUS,
    NUMBER_BONUS,
    ROUNDS,
    STARS,
    colour_name,
    counts_json,
    wild_colour,
)
from libs.rules.speedmosaik.sternpavillon.view import make_view, state_from_view
from libs.rules.speedmosaik.texts import phrase

CONFIG_KEYS: tuple[str, ...] = ("workshop",)


def _state(state: Any) -> SternpavillonState:
    if not isinstance(state, SternpavillonState):
        raise TypeError("not a Sternpavillon state")
    return state


def preview_move(state: SternpavillonState, seat: int, move: Any) -> Json:
    """Return what a legal move would bring, for the screen (raises IllegalMove for an illegal one)."""
    check_turn(state, seat)
    parsed = parse_move(state, move)
    check_move(state, seat, parsed)
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


class Sternpavillon:
    """The Sternpavillon workshop: six colours, six rounds, a new joker colour each round."""

    name = "sternpavillon"

    def owns(self, state: Any) -> bool:
        """Return True for Sternpavillon states."""
        return isinstance(state, SternpavillonState)

    def setup(self, config: Json, seats: int, seed: bytes) -> SternpavillonState:
        """Return the first round of a game, shuffled from ``seed``."""
        items = tuple((key, str(config[key])) for key in CONFIG_KEYS)
        state, _ = new_game(items, seats, bytes(seed))
        return state

    def to_move(self, state: Any) -> tuple[int, ...]:
        """Return the seat that must decide now, or () once the game is over."""
        s = _state(state)
        return () if s.phase == PHASE_OVER else (s.current,)

    def legal_moves(self, state: Any, seat: int) -> list[Json]:
        """Return this seat's legal moves in canonical order (see the docs for each phase)."""
        return [move.to_json() for move in legal(_state(state), seat)]

    def apply(self, state: Any, seat: int, move: Json) -> tuple[SternpavillonState, list[Json]]:
        """Return the new state and German effect lines; raise IllegalMove and leave the input as it was."""
        s = _state(state)
        check_turn(s, seat)
        parsed = parse_move(s, move)
        check_move(s, seat, parsed)
        return apply_move(s, seat, parsed)

    def preview(self, state: Any, seat: int, move: Json) -> Json:
        """Return what the move would bring: tiles, joker, penalty, cost, chain points, bonus tiles."""
        return preview_move(_state(state), seat, move)

    def view(self, state: Any, seat: int | None, rules_id: str) -> Json:
        """Return the public table (everything but the bag's order and the seed)."""
        return make_view(_state(state), seat, rules_id)

    def is_over(self, state: Any) -> bool:
        """Return True once the game has ended."""
        return _state(state).phase == PHASE_OVER

    def outcome(self, state: Any) -> Outcome:
        """Return ranking, scores, filled spaces as tie-break, Rechenweg and leaderboard points."""
        s = _state(state)
        if s.phase != PHASE_OVER:
            raise ValueError("the game is not over yet")
        return final_outcome(s.boards)

    def determinize(self, view: Json, seat: int, rng: SeededRng) -> SternpavillonState:
        """Return a full state matching the view; the bag order is sampled from rng."""
        return state_from_view(view, rng)


WORKSHOP = Sternpavillon()

__all__ = ["WORKSHOP", "Sternpavillon", "colour_name"]

"""The Kachelwand as a Speedmosaik workshop: the protocol functions wired to its rules."""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import IllegalMove, Json, Outcome
from libs.rules.rng import SeededRng
from libs.rules.speedmosaik import config as settings
from libs.rules.speedmosaik.kachelwand.round_end import (
    apply_column,
    choosing_seats,
    end_round,
    legal_columns,
    parse_column,
)
from libs.rules.speedmosaik.kachelwand.rules import (
    FLOOR_LINE,
    apply_take,
    check_confirmed,
    check_take,
    check_turn,
    floor_penalty_change,
    is_round_over,
    legal_takes,
    new_game,
    parse_move,
    placement,
    take_wall_warning,
)
from libs.rules.speedmosaik.kachelwand.scoring import (
    final_outcome,
    preview_free_wall_points,
    preview_wall_points,
    wall_tile_line,
)
from libs.rules.speedmosaik.kachelwand.state import KachelwandState
from libs.rules.speedmosaik.kachelwand.tiles import JOKER
from libs.rules.speedmosaik.kachelwand.view import make_view, state_from_view
from libs.rules.speedmosaik.texts import phrase, tiles_word


def _state(state: Any) -> KachelwandState:
    if not isinstance(state, KachelwandState):
        raise TypeError("not a Kachelwand state")
    return state


class Kachelwand:
    """The Kachelwand workshop (the base form of Speedmosaik)."""

    name = "kachelwand"

    def owns(self, state: Any) -> bool:
        """Return True for Kachelwand states."""
        return isinstance(state, KachelwandState)

    def setup(self, config: Json, seats: int, seed: bytes) -> KachelwandState:
        """Return the first round of a game with these settings, shuffled from ``seed``."""
        items = tuple((key, str(config[key])) for key in settings.KACHELWAND_KEYS)
        return new_game(items, seats, bytes(seed))

    def to_move(self, state: Any) -> tuple[int, ...]:
        """Return the seat that must take tiles, the seats choosing wall columns (free wall), or ()."""
        s = _state(state)
        if s.is_finished:
            return ()
        if s.tiling:
            return choosing_seats(s)
        return (s.current,)

    def legal_moves(self, state: Any, seat: int) -> list[Json]:
        """Return this seat's legal moves: takes (factories then centre, colours in wall order, then the
        joker, lines 0–5) or, at a free-wall round end, the columns for its topmost full line."""
        s = _state(state)
        if s.tiling:
            return legal_columns(s, seat)
        return [take.to_json() for take in legal_takes(s, seat)]

    def apply(self, state: Any, seat: int, move: Json) -> tuple[KachelwandState, list[Json]]:
        """Return the new state and German effect lines; raise IllegalMove and leave the input as it was.

        A move that first returns a warning (free wall) is refused with code "warning" and the warning as
        reason unless it carries ``"bestaetigt": true``.
        """
        s = _state(state)
        if s.tiling:
            option, confirmed = parse_column(s, seat, move)
            warning = option.warning()
            if warning is not None and not confirmed:
                raise IllegalMove(warning.text, "warning")
            return apply_column(s, seat, option)
        check_turn(s, seat)
        take = parse_move(s, move)
        check_take(s, seat, take)
        check_confirmed(s, seat, take)
        after, effects = apply_take(s, seat, take)
        if is_round_over(after):
            return end_round(after, effects)
        return after, effects

    def preview(self, state: Any, seat: int, move: Json) -> Json:
        """Return where the tiles would go, the floor penalty, the wall points and warnings
        (at a free-wall round end: the column's points and the lines that would fall)."""
        s = _state(state)
        if s.tiling:
            option, _ = parse_column(s, seat, move)
            return {"zug": dict(move), "reihe": option.row + 1, "farbe": option.colour, **option.to_json()}
        check_turn(s, seat)
        take = parse_move(s, move)
        check_take(s, seat, take)
        place = placement(s, seat, take)
        line_colour = take.colour
        if take.colour == JOKER and take.line != FLOOR_LINE:
            line_colour = str(s.boards[seat].pattern_lines[take.line - 1].colour)
        warnings = []
        wall_warning = take_wall_warning(s, seat, take)
        if wall_warning is not None:
            warnings.append(wall_warning.to_json())
        if take.line == FLOOR_LINE:
            warnings.append(
                phrase(
                    "kachelwand.warnung.alles_auf_boden",
                    f"Alle {place.count} {tiles_word(place.count)} fallen auf den Boden.",
                    anzahl=place.count,
                ).to_json()
            )
        elif place.onto_floor + place.into_lid - (1 if place.start_tile_displaces else 0) > 0:
            overflow = place.count - place.into_line
            warnings.append(
                phrase(
                    "kachelwand.warnung.ueberlauf",
                    f"{overflow} {tiles_word(overflow)} passen nicht in Musterreihe {take.line} "
                    "und fallen auf den Boden.",
                    anzahl=overflow,
                    reihe=take.line,
                ).to_json()
            )
        lid_tiles = place.into_lid - (1 if place.start_tile_displaces else 0)
        if lid_tiles:
            warnings.append(
                phrase(
                    "kachelwand.warnung.deckel",
                    f"Der Boden ist voll: {lid_tiles} {tiles_word(lid_tiles)} kommen ohne Strafe in den Deckel.",
                    anzahl=lid_tiles,
                ).to_json()
            )
        if place.takes_start_tile:
            warnings.append(
                phrase(
                    "kachelwand.warnung.startstein",
                    "Du nimmst als Erster aus der Mitte: Der Startstein kommt auf deinen Boden (−1), "
                    "dafür beginnst du die nächste Runde.",
                ).to_json()
            )
        wall: Json | None = None
        if place.completes_line and not s.is_free_wall:
            tile = preview_wall_points(s.boards[seat], take.line - 1, line_colour)
            line = wall_tile_line(take.line - 1, line_colour, tile)
            wall = {"punkte": tile.points, "rechenweg": line.to_json()}
        elif place.completes_line:
            best = preview_free_wall_points(s.boards[seat], take.line - 1, line_colour)
            if best is not None:
                column, tile = best
                line = wall_tile_line(take.line - 1, line_colour, tile, column)
                wall = {"punkte": tile.points, "rechenweg": line.to_json(), "spalte": column + 1}
        extra: Json = {}
        if s.has_jokers:
            extra["joker"] = place.jokers
            extra["joker_in_reihe"] = place.jokers_into_line
        return {
            **extra,
            "zug": take.to_json(),
            "farbe": take.colour,
            "anzahl": place.count,
            "reihe": take.line,
            "in_reihe": place.into_line,
            "auf_boden": place.onto_floor,
            "in_deckel": place.into_lid,
            "startstein": place.takes_start_tile,
            "bodenstrafe": floor_penalty_change(place),
            "reihe_voll": place.completes_line,
            "wandpunkte": wall,
            "warnungen": warnings,
        }

    def view(self, state: Any, seat: int | None, rules_id: str) -> Json:
        """Return the public table (everything but the bag's order and the seed)."""
        return make_view(_state(state), seat, rules_id)

    def is_over(self, state: Any) -> bool:
        """Return True once the game has ended."""
        return _state(state).is_finished

    def outcome(self, state: Any) -> Outcome:
        """Return ranking, scores, full rows as tie-break, Rechenweg and leaderboard points."""
        s = _state(state)
        if not s.is_finished:
            raise ValueError("the game is not over yet")
        return final_outcome(s.boards)

    def determinize(self, view: Json, seat: int, rng: SeededRng) -> KachelwandState:
        """Return a full state matching the view; the bag order is sampled from rng."""
        return state_from_view(view, rng)


WORKSHOP = Kachelwand()

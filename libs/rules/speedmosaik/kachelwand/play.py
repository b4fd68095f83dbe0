"""The Kachelwand's decisions as the rule module plays them: taking tiles, or at a free-wall round end
choosing a wall column (the state's ``tiling`` says which)."""

from __future__ import annotations

from libs.rules.protocol import IllegalMove, Json
from libs.rules.speedmosaik.displays import all_taken
from libs.rules.speedmosaik.kachelwand.round_end import (
    apply_column,
    end_round,
    legal_columns,
    parse_column,
)
from libs.rules.speedmosaik.kachelwand.rules import (
    FLOOR_LINE,
    Take,
    apply_take,
    check_confirmed,
    check_take,
    floor_penalty_change,
    legal_takes,
    parse_move,
    placement,
    take_wall_warning,
)
from libs.rules.speedmosaik.kachelwand.scoring import (
    preview_free_wall_points,
    preview_wall_points,
    wall_tile_line,
)
from libs.rules.speedmosaik.kachelwand.state import KachelwandState
from libs.rules.speedmosaik.kachelwand.tiles import JOKER
from libs.rules.speedmosaik.texts import phrase, tiles_word


def legal_moves(state: KachelwandState, seat: int) -> list[Json]:
    """Return this seat's legal moves: takes (factories then centre, colours in wall order, then the
    joker, lines 0–5) or, at a free-wall round end, the columns for its topmost full line."""
    if state.tiling:
        return legal_columns(state, seat)
    return [take.to_json() for take in legal_takes(state, seat)]


def apply(state: KachelwandState, seat: int, move: Json) -> tuple[KachelwandState, list[Json]]:
    """Return the new state and German effect lines (the round end included); raise IllegalMove.

    A move that first returns a warning (free wall) is refused with code "warning" and the warning as
    reason unless it carries ``"bestaetigt": true``.
    """
    if state.tiling:
        option, confirmed = parse_column(state, seat, move)
        warning = option.warning()
        if warning is not None and not confirmed:
            raise IllegalMove(warning.text, "warning")
        return apply_column(state, seat, option)
    take = parse_move(state, move)
    check_take(state, seat, take)
    check_confirmed(state, seat, take)
    after, effects = apply_take(state, seat, take)
    if all_taken(after.factories, after.centre):
        return end_round(after, seat, effects)
    return after, effects


def preview(state: KachelwandState, seat: int, move: Json) -> Json:
    """Return what a move would bring without making it: for a take where the tiles go, the floor penalty,
    the wall points and warnings; at a free-wall round end the column's points and the lines that would fall."""
    if state.tiling:
        option, _ = parse_column(state, seat, move)
        return {"zug": dict(move), "reihe": option.row + 1, "farbe": option.colour, **option.to_json()}
    take = parse_move(state, move)
    check_take(state, seat, take)
    return preview_take(state, seat, take)


def preview_take(state: KachelwandState, seat: int, take: Take) -> Json:
    """Return where a legal take's tiles would go, the floor penalty, the wall points and warnings."""
    place = placement(state, seat, take)
    line_colour = take.colour
    if take.colour == JOKER and take.line != FLOOR_LINE:
        line_colour = str(state.boards[seat].pattern_lines[take.line - 1].colour)
    warnings = []
    wall_warning = take_wall_warning(state, seat, take)
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
    if place.completes_line and not state.is_free_wall:
        tile = preview_wall_points(state.boards[seat], take.line - 1, line_colour)
        line = wall_tile_line(take.line - 1, line_colour, tile)
        wall = {"punkte": tile.points, "rechenweg": line.to_json()}
    elif place.completes_line:
        best = preview_free_wall_points(state.boards[seat], take.line - 1, line_colour)
        if best is not None:
            column, tile = best
            line = wall_tile_line(take.line - 1, line_colour, tile, column)
            wall = {"punkte": tile.points, "rechenweg": line.to_json(), "spalte": column + 1}
    extra: Json = {}
    if state.has_jokers:
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

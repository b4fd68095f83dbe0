"""The round end: tiling the walls (on the free wall a decision phase), scoring, the next round, the game end."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from libs.rules.evolve import evolve
from libs.rules.protocol import ComputationLine, IllegalMove, Json, Phrase
from libs.rules.speedmosaik.displays import FACTORIES_PER_SEATS, bag_refilled, round_starter
from libs.rules.speedmosaik.kachelwand.rules import CONFIRM_KEY, fill_factories
from libs.rules.speedmosaik.kachelwand.scoring import (
    TilePoints,
    apply_end_bonuses,
    chain_points,
    drop_line,
    finish_round,
    hang_line,
    place_on_wall,
    round_summary_text,
    score_round,
    wall_tile_line,
)
from libs.rules.speedmosaik.kachelwand.state import Board, KachelwandState
from libs.rules.speedmosaik.kachelwand.tiles import WALL_SIZE, colour_name, sorted_tiles
from libs.rules.speedmosaik.kachelwand.wall import (
    FullLine,
    free_columns,
    full_lines,
    grid_place,
    min_falls,
    pending_line,
)
from libs.rules.speedmosaik.texts import effect, phrase, points_word, seat_name, signed, tiles_word
from libs.rules.speedmosaik.workshop import with_board


def _wall_effect(seat: int, row: int, colour: str, tile: TilePoints, column: int | None, only: bool) -> Json:
    if column is None:
        return effect(
            "kachelwand.wand",
            f"{seat_name(seat)} hängt {colour_name(colour)} in Wandreihe {row + 1}: "
            f"{tile.explanation()} = {tile.points}",
            platz=seat + 1,
            reihe=row + 1,
            farbe=colour,
            waagerecht=tile.horizontal,
            senkrecht=tile.vertical,
            punkte=tile.points,
        )
    note = " (die einzige freie Spalte)" if only else ""
    return effect(
        "kachelwand.wand",
        f"{seat_name(seat)} hängt {colour_name(colour)} in Wandreihe {row + 1}, Spalte {column + 1}{note}: "
        f"{tile.explanation()} = {tile.points}",
        platz=seat + 1,
        reihe=row + 1,
        spalte=column + 1,
        farbe=colour,
        waagerecht=tile.horizontal,
        senkrecht=tile.vertical,
        punkte=tile.points,
        einzige_spalte=only,
    )


def _round_score_effect(seat: int, board: Board, result: Any) -> Json:
    return effect(
        "kachelwand.rundenwertung",
        round_summary_text(seat, result),
        platz=seat + 1,
        veraenderung=result.delta,
        bodenstrafe=result.floor_points,
        punkte=result.board.score,
    )


def end_round(state: KachelwandState, last_taker: int, effects: list[Json]) -> tuple[KachelwandState, list[Json]]:
    """Tile the walls and score after the round's last take; on the free wall stop where seats must choose."""
    effects.append(
        effect(
            "kachelwand.runde_ende",
            f"Runde {state.round} ist vorbei: Die Wände werden gefliest.",
            runde=state.round,
        )
    )
    start = round_starter(state.start_tile_holder, last_taker, state.seats)
    if not state.is_free_wall:
        lid = list(state.lid)
        boards: list[Board] = []
        for seat, board in enumerate(state.boards):
            result = score_round(board)
            lid.extend(result.to_lid)
            boards.append(result.board)
            for row, colour, tile in result.placed:
                effects.append(_wall_effect(seat, row, colour, tile, None, False))
            effects.append(_round_score_effect(seat, board, result))
        scored = evolve(state, boards=tuple(boards), lid=sorted_tiles(lid), factories=(), centre=())
        return complete_round(scored, start, effects)
    tiling = evolve(state, tiling=True, current=start, factories=(), centre=())
    for seat in range(state.seats):
        tiling = advance_tiling(tiling, seat, effects)
    if choosing_seats(tiling):
        return tiling, effects
    return complete_round(tiling, start, effects)


def movers(state: KachelwandState) -> tuple[int, ...]:
    """Return the seat that must take tiles, or at a free-wall round end every seat choosing a column; ()
    once the game is over."""
    if state.is_finished:
        return ()
    if state.tiling:
        return choosing_seats(state)
    return (state.current,)


def choosing_seats(state: KachelwandState) -> tuple[int, ...]:
    """Return the seats that must choose a column now (free wall round end), in seat order."""
    if not state.tiling:
        return ()
    return tuple(seat for seat, board in enumerate(state.boards) if pending_line(board) is not None)


def advance_tiling(state: KachelwandState, seat: int, effects: list[Json]) -> KachelwandState:
    """Hang this seat's full lines top to bottom until a line offers a choice of columns.

    A line with exactly one free column hangs there without a question (eigene Festlegung); a line with
    none falls to the floor. When no full line is left, the seat's round is scored.
    """
    board = state.boards[seat]
    lid = list(state.lid)
    while True:
        pending = pending_line(board)
        if pending is None:
            result = finish_round(board)
            lid.extend(result.to_lid)
            effects.append(_round_score_effect(seat, board, result))
            board = result.board
            break
        row, colour = pending
        options = free_columns(board, row, colour)
        if not options:
            before = board.pattern_lines[row].count
            board, onto_floor, to_lid = drop_line(board, row)
            lid.extend(to_lid)
            lid_text = f", {len(to_lid)} in den Deckel" if to_lid else ""
            effects.append(
                effect(
                    "kachelwand.gefallen",
                    f"{seat_name(seat)}: In Wandreihe {row + 1} ist keine Spalte für {colour_name(colour)} frei – "
                    f"{before} {tiles_word(before)} fallen auf den Boden{lid_text}.",
                    platz=seat + 1,
                    reihe=row + 1,
                    farbe=colour,
                    anzahl=before,
                    auf_boden=onto_floor,
                    in_deckel=len(to_lid),
                )
            )
        elif len(options) == 1:
            board, tile, to_lid = hang_line(board, row, options[0])
            lid.extend(to_lid)
            effects.append(_wall_effect(seat, row, colour, tile, options[0], True))
        else:
            effects.append(
                effect(
                    "kachelwand.spaltenwahl",
                    f"{seat_name(seat)} wählt die Spalte für {colour_name(colour)} in Wandreihe {row + 1} "
                    f"(frei: {', '.join(str(c + 1) for c in options)}).",
                    platz=seat + 1,
                    reihe=row + 1,
                    farbe=colour,
                    spalten=[c + 1 for c in options],
                )
            )
            break
    return evolve(state, boards=with_board(state.boards, seat, board), lid=sorted_tiles(lid))


@dataclass(frozen=True)
class ColumnOption:
    """One column the topmost full line may take: its points, and how many lines below must then fall."""

    row: int
    colour: str
    column: int
    tile: TilePoints
    falls: int
    extra_falls: int

    def rechenweg(self) -> ComputationLine:
        """Return the Rechenweg line of the tile in this column."""
        return wall_tile_line(self.row, self.colour, self.tile, self.column)

    def warning(self) -> Phrase | None:
        """Return the warning of a column that makes a lower line fall (another column would not)."""
        if not self.extra_falls:
            return None
        lines = "eine Musterreihe" if self.extra_falls == 1 else f"{self.extra_falls} Musterreihen"
        return phrase(
            "kachelwand.warnung.spalte_faellt",
            f"Achtung: Mit Spalte {self.column + 1} bleibt für {lines} darunter keine Spalte frei – "
            "ihre Fliesen fallen auf den Boden. Eine andere Spalte verhindert das.",
            reihe=self.row + 1,
            spalte=self.column + 1,
            farbe=self.colour,
            faellt=self.extra_falls,
        )

    def to_json(self) -> Json:
        """Return ``{"spalte", "punkte", "rechenweg", "faellt", "warnungen"}``."""
        warning = self.warning()
        return {
            "spalte": self.column + 1,
            "punkte": self.tile.points,
            "rechenweg": self.rechenweg().to_json(),
            "faellt": self.falls,
            "warnungen": [] if warning is None else [warning.to_json()],
        }


def column_options(board: Board) -> list[ColumnOption]:
    """Return the choices for the board's topmost full line (free wall), with points and fall counts."""
    pending = pending_line(board)
    if pending is None or board.wall_colours is None:
        return []
    row, colour = pending
    below: tuple[FullLine, ...] = tuple(line for line in full_lines(board) if line[0] > row)
    options: list[tuple[int, TilePoints, int]] = []
    for column in free_columns(board, row, colour):
        wall = place_on_wall(board.wall, row, column)
        grid = grid_place(board.wall_colours, row, column, colour)
        options.append((column, chain_points(wall, row, column), min_falls(grid, below)))
    fewest = min((falls for _, _, falls in options), default=0)
    return [ColumnOption(row, colour, column, tile, falls, falls - fewest) for column, tile, falls in options]


def parse_column(state: KachelwandState, seat: int, move: Json) -> tuple[ColumnOption, bool]:
    """Check a column move ``{"spalte": n}`` of a choosing seat; return the option and whether it is confirmed.

    The seat is one of ``choosing_seats`` (the engine lets no other seat move now).
    """
    if "spalte" not in move or not set(move) <= {"spalte", CONFIRM_KEY}:
        raise IllegalMove("Wähle die Spalte für deine oberste volle Musterreihe: {\"spalte\": 1 bis 5}.", "malformed")
    confirmed = move.get(CONFIRM_KEY, False)
    column = move["spalte"]
    if not isinstance(confirmed, bool) or not isinstance(column, int) or isinstance(column, bool):
        raise IllegalMove("Dieser Zug hat ein unbekanntes Format.", "malformed")
    if not 1 <= column <= WALL_SIZE:
        raise IllegalMove("Es gibt nur die Spalten 1 bis 5.", "no_such_column")
    options = column_options(state.boards[seat])
    chosen = next((option for option in options if option.column == column - 1), None)
    if chosen is None:
        first = options[0]
        free = ", ".join(str(option.column + 1) for option in options)
        raise IllegalMove(
            f"In Spalte {column} darf {colour_name(first.colour)} in Wandreihe {first.row + 1} nicht hängen – "
            f"jede Farbe nur einmal je Reihe und Spalte (frei: {free}).",
            "column_not_free",
        )
    return chosen, confirmed


def legal_columns(state: KachelwandState, seat: int) -> list[Json]:
    """Return the column moves of a choosing seat, left to right; a warned column in its confirmed form."""
    if state.is_finished or seat not in choosing_seats(state):
        return []
    moves: list[Json] = []
    for option in column_options(state.boards[seat]):
        move: Json = {"spalte": option.column + 1}
        if option.warning() is not None:
            move[CONFIRM_KEY] = True
        moves.append(move)
    return moves


def apply_column(state: KachelwandState, seat: int, option: ColumnOption) -> tuple[KachelwandState, list[Json]]:
    """Hang the seat's topmost full line in the chosen column and go on tiling; finish the round when all are done."""
    board, tile, to_lid = hang_line(state.boards[seat], option.row, option.column)
    effects = [_wall_effect(seat, option.row, option.colour, tile, option.column, False)]
    boards = with_board(state.boards, seat, board)
    after = advance_tiling(evolve(state, boards=boards, lid=sorted_tiles([*state.lid, *to_lid])), seat, effects)
    if choosing_seats(after):
        return after, effects
    return complete_round(after, after.current, effects)


def complete_round(state: KachelwandState, start: int, effects: list[Json]) -> tuple[KachelwandState, list[Json]]:
    """After all walls are tiled: end the game if a wall row is full, else fill the factories for the next round."""
    scored = evolve(state, tiling=False, factories=(), centre=())
    if any(board.complete_rows() for board in scored.boards):
        return finish_game(scored, effects, reason="reihe")
    next_round = state.round + 1
    factories, bag, new_lid, refilled = fill_factories(
        scored.bag, scored.lid, FACTORIES_PER_SEATS[state.seats], state.seed, next_round
    )
    if refilled:
        effects.append(bag_refilled("kachelwand.beutel_nachgefuellt", refilled, tiles_word(refilled), "dem Deckel"))
    started = evolve(
        scored,
        round=next_round,
        factories=factories,
        centre=(),
        start_tile_in_centre=True,
        start_tile_holder=None,
        bag=bag,
        lid=new_lid,
        current=start,
    )
    if not any(factories):
        return finish_game(started, effects, reason="keine_fliesen")
    effects.append(
        effect(
            "kachelwand.runde_start",
            f"Runde {next_round} beginnt, {seat_name(start)} fängt an.",
            runde=next_round,
            platz=start + 1,
        )
    )
    return started, effects


def finish_game(state: KachelwandState, effects: list[Json], reason: str) -> tuple[KachelwandState, list[Json]]:
    """Add the end bonuses and mark the game as finished."""
    if reason == "reihe":
        text = "Jemand hat eine waagerechte Wandreihe voll: Die Partie ist vorbei."
    else:
        text = "Es sind keine Fliesen mehr übrig: Die Partie ist vorbei."
    effects.append(effect("kachelwand.spielende", text, grund=reason))
    boards = tuple(apply_end_bonuses(board) for board in state.boards)
    for seat, board in enumerate(boards):
        bonus = sum(line.points for line in board.bonus_lines)
        details = ", ".join(f"{line.label} = {line.points}" for line in board.bonus_lines)
        effects.append(
            effect(
                "kachelwand.boni",
                f"{seat_name(seat)}: Boni {signed(bonus)} ({details}) → {points_word(board.score)}",
                platz=seat + 1,
                boni=bonus,
                punkte=board.score,
            )
        )
    return evolve(state, boards=boards, is_finished=True, factories=(), centre=()), effects

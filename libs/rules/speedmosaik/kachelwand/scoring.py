"""Kachelwand scoring: wall adjacency, the round-end tiling, end bonuses and the final ranking."""

from __future__ import annotations

from dataclasses import dataclass

from libs.rules.evolve import evolve
from libs.rules.protocol import ComputationLine, Outcome
from libs.rules.speedmosaik.kachelwand.state import Board, PatternLine, WallColours
from libs.rules.speedmosaik.kachelwand.tiles import (
    BONUS_COLOUR,
    BONUS_COLUMN,
    BONUS_ROW,
    COLOURS,
    FLOOR_SPACES,
    JOKER,
    START_TILE,
    WALL_SIZE,
    colour_name,
    floor_penalty,
    wall_column,
)
from libs.rules.speedmosaik.kachelwand.wall import grid_columns, grid_place
from libs.rules.speedmosaik.outcome import ranked_outcome
from libs.rules.speedmosaik.texts import points_word, seat_name, signed, tiles_word

Wall = tuple[tuple[bool, ...], ...]


@dataclass(frozen=True)
class TilePoints:
    """Points of one tile hung on the wall: the horizontal and vertical chains it lies in."""

    horizontal: int
    vertical: int

    @property
    def points(self) -> int:
        """Return 1 for a lone tile, else the lengths of all chains longer than 1 added together."""
        if self.horizontal == 1 and self.vertical == 1:
            return 1
        return (self.horizontal if self.horizontal > 1 else 0) + (self.vertical if self.vertical > 1 else 0)

    def explanation(self) -> str:
        """Return the German computation without the result: "3 waagerecht + 2 senkrecht"."""
        parts = []
        if self.horizontal > 1:
            parts.append(f"{self.horizontal} waagerecht")
        if self.vertical > 1:
            parts.append(f"{self.vertical} senkrecht")
        return " + ".join(parts) if parts else "einzeln"


def chain_points(wall: Wall, row: int, column: int) -> TilePoints:
    """Return the chains through (row, column) on a wall where that cell is already filled."""
    horizontal = 1
    c = column - 1
    while c >= 0 and wall[row][c]:
        horizontal += 1
        c -= 1
    c = column + 1
    while c < WALL_SIZE and wall[row][c]:
        horizontal += 1
        c += 1
    vertical = 1
    r = row - 1
    while r >= 0 and wall[r][column]:
        vertical += 1
        r -= 1
    r = row + 1
    while r < WALL_SIZE and wall[r][column]:
        vertical += 1
        r += 1
    return TilePoints(horizontal, vertical)


_EMPTY_LINE = PatternLine()
"""The emptied pattern line, one for all boards (lines are immutable)."""

_WALL_ROWS: dict[tuple[bool, ...], tuple[bool, ...]] = {}
"""Every wall row made so far, once (at most 2 ** WALL_SIZE): walls share their rows, so a table that
caches thousands of games holds a few dozen row tuples instead of five per wall."""


def place_on_wall(wall: Wall, row: int, column: int) -> Wall:
    """Return a wall with (row, column) filled (its other rows are the same tuples as in `wall`)."""
    cells = wall[row]
    filled = tuple(True if c == column else cell for c, cell in enumerate(cells))
    filled = _WALL_ROWS.setdefault(filled, filled)
    return tuple(filled if r == row else other for r, other in enumerate(wall))


def wall_tile_line(row: int, colour: str, tile: TilePoints, column: int | None = None) -> ComputationLine:
    """Return the Rechenweg line of one tile: label "Reihe 2, Blau: 3 waagerecht + 2 senkrecht"."""
    return ComputationLine(
        label=f"Reihe {row + 1}, {colour_name(colour)}: {tile.explanation()}",
        points=tile.points,
        key=TILE_LINE_KEY,
        params={
            "reihe": row + 1,
            "farbe": colour,
            "spalte": (wall_column(row, colour) if column is None else column) + 1,
            "waagerecht": tile.horizontal,
            "senkrecht": tile.vertical,
        },
    )


TILE_LINE_KEY = "kachelwand.rechenweg.fliese"
FALLEN_LINE_KEY = "kachelwand.rechenweg.gefallen"


@dataclass(frozen=True)
class RoundScore:
    """A board after the round-end tiling, the tiles it gives to the lid and its Rechenweg."""

    board: Board
    to_lid: tuple[str, ...]
    placed: tuple[tuple[int, str, TilePoints], ...]
    floor_points: int
    floor_count: int
    delta: int

    @property
    def wall_points(self) -> int:
        """Return the points of all tiles hung this round."""
        return sum(line.points for line in self.board.last_round_lines if line.key == TILE_LINE_KEY)


def line_tiles(line: PatternLine) -> tuple[str, ...]:
    """Return the tiles lying in a pattern line: its colour tiles, then its jokers."""
    if line.colour is None:
        return ()
    return (line.colour,) * (line.count - line.jokers) + (JOKER,) * line.jokers


def hang_line(board: Board, row: int, column: int) -> tuple[Board, TilePoints, tuple[str, ...]]:
    """Hang the full pattern line ``row`` at ``column``: one colour tile goes to the wall, the rest to the lid.

    A line always holds at least one tile of its colour (jokers only join a colour or a started line),
    so the wall never holds a joker (eigene Festlegung). Returns the board, the tile's chains and the
    tiles for the box lid.
    """
    line = board.pattern_lines[row]
    colour = line.colour
    if colour is None:
        raise ValueError("an empty pattern line cannot hang on the wall")
    wall = place_on_wall(board.wall, row, column)
    colours = board.wall_colours
    if colours is not None:
        colours = tuple(
            tuple(colour if (r == row and c == column) else cell for c, cell in enumerate(cells))
            for r, cells in enumerate(colours)
        )
    tile = chain_points(wall, row, column)
    to_lid = line_tiles(line)[1:]
    lines = tuple(_EMPTY_LINE if r == row else other for r, other in enumerate(board.pattern_lines))
    new_board = evolve(
        board,
        pattern_lines=lines,
        wall=wall,
        wall_colours=colours,
        tiling_lines=(*board.tiling_lines, wall_tile_line(row, colour, tile, column)),
    )
    return new_board, tile, to_lid


def drop_line(board: Board, row: int) -> tuple[Board, int, tuple[str, ...]]:
    """Let the full pattern line ``row`` fall to the floor (no free column); beyond 7 spaces to the lid.

    Returns the board, how many tiles landed on the floor and the tiles for the box lid.
    """
    line = board.pattern_lines[row]
    tiles = line_tiles(line)
    room = max(0, FLOOR_SPACES - len(board.floor))
    onto_floor, to_lid = tiles[:room], tiles[room:]
    fallen = ComputationLine(
        label=f"Reihe {row + 1}, {colour_name(str(line.colour))}: keine Spalte frei – "
        f"{len(tiles)} {tiles_word(len(tiles))} auf den Boden",
        points=0,
        key=FALLEN_LINE_KEY,
        params={"reihe": row + 1, "farbe": line.colour, "anzahl": len(tiles), "auf_boden": len(onto_floor)},
    )
    lines = tuple(_EMPTY_LINE if r == row else other for r, other in enumerate(board.pattern_lines))
    new_board = evolve(
        board,
        pattern_lines=lines,
        floor=board.floor + onto_floor,
        tiling_lines=(*board.tiling_lines, fallen),
    )
    return new_board, len(onto_floor), to_lid


def finish_round(board: Board) -> RoundScore:
    """Score a board whose full lines all hung (or fell): wall points, floor penalty, never below 0."""
    computation = list(board.tiling_lines)
    floor_count = len(board.floor)
    floor_points = floor_penalty(floor_count)
    if floor_count:
        computation.append(
            ComputationLine(
                label=f"Boden: {floor_count} {'Stein' if floor_count == 1 else 'Steine'}",
                points=floor_points,
                key="kachelwand.rechenweg.boden",
                params={"anzahl": floor_count},
            )
        )
    to_lid = tuple(tile for tile in board.floor if tile != START_TILE)
    raw = sum(line.points for line in board.tiling_lines) + floor_points
    new_score = max(0, board.score + raw)
    delta = new_score - board.score
    if delta != raw:
        computation.append(
            ComputationLine(
                label="Nicht unter 0",
                points=delta - raw,
                key="kachelwand.rechenweg.nicht_unter_null",
                params={},
            )
        )
    new_board = evolve(
        board,
        floor=(),
        score=new_score,
        round_points=(*board.round_points, delta),
        last_round_lines=tuple(computation),
        tiling_lines=(),
    )
    return RoundScore(new_board, to_lid, (), floor_points, floor_count, delta)


def score_round(board: Board) -> RoundScore:
    """Hang one tile of every full pattern line on the fixed wall (top to bottom) and apply the floor."""
    to_lid: list[str] = []
    placed: list[tuple[int, str, TilePoints]] = []
    for row, line in enumerate(board.pattern_lines):
        if line.colour is None or line.count < row + 1:
            continue
        board, tile, rest = hang_line(board, row, wall_column(row, line.colour))
        placed.append((row, line.colour, tile))
        to_lid.extend(rest)
    result = finish_round(board)
    return evolve(result, to_lid=(*to_lid, *result.to_lid), placed=tuple(placed))


def full_rows(wall: Wall) -> int:
    """Return how many horizontal wall rows are full."""
    return sum(1 for row in wall if all(row))


def full_columns(wall: Wall) -> int:
    """Return how many vertical wall columns are full."""
    return sum(1 for column in range(WALL_SIZE) if all(wall[row][column] for row in range(WALL_SIZE)))


def full_colours(wall: Wall, wall_colours: WallColours | None = None) -> int:
    """Return how many colours hang on the wall with all five tiles (free wall: anywhere on it)."""
    if wall_colours is not None:
        return sum(1 for colour in COLOURS if sum(row.count(colour) for row in wall_colours) == WALL_SIZE)
    return sum(1 for colour in COLOURS if all(wall[row][wall_column(row, colour)] for row in range(WALL_SIZE)))


def bonus_lines(wall: Wall, wall_colours: WallColours | None = None) -> tuple[ComputationLine, ...]:
    """Return the three end-bonus lines: full rows ×2, full columns ×7, full colours ×10."""
    rows, columns, colours = full_rows(wall), full_columns(wall), full_colours(wall, wall_colours)
    return (
        ComputationLine(
            f"Volle Reihen: {rows} × {BONUS_ROW}",
            rows * BONUS_ROW,
            "kachelwand.bonus.reihen",
            {"anzahl": rows, "je": BONUS_ROW},
        ),
        ComputationLine(
            f"Volle Spalten: {columns} × {BONUS_COLUMN}",
            columns * BONUS_COLUMN,
            "kachelwand.bonus.spalten",
            {"anzahl": columns, "je": BONUS_COLUMN},
        ),
        ComputationLine(
            f"Alle Fliesen einer Farbe: {colours} × {BONUS_COLOUR}",
            colours * BONUS_COLOUR,
            "kachelwand.bonus.farben",
            {"anzahl": colours, "je": BONUS_COLOUR},
        ),
    )


def apply_end_bonuses(board: Board) -> Board:
    """Return the board with its end bonuses added to the score."""
    lines = bonus_lines(board.wall, board.wall_colours)
    return evolve(board, score=board.score + sum(line.points for line in lines), bonus_lines=lines)


def outcome_lines(board: Board) -> tuple[ComputationLine, ...]:
    """Return the final Rechenweg of a board: one line per round, then the end bonuses."""
    rounds = tuple(
        ComputationLine(
            label=f"Wandpunkte Runde {number}",
            points=points,
            key="kachelwand.ergebnis.runde",
            params={"runde": number},
        )
        for number, points in enumerate(board.round_points, start=1)
    )
    return rounds + board.bonus_lines


def final_outcome(boards: tuple[Board, ...]) -> Outcome:
    """Rank the boards: score, then more full rows; equal seats share the better place."""
    rows = tuple(board.complete_rows() for board in boards)
    return ranked_outcome(
        "kachelwand", tuple(board.score for board in boards), rows,
        tuple(outcome_lines(board) for board in boards),
        lambda seat: (f"{rows[seat]} vollen Reihen", {"volle_reihen": rows[seat]}),
    )


def preview_wall_points(board: Board, row: int, colour: str) -> TilePoints:
    """Return the chains the tile of pattern line ``row`` would score on the fixed wall this round end.

    Full pattern lines above are hung first (tiling runs top to bottom); lines below come later.
    """
    wall = board.wall
    for upper in range(row):
        line = board.pattern_lines[upper]
        if line.colour is not None and line.count == upper + 1:
            wall = place_on_wall(wall, upper, wall_column(upper, line.colour))
    column = wall_column(row, colour)
    wall = place_on_wall(wall, row, column)
    return chain_points(wall, row, column)


def preview_free_wall_points(board: Board, row: int, colour: str) -> tuple[int, TilePoints] | None:
    """Return the best column and chains for pattern line ``row`` on the free wall this round end.

    Full lines above hang first; for this estimate each takes its own best column (most points, the
    leftmost on a tie). Returns None if no column is left for the colour then.
    """
    wall, grid = board.wall, board.wall_colours
    if grid is None:
        raise ValueError("not a free wall")
    for upper in range(row):
        line = board.pattern_lines[upper]
        if line.colour is None or line.count != upper + 1:
            continue
        options = grid_columns(grid, upper, line.colour)
        if not options:
            continue
        column = max(options, key=lambda c: (chain_points(place_on_wall(wall, upper, c), upper, c).points, -c))
        wall = place_on_wall(wall, upper, column)
        grid = grid_place(grid, upper, column, line.colour)
    options = grid_columns(grid, row, colour)
    if not options:
        return None
    scored = [(chain_points(place_on_wall(wall, row, c), row, c), c) for c in options]
    tile, column = max(scored, key=lambda item: (item[0].points, -item[1]))
    return column, tile


def round_summary_text(seat: int, result: RoundScore) -> str:
    """Return the German log line of a seat's round result."""
    parts = [f"{seat_name(seat)}: Wand {signed(result.wall_points)}"]
    if result.floor_count:
        stones = "Stein" if result.floor_count == 1 else "Steine"
        parts.append(f"Boden {signed(result.floor_points)} ({result.floor_count} {stones})")
    return ", ".join(parts) + f" → {points_word(result.board.score)}"

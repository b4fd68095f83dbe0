"""The Kachelwand workshop: setup, taking tiles, the round end and the game end (pure functions)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from libs.rules.protocol import IllegalMove, Json
from libs.rules.rng import SeededRng
from libs.rules.speedmosaik.kachelwand.scoring import apply_end_bonuses, round_summary_text, score_round
from libs.rules.speedmosaik.kachelwand.state import Board, KachelwandState, PatternLine
from libs.rules.speedmosaik.kachelwand.tiles import (
    COLOURS,
    FACTORIES_PER_SEATS,
    FLOOR_SPACES,
    START_TILE,
    TILES_PER_COLOUR,
    TILES_PER_FACTORY,
    WALL_SIZE,
    colour_name,
    floor_penalty,
    sorted_tiles,
    wall_column,
)
from libs.rules.speedmosaik.texts import effect, points_word, seat_name, signed, tiles_word

SOURCE_FACTORY = "schale"
SOURCE_CENTRE = "mitte"
FLOOR_LINE = 0
RNG_LABEL = "speedmosaik/kachelwand"


@dataclass(frozen=True)
class Take:
    """A parsed move: take all tiles of ``colour`` from a factory (0-based) or the centre into ``line``."""

    factory: int | None
    colour: str
    line: int

    def to_json(self) -> Json:
        """Return the move in its JSON shape."""
        if self.factory is None:
            return {"source": SOURCE_CENTRE, "farbe": self.colour, "reihe": self.line}
        return {
            "source": SOURCE_FACTORY,
            "schale": self.factory + 1,
            "farbe": self.colour,
            "reihe": self.line,
        }


@dataclass(frozen=True)
class Placement:
    """Where the tiles of a move end up: pattern line, floor, box lid, and whether the start tile comes."""

    count: int
    into_line: int
    onto_floor: int
    into_lid: int
    takes_start_tile: bool
    start_tile_displaces: bool
    completes_line: bool
    floor_before: int
    floor_after: int


def _source_name(take: Take) -> str:
    return "der Mitte" if take.factory is None else f"Schale {take.factory + 1}"


def _target_name(line: int) -> str:
    return "Boden" if line == FLOOR_LINE else f"Musterreihe {line}"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_move(state: KachelwandState, move: Any) -> Take:
    """Check the move's JSON shape and return it parsed; raise IllegalMove for a broken shape."""
    if not isinstance(move, dict):
        raise IllegalMove("Dieser Zug hat ein unbekanntes Format.", "malformed")
    source = move.get("source")
    if source == SOURCE_FACTORY:
        expected = {"source", "schale", "farbe", "reihe"}
    elif source == SOURCE_CENTRE:
        expected = {"source", "farbe", "reihe"}
    else:
        raise IllegalMove("Nimm Fliesen aus einer Schale oder aus der Mitte.", "malformed")
    if set(move) != expected:
        raise IllegalMove("Dieser Zug hat ein unbekanntes Format.", "malformed")
    colour = move["farbe"]
    if not isinstance(colour, str) or colour not in COLOURS:
        raise IllegalMove("Diese Farbe gibt es bei der Kachelwand nicht.", "unknown_colour")
    line = move["reihe"]
    if not _is_int(line) or not FLOOR_LINE <= line <= WALL_SIZE:
        raise IllegalMove("Wähle eine Musterreihe von 1 bis 5 oder 0 für den Boden.", "no_such_line")
    factory: int | None = None
    if source == SOURCE_FACTORY:
        number = move["schale"]
        if not _is_int(number) or not 1 <= number <= len(state.factories):
            raise IllegalMove(f"Es gibt nur die Schalen 1 bis {len(state.factories)}.", "no_such_factory")
        factory = number - 1
    return Take(factory, colour, line)


def check_turn(state: KachelwandState, seat: int) -> None:
    """Raise IllegalMove unless ``seat`` must move now."""
    if state.is_finished:
        raise IllegalMove("Die Partie ist schon vorbei.", "game_over")
    if not _is_int(seat) or seat != state.current:
        raise IllegalMove(f"{seat_name(state.current)} ist am Zug, nicht du.", "not_your_turn")


def check_take(state: KachelwandState, seat: int, take: Take) -> None:
    """Raise IllegalMove if the take breaks a rule (colour not there, colour rules of the line)."""
    source = state.centre if take.factory is None else state.factories[take.factory]
    if take.colour not in source:
        where = "In der Mitte" if take.factory is None else f"In Schale {take.factory + 1}"
        raise IllegalMove(f"{where} liegt kein {colour_name(take.colour)}.", "colour_not_in_source")
    if take.line == FLOOR_LINE:
        return
    row = take.line - 1
    board = state.boards[seat]
    line = board.pattern_lines[row]
    if line.count >= take.line:
        raise IllegalMove(
            f"Musterreihe {take.line} ist schon voll – wähle eine andere Reihe oder 0 für den Boden.",
            "line_full",
        )
    if line.colour is not None and line.colour != take.colour:
        raise IllegalMove(
            f"In Musterreihe {take.line} liegt schon {colour_name(line.colour)} – in einer Reihe liegt nur eine Farbe.",
            "line_other_colour",
        )
    if board.wall[row][wall_column(row, take.colour)]:
        raise IllegalMove(
            f"In Wandreihe {take.line} hängt schon {colour_name(take.colour)} – "
            f"{colour_name(take.colour)} darf nicht mehr in Musterreihe {take.line}.",
            "colour_on_wall",
        )


def placement(state: KachelwandState, seat: int, take: Take) -> Placement:
    """Return where the tiles of a legal take would end up."""
    source = state.centre if take.factory is None else state.factories[take.factory]
    count = source.count(take.colour)
    board = state.boards[seat]
    takes_start = take.factory is None and state.start_tile_in_centre
    floor = len(board.floor)
    displaces = takes_start and floor >= FLOOR_SPACES
    if takes_start and not displaces:
        floor += 1
    floor_before = len(board.floor)
    if take.line == FLOOR_LINE:
        into_line, overflow, completes = 0, count, False
    else:
        line = board.pattern_lines[take.line - 1]
        into_line = min(count, take.line - line.count)
        overflow = count - into_line
        completes = line.count + into_line == take.line
    onto_floor = min(overflow, FLOOR_SPACES - floor)
    into_lid = overflow - onto_floor + (1 if displaces else 0)
    return Placement(
        count=count,
        into_line=into_line,
        onto_floor=onto_floor,
        into_lid=into_lid,
        takes_start_tile=takes_start,
        start_tile_displaces=displaces,
        completes_line=completes,
        floor_before=floor_before,
        floor_after=floor + onto_floor,
    )


def legal_takes(state: KachelwandState, seat: int) -> list[Take]:
    """Return every legal take of ``seat`` in canonical order (factories, then centre; colours; lines)."""
    if state.is_finished or seat != state.current:
        return []
    board = state.boards[seat]
    sources: list[tuple[int | None, tuple[str, ...]]] = [(i, f) for i, f in enumerate(state.factories)]
    sources.append((None, state.centre))
    takes: list[Take] = []
    for factory, tiles in sources:
        for colour in COLOURS:
            if colour not in tiles:
                continue
            for line in range(FLOOR_LINE, WALL_SIZE + 1):
                if line != FLOOR_LINE:
                    row = line - 1
                    pattern = board.pattern_lines[row]
                    if pattern.count >= line or (pattern.colour is not None and pattern.colour != colour):
                        continue
                    if board.wall[row][wall_column(row, colour)]:
                        continue
                takes.append(Take(factory, colour, line))
    return takes


# ---------------------------------------------------------------------------------------------------------
# Setup and refilling


def all_tiles() -> tuple[str, ...]:
    """Return the 100 tiles in canonical order (20 of each colour)."""
    return tuple(colour for colour in COLOURS for _ in range(TILES_PER_COLOUR))


def fill_factories(
    bag: tuple[str, ...], lid: tuple[str, ...], factories: int, seed: bytes, round_number: int
) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...], tuple[str, ...], int]:
    """Draw 4 tiles per factory from the front of the bag, shuffling the lid in when the bag is empty.

    Returns the factories, the bag, the lid and how many lid tiles went back into the bag (0 if none).
    When bag and lid both run out, the remaining factories stay partly or fully empty.
    """
    remaining = list(bag)
    lid_tiles = lid
    refilled = 0
    filled: list[tuple[str, ...]] = []
    for _ in range(factories):
        drawn: list[str] = []
        while len(drawn) < TILES_PER_FACTORY:
            if not remaining:
                if not lid_tiles:
                    break
                rng = SeededRng(seed, RNG_LABEL).derive(f"runde-{round_number}/deckel")
                remaining = rng.shuffle(lid_tiles)
                refilled = len(lid_tiles)
                lid_tiles = ()
            drawn.append(remaining.pop(0))
        filled.append(sorted_tiles(drawn))
    return tuple(filled), tuple(remaining), lid_tiles, refilled


def new_game(config: tuple[tuple[str, str], ...], seats: int, seed: bytes) -> KachelwandState:
    """Return the first round's state: shuffled bag, filled factories, seat 0 to start."""
    bag = tuple(SeededRng(seed, RNG_LABEL).derive("beutel").shuffle(all_tiles()))
    factories, bag, lid, _ = fill_factories(bag, (), FACTORIES_PER_SEATS[seats], seed, 1)
    return KachelwandState(
        config=config,
        seats=seats,
        seed=seed,
        round=1,
        factories=factories,
        centre=(),
        start_tile_in_centre=True,
        start_tile_holder=None,
        bag=bag,
        lid=lid,
        boards=tuple(Board() for _ in range(seats)),
        current=0,
    )


# ---------------------------------------------------------------------------------------------------------
# Applying a move


def _take_effect(seat: int, take: Take, place: Placement) -> Json:
    text = (
        f"{seat_name(seat)} nimmt {place.count} × {colour_name(take.colour)} aus {_source_name(take)}"
        f" → {_target_name(take.line)}"
    )
    extras = []
    if take.line != FLOOR_LINE and place.onto_floor:
        extras.append(f"{place.onto_floor} auf den Boden")
    if place.into_lid:
        extras.append(f"{place.into_lid} in den Deckel")
    if extras:
        text += " (" + ", ".join(extras) + ")"
    return effect(
        "kachelwand.zug",
        text,
        platz=seat + 1,
        anzahl=place.count,
        farbe=take.colour,
        quelle=SOURCE_CENTRE if take.factory is None else SOURCE_FACTORY,
        schale=None if take.factory is None else take.factory + 1,
        reihe=take.line,
        in_reihe=place.into_line,
        auf_boden=place.onto_floor,
        in_deckel=place.into_lid,
    )


def apply_take(state: KachelwandState, seat: int, take: Take) -> tuple[KachelwandState, list[Json]]:
    """Return the state after a legal take (and after the round end it may trigger) plus effects."""
    place = placement(state, seat, take)
    board = state.boards[seat]
    factories = state.factories
    centre = state.centre
    lid = list(state.lid)
    if take.factory is None:
        centre = tuple(tile for tile in centre if tile != take.colour)
    else:
        rest = tuple(tile for tile in factories[take.factory] if tile != take.colour)
        centre = sorted_tiles(list(centre) + list(rest))
        factories = tuple(() if i == take.factory else f for i, f in enumerate(factories))

    effects: list[Json] = [_take_effect(seat, take, place)]
    floor = list(board.floor)
    start_in_centre, holder = state.start_tile_in_centre, state.start_tile_holder
    if place.takes_start_tile:
        if place.start_tile_displaces:
            lid.append(floor.pop())
        floor.append(START_TILE)
        start_in_centre, holder = False, seat
        effects.append(
            effect(
                "kachelwand.startstein",
                f"{seat_name(seat)} nimmt als Erster aus der Mitte und bekommt den Startstein "
                "(−1 auf dem Boden, beginnt die nächste Runde).",
                platz=seat + 1,
            )
        )
    lines = board.pattern_lines
    if take.line != FLOOR_LINE:
        old = lines[take.line - 1]
        lines = tuple(
            PatternLine(take.colour, old.count + place.into_line) if i == take.line - 1 else line
            for i, line in enumerate(lines)
        )
    floor.extend([take.colour] * place.onto_floor)
    lid.extend([take.colour] * (place.into_lid - (1 if place.start_tile_displaces else 0)))
    new_board = replace(board, pattern_lines=lines, floor=tuple(floor))
    boards = tuple(new_board if i == seat else b for i, b in enumerate(state.boards))
    after = replace(
        state,
        factories=factories,
        centre=centre,
        start_tile_in_centre=start_in_centre,
        start_tile_holder=holder,
        lid=sorted_tiles(lid),
        boards=boards,
        current=(seat + 1) % state.seats,
    )
    if any(after.factories) or after.centre:
        return after, effects
    return end_round(after, last_mover=seat, effects=effects)


def end_round(state: KachelwandState, last_mover: int, effects: list[Json]) -> tuple[KachelwandState, list[Json]]:
    """Tile the walls, score, check for the game end, else start the next round."""
    effects.append(
        effect(
            "kachelwand.runde_ende",
            f"Runde {state.round} ist vorbei: Die Wände werden gefliest.",
            runde=state.round,
        )
    )
    lid = list(state.lid)
    boards: list[Board] = []
    for seat, board in enumerate(state.boards):
        result = score_round(board)
        lid.extend(result.to_lid)
        boards.append(result.board)
        for row, colour, tile in result.placed:
            effects.append(
                effect(
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
            )
        effects.append(
            effect(
                "kachelwand.rundenwertung",
                round_summary_text(seat, result),
                platz=seat + 1,
                veraenderung=result.delta,
                bodenstrafe=result.floor_points,
                punkte=result.board.score,
            )
        )
    scored = replace(state, boards=tuple(boards), lid=sorted_tiles(lid), factories=(), centre=())
    if any(board.complete_rows() for board in boards):
        return finish_game(scored, effects, reason="reihe")
    start = state.start_tile_holder if state.start_tile_holder is not None else (last_mover + 1) % state.seats
    next_round = state.round + 1
    factories, bag, new_lid, refilled = fill_factories(
        scored.bag, scored.lid, FACTORIES_PER_SEATS[state.seats], state.seed, next_round
    )
    if refilled:
        effects.append(
            effect(
                "kachelwand.beutel_nachgefuellt",
                f"Der Beutel ist leer: {refilled} {tiles_word(refilled)} aus dem Deckel kommen zurück in den Beutel.",
                anzahl=refilled,
            )
        )
    started = replace(
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
    return replace(state, boards=boards, is_finished=True, factories=(), centre=()), effects


def floor_penalty_change(place: Placement) -> int:
    """Return how many points (negative) the floor tiles of this move will cost at round end."""
    return floor_penalty(place.floor_after) - floor_penalty(place.floor_before)

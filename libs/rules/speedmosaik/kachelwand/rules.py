"""The Kachelwand workshop: setup and taking tiles, with jokers and the free wall's warning (pure functions)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from libs.rules.evolve import evolve
from libs.rules.protocol import IllegalMove, Json, Phrase
from libs.rules.rng import SeededRng
from libs.rules.speedmosaik import displays
from libs.rules.speedmosaik.displays import FACTORIES_PER_SEATS, PIECES_PER_FACTORY, source_name
from libs.rules.speedmosaik.kachelwand.state import EMPTY_WALL_COLOURS, Board, KachelwandState, PatternLine
from libs.rules.speedmosaik.kachelwand.tiles import (
    COLOURS,
    FLOOR_SPACES,
    JOKER,
    JOKERS_IN_BAG,
    START_TILE,
    TILES_PER_COLOUR,
    WALL_SIZE,
    colour_name,
    floor_penalty,
    sorted_tiles,
)
from libs.rules.speedmosaik.kachelwand.wall import fall_risk, row_has_colour
from libs.rules.speedmosaik.moves import factory_index, is_int
from libs.rules.speedmosaik.texts import effect, phrase, seat_name
from libs.rules.speedmosaik.workshop import with_board

SOURCE_FACTORY = "schale"
SOURCE_CENTRE = "mitte"
FLOOR_LINE = 0
RNG_LABEL = "speedmosaik/kachelwand"
CONFIRM_KEY = "bestaetigt"
"""A move that first returns a warning is made only with ``"bestaetigt": true`` (free wall)."""


@dataclass(frozen=True)
class Take:
    """A parsed move: take all tiles of ``colour`` from a factory (0-based) or the centre into ``line``.

    ``colour`` is ``"joker"`` for taking a lone joker from a source that holds only jokers.
    """

    factory: int | None
    colour: str
    line: int
    confirmed: bool = False

    def to_json(self) -> Json:
        """Return the move in its JSON shape."""
        move: Json
        if self.factory is None:
            move = {"source": SOURCE_CENTRE, "farbe": self.colour, "reihe": self.line}
        else:
            move = {
                "source": SOURCE_FACTORY,
                "schale": self.factory + 1,
                "farbe": self.colour,
                "reihe": self.line,
            }
        if self.confirmed:
            move[CONFIRM_KEY] = True
        return move


@dataclass(frozen=True)
class Placement:
    """Where the tiles of a move end up: pattern line, floor, box lid, and whether the start tile comes.

    ``count`` includes a joker taken along (``jokers``); colour tiles fill the line first, the joker last,
    and of the overflow the colour tiles reach the floor first.
    """

    count: int
    into_line: int
    onto_floor: int
    into_lid: int
    takes_start_tile: bool
    start_tile_displaces: bool
    completes_line: bool
    floor_before: int
    floor_after: int
    jokers: int = 0
    jokers_into_line: int = 0

    def overflow_tiles(self, colour: str) -> tuple[str, ...]:
        """Return the tiles that do not fit into the line, colour tiles first (floor, then lid)."""
        colour_tiles = self.count - self.jokers
        colour_into_line = self.into_line - self.jokers_into_line
        return (colour,) * (colour_tiles - colour_into_line) + (JOKER,) * (self.jokers - self.jokers_into_line)


def _target_name(line: int) -> str:
    return "Boden" if line == FLOOR_LINE else f"Musterreihe {line}"


def parse_move(state: KachelwandState, move: Json) -> Take:
    """Check the take's JSON shape and return it parsed; raise IllegalMove for a broken shape."""
    source = move.get("source")
    if source == SOURCE_FACTORY:
        expected = {"source", "schale", "farbe", "reihe"}
    elif source == SOURCE_CENTRE:
        expected = {"source", "farbe", "reihe"}
    else:
        raise IllegalMove("Nimm Fliesen aus einer Schale oder aus der Mitte.", "malformed")
    confirmed = False
    if state.is_free_wall and CONFIRM_KEY in move:
        if not isinstance(move[CONFIRM_KEY], bool):
            raise IllegalMove("„bestaetigt“ ist wahr oder falsch.", "malformed")
        confirmed = move[CONFIRM_KEY]
        expected = expected | {CONFIRM_KEY}
    if set(move) != expected:
        raise IllegalMove("Dieser Zug hat ein unbekanntes Format.", "malformed")
    colour = move["farbe"]
    if not isinstance(colour, str) or not (colour in COLOURS or (colour == JOKER and state.has_jokers)):
        raise IllegalMove("Diese Farbe gibt es bei der Kachelwand nicht.", "unknown_colour")
    line = move["reihe"]
    if not is_int(line) or not FLOOR_LINE <= line <= WALL_SIZE:
        raise IllegalMove("Wähle eine Musterreihe von 1 bis 5 oder 0 für den Boden.", "no_such_line")
    factory = factory_index(move["schale"], len(state.factories)) if source == SOURCE_FACTORY else None
    return Take(factory, colour, line, confirmed)


def _source(state: KachelwandState, take: Take) -> tuple[str, ...]:
    return displays.source(state.factories, state.centre, take.factory)


def check_take(state: KachelwandState, seat: int, take: Take) -> None:
    """Raise IllegalMove if the take breaks a rule (colour not there, colour rules of the line)."""
    source = _source(state, take)
    if take.colour not in source:
        raise displays.not_in_source(take.factory, colour_name(take.colour))
    if take.colour == JOKER and any(tile != JOKER for tile in source):
        raise IllegalMove(
            f"{displays.in_source(take.factory)} liegen noch Farben: "
            "Einen Joker allein darfst du nur nehmen, wenn dort nur Joker liegen.",
            "joker_not_alone",
        )
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
    if take.colour == JOKER:
        if line.colour is None:
            raise IllegalMove(
                f"Ein Joker ergänzt nur eine angefangene Reihe – Musterreihe {take.line} ist leer.",
                "joker_needs_started_line",
            )
        return
    if line.colour is not None and line.colour != take.colour:
        raise IllegalMove(
            f"In Musterreihe {take.line} liegt schon {colour_name(line.colour)} – in einer Reihe liegt nur eine Farbe.",
            "line_other_colour",
        )
    if row_has_colour(board, row, take.colour):
        raise IllegalMove(
            f"In Wandreihe {take.line} hängt schon {colour_name(take.colour)} – "
            f"{colour_name(take.colour)} darf nicht mehr in Musterreihe {take.line}.",
            "colour_on_wall",
        )


def check_confirmed(state: KachelwandState, seat: int, take: Take) -> None:
    """Raise IllegalMove(code "warning") for a take that first returns a warning and is not confirmed."""
    if take.confirmed:
        return
    warning = take_wall_warning(state, seat, take)
    if warning is not None:
        raise IllegalMove(warning.text, "warning")


def _line_colour_after(state: KachelwandState, seat: int, take: Take) -> str | None:
    if take.line == FLOOR_LINE:
        return None
    if take.colour == JOKER:
        return state.boards[seat].pattern_lines[take.line - 1].colour
    return take.colour


def take_wall_warning(state: KachelwandState, seat: int, take: Take) -> Phrase | None:
    """Return the free wall's warning for a take into a line that will (or may) find no free column.

    The full lines above hang first and may take the last column where the colour is still missing.
    """
    colour = _line_colour_after(state, seat, take)
    if colour is None or not state.is_free_wall:
        return None
    # Only the full lines above matter (they hang first); the take changes nothing above its own line.
    row = take.line - 1
    risk = fall_risk(state.boards[seat], row, colour)
    if risk.certain:
        return phrase(
            "kachelwand.warnung.wand_faellt",
            f"Achtung: In Wandreihe {take.line} ist keine Spalte mehr frei, in der {colour_name(colour)} fehlt – "
            f"ist Musterreihe {take.line} voll, fallen alle ihre Fliesen auf den Boden.",
            reihe=take.line,
            farbe=colour,
            sicher=True,
        )
    if risk.possible:
        return phrase(
            "kachelwand.warnung.wand_faellt",
            f"Achtung: Je nachdem, welche Spalten du für die Reihen darüber wählst, bleibt in Wandreihe "
            f"{take.line} keine Spalte für {colour_name(colour)} frei – dann fallen alle Fliesen von "
            f"Musterreihe {take.line} auf den Boden.",
            reihe=take.line,
            farbe=colour,
            sicher=False,
        )
    return None


def placement(state: KachelwandState, seat: int, take: Take) -> Placement:
    """Return where the tiles of a legal take would end up."""
    source = _source(state, take)
    if take.colour == JOKER:
        count, jokers = 1, 1
    else:
        jokers = 1 if state.has_jokers and JOKER in source else 0
        count = source.count(take.colour) + jokers
    board = state.boards[seat]
    takes_start = displays.takes_start_tile(take.factory, state.start_tile_in_centre)
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
        jokers=jokers,
        jokers_into_line=max(0, into_line - (count - jokers)),
    )


def _colours_to_take(state: KachelwandState, tiles: tuple[str, ...]) -> list[str]:
    colours = [colour for colour in COLOURS if colour in tiles]
    if not colours and state.has_jokers and JOKER in tiles:
        colours.append(JOKER)
    return colours


def legal_takes(state: KachelwandState, seat: int) -> list[Take]:
    """Return every legal take of ``seat`` in canonical order (factories, then centre; colours; lines).

    A take that first returns a warning (free wall) is listed in its confirmed form.
    """
    if state.is_finished or state.tiling or seat != state.current:
        return []
    board = state.boards[seat]
    free_wall = state.is_free_wall
    # The free wall's warning depends on the line and the colour only, not on the source: judged once each.
    warned: dict[tuple[str, int], bool] = {}
    sources: list[tuple[int | None, tuple[str, ...]]] = [(i, f) for i, f in enumerate(state.factories)]
    sources.append((None, state.centre))
    # Which lines take a colour depends on the board only, not on the source: judged once per colour.
    lines_for: dict[str, list[int]] = {}
    takes: list[Take] = []
    for factory, tiles in sources:
        for colour in _colours_to_take(state, tiles):
            lines = lines_for.get(colour)
            if lines is None:
                lines = lines_for[colour] = _lines_taking(board, colour)
            for line in lines:
                confirmed = False
                if free_wall:
                    key = (colour, line)
                    if key not in warned:
                        warned[key] = take_wall_warning(state, seat, Take(factory, colour, line)) is not None
                    confirmed = warned[key]
                takes.append(Take(factory, colour, line, confirmed))
    return takes


def _lines_taking(board: Board, colour: str) -> list[int]:
    """Return the lines (the floor, then pattern lines 1–5) a take of ``colour`` may go to on ``board``."""
    lines = [FLOOR_LINE]
    for line in range(1, WALL_SIZE + 1):
        row = line - 1
        pattern = board.pattern_lines[row]
        if pattern.count >= line:
            continue
        if colour == JOKER:
            if pattern.colour is None:
                continue
        elif pattern.colour not in (None, colour) or row_has_colour(board, row, colour):
            continue
        lines.append(line)
    return lines


# ---------------------------------------------------------------------------------------------------------
# Setup and refilling


def all_tiles(has_jokers: bool = False) -> tuple[str, ...]:
    """Return the 100 tiles in canonical order (20 of each colour), plus the 10 jokers if played with them."""
    colours = tuple(colour for colour in COLOURS for _ in range(TILES_PER_COLOUR))
    return colours + ((JOKER,) * JOKERS_IN_BAG if has_jokers else ())


def fill_factories(
    bag: tuple[str, ...], lid: tuple[str, ...], factories: int, seed: bytes, round_number: int
) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...], tuple[str, ...], int]:
    """Draw 4 tiles per factory from the bag, shuffling the box lid in when the bag is empty."""
    refill_rng = SeededRng(seed, RNG_LABEL).derive(f"runde-{round_number}/deckel")
    return displays.fill_factories(bag, lid, factories, PIECES_PER_FACTORY, refill_rng, sorted_tiles)


def new_game(config: tuple[tuple[str, str], ...], seats: int, seed: bytes) -> KachelwandState:
    """Return the first round's state: shuffled bag, filled factories, seat 0 to start."""
    options = dict(config)
    bag = tuple(SeededRng(seed, RNG_LABEL).derive("beutel").shuffle(all_tiles(options.get("jokers") == "mit")))
    factories, bag, lid, _ = fill_factories(bag, (), FACTORIES_PER_SEATS[seats], seed, 1)
    board = Board(wall_colours=EMPTY_WALL_COLOURS) if options.get("wall") == "frei" else Board()
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
        boards=tuple(board for _ in range(seats)),
        current=0,
    )


# ---------------------------------------------------------------------------------------------------------
# Applying a move


def _take_effect(state: KachelwandState, seat: int, take: Take, place: Placement) -> Json:
    if take.colour == JOKER:
        taken = f"{place.count} × Joker"
    elif place.jokers:
        taken = f"{place.count - place.jokers} × {colour_name(take.colour)} + Joker"
    else:
        taken = f"{place.count} × {colour_name(take.colour)}"
    text = f"{seat_name(seat)} nimmt {taken} aus {source_name(take.factory)} → {_target_name(take.line)}"
    extras = []
    if take.line != FLOOR_LINE and place.onto_floor:
        extras.append(f"{place.onto_floor} auf den Boden")
    if place.into_lid:
        extras.append(f"{place.into_lid} in den Deckel")
    if extras:
        text += " (" + ", ".join(extras) + ")"
    params: dict[str, Any] = {
        "platz": seat + 1,
        "anzahl": place.count,
        "farbe": take.colour,
        "quelle": SOURCE_CENTRE if take.factory is None else SOURCE_FACTORY,
        "schale": None if take.factory is None else take.factory + 1,
        "reihe": take.line,
        "in_reihe": place.into_line,
        "auf_boden": place.onto_floor,
        "in_deckel": place.into_lid,
    }
    if state.has_jokers:
        params["joker"] = place.jokers
    return effect("kachelwand.zug", text, **params)


def _taken_tiles(take: Take, place: Placement) -> tuple[str, ...]:
    """Return the tiles a take removes from its source: the colour's tiles and the joker(s) taken along."""
    return (take.colour,) * (place.count - place.jokers) + (JOKER,) * place.jokers


def apply_take(state: KachelwandState, seat: int, take: Take) -> tuple[KachelwandState, list[Json]]:
    """Return the state after a legal take (the round end is not handled here) plus effects."""
    place = placement(state, seat, take)
    board = state.boards[seat]
    factories, centre = displays.take_from(
        state.factories, state.centre, take.factory, _taken_tiles(take, place), sorted_tiles
    )
    lid = list(state.lid)

    effects: list[Json] = [_take_effect(state, seat, take, place)]
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
        colour = old.colour if take.colour == JOKER else take.colour
        lines = tuple(
            PatternLine(colour, old.count + place.into_line, old.jokers + place.jokers_into_line)
            if i == take.line - 1
            else line
            for i, line in enumerate(lines)
        )
    overflow = place.overflow_tiles(take.colour)
    floor.extend(overflow[: place.onto_floor])
    lid.extend(overflow[place.onto_floor :])
    boards = with_board(state.boards, seat, evolve(board, pattern_lines=lines, floor=tuple(floor)))
    after = evolve(
        state,
        factories=factories,
        centre=centre,
        start_tile_in_centre=start_in_centre,
        start_tile_holder=holder,
        lid=sorted_tiles(lid),
        boards=boards,
        current=displays.next_seat(seat, state.seats),
    )
    return after, effects


def floor_penalty_change(place: Placement) -> int:
    """Return how many points (negative) the floor tiles of this move will cost at round end."""
    return floor_penalty(place.floor_after) - floor_penalty(place.floor_before)

"""The Kirchenfenster workshop: setup, taking panes, the Glasermeister, full strips, rounds (pure functions)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from libs.rules.evolve import evolve
from libs.rules.protocol import IllegalMove, Json
from libs.rules.rng import SeededRng
from libs.rules.speedmosaik import displays
from libs.rules.speedmosaik.displays import FACTORIES_PER_SEATS, PIECES_PER_FACTORY, source_name
from libs.rules.speedmosaik.kirchenfenster.material import (
    COLOURS,
    JOKER,
    PANES_PER_COLOUR,
    ROUNDS,
    SIDE_BACK,
    SIDE_DONE,
    SIDE_FRONT,
    STRIP_COUNT,
    WRAP_LOSS,
    breakage_loss,
    colour_name,
    sorted_panes,
    step_breakage,
)
from libs.rules.speedmosaik.kirchenfenster.scoring import WindowScore, apply_end_scoring, window_score
from libs.rules.speedmosaik.kirchenfenster.state import EMPTY_FIELDS, Board, KirchenfensterState, PendingWindow, Strip
from libs.rules.speedmosaik.moves import factory_index, is_int, malformed
from libs.rules.speedmosaik.texts import effect, points_word, seat_name, signed
from libs.rules.speedmosaik.workshop import with_board

SOURCE_FACTORY = "schale"
SOURCE_CENTRE = "mitte"
ACTION_TAKE = "nehmen"
ACTION_RESET = "glasermeister"
ACTION_WINDOW = "fenster"
BREAK_ALL = 0
"""``"streifen": 0``: nothing fits on a reachable strip, every pane of the take breaks."""
RNG_LABEL = "speedmosaik/kirchenfenster"


@dataclass(frozen=True)
class Take:
    """Take all panes of ``colour`` from a factory (0-based) or the centre onto a strip (0-based, None: break)."""

    factory: int | None
    colour: str
    strip: int | None

    def to_json(self) -> Json:
        """Return the move in its JSON shape."""
        target = BREAK_ALL if self.strip is None else self.strip + 1
        if self.factory is None:
            return {"aktion": ACTION_TAKE, "source": SOURCE_CENTRE, "farbe": self.colour, "streifen": target}
        return {
            "aktion": ACTION_TAKE,
            "source": SOURCE_FACTORY,
            "schale": self.factory + 1,
            "farbe": self.colour,
            "streifen": target,
        }


@dataclass(frozen=True)
class ResetGlasermeister:
    """Instead of taking panes, bring the Glasermeister back to the far left."""

    def to_json(self) -> Json:
        """Return the move in its JSON shape."""
        return {"aktion": ACTION_RESET}


@dataclass(frozen=True)
class ChoosePane:
    """Choose the pane of a full strip that goes into the window below it."""

    colour: str

    def to_json(self) -> Json:
        """Return the move in its JSON shape."""
        return {"aktion": ACTION_WINDOW, "farbe": self.colour}


Move = Take | ResetGlasermeister | ChoosePane


@dataclass(frozen=True)
class Placement:
    """What a legal take does: panes set in, panes broken, start tile, breakage and a completed strip."""

    count: int
    strip: int | None
    placed: int
    broken: int
    takes_start_tile: bool
    breakage_steps: int
    field_before: int
    wraps_before: int
    field_after: int
    wraps_after: int
    panes_after: tuple[str | None, ...]
    completes: bool
    bonus_colour: str
    bonus_count: int
    window: WindowScore | None
    choices: tuple[str, ...]
    """Colours on the completed strip the owner may choose from (one colour: chosen automatically)."""

    @property
    def breakage_points(self) -> int:
        """Return the (negative) change of the points lost to breakage."""
        return breakage_loss(self.field_before, self.wraps_before) - breakage_loss(self.field_after, self.wraps_after)

    @property
    def immediate_points(self) -> int:
        """Return the points scored at once: bonus panes and window points, minus 18 per wrap."""
        points = self.bonus_count + (self.window.points if self.window is not None else 0)
        return points - WRAP_LOSS * (self.wraps_after - self.wraps_before)


# ---------------------------------------------------------------------------------------------------------
# Parsing and checking


def _colour(value: Any) -> str:
    if not isinstance(value, str) or value not in COLOURS:
        raise IllegalMove("Diese Farbe gibt es beim Kirchenfenster nicht.", "unknown_colour")
    return value


def parse_move(state: KirchenfensterState, move: Json) -> Move:
    """Check the move's JSON shape and return it parsed; raise IllegalMove for a broken shape."""
    action = move.get("aktion")
    if action == ACTION_RESET:
        if set(move) != {"aktion"}:
            raise malformed()
        return ResetGlasermeister()
    if action == ACTION_WINDOW:
        if set(move) != {"aktion", "farbe"}:
            raise malformed()
        return ChoosePane(_colour(move["farbe"]))
    if action != ACTION_TAKE:
        raise IllegalMove(
            "Nimm Scheiben, hol den Glasermeister nach links oder wähle die Scheibe fürs Fenster.", "malformed"
        )
    source = move.get("source")
    if source == SOURCE_FACTORY:
        expected = {"aktion", "source", "schale", "farbe", "streifen"}
    elif source == SOURCE_CENTRE:
        expected = {"aktion", "source", "farbe", "streifen"}
    else:
        raise IllegalMove("Nimm Scheiben aus einer Schale oder aus der Mitte.", "malformed")
    if set(move) != expected:
        raise malformed()
    colour = _colour(move["farbe"])
    target = move["streifen"]
    if not is_int(target) or not BREAK_ALL <= target <= STRIP_COUNT:
        raise IllegalMove(
            f"Wähle einen Streifen von 1 bis {STRIP_COUNT} (0 nur, wenn alles zerbricht).", "no_such_strip"
        )
    factory = factory_index(move["schale"], len(state.factories)) if source == SOURCE_FACTORY else None
    return Take(factory, colour, None if target == BREAK_ALL else target - 1)


def room_for(strip: Strip, index: int, colour: str) -> int:
    """Return how many panes of ``colour`` the strip at ``index`` can still take (its colour and joker fields)."""
    if strip.is_done:
        return 0
    return sum(
        1
        for field, pane in zip(strip.pattern(index), strip.panes, strict=True)
        if pane is None and (field in (colour, JOKER))
    )


def reachable_with_room(board: Board, colour: str) -> tuple[tuple[int, int], ...]:
    """Return (strip, room) for every strip under or right of the Glasermeister with room for ``colour``."""
    result = []
    for index in range(board.glasermeister, STRIP_COUNT):
        room = room_for(board.strips[index], index, colour)
        if room:
            result.append((index, room))
    return tuple(result)


def check_move(state: KirchenfensterState, seat: int, move: Move) -> None:
    """Raise IllegalMove if the move breaks a rule in this state."""
    if state.pending is not None:
        if not isinstance(move, ChoosePane):
            raise IllegalMove(
                f"Streifen {state.pending.strip + 1} ist voll: Wähle zuerst die Scheibe für das Fenster darunter.",
                "choose_window_pane",
            )
        strip = state.boards[seat].strips[state.pending.strip]
        if move.colour not in strip.panes:
            raise IllegalMove(
                f"Auf Streifen {state.pending.strip + 1} liegt kein {colour_name(move.colour)}.",
                "colour_not_on_strip",
            )
        return
    board = state.boards[seat]
    if isinstance(move, ChoosePane):
        raise IllegalMove("Gerade ist kein Streifen voll – es gibt keine Scheibe fürs Fenster zu wählen.", "no_choice")
    if isinstance(move, ResetGlasermeister):
        if board.glasermeister == 0:
            raise IllegalMove("Der Glasermeister steht schon ganz links.", "glasermeister_left")
        return
    if move.colour not in displays.source(state.factories, state.centre, move.factory):
        raise displays.not_in_source(move.factory, colour_name(move.colour))
    options = reachable_with_room(board, move.colour)
    if move.strip is None:
        if options:
            numbers = ", ".join(str(index + 1) for index, _ in options)
            raise IllegalMove(
                f"{colour_name(move.colour)} passt noch auf Streifen {numbers} – dort musst du einsetzen.",
                "must_place",
            )
        return
    if move.strip < board.glasermeister:
        raise IllegalMove(
            f"Streifen {move.strip + 1} liegt links vom Glasermeister (über Streifen {board.glasermeister + 1}).",
            "strip_not_reachable",
        )
    if room_for(board.strips[move.strip], move.strip, move.colour) == 0:
        raise IllegalMove(
            f"Auf Streifen {move.strip + 1} ist kein Platz für {colour_name(move.colour)}.", "strip_no_room"
        )


# ---------------------------------------------------------------------------------------------------------
# Where the panes go


def fill_strip(strip: Strip, index: int, colour: str, count: int) -> tuple[tuple[str | None, ...], int]:
    """Return the strip's panes after setting in up to ``count`` panes, and how many were set in.

    Fields of the pane's colour are filled first, then joker fields (left to right): a joker field can
    take any colour later, so this order never spoils the strip.
    """
    panes = list(strip.panes)
    pattern = strip.pattern(index)
    placed = 0
    for wanted in (colour, JOKER):
        for field, kind in enumerate(pattern):
            if placed < count and panes[field] is None and kind == wanted:
                panes[field] = colour
                placed += 1
    return tuple(panes), placed


def placement(state: KirchenfensterState, seat: int, take: Take) -> Placement:
    """Return what a legal take would do on the seat's board."""
    board = state.boards[seat]
    count = displays.source(state.factories, state.centre, take.factory).count(take.colour)
    takes_start = displays.takes_start_tile(take.factory, state.start_tile_in_centre)
    panes_after: tuple[str | None, ...] = EMPTY_FIELDS
    placed = 0
    completes = False
    window: WindowScore | None = None
    choices: tuple[str, ...] = ()
    bonus_count = 0
    if take.strip is not None:
        strip = board.strips[take.strip]
        panes_after, placed = fill_strip(strip, take.strip, take.colour, count)
        completes = all(pane is not None for pane in panes_after)
        if completes:
            on_strip = [pane for pane in panes_after if pane is not None]
            bonus_count = on_strip.count(state.bonus_colour)
            window = window_score(board.windows, take.strip)
            choices = sorted_panes(list(set(on_strip)))
    broken = count - placed
    steps = broken + (1 if takes_start else 0)
    field_after, wraps_after = step_breakage(board.breakage_field, board.breakage_wraps, steps)
    return Placement(
        count=count,
        strip=take.strip,
        placed=placed,
        broken=broken,
        takes_start_tile=takes_start,
        breakage_steps=steps,
        field_before=board.breakage_field,
        wraps_before=board.breakage_wraps,
        field_after=field_after,
        wraps_after=wraps_after,
        panes_after=panes_after,
        completes=completes,
        bonus_colour=state.bonus_colour,
        bonus_count=bonus_count,
        window=window,
        choices=choices,
    )


def legal_move_objects(state: KirchenfensterState, seat: int) -> list[Move]:
    """Return every legal move of ``seat`` in canonical order.

    Order: factories, then the centre; colours in colour order; strips left to right (0 when every pane
    breaks); then the Glasermeister reset. While a window pane is to be chosen: its colours in colour order.
    """
    if state.is_finished or seat != state.current:
        return []
    board = state.boards[seat]
    if state.pending is not None:
        strip = board.strips[state.pending.strip]
        return [ChoosePane(colour) for colour in sorted_panes(list({p for p in strip.panes if p is not None}))]
    moves: list[Move] = []
    sources: list[tuple[int | None, tuple[str, ...]]] = [(i, f) for i, f in enumerate(state.factories)]
    sources.append((None, state.centre))
    targets = {colour: reachable_with_room(board, colour) for colour in COLOURS}
    for factory, panes in sources:
        for colour in COLOURS:
            if colour not in panes:
                continue
            options = targets[colour]
            if not options:
                moves.append(Take(factory, colour, None))
            for index, _ in options:
                moves.append(Take(factory, colour, index))
    if board.glasermeister > 0:
        moves.append(ResetGlasermeister())
    return moves


def legal_moves(state: KirchenfensterState, seat: int) -> list[Json]:
    """Return this seat's legal moves as JSON, in the order of ``legal_move_objects``."""
    return [move.to_json() for move in legal_move_objects(state, seat)]


def checked_move(state: KirchenfensterState, seat: int, move: Json) -> Move:
    """Return the move parsed; raise IllegalMove if its shape is broken or the rules refuse it now."""
    parsed = parse_move(state, move)
    check_move(state, seat, parsed)
    return parsed


def apply(state: KirchenfensterState, seat: int, move: Json) -> tuple[KirchenfensterState, list[Json]]:
    """Return the state after the seat's move (and the round or game end it may bring) plus effects;
    raise IllegalMove and leave the input as it was."""
    return apply_move(state, seat, checked_move(state, seat, move))


# ---------------------------------------------------------------------------------------------------------
# Setup and refilling


def all_panes() -> tuple[str, ...]:
    """Return the 100 panes in canonical order (20 of each colour)."""
    return tuple(colour for colour in COLOURS for _ in range(PANES_PER_COLOUR))


def draw_bonus_colours(seed: bytes) -> tuple[str, ...]:
    """Return the six rounds' bonus colours: one of each colour plus one random colour, in seeded order."""
    rng = SeededRng(seed, RNG_LABEL).derive("bonusfarben")
    extra = rng.choice(COLOURS)
    return tuple(rng.shuffle((*COLOURS, extra)))


def fill_factories(
    bag: tuple[str, ...], tower: tuple[str, ...], factories: int, seed: bytes, round_number: int
) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...], tuple[str, ...], int]:
    """Draw 4 panes per factory from the bag; when it runs empty the glass tower is shuffled into it."""
    refill_rng = SeededRng(seed, RNG_LABEL).derive(f"runde-{round_number}/turm")
    return displays.fill_factories(bag, tower, factories, PIECES_PER_FACTORY, refill_rng, sorted_panes)


def new_game(config: tuple[tuple[str, str], ...], seats: int, seed: bytes) -> KirchenfensterState:
    """Return the first round's state: shuffled bag, bonus colours laid out, filled factories, seat 0 first."""
    bag = tuple(SeededRng(seed, RNG_LABEL).derive("beutel").shuffle(all_panes()))
    factories, bag, tower, _ = fill_factories(bag, (), FACTORIES_PER_SEATS[seats], seed, 1)
    return KirchenfensterState(
        config=config,
        seats=seats,
        seed=seed,
        round=1,
        bonus_colours=draw_bonus_colours(seed),
        factories=factories,
        centre=(),
        start_tile_in_centre=True,
        start_tile_holder=None,
        bag=bag,
        tower=tower,
        boards=tuple(Board() for _ in range(seats)),
        current=0,
    )


# ---------------------------------------------------------------------------------------------------------
# Applying a move


def _pane_word(count: int) -> str:
    return "Scheibe" if count == 1 else "Scheiben"


def _take_effect(seat: int, take: Take, place: Placement) -> Json:
    target = "alles zerbricht" if take.strip is None else f"Streifen {take.strip + 1}"
    taken = f"{place.count} × {colour_name(take.colour)}"
    text = f"{seat_name(seat)} nimmt {taken} aus {source_name(take.factory)} → {target}"
    if take.strip is not None and place.broken:
        text += f" ({place.broken} {'zerbricht' if place.broken == 1 else 'zerbrechen'})"
    return effect(
        "kirchenfenster.zug",
        text,
        platz=seat + 1,
        anzahl=place.count,
        farbe=take.colour,
        quelle=SOURCE_CENTRE if take.factory is None else SOURCE_FACTORY,
        schale=None if take.factory is None else take.factory + 1,
        streifen=BREAK_ALL if take.strip is None else take.strip + 1,
        eingesetzt=place.placed,
        zerbrochen=place.broken,
    )


def apply_move(state: KirchenfensterState, seat: int, move: Move) -> tuple[KirchenfensterState, list[Json]]:
    """Return the state after a checked move (and the round or game end it may bring) plus effects."""
    if isinstance(move, ResetGlasermeister):
        board = state.boards[seat]
        effects = [
            effect(
                "kirchenfenster.glasermeister",
                f"{seat_name(seat)} holt den Glasermeister ganz nach links (er stand über Streifen "
                f"{board.glasermeister + 1}).",
                platz=seat + 1,
                vorher=board.glasermeister + 1,
            )
        ]
        after = _with_board(state, seat, evolve(board, glasermeister=0))
        return _next_turn(after, seat, effects)
    if isinstance(move, ChoosePane):
        return _resolve_window(state, seat, move.colour, [])
    return _apply_take(state, seat, move)


def _with_board(state: KirchenfensterState, seat: int, board: Board) -> KirchenfensterState:
    return evolve(state, boards=with_board(state.boards, seat, board))


def _apply_take(state: KirchenfensterState, seat: int, take: Take) -> tuple[KirchenfensterState, list[Json]]:
    place = placement(state, seat, take)
    board = state.boards[seat]
    factories, centre = displays.take_from(
        state.factories, state.centre, take.factory, (take.colour,) * place.count, sorted_panes
    )
    effects: list[Json] = [_take_effect(seat, take, place)]
    start_in_centre, holder = state.start_tile_in_centre, state.start_tile_holder
    if place.takes_start_tile:
        start_in_centre, holder = False, seat
        effects.append(
            effect(
                "kirchenfenster.startstein",
                f"{seat_name(seat)} nimmt als Erster aus der Mitte: Startstein, beginnt die nächste Runde "
                "und zerbricht dabei eine Scheibe.",
                platz=seat + 1,
            )
        )
    wraps = place.wraps_after - place.wraps_before
    if place.breakage_steps:
        loss = breakage_loss(place.field_after, place.wraps_after)
        effects.append(
            effect(
                "kirchenfenster.glasbruch",
                f"{seat_name(seat)}: Glasbruch-Marker {place.breakage_steps} "
                f"{'Feld' if place.breakage_steps == 1 else 'Felder'} nach unten "
                f"(bisher {points_word(loss)} verloren).",
                platz=seat + 1,
                felder=place.breakage_steps,
                feld=place.field_after,
                verloren=loss,
            )
        )
    if wraps:
        effects.append(
            effect(
                "kirchenfenster.glasbruch_unten",
                f"{seat_name(seat)} ist auf der Glasbruch-Leiste ganz unten angekommen: "
                f"{signed(-WRAP_LOSS * wraps)} sofort, der Marker fängt oben wieder an.",
                platz=seat + 1,
                umlaeufe=wraps,
                punkte=-WRAP_LOSS * wraps,
            )
        )
    strips = board.strips
    glasermeister = board.glasermeister
    if take.strip is not None:
        glasermeister = take.strip
        strips = tuple(
            evolve(strip, panes=place.panes_after) if i == take.strip else strip for i, strip in enumerate(strips)
        )
    new_board = evolve(
        board,
        strips=strips,
        glasermeister=glasermeister,
        breakage_field=place.field_after,
        breakage_wraps=place.wraps_after,
        bonus_points=board.bonus_points + place.bonus_count,
    )
    tower = sorted_panes(list(state.tower) + [take.colour] * place.broken)
    after = evolve(
        state,
        factories=factories,
        centre=centre,
        start_tile_in_centre=start_in_centre,
        start_tile_holder=holder,
        tower=tower,
    )
    after = _with_board(after, seat, new_board)
    if not place.completes or take.strip is None:
        return _next_turn(after, seat, effects)
    effects.append(
        effect(
            "kirchenfenster.streifen_voll",
            f"Streifen {take.strip + 1} von {seat_name(seat)} ist voll: {place.bonus_count} × Bonusfarbe "
            f"{colour_name(place.bonus_colour)} = {signed(place.bonus_count)}.",
            platz=seat + 1,
            streifen=take.strip + 1,
            bonusfarbe=place.bonus_colour,
            anzahl=place.bonus_count,
            punkte=place.bonus_count,
        )
    )
    if len(place.choices) == 1:
        return _resolve_window(evolve(after, pending=PendingWindow(seat, take.strip)), seat, place.choices[0], effects)
    effects.append(
        effect(
            "kirchenfenster.fensterwahl",
            f"{seat_name(seat)} wählt die Scheibe für Fenster {take.strip + 1}.",
            platz=seat + 1,
            streifen=take.strip + 1,
            farben=list(place.choices),
        )
    )
    return evolve(after, pending=PendingWindow(seat, take.strip)), effects


def _resolve_window(
    state: KirchenfensterState, seat: int, colour: str, effects: list[Json]
) -> tuple[KirchenfensterState, list[Json]]:
    """Put the chosen pane into the window, score it, send the rest to the tower and turn the strip."""
    assert state.pending is not None
    index = state.pending.strip
    board = state.boards[seat]
    strip = board.strips[index]
    score = window_score(board.windows, index)
    rest = [pane for pane in strip.panes if pane is not None]
    rest.remove(colour)
    windows = tuple((*window, colour) if i == index else window for i, window in enumerate(board.windows))
    next_side = SIDE_BACK if strip.side == SIDE_FRONT else SIDE_DONE
    strips = tuple(Strip(next_side) if i == index else s for i, s in enumerate(board.strips))
    new_board = evolve(board, windows=windows, strips=strips, window_points=board.window_points + score.points)
    effects.append(
        effect(
            "kirchenfenster.fenster",
            f"{seat_name(seat)} setzt {colour_name(colour)} in Fenster {index + 1}: {score.explanation()} = "
            f"{signed(score.points)} → {points_word(new_board.score)}",
            platz=seat + 1,
            fenster=index + 1,
            farbe=colour,
            rechts=[i + 1 for i in score.right],
            punkte=score.points,
            gesamt=new_board.score,
        )
    )
    side_text = (
        f"Streifen {index + 1} dreht sich um und kann ein zweites Mal gefüllt werden."
        if next_side == SIDE_BACK
        else f"Streifen {index + 1} ist fertig."
    )
    effects.append(
        effect(
            "kirchenfenster.streifen_gedreht" if next_side == SIDE_BACK else "kirchenfenster.streifen_fertig",
            side_text,
            platz=seat + 1,
            streifen=index + 1,
            turm=len(rest),
        )
    )
    after = evolve(state, pending=None, tower=sorted_panes(list(state.tower) + rest))
    return _next_turn(_with_board(after, seat, new_board), seat, effects)


def _next_turn(state: KirchenfensterState, seat: int, effects: list[Json]) -> tuple[KirchenfensterState, list[Json]]:
    """Pass the turn on, or end the round once the factories and the centre are empty."""
    if not displays.all_taken(state.factories, state.centre):
        return evolve(state, current=displays.next_seat(seat, state.seats)), effects
    return end_round(state, last_mover=seat, effects=effects)


def end_round(
    state: KirchenfensterState, last_mover: int, effects: list[Json]
) -> tuple[KirchenfensterState, list[Json]]:
    """End the round: after round 6 the game ends, else the factories are refilled for the next round."""
    effects.append(effect("kirchenfenster.runde_ende", f"Runde {state.round} ist vorbei.", runde=state.round))
    if state.round >= ROUNDS:
        return finish_game(state, effects, reason="runden")
    start = displays.round_starter(state.start_tile_holder, last_mover, state.seats)
    next_round = state.round + 1
    factories, bag, tower, refilled = fill_factories(
        state.bag, state.tower, FACTORIES_PER_SEATS[state.seats], state.seed, next_round
    )
    if refilled:
        effects.append(
            displays.bag_refilled("kirchenfenster.beutel_nachgefuellt", refilled, _pane_word(refilled), "dem Glasturm")
        )
    started = evolve(
        state,
        round=next_round,
        factories=factories,
        centre=(),
        start_tile_in_centre=True,
        start_tile_holder=None,
        bag=bag,
        tower=tower,
        current=start,
    )
    if not any(factories):
        return finish_game(started, effects, reason="keine_scheiben")
    effects.append(
        effect(
            "kirchenfenster.runde_start",
            f"Runde {next_round} beginnt, {seat_name(start)} fängt an. Bonusfarbe: "
            f"{colour_name(started.bonus_colour)}.",
            runde=next_round,
            platz=start + 1,
            bonusfarbe=started.bonus_colour,
        )
    )
    return started, effects


def finish_game(state: KirchenfensterState, effects: list[Json], reason: str) -> tuple[KirchenfensterState, list[Json]]:
    """Add the end scoring (panes left, breakage, palace) and mark the game as finished."""
    if reason == "runden":
        text = f"Nach {ROUNDS} Runden ist die Partie vorbei."
    else:
        text = "Es sind keine Scheiben mehr übrig: Die Partie ist vorbei."
    effects.append(effect("kirchenfenster.spielende", text, grund=reason))
    boards = tuple(apply_end_scoring(board, state.palace) for board in state.boards)
    for seat, board in enumerate(boards):
        details = ", ".join(f"{line.label} = {signed(line.points)}" for line in board.end_lines)
        total = sum(line.points for line in board.end_lines)
        effects.append(
            effect(
                "kirchenfenster.endwertung",
                f"{seat_name(seat)}: Schlusswertung {signed(total)} ({details}) → {points_word(board.score)}",
                platz=seat + 1,
                schlusswertung=total,
                punkte=board.score,
            )
        )
    return evolve(state, boards=boards, is_finished=True, factories=(), centre=()), effects

"""The Sternpavillon's rules: setup, taking tiles, placing them on the stars, bonus tiles, passing, the end."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from libs.rules.evolve import evolve
from libs.rules.protocol import IllegalMove, Json
from libs.rules.rng import SeededRng
from libs.rules.speedmosaik import displays
from libs.rules.speedmosaik.displays import FACTORIES_PER_SEATS, PIECES_PER_FACTORY, source_name
from libs.rules.speedmosaik.moves import factory_index, is_int, malformed
from libs.rules.speedmosaik.sternpavillon.scoring import apply_end_scoring, chain_length, newly_surrounded
from libs.rules.speedmosaik.sternpavillon.state import (
    PHASE_BONUS,
    PHASE_KEEP,
    PHASE_OVER,
    PHASE_PLACE,
    PHASE_TAKE,
    PlayerBoard,
    SternpavillonState,
)
from libs.rules.speedmosaik.sternpavillon.tiles import (
    BONUS_PLACES,
    CENTRE_STAR,
    COLOURS,
    FREE_KEEP,
    ROUNDS,
    SPACES,
    STAR_NAMES,
    STARS,
    SUPPLY_SIZE,
    TILES_PER_COLOUR,
    colour_index,
    colour_name,
    sorted_tiles,
    tiles_of,
    tiles_word,
    wild_colour,
)
from libs.rules.speedmosaik.texts import effect, points_word, seat_name
from libs.rules.speedmosaik.workshop import with_board

RNG_LABEL = "speedmosaik/sternpavillon"
SOURCE_FACTORY = "schale"
SOURCE_CENTRE = "mitte"

TAKE = "nehmen"
PLACE = "legen"
PASS = "passen"
BONUS = "bonus"
KEEP = "behalten"


# ---------------------------------------------------------------------------------------------------------
# Moves


@dataclass(frozen=True)
class Take:
    """Take all tiles of ``colour`` (plus one joker) from a factory (0-based) or the centre (None)."""

    factory: int | None
    colour: str

    def to_json(self) -> Json:
        """Return the move in its JSON shape."""
        if self.factory is None:
            return {"aktion": TAKE, "quelle": SOURCE_CENTRE, "farbe": self.colour}
        return {"aktion": TAKE, "quelle": SOURCE_FACTORY, "schale": self.factory + 1, "farbe": self.colour}


@dataclass(frozen=True)
class Place:
    """Place one tile of ``colour`` on space ``number`` of ``star``, paying ``jokers`` of the cost with jokers."""

    star: str
    number: int
    colour: str
    jokers: int

    def to_json(self) -> Json:
        """Return the move in its JSON shape (``farbe`` only for the centre star)."""
        move: Json = {"aktion": PLACE, "stern": self.star, "feld": self.number}
        if self.star == CENTRE_STAR:
            move["farbe"] = self.colour
        move["joker"] = self.jokers
        return move


@dataclass(frozen=True)
class Pass:
    """Stop placing for this round."""

    def to_json(self) -> Json:
        """Return the move in its JSON shape."""
        return {"aktion": PASS}


@dataclass(frozen=True)
class BonusPick:
    """Choose one bonus tile of ``colour`` from the supply."""

    colour: str

    def to_json(self) -> Json:
        """Return the move in its JSON shape."""
        return {"aktion": BONUS, "farbe": self.colour}


@dataclass(frozen=True)
class Keep:
    """Keep these tiles (colour counts) for the next round; the rest go to the tower."""

    counts: tuple[int, ...]

    def to_json(self) -> Json:
        """Return the move in its JSON shape (only colours kept, in colour order)."""
        return {"aktion": KEEP, "steine": {c: n for c, n in zip(COLOURS, self.counts, strict=True) if n}}


Move = Take | Place | Pass | BonusPick | Keep


def _colour(value: Any) -> str:
    if not isinstance(value, str) or value not in COLOURS:
        raise IllegalMove("Diese Farbe gibt es im Sternpavillon nicht.", "unknown_colour")
    return value


def parse_move(state: SternpavillonState, move: Json) -> Move:
    """Check the move's JSON shape and return it parsed; raise IllegalMove for a broken shape."""
    action = move.get("aktion")
    if action == TAKE:
        source = move.get("quelle")
        if source == SOURCE_FACTORY and set(move) == {"aktion", "quelle", "schale", "farbe"}:
            factory = factory_index(move["schale"], len(state.factories))
            return Take(factory, _colour(move["farbe"]))
        if source == SOURCE_CENTRE and set(move) == {"aktion", "quelle", "farbe"}:
            return Take(None, _colour(move["farbe"]))
        raise IllegalMove("Nimm Steine aus einer Schale oder aus der Mitte.", "malformed")
    if action == PLACE:
        star = move.get("stern")
        if star not in STARS:
            raise IllegalMove("Diesen Stern gibt es nicht.", "no_such_star")
        expected = {"aktion", "stern", "feld", "joker"} | ({"farbe"} if star == CENTRE_STAR else set())
        if set(move) != expected:
            raise malformed()
        number, jokers = move["feld"], move["joker"]
        if not is_int(number) or not 1 <= number <= SPACES:
            raise IllegalMove("Jeder Stern hat die Felder 1 bis 6.", "no_such_space")
        if not is_int(jokers) or jokers < 0:
            raise IllegalMove("Die Zahl der Joker muss 0 oder mehr sein.", "malformed")
        colour = _colour(move["farbe"]) if star == CENTRE_STAR else str(star)
        return Place(str(star), number, colour, jokers)
    if action == PASS and set(move) == {"aktion"}:
        return Pass()
    if action == BONUS and set(move) == {"aktion", "farbe"}:
        return BonusPick(_colour(move["farbe"]))
    if action == KEEP and set(move) == {"aktion", "steine"}:
        chosen = move["steine"]
        if not isinstance(chosen, dict):
            raise malformed()
        for colour, count in chosen.items():
            _colour(colour)
            if not is_int(count) or count < 0:
                raise malformed()
        return Keep(tuple(int(chosen.get(colour, 0)) for colour in COLOURS))
    raise malformed()


PHASE_OF_MOVE: dict[type, tuple[str, ...]] = {
    Take: (PHASE_TAKE,),
    Place: (PHASE_PLACE,),
    Pass: (PHASE_PLACE,),
    BonusPick: (PHASE_BONUS,),
    Keep: (PHASE_KEEP,),
}
PHASE_HINT: dict[str, str] = {
    PHASE_TAKE: "Jetzt werden Steine aus den Schalen oder der Mitte genommen.",
    PHASE_PLACE: "Jetzt wird gelegt oder gepasst.",
    PHASE_BONUS: "Jetzt werden Bonussteine aus dem Vorrat gewählt.",
    PHASE_KEEP: "Jetzt werden die Steine zum Behalten gewählt.",
}


def _source(state: SternpavillonState, factory: int | None) -> tuple[str, ...]:
    return displays.source(state.factories, state.centre, factory)


def check_move(state: SternpavillonState, seat: int, move: Move) -> None:
    """Raise IllegalMove if the parsed move breaks a rule in this state."""
    if state.phase not in PHASE_OF_MOVE[type(move)]:
        raise IllegalMove(PHASE_HINT[state.phase], "wrong_phase")
    board = state.boards[seat]
    wild = wild_colour(state.round)
    if isinstance(move, Take):
        tiles = _source(state, move.factory)
        if move.colour not in tiles:
            raise displays.not_in_source(move.factory, colour_name(move.colour))
        if move.colour == wild and any(tile != wild for tile in tiles):
            raise IllegalMove(
                f"{colour_name(wild)} ist in dieser Runde Joker: Nimm eine andere Farbe, der Joker kommt dazu.",
                "joker_not_alone",
            )
    elif isinstance(move, Place):
        check_place(state, board, move, wild)
    elif isinstance(move, BonusPick):
        if move.colour not in state.supply:
            raise IllegalMove(f"Im Vorrat liegt kein {colour_name(move.colour)}.", "colour_not_in_supply")
    elif isinstance(move, Keep) and any(kept > held for kept, held in zip(move.counts, board.hand, strict=True)):
        raise IllegalMove("So viele Steine dieser Farbe hast du nicht.", "not_in_hand")


def check_place(state: SternpavillonState, board: PlayerBoard, move: Place, wild: str) -> None:
    """Raise IllegalMove if the placement is not allowed or not affordable."""
    star_index = STARS.index(move.star)
    star = board.stars[star_index]
    if star[move.number - 1] is not None:
        raise IllegalMove(f"Feld {move.number} im {STAR_NAMES[move.star]} ist schon belegt.", "space_taken")
    if move.star == CENTRE_STAR and move.colour in star:
        raise IllegalMove(
            f"Im Mittelstern liegt schon {colour_name(move.colour)} – dort liegt jede Farbe nur einmal.",
            "colour_in_centre_star",
        )
    real = move.number - move.jokers
    if move.colour == wild and move.jokers:
        raise IllegalMove(
            f"{colour_name(wild)} ist selbst die Jokerfarbe: Hier zählen alle Steine als echte Farbe.",
            "joker_is_colour",
        )
    if real < 1:
        raise IllegalMove("Joker dürfen aushelfen, aber ein Stein muss die echte Farbe haben.", "no_real_colour")
    if move.jokers > board.hand[colour_index(wild)]:
        raise IllegalMove(f"Du hast nur {board.hand[colour_index(wild)]} Joker.", "not_enough_jokers")
    if real > board.hand[colour_index(move.colour)]:
        held = board.hand[colour_index(move.colour)]
        raise IllegalMove(
            f"Feld {move.number} kostet {move.number} Steine; du hast nur {held} × {colour_name(move.colour)}"
            f" und setzt {move.jokers} Joker ein.",
            "not_enough_tiles",
        )


def legal_placements(board: PlayerBoard, wild: str) -> list[Place]:
    """Return every affordable placement: stars in order, spaces 1–6, centre colours, joker counts."""
    jokers_held = board.hand[colour_index(wild)]
    moves: list[Place] = []
    for star_index, star in enumerate(STARS):
        spaces = board.stars[star_index]
        colours = [c for c in COLOURS if c not in spaces] if star == CENTRE_STAR else [star]
        for number in range(1, SPACES + 1):
            if spaces[number - 1] is not None:
                continue
            for colour in colours:
                held = board.hand[colour_index(colour)]
                if colour == wild:
                    if held >= number:
                        moves.append(Place(star, number, colour, 0))
                    continue
                if held < 1:
                    continue
                for jokers in range(max(0, number - held), min(jokers_held, number - 1) + 1):
                    moves.append(Place(star, number, colour, jokers))
    return moves


def keep_choices(hand: tuple[int, ...]) -> list[Keep]:
    """Return every selection of tiles to keep from ``hand`` (colour by colour, counts ascending)."""
    return [Keep(tuple(counts)) for counts in itertools.product(*(range(held + 1) for held in hand))]


def legal_moves(state: SternpavillonState, seat: int) -> list[Json]:
    """Return this seat's legal moves as JSON, in the order of ``legal``."""
    return [move.to_json() for move in legal(state, seat)]


def checked_move(state: SternpavillonState, seat: int, move: Json) -> Move:
    """Return the move parsed; raise IllegalMove if its shape is broken or the rules refuse it now."""
    parsed = parse_move(state, move)
    check_move(state, seat, parsed)
    return parsed


def apply(state: SternpavillonState, seat: int, move: Json) -> tuple[SternpavillonState, list[Json]]:
    """Return the state after the seat's move (and what it sets off: placing, the round end) plus effects;
    raise IllegalMove and leave the input as it was."""
    return apply_move(state, seat, checked_move(state, seat, move))


def legal(state: SternpavillonState, seat: int) -> list[Move]:
    """Return every legal move of ``seat`` in canonical order (empty if it need not move)."""
    if state.phase == PHASE_OVER or seat != state.current:
        return []
    board = state.boards[seat]
    wild = wild_colour(state.round)
    if state.phase == PHASE_TAKE:
        takes: list[Move] = []
        for factory, tiles in [*enumerate(state.factories), (None, state.centre)]:
            only_jokers = all(tile == wild for tile in tiles)
            for colour in COLOURS:
                if colour in tiles and (colour != wild or only_jokers):
                    takes.append(Take(factory, colour))
        return takes
    if state.phase == PHASE_PLACE:
        return [*legal_placements(board, wild), Pass()]
    if state.phase == PHASE_BONUS:
        return [BonusPick(colour) for colour in COLOURS if colour in state.supply]
    return list(keep_choices(board.hand))


# ---------------------------------------------------------------------------------------------------------
# Drawing tiles


@dataclass(frozen=True)
class Draw:
    """Tiles drawn from the bag, what is left, and how many tower tiles were shuffled back in."""

    tiles: tuple[str, ...]
    bag: tuple[str, ...]
    tower: tuple[int, ...]
    tower_refills: int
    refilled: tuple[int, ...]
    """How many tiles came back from the tower, once per refill."""


def draw(state: SternpavillonState, bag: tuple[str, ...], tower: tuple[int, ...], count: int) -> Draw:
    """Draw ``count`` tiles from the front of the bag; when it runs empty the tower is shuffled into it."""
    remaining = list(bag)
    refills = state.tower_refills
    refilled: list[int] = []
    drawn: list[str] = []
    while len(drawn) < count:
        if not remaining:
            if not sum(tower):
                break
            refills += 1
            rng = SeededRng(state.seed, RNG_LABEL).derive(f"turm-{refills}")
            remaining = rng.shuffle(tiles_of(tower))
            refilled.append(sum(tower))
            tower = tuple(0 for _ in COLOURS)
        drawn.append(remaining.pop(0))
    return Draw(tuple(drawn), tuple(remaining), tower, refills, tuple(refilled))


def _refill_effects(refilled: tuple[int, ...]) -> list[Json]:
    key = "sternpavillon.turm_in_beutel"
    return [displays.bag_refilled(key, count, tiles_word(count), "dem Turm") for count in refilled]


def refill_supply(state: SternpavillonState) -> tuple[SternpavillonState, list[Json]]:
    """Top the supply up to 10 tiles from the bag."""
    missing = SUPPLY_SIZE - len(state.supply)
    if missing <= 0:
        return state, []
    drawn = draw(state, state.bag, state.tower, missing)
    after = evolve(
        state,
        supply=sorted_tiles([*state.supply, *drawn.tiles]),
        bag=drawn.bag,
        tower=drawn.tower,
        tower_refills=drawn.tower_refills,
    )
    return after, _refill_effects(drawn.refilled)


def start_round(state: SternpavillonState, effects: list[Json]) -> tuple[SternpavillonState, list[Json]]:
    """Fill the factories and the supply, give the start tile back to the centre, start taking."""
    factories: list[tuple[str, ...]] = []
    bag, tower, refills = state.bag, state.tower, state.tower_refills
    refilled: list[int] = []
    for _ in range(FACTORIES_PER_SEATS[state.seats]):
        drawn = draw(evolve(state, tower_refills=refills), bag, tower, PIECES_PER_FACTORY)
        factories.append(sorted_tiles(drawn.tiles))
        bag, tower, refills = drawn.bag, drawn.tower, drawn.tower_refills
        refilled.extend(drawn.refilled)
    started = evolve(
        state,
        phase=PHASE_TAKE,
        factories=tuple(factories),
        centre=(),
        start_tile_in_centre=True,
        start_tile_holder=None,
        bag=bag,
        tower=tower,
        tower_refills=refills,
        boards=tuple(evolve(board, has_passed=False) for board in state.boards),
        current=state.starter,
    )
    effects.extend(_refill_effects(tuple(refilled)))
    started, supply_effects = refill_supply(started)
    effects.extend(supply_effects)
    wild = wild_colour(state.round)
    effects.append(
        effect(
            "sternpavillon.runde_start",
            f"Runde {state.round} beginnt, {colour_name(wild)} ist Joker, {seat_name(state.starter)} fängt an.",
            runde=state.round,
            joker=wild,
            platz=state.starter + 1,
        )
    )
    if not any(started.factories):
        return begin_placing(started, state.starter, effects)
    return started, effects


def new_game(config: tuple[tuple[str, str], ...], seats: int, seed: bytes) -> SternpavillonState:
    """Return the first round's state: shuffled bag, filled factories and supply, seat 0 to start."""
    tiles = [colour for colour in COLOURS for _ in range(TILES_PER_COLOUR)]
    bag = tuple(SeededRng(seed, RNG_LABEL).derive("beutel").shuffle(tiles))
    state = SternpavillonState(
        config=config,
        seats=seats,
        seed=seed,
        round=1,
        phase=PHASE_TAKE,
        factories=(),
        centre=(),
        start_tile_in_centre=True,
        start_tile_holder=None,
        supply=(),
        bag=bag,
        tower=tuple(0 for _ in COLOURS),
        tower_refills=0,
        boards=tuple(PlayerBoard() for _ in range(seats)),
        current=0,
        starter=0,
    )
    started, _ = start_round(state, [])
    return started


# ---------------------------------------------------------------------------------------------------------
# Taking


@dataclass(frozen=True)
class TakeResult:
    """What a take brings: the tiles (colour counts), the joker, the start tile and its penalty."""

    colour_count: int
    joker: int
    takes_start_tile: bool
    penalty: int
    to_centre: tuple[str, ...]

    @property
    def total(self) -> int:
        """Return the number of tiles taken."""
        return self.colour_count + self.joker


def take_result(state: SternpavillonState, seat: int, take: Take) -> TakeResult:
    """Return what a legal take brings (the joker comes along if the source has one)."""
    tiles = _source(state, take.factory)
    wild = wild_colour(state.round)
    if take.colour == wild:
        count, joker = 1, 0
    else:
        count, joker = tiles.count(take.colour), 1 if wild in tiles else 0
    rest = list(tiles)
    for _ in range(count):
        rest.remove(take.colour)
    for _ in range(joker):
        rest.remove(wild)
    takes_start = displays.takes_start_tile(take.factory, state.start_tile_in_centre)
    score = state.boards[seat].score
    penalty = min(count + joker, max(0, score - 1)) if takes_start else 0
    return TakeResult(count, joker, takes_start, penalty, tuple(rest) if take.factory is not None else ())


def apply_take(state: SternpavillonState, seat: int, take: Take) -> tuple[SternpavillonState, list[Json]]:
    """Return the state after a legal take (and the start of placing it may trigger) plus effects."""
    result = take_result(state, seat, take)
    wild = wild_colour(state.round)
    board = state.boards[seat]
    hand = list(board.hand)
    hand[colour_index(take.colour)] += result.colour_count
    hand[colour_index(wild)] += result.joker
    taken = (take.colour,) * result.colour_count + (wild,) * result.joker
    factories, centre = displays.take_from(state.factories, state.centre, take.factory, taken, sorted_tiles)
    new_board = evolve(
        board,
        hand=tuple(hand),
        score=board.score - result.penalty,
        centre_penalty=board.centre_penalty + result.penalty,
    )
    text = f"{seat_name(seat)} nimmt {result.colour_count} × {colour_name(take.colour)}"
    if result.joker:
        text += f" und 1 Joker ({colour_name(wild)})"
    text += f" aus {source_name(take.factory)}"
    if result.to_centre:
        text += f"; {len(result.to_centre)} {tiles_word(len(result.to_centre))} wandern in die Mitte"
    effects = [
        effect(
            "sternpavillon.nehmen",
            text + ".",
            platz=seat + 1,
            farbe=take.colour,
            anzahl=result.colour_count,
            joker=result.joker,
            quelle=SOURCE_CENTRE if take.factory is None else SOURCE_FACTORY,
            schale=None if take.factory is None else take.factory + 1,
            in_die_mitte=len(result.to_centre),
        )
    ]
    if result.takes_start_tile:
        effects.append(
            effect(
                "sternpavillon.startstein",
                f"{seat_name(seat)} nimmt als Erster aus der Mitte, bekommt den Startstein und verliert "
                f"{points_word(result.penalty)} → {points_word(new_board.score)}.",
                platz=seat + 1,
                verlust=result.penalty,
                punkte=new_board.score,
            )
        )
    after = evolve(
        state,
        factories=factories,
        centre=centre,
        start_tile_in_centre=state.start_tile_in_centre and not result.takes_start_tile,
        start_tile_holder=seat if result.takes_start_tile else state.start_tile_holder,
        boards=with_board(state.boards, seat, new_board),
        current=displays.next_seat(seat, state.seats),
    )
    if not displays.all_taken(after.factories, after.centre):
        return after, effects
    return begin_placing(after, displays.round_starter(after.start_tile_holder, seat, state.seats), effects)


def begin_placing(
    state: SternpavillonState, starter: int, effects: list[Json]
) -> tuple[SternpavillonState, list[Json]]:
    """Start the placing phase: the start tile's holder (else the next seat) places first."""
    effects.append(
        effect(
            "sternpavillon.legephase",
            f"Alle Steine sind verteilt: Jetzt wird gelegt, {seat_name(starter)} beginnt.",
            runde=state.round,
            platz=starter + 1,
        )
    )
    return evolve(state, phase=PHASE_PLACE, current=starter, starter=starter), effects


# ---------------------------------------------------------------------------------------------------------
# Placing


@dataclass(frozen=True)
class PlaceResult:
    """What a placement brings: tiles paid, the chain's points and the bonus places it surrounds."""

    real: int
    jokers: int
    points: int
    surrounded: tuple[int, ...]
    """Indexes into BONUS_PLACES."""
    bonus_tiles: int
    completes_star: bool


def place_result(board: PlayerBoard, move: Place) -> PlaceResult:
    """Return what a legal placement brings for this board."""
    star_index = STARS.index(move.star)
    stars = _placed(board.stars, star_index, move.number, move.colour)
    places = newly_surrounded(stars, star_index, move.number)
    return PlaceResult(
        real=move.number - move.jokers,
        jokers=move.jokers,
        points=chain_length(stars[star_index], move.number),
        surrounded=places,
        bonus_tiles=sum(BONUS_PLACES[i].reward for i in places),
        completes_star=all(space is not None for space in stars[star_index]),
    )


def _placed(
    stars: tuple[tuple[str | None, ...], ...], star_index: int, number: int, colour: str
) -> tuple[tuple[str | None, ...], ...]:
    return tuple(
        tuple(colour if (i == star_index and n == number - 1) else space for n, space in enumerate(star))
        for i, star in enumerate(stars)
    )


def apply_place(state: SternpavillonState, seat: int, move: Place) -> tuple[SternpavillonState, list[Json]]:
    """Pay the tiles, lay one on the space, score the chain and start choosing bonus tiles if earned."""
    board = state.boards[seat]
    wild = wild_colour(state.round)
    result = place_result(board, move)
    hand = list(board.hand)
    hand[colour_index(move.colour)] -= result.real
    hand[colour_index(wild)] -= result.jokers
    tower = list(state.tower)
    tower[colour_index(move.colour)] += result.real - 1
    tower[colour_index(wild)] += result.jokers
    star_index = STARS.index(move.star)
    new_board = evolve(
        board,
        stars=_placed(board.stars, star_index, move.number, move.colour),
        hand=tuple(hand),
        score=board.score + result.points,
        placement_points=board.placement_points + result.points,
        surrounded=board.surrounded + tuple(BONUS_PLACES[i].id for i in result.surrounded),
    )
    paid = f"{result.real} × {colour_name(move.colour)}"
    if result.jokers:
        paid += f" + {result.jokers} Joker"
    colour_part = f" ({colour_name(move.colour)})" if move.star == CENTRE_STAR else ""
    effects = [
        effect(
            "sternpavillon.legen",
            f"{seat_name(seat)} legt auf Feld {move.number} im {STAR_NAMES[move.star]}{colour_part}, zahlt {paid}: "
            f"+{result.points} → {points_word(new_board.score)}.",
            platz=seat + 1,
            stern=move.star,
            feld=move.number,
            farbe=move.colour,
            echt=result.real,
            joker=result.jokers,
            punkte=result.points,
            stand=new_board.score,
        )
    ]
    for index in result.surrounded:
        place = BONUS_PLACES[index]
        effects.append(
            effect(
                "sternpavillon.umschlossen",
                f"{seat_name(seat)} umschließt {place.name}: {place.reward} "
                f"{'Bonusstein' if place.reward == 1 else 'Bonussteine'} aus dem Vorrat.",
                platz=seat + 1,
                ort=place.id,
                art=place.kind,
                bonussteine=place.reward,
            )
        )
    after = evolve(state, tower=tuple(tower), boards=with_board(state.boards, seat, new_board))
    if result.bonus_tiles:
        return resolve_bonus(evolve(after, phase=PHASE_BONUS, bonus_owed=result.bonus_tiles), seat, effects)
    return advance(after, seat, effects)


def _pick(state: SternpavillonState, seat: int, colour: str) -> SternpavillonState:
    supply = list(state.supply)
    supply.remove(colour)
    board = state.boards[seat]
    hand = tuple(n + 1 if c == colour else n for c, n in zip(COLOURS, board.hand, strict=True))
    return evolve(
        state,
        supply=tuple(supply),
        boards=with_board(state.boards, seat, evolve(board, hand=hand)),
        bonus_owed=state.bonus_owed - 1,
    )


def _bonus_effect(seat: int, colour: str, automatic: bool) -> Json:
    how = " (ohne Nachfrage)" if automatic else ""
    return effect(
        "sternpavillon.bonusstein",
        f"{seat_name(seat)} nimmt {colour_name(colour)} als Bonusstein aus dem Vorrat{how}.",
        platz=seat + 1,
        farbe=colour,
        automatisch=automatic,
    )


def resolve_bonus(state: SternpavillonState, seat: int, effects: list[Json]) -> tuple[SternpavillonState, list[Json]]:
    """Give bonus tiles without asking where there is no choice; refill the supply and move on once done."""
    while state.bonus_owed and state.supply:
        if len(set(state.supply)) > 1 and state.bonus_owed < len(state.supply):
            return evolve(state, phase=PHASE_BONUS, current=seat), effects
        colour = state.supply[0]
        state = _pick(state, seat, colour)
        effects.append(_bonus_effect(seat, colour, automatic=True))
    state = evolve(state, phase=PHASE_PLACE, bonus_owed=0)
    state, refill_effects = refill_supply(state)
    effects.extend(refill_effects)
    return advance(state, seat, effects)


def apply_bonus(state: SternpavillonState, seat: int, pick: BonusPick) -> tuple[SternpavillonState, list[Json]]:
    """Take one chosen bonus tile; the rest is chosen next (or given without asking)."""
    after = _pick(state, seat, pick.colour)
    return resolve_bonus(after, seat, [_bonus_effect(seat, pick.colour, automatic=False)])


def next_placer(boards: tuple[PlayerBoard, ...], after: int) -> int | None:
    """Return the next seat after ``after`` (cyclic, itself last) that has not passed, or None."""
    seats = len(boards)
    for step in range(1, seats + 1):
        seat = (after + step) % seats
        if not boards[seat].has_passed:
            return seat
    return None


def advance(state: SternpavillonState, seat: int, effects: list[Json]) -> tuple[SternpavillonState, list[Json]]:
    """Hand the turn to the next seat still placing, or end the round when everybody has passed."""
    following = next_placer(state.boards, seat)
    if following is None:
        return end_round(state, effects)
    return evolve(state, phase=PHASE_PLACE, current=following), effects


# ---------------------------------------------------------------------------------------------------------
# Passing and keeping


def needs_keep_choice(state: SternpavillonState, board: PlayerBoard) -> bool:
    """Return True if passing asks which tiles to keep (more than 4 tiles and a next round to come)."""
    return state.round < ROUNDS and board.hand_size() > FREE_KEEP


def apply_pass(state: SternpavillonState, seat: int) -> tuple[SternpavillonState, list[Json]]:
    """Stop placing; ask which tiles to keep if there are more than 4, else keep them all."""
    board = evolve(state.boards[seat], has_passed=True)
    after = evolve(state, boards=with_board(state.boards, seat, board))
    held = board.hand_size()
    if state.round >= ROUNDS:
        detail = f"; {held} {tiles_word(held)} bleiben übrig" if held else ""
    elif held > FREE_KEEP:
        detail = f" und wählt, welche seiner {held} Steine er behält"
    else:
        detail = f" und behält {'alle ' if held > 1 else ''}{held} {tiles_word(held)}" if held else ""
    effects = [
        effect("sternpavillon.passen", f"{seat_name(seat)} passt{detail}.", platz=seat + 1, steine=held)
    ]
    if needs_keep_choice(state, board):
        return evolve(after, phase=PHASE_KEEP, current=seat), effects
    return advance(after, seat, effects)


def apply_keep(state: SternpavillonState, seat: int, keep: Keep) -> tuple[SternpavillonState, list[Json]]:
    """Keep the chosen tiles (each beyond the fourth costs a point); the rest go to the tower."""
    board = state.boards[seat]
    kept = sum(keep.counts)
    cost = max(0, kept - FREE_KEEP)
    given = tuple(held - k for held, k in zip(board.hand, keep.counts, strict=True))
    new_board = evolve(board, hand=keep.counts, score=board.score - cost, keep_cost=board.keep_cost + cost)
    tower = tuple(t + g for t, g in zip(state.tower, given, strict=True))
    names = ", ".join(f"{n} × {colour_name(c)}" for c, n in zip(COLOURS, keep.counts, strict=True) if n)
    text = f"{seat_name(seat)} behält {kept} {tiles_word(kept)}" + (f" ({names})" if names else "")
    if cost:
        text += f" und zahlt {points_word(cost)} für {cost} {'weiteren Stein' if cost == 1 else 'weitere Steine'}"
    given_count = sum(given)
    if given_count:
        text += f"; {given_count} {tiles_word(given_count)} kommen in den Turm"
    effects = [
        effect(
            "sternpavillon.behalten",
            text + ".",
            platz=seat + 1,
            behalten=kept,
            kosten=cost,
            abgegeben=given_count,
            punkte=new_board.score,
        )
    ]
    after = evolve(state, tower=tower, boards=with_board(state.boards, seat, new_board))
    return advance(after, seat, effects)


def suggested_keep(board: PlayerBoard, next_round: int) -> tuple[int, ...]:
    """Return the suggested tiles to keep ("die nützlichsten", at most 4): colour counts.

    Next round's joker colour comes first (up to three), then tiles of the colours whose star (and the
    centre star, if that colour is missing there) still needs the most tiles; tiles no open space can use
    are not suggested. Ties go by colour order.
    """
    wild = wild_colour(next_round) if next_round <= ROUNDS else None
    demand = [colour_demand(board, colour) for colour in COLOURS]
    chosen = [0 for _ in COLOURS]
    for _ in range(FREE_KEEP):
        best, best_value = -1, 0.0
        for index, colour in enumerate(COLOURS):
            if chosen[index] >= board.hand[index]:
                continue
            if colour == wild:
                value = 10.0 - 3 * chosen[index] if chosen[index] < 3 else 0.0
            else:
                open_need = demand[index] - chosen[index]
                value = 5.0 + min(open_need, 6) / 6 if open_need > 0 else 0.0
            if value > best_value:
                best, best_value = index, value
        if best < 0:
            break
        chosen[best] += 1
    return tuple(chosen)


def colour_demand(board: PlayerBoard, colour: str) -> int:
    """Return how many tiles of ``colour`` the open spaces could still use (its star plus one centre space)."""
    star = board.stars[STARS.index(colour)]
    need = sum(number for number in range(1, SPACES + 1) if star[number - 1] is None)
    centre = board.stars[0]
    if colour not in centre:
        open_centre = [number for number in range(1, SPACES + 1) if centre[number - 1] is None]
        if open_centre:
            need += min(open_centre)
    return need


# ---------------------------------------------------------------------------------------------------------
# Round end and game end


def end_round(state: SternpavillonState, effects: list[Json]) -> tuple[SternpavillonState, list[Json]]:
    """Everybody has passed: start the next round, or score the end after round 6."""
    effects.append(
        effect("sternpavillon.runde_ende", f"Runde {state.round} ist vorbei: Alle haben gepasst.", runde=state.round)
    )
    if state.round >= ROUNDS:
        return finish_game(state, effects)
    return start_round(evolve(state, round=state.round + 1, current=state.starter), effects)


def finish_game(state: SternpavillonState, effects: list[Json]) -> tuple[SternpavillonState, list[Json]]:
    """Add the end bonuses and the leftover penalty; the game is over."""
    boards = tuple(apply_end_scoring(board) for board in state.boards)
    effects.append(effect("sternpavillon.spielende", "Sechs Runden sind gespielt: Die Partie ist vorbei."))
    for seat, board in enumerate(boards):
        total = sum(line.points for line in board.end_lines)
        details = ", ".join(f"{line.label} = {line.points}" for line in board.end_lines)
        effects.append(
            effect(
                "sternpavillon.endwertung",
                f"{seat_name(seat)}: Endwertung {'+' if total >= 0 else '−'}{abs(total)} ({details}) "
                f"→ {points_word(board.score)}",
                platz=seat + 1,
                endwertung=total,
                punkte=board.score,
            )
        )
    return evolve(state, boards=boards, phase=PHASE_OVER, factories=(), centre=(), bonus_owed=0), effects


def apply_move(state: SternpavillonState, seat: int, move: Move) -> tuple[SternpavillonState, list[Json]]:
    """Apply a parsed, checked move."""
    if isinstance(move, Take):
        return apply_take(state, seat, move)
    if isinstance(move, Place):
        return apply_place(state, seat, move)
    if isinstance(move, Pass):
        return apply_pass(state, seat)
    if isinstance(move, BonusPick):
        return apply_bonus(state, seat, move)
    return apply_keep(state, seat, move)

"""Sternpavillon bot policy: plans the bot's own placements and values every decision by it (pure, no I/O).

The core is a greedy planner: given the stars and the tiles in hand, it lays the best-valued affordable
space again and again (chain points, bonus tiles, full stars and number sets, a little for progress, minus
what the tiles are worth) and returns the total. Levels:

- ``easy``: the one-step value of each legal move plus much random noise.
- ``normal``: takes by how much they raise the planned value of its hand; lays the best one-step value.
- ``strong``: like normal, but looks one placement further (value of the placement plus the plan after
  it), and when taking subtracts a share of the best take it leaves the next player in the displays.

All levels run on the shared skeleton with one determinization; advice is the strong move and a German
reason naming what it brings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import ClassVar

from libs.rules.engine import Position
from libs.rules.protocol import Json
from libs.rules.speedmosaik.sternpavillon.rules import (
    BonusPick,
    Keep,
    Move,
    Pass,
    Place,
    Take,
    legal,
    suggested_keep,
    take_result,
)
from libs.rules.speedmosaik.sternpavillon.state import (
    PHASE_KEEP,
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
    FULL_STAR_BONUS,
    NUMBER_BONUS,
    PLACES_BY_SPACE,
    ROUNDS,
    SPACES,
    STAR_NAMES,
    STARS,
    colour_name,
    wild_colour,
)
from libs.rules.speedmosaik.texts import phrase
from services.bot.policies.contract import Candidate, DeterminizedPolicy, Situation

EASY_NOISE = 6.0
"""Spread of the random noise added at level easy ("bewertet seine Züge mit viel Zufall")."""
TILE_COST = 0.45
"""What a paid tile is worth (a tile spent here cannot pay for another space)."""
JOKER_COST = 0.75
"""What a paid joker is worth (it could have paid for any colour)."""
BONUS_TILE = 1.0
"""Value of one bonus tile from the supply."""
STAR_SHAPE = 0.35
"""Share of a star's full-star bonus credited, growing with the square of its filled spaces."""
NUMBER_SHAPE = 0.3
"""Share of a number-set bonus credited, growing with the square of its filled spaces."""
PLACE_SHAPE = 0.25
"""Share of a bonus place's tiles credited per framing space filled."""
KEEP_TILE = 0.0
"""Value of a tile carried into the next round (measured: any credit here makes the bots pass too early)."""
START_TILE = 0.6
"""Value of beginning the next round."""
STRONG_SHARE = 0.8
"""Share of the next player's best take the strong level subtracts."""
STRONG_CANDIDATES = 8
"""How many of its best moves (by normal value) the strong level looks at more closely."""

Stars = list[list[str | None]]


@dataclass(frozen=True)
class Option:
    """A placement the planner considers: where, which colour, what it pays and what it is worth."""

    star: int
    number: int
    colour: str
    real: int
    jokers: int
    points: int
    bonus_tiles: int
    value: float


FRAMES: dict[tuple[int, int], tuple[tuple[int, tuple[tuple[int, int], ...]], ...]] = {
    key: tuple(
        (BONUS_PLACES[i].reward, tuple((STARS.index(star), number - 1) for star, number in BONUS_PLACES[i].frame))
        for i in indexes
    )
    for key, indexes in PLACES_BY_SPACE.items()
}
"""For (star index, number): (reward, framing spaces as (star index, number − 1)) of each bonus place."""
STAR_BONUS: tuple[int, ...] = tuple(FULL_STAR_BONUS[star] for star in STARS)
OUTER_COLOUR: tuple[int, ...] = tuple(-1 if star == CENTRE_STAR else COLOURS.index(star) for star in STARS)
SQUARE_STEP: tuple[float, ...] = tuple((k * k - (k - 1) ** 2) for k in range(len(STARS) + 1))


def _chain(star: list[str | None], number: int) -> int:
    if None not in star:
        return SPACES
    length = 1
    for step in (1, -1):
        position = (number - 1 + step) % SPACES
        while star[position] is not None:
            length += 1
            position = (position + step) % SPACES
    return length


def _future(round_number: int) -> float:
    """Return how much progress still counts: all of it early, little in the last round."""
    return max(0.0, (ROUNDS - round_number + 0.5) / ROUNDS)


def option_value(
    stars: Stars, star: int, number: int, colour: str, real: int, jokers: int, round_number: int
) -> Option:
    """Return the planner's value of laying ``colour`` on (star, number), with ``stars`` before the tile."""
    value, points, bonus_tiles = _value(stars, star, number, colour, real, jokers, _future(round_number))
    return Option(star, number, colour, real, jokers, points, bonus_tiles, value)


def _value(
    stars: Stars, star: int, number: int, colour: str, real: int, jokers: int, future: float
) -> tuple[float, int, int]:
    """Return (value, chain points, bonus tiles) of laying a tile; ``stars`` is left as it was."""
    row = stars[star]
    row[number - 1] = colour
    points = _chain(row, number)
    filled = SPACES - row.count(None)
    bonus_tiles = 0
    shape = 0.0
    for reward, frame in FRAMES[(star, number)]:
        done = sum(1 for s, n in frame if stars[s][n] is not None)
        if done == len(frame):
            bonus_tiles += reward
        else:
            shape += reward * done / len(frame)
    row[number - 1] = None
    value = points + BONUS_TILE * bonus_tiles - TILE_COST * real - JOKER_COST * jokers + future * PLACE_SHAPE * shape
    if filled == SPACES:
        value += STAR_BONUS[star]
    else:
        value += future * STAR_SHAPE * STAR_BONUS[star] * SQUARE_STEP[filled] / (SPACES * SPACES)
    if number <= 4:
        same = 1 + sum(1 for other in stars if other[number - 1] is not None)
        bonus = NUMBER_BONUS[number]
        if same == len(STARS):
            value += bonus
        else:
            value += future * NUMBER_SHAPE * bonus * SQUARE_STEP[same] / (len(STARS) * len(STARS))
    return value, points, bonus_tiles


def _best(stars: Stars, hand: list[int], wild_index: int, future: float) -> tuple[float, int, int, int, int, int]:
    """Return the best affordable placement as (value, star, number, colour index, real, jokers)."""
    best: tuple[float, int, int, int, int, int] = (float("-inf"), -1, 0, 0, 0, 0)
    jokers_held = hand[wild_index]
    for star in range(len(STARS)):
        row = stars[star]
        if None not in row:
            continue
        fixed = OUTER_COLOUR[star]
        colour_indexes = [fixed] if fixed >= 0 else [c for c in range(len(COLOURS)) if COLOURS[c] not in row]
        for colour_index in colour_indexes:
            held = hand[colour_index]
            if held < 1:
                continue
            for number in range(1, SPACES + 1):
                if row[number - 1] is not None:
                    continue
                if colour_index == wild_index:
                    if held < number:
                        continue
                    real, jokers = number, 0
                else:
                    real = min(held, number)
                    jokers = number - real
                    if jokers > jokers_held:
                        continue
                value = _value(stars, star, number, COLOURS[colour_index], real, jokers, future)[0]
                if value > best[0]:
                    best = (value, star, number, colour_index, real, jokers)
    return best


def leftover_value(stars: Stars, hand: list[int], round_number: int) -> float:
    """Return what the tiles left after placing are worth: up to four kept, or −1 each after the last round."""
    if round_number >= ROUNDS:
        return -float(sum(hand))
    return KEEP_TILE * min(FREE_KEEP, sum(hand))


def lay(stars: Stars, hand: list[int], option: Option, wild: str) -> None:
    """Lay the option's tile and pay for it (in place, on the planner's scratch copies)."""
    stars[option.star][option.number - 1] = option.colour
    hand[COLOURS.index(option.colour)] -= option.real
    hand[COLOURS.index(wild)] -= option.jokers


def plan(stars: Stars, hand: list[int], wild: str, round_number: int, limit: int = 12) -> float:
    """Return the value of laying greedily from this hand (the best option while it is worth anything)."""
    stars = [list(row) for row in stars]
    hand = list(hand)
    wild_index = COLOURS.index(wild)
    future = _future(round_number)
    total = 0.0
    for _ in range(limit):
        value, star, number, colour_index, real, jokers = _best(stars, hand, wild_index, future)
        if value <= 0:
            break
        total += value
        stars[star][number - 1] = COLOURS[colour_index]
        hand[colour_index] -= real
        hand[wild_index] -= jokers
    return total + leftover_value(stars, hand, round_number)


# ---------------------------------------------------------------------------------------------------------
# Valuing decisions


def _stars(board: PlayerBoard) -> Stars:
    return [list(star) for star in board.stars]


def take_value(state: SternpavillonState, seat: int, take: Take, cache: dict[tuple[int, ...], float]) -> float:
    """Return how much a take raises the planned value of the seat's hand, minus the centre penalty."""
    board = state.boards[seat]
    result = take_result(state, seat, take)
    wild = wild_colour(state.round)
    hand = list(board.hand)
    hand[COLOURS.index(take.colour)] += result.colour_count
    hand[COLOURS.index(wild)] += result.joker
    key = tuple(hand)
    if key not in cache:
        cache[key] = plan(_stars(board), hand, wild, state.round)
    value = cache[key] - result.penalty
    if result.takes_start_tile and state.round < ROUNDS:
        value += START_TILE
    return value


def place_value(state: SternpavillonState, seat: int, move: Place) -> float:
    """Return the one-step planner value of a placement (as it would be paid)."""
    board = state.boards[seat]
    star = STARS.index(move.star)
    return option_value(
        _stars(board), star, move.number, move.colour, move.number - move.jokers, move.jokers, state.round
    ).value


def pass_value(state: SternpavillonState, seat: int) -> float:
    """Return the value of passing now: 0, so a placement must be worth more than the tiles it costs."""
    return 0.0


def bonus_value(state: SternpavillonState, seat: int, pick: BonusPick) -> float:
    """Return the planned value of the hand with this bonus tile."""
    board = state.boards[seat]
    hand = list(board.hand)
    hand[COLOURS.index(pick.colour)] += 1
    return plan(_stars(board), hand, wild_colour(state.round), state.round)


def keep_value(state: SternpavillonState, seat: int, keep: Keep) -> float:
    """Return how close a selection is to the suggestion, minus the cost of tiles beyond four."""
    suggestion = suggested_keep(state.boards[seat], state.round + 1)
    matched = sum(min(a, b) for a, b in zip(keep.counts, suggestion, strict=True))
    return matched - 1.5 * max(0, sum(keep.counts) - FREE_KEEP) - 0.1 * abs(sum(keep.counts) - sum(suggestion))


def normal_value(state: SternpavillonState, seat: int, move: Move, cache: dict[tuple[int, ...], float]) -> float:
    """Return the normal level's value of any legal move."""
    if isinstance(move, Take):
        return take_value(state, seat, move, cache)
    if isinstance(move, Place):
        return place_value(state, seat, move)
    if isinstance(move, Pass):
        return pass_value(state, seat)
    if isinstance(move, BonusPick):
        return bonus_value(state, seat, move)
    return keep_value(state, seat, move)


def _after_take(state: SternpavillonState, seat: int, take: Take) -> SternpavillonState:
    """Return the displays after a take (only factories and centre matter for the next player's choice)."""
    result = take_result(state, seat, take)
    wild = wild_colour(state.round)
    if take.factory is None:
        centre = list(state.centre)
        for tile in [take.colour] * result.colour_count + [wild] * result.joker:
            centre.remove(tile)
        return replace(state, centre=tuple(centre), start_tile_in_centre=False, current=(seat + 1) % state.seats)
    factories = tuple(() if i == take.factory else f for i, f in enumerate(state.factories))
    return replace(
        state,
        factories=factories,
        centre=(*state.centre, *result.to_centre),
        current=(seat + 1) % state.seats,
    )


def strong_take_value(
    state: SternpavillonState, seat: int, take: Take, own: float, caches: dict[int, dict[tuple[int, ...], float]]
) -> float:
    """Return the normal value minus a share of the best take this leaves the next player."""
    after = _after_take(state, seat, take)
    if not any(after.factories) and not after.centre:
        return own
    opponent = (seat + 1) % state.seats
    cache = caches.setdefault(opponent, {})
    other = state.boards[opponent]
    base = cache.get(other.hand)
    if base is None:
        base = plan(_stars(other), list(other.hand), wild_colour(state.round), state.round)
        cache[other.hand] = base
    best = max(take_value(after, opponent, t, cache) - base for t in legal(after, opponent) if isinstance(t, Take))
    return own - STRONG_SHARE * max(0.0, best)


def strong_place_value(state: SternpavillonState, seat: int, move: Place) -> float:
    """Return the placement's value plus the greedy plan after it (one placement of lookahead)."""
    board = state.boards[seat]
    stars = _stars(board)
    star = STARS.index(move.star)
    wild = wild_colour(state.round)
    first = option_value(stars, star, move.number, move.colour, move.number - move.jokers, move.jokers, state.round)
    hand = list(board.hand)
    lay(stars, hand, first, wild)
    return first.value + plan(stars, hand, wild, state.round)


# ---------------------------------------------------------------------------------------------------------
# Deciding


def _candidates(state: SternpavillonState, seat: int, level: str) -> list[tuple[Move, float]]:
    """Return the level's candidates with their values, in the order ties are decided (first wins)."""
    moves = legal(state, seat)
    if not moves:
        raise ValueError("the bot's seat has no legal move")
    if state.phase == PHASE_KEEP and level != "easy":
        return [(Keep(suggested_keep(state.boards[seat], state.round + 1)), 0.0)]
    cache: dict[tuple[int, ...], float] = {}
    if state.phase == PHASE_KEEP:
        moves = [Keep(suggested_keep(state.boards[seat], state.round + 1)), *moves[-3:], moves[0]]
    valued = [(normal_value(state, seat, move, cache), -index, move) for index, move in enumerate(moves)]
    if level == "strong" and state.phase in (PHASE_TAKE, PHASE_PLACE):
        best = sorted(valued, key=lambda item: (item[0], item[1]), reverse=True)[:STRONG_CANDIDATES]
        rescored: list[tuple[float, int, Move]] = []
        caches: dict[int, dict[tuple[int, ...], float]] = {}
        for value, order, move in best:
            if isinstance(move, Take):
                rescored.append((strong_take_value(state, seat, move, value, caches), order, move))
            elif isinstance(move, Place):
                rescored.append((strong_place_value(state, seat, move), order, move))
            else:
                board = state.boards[seat]
                stay = leftover_value(_stars(board), list(board.hand), state.round)
                rescored.append((stay, order, move))
        if state.phase == PHASE_PLACE and not any(isinstance(m, Pass) for _, _, m in rescored):
            board = state.boards[seat]
            stay = leftover_value(_stars(board), list(board.hand), state.round)
            rescored.append((stay, -len(moves), Pass()))
        # Ties go to the move listed first among the legal ones (a Pass added here comes last).
        valued = sorted(rescored, key=lambda item: -item[1])
    return [(move, value) for value, _, move in valued]


def _state(position: Position) -> SternpavillonState:
    if not isinstance(position.state, SternpavillonState):
        raise TypeError("not a Sternpavillon view")
    return position.state


def _counts_text(counts: tuple[int, ...]) -> str:
    parts = [f"{n} × {colour_name(c)}" for c, n in zip(COLOURS, counts, strict=True) if n]
    return ", ".join(parts) if parts else "nichts"


def reason(state: SternpavillonState, seat: int, move: Move, value: float) -> Json:
    """Return the German reason for a strong move: what it brings."""
    board = state.boards[seat]
    wild = wild_colour(state.round)
    if isinstance(move, Take):
        result = take_result(state, seat, move)
        source = "der Mitte" if move.factory is None else f"Schale {move.factory + 1}"
        joker = f" und 1 Joker ({colour_name(wild)})" if result.joker else ""
        text = f"Nimm {result.colour_count} × {colour_name(move.colour)}{joker} aus {source}"
        details = [f"damit kannst du geschätzt {value:+.1f} Punkte mehr legen"]
        if result.takes_start_tile:
            details.append(f"der Startstein kostet {result.penalty}, dafür beginnst du")
        return phrase(
            "sternpavillon.rat.nehmen",
            f"{text}: {', '.join(details)}.",
            zug=move.to_json(),
            wert=round(value, 1),
        ).to_json()
    if isinstance(move, Place):
        option = option_value(
            _stars(board), STARS.index(move.star), move.number, move.colour, move.number - move.jokers,
            move.jokers, state.round,
        )
        paid = f"{option.real} × {colour_name(move.colour)}" + (f" + {option.jokers} Joker" if option.jokers else "")
        parts = [f"+{option.points} für die Kette"]
        if option.bonus_tiles:
            parts.append(f"{option.bonus_tiles} Bonussteine aus dem Vorrat")
        filled = sum(1 for space in board.stars[STARS.index(move.star)] if space is not None) + 1
        if filled == SPACES:
            parts.append(f"der {STAR_NAMES[move.star]} wird voll (+{FULL_STAR_BONUS[move.star]} am Ende)")
        return phrase(
            "sternpavillon.rat.legen",
            f"Lege auf Feld {move.number} im {STAR_NAMES[move.star]} ({paid}): {', '.join(parts)}.",
            zug=move.to_json(),
            punkte=option.points,
            bonussteine=option.bonus_tiles,
        ).to_json()
    if isinstance(move, Pass):
        return phrase(
            "sternpavillon.rat.passen",
            "Passe: Kein freies Feld bringt mehr, als die Steine dafür wert sind.",
            zug=move.to_json(),
        ).to_json()
    if isinstance(move, BonusPick):
        return phrase(
            "sternpavillon.rat.bonus",
            f"Nimm {colour_name(move.colour)} aus dem Vorrat: Damit kannst du am meisten legen.",
            zug=move.to_json(),
        ).to_json()
    assert isinstance(move, Keep)
    return phrase(
        "sternpavillon.rat.behalten",
        f"Behalte {_counts_text(move.counts)}: die nützlichsten Steine für Runde {state.round + 1} "
        f"({colour_name(wild_colour(state.round + 1))} ist dann Joker).",
        zug=move.to_json(),
    ).to_json()


class SternpavillonPolicy(DeterminizedPolicy):
    """Sternpavillon on the shared skeleton: one determinization, every decision valued by the planner."""

    NOISE: ClassVar[Mapping[str, float]] = {"easy": EASY_NOISE, "normal": 0.0, "strong": 0.0}

    def evaluate_one(self, situation: Situation, position: Position) -> list[Candidate]:
        """Return the level's candidates (take, place, pass, bonus tile, keep) with their values."""
        return [Candidate(move.to_json(), value, move)
                for move, value in _candidates(_state(position), situation.seat, situation.level)]

    def reason(self, situation: Situation, chosen: Candidate) -> Json:
        """Return the German reason for the advised decision: what it brings."""
        return reason(_state(situation.position), situation.seat, chosen.detail, chosen.value)


POLICY = SternpavillonPolicy()
"""The Sternpavillon computer player."""

__all__ = ["POLICY", "SternpavillonPolicy", "plan"]

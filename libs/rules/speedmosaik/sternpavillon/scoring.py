"""Sternpavillon scoring: chains in a star, surrounded bonus places, end bonuses, the final ranking."""

from __future__ import annotations

from libs.rules.evolve import evolve
from libs.rules.protocol import ComputationLine, Outcome
from libs.rules.speedmosaik.outcome import ranked_outcome
from libs.rules.speedmosaik.sternpavillon.state import PlayerBoard, Stars
from libs.rules.speedmosaik.sternpavillon.tiles import (
    BONUS_PLACES,
    FULL_STAR_BONUS,
    NUMBER_BONUS,
    PLACES_BY_SPACE,
    SPACES,
    STAR_NAMES,
    STARS,
    START_SCORE,
)


def chain_length(star: tuple[str | None, ...], number: int) -> int:
    """Return the length of the chain of filled spaces through ``number`` in a star's ring (6 touches 1)."""
    if star[number - 1] is None:
        return 0
    if all(space is not None for space in star):
        return SPACES
    length = 1
    for step in (1, -1):
        position = (number - 1 + step) % SPACES
        while star[position] is not None:
            length += 1
            position = (position + step) % SPACES
    return length


def is_surrounded(stars: Stars, place_index: int) -> bool:
    """Return True if every space framing the bonus place holds a tile."""
    return all(stars[STARS.index(star)][number - 1] is not None for star, number in BONUS_PLACES[place_index].frame)


def newly_surrounded(stars: Stars, star_index: int, number: int) -> tuple[int, ...]:
    """Return the bonus places (indexes) that the tile just laid on (star, number) completes."""
    return tuple(index for index in PLACES_BY_SPACE[(star_index, number)] if is_surrounded(stars, index))


def end_lines(board: PlayerBoard) -> tuple[ComputationLine, ...]:
    """Return the end bonuses (full stars, all spaces of a number) and the leftover penalty."""
    lines: list[ComputationLine] = []
    for star_index, star in enumerate(STARS):
        if all(space is not None for space in board.stars[star_index]):
            bonus = FULL_STAR_BONUS[star]
            lines.append(
                ComputationLine(f"{STAR_NAMES[star]} voll", bonus, "sternpavillon.bonus.stern", {"stern": star})
            )
    for number, bonus in NUMBER_BONUS.items():
        if all(star[number - 1] is not None for star in board.stars):
            lines.append(
                ComputationLine(f"Alle {number}er belegt", bonus, "sternpavillon.bonus.zahl", {"zahl": number})
            )
    left = board.hand_size()
    lines.append(
        ComputationLine(f"Übrige Steine: {left} × −1", -left, "sternpavillon.uebrige_steine", {"anzahl": left})
    )
    return tuple(lines)


def apply_end_scoring(board: PlayerBoard) -> PlayerBoard:
    """Return the board with end bonuses and leftover penalty added to its score."""
    lines = end_lines(board)
    return evolve(board, score=board.score + sum(line.points for line in lines), end_lines=lines)


def running_lines(board: PlayerBoard) -> tuple[ComputationLine, ...]:
    """Return the Rechenweg so far: start, placement points, centre penalty, keeping cost, end lines."""
    return (
        ComputationLine("Start", START_SCORE, "sternpavillon.start"),
        ComputationLine("Gelegte Steine", board.placement_points, "sternpavillon.legepunkte"),
        ComputationLine("Zuerst aus der Mitte", -board.centre_penalty, "sternpavillon.mitte"),
        ComputationLine("Mehr als 4 Steine behalten", -board.keep_cost, "sternpavillon.behalten"),
        *board.end_lines,
    )


def final_outcome(boards: tuple[PlayerBoard, ...]) -> Outcome:
    """Rank the boards: score, then more filled star spaces; equal seats share the better place."""
    filled = tuple(board.filled_spaces() for board in boards)
    return ranked_outcome(
        "sternpavillon", tuple(board.score for board in boards), filled,
        tuple(running_lines(board) for board in boards),
        lambda seat: (f"{filled[seat]} belegten Feldern", {"felder": filled[seat]}),
    )

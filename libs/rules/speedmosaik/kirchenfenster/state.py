"""Immutable game state of the Kirchenfenster (frozen dataclasses of tuples; equal states compare equal)."""

from __future__ import annotations

from dataclasses import dataclass

from libs.rules.protocol import ComputationLine
from libs.rules.speedmosaik.kirchenfenster.material import (
    SIDE_DONE,
    STRIP_COUNT,
    STRIP_FIELDS,
    WRAP_LOSS,
    pattern_of,
)

EMPTY_FIELDS: tuple[str | None, ...] = (None,) * STRIP_FIELDS


@dataclass(frozen=True, slots=True)
class Strip:
    """One Fensterstreifen: the side facing up (0 front, 1 back, 2 done) and the pane on each field."""

    side: int = 0
    panes: tuple[str | None, ...] = EMPTY_FIELDS

    @property
    def is_done(self) -> bool:
        """Return True once both sides have been filled."""
        return self.side == SIDE_DONE

    def pattern(self, index: int) -> tuple[str, ...]:
        """Return the fields of the side facing up (empty once done); ``index`` is the strip's position."""
        return () if self.is_done else pattern_of(index, self.side)

    def pane_count(self) -> int:
        """Return how many panes lie on the strip."""
        return sum(1 for pane in self.panes if pane is not None)

    def is_full(self) -> bool:
        """Return True when every field of the side facing up holds a pane."""
        return not self.is_done and all(pane is not None for pane in self.panes)


@dataclass(frozen=True, slots=True)
class Board:
    """One player's palace: 8 strips, the Glasermeister, 8 windows, the breakage marker, the points."""

    strips: tuple[Strip, ...] = tuple(Strip() for _ in range(STRIP_COUNT))
    glasermeister: int = 0
    """0-based strip the Glasermeister stands above."""
    windows: tuple[tuple[str, ...], ...] = tuple(() for _ in range(STRIP_COUNT))
    breakage_field: int = 0
    """0-based field of the marker on the Glasbruch-Leiste."""
    breakage_wraps: int = 0
    """How often the marker reached the bottom (each time −18 at once)."""
    bonus_points: int = 0
    """Points for panes of the round's bonus colour on completed strips."""
    window_points: int = 0
    end_lines: tuple[ComputationLine, ...] = ()
    """The end scoring (panes left, breakage, palace); filled when the game ends."""

    @property
    def score(self) -> int:
        """Return the score: bonus and window points, minus 18 per wrap, plus the end scoring once done."""
        running = self.bonus_points + self.window_points - WRAP_LOSS * self.breakage_wraps
        if not self.end_lines:
            return running
        # The end lines carry the whole breakage (wraps included), so the wraps are not subtracted twice.
        return self.bonus_points + self.window_points + sum(line.points for line in self.end_lines)


@dataclass(frozen=True, slots=True)
class PendingWindow:
    """A full strip whose owner must choose the pane that goes into the window below it."""

    seat: int
    strip: int


@dataclass(frozen=True, slots=True)
class KirchenfensterState:
    """The whole table. ``bag`` is in draw order and is the only hidden part (with ``seed``)."""

    config: tuple[tuple[str, str], ...]
    seats: int
    seed: bytes
    round: int
    bonus_colours: tuple[str, ...]
    factories: tuple[tuple[str, ...], ...]
    centre: tuple[str, ...]
    start_tile_in_centre: bool
    start_tile_holder: int | None
    bag: tuple[str, ...]
    tower: tuple[str, ...]
    boards: tuple[Board, ...]
    current: int
    pending: PendingWindow | None = None
    is_finished: bool = False

    @property
    def palace(self) -> str:
        """Return the palace side of this game: "saeulen" or "fensterfarbe"."""
        return dict(self.config)["palace"]

    @property
    def bonus_colour(self) -> str:
        """Return the bonus colour of the current round."""
        return self.bonus_colours[min(self.round, len(self.bonus_colours)) - 1]

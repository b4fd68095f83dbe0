"""The immutable state of a Speednova game and the numbers its variants differ in."""

from __future__ import annotations

from dataclasses import dataclass

PHASE_PLACE = "legen"
PHASE_SWAP = "tauschen"
PHASE_OVER = "ende"

RACK_SIZE = 6
SOLO_CLASSIC_RACK = 3
REKORDJAGD_RACK = 1
"""Rekordjagd has no rack: the one tile drawn from the bag is kept like a rack of one (never swapped)."""
TRACK_TOP = 18
TRACK_TOP_LONG = 36
"""Teams and solo play on tracks to 36."""
ANDROMEDA_TILES = 20
"""Andromeda: after this many tiles placed (solo), no colour below ``ANDROMEDA_LEVEL``."""

Signal = tuple[str, int]
"""A team signal: ("viel" | "brauche", colour) or ("frei", cell)."""


@dataclass(frozen=True, slots=True)
class NovaState:
    """The whole table. Hidden: the racks (each seat sees its own), the bag's order and the seed, other teams'
    signals. Everything else is public and shown in every view."""

    seats: int
    teams: bool
    solo: str | None
    """The solo variant ("rekordjagd" | "klassisch") with one seat, else None."""
    radius: int
    seed: bytes
    cells: tuple[int, ...]
    """Per cell: the colour index of its star (Leitsterne included), or −1 when free."""
    placed: tuple[tuple[int, int, int, int, int], ...]
    """Every placed double star in order: (seat, cell, partner cell, colour on cell, colour on partner)."""
    racks: tuple[tuple[int, ...], ...]
    """Per seat its double stars (tile codes, sorted)."""
    bag: tuple[int, ...]
    """The double stars still in the bag, in draw order."""
    tracks: tuple[tuple[int, ...], ...]
    """Per track owner (a seat, or a team: seats 0+2 are team 0, 1+3 team 1) the six colour values."""
    gains: tuple[tuple[tuple[int, ...], ...], ...]
    """Per track owner, per colour: the points each placement brought in that colour (the end table's Rechenweg)."""
    started: tuple[int, ...]
    """Per seat the colour of the Leitstern its first double star lies beside, −1 before its first one."""
    current: int
    phase: str
    bonus: int = 0
    """Supernova placements the current seat still has before refilling."""
    decision: int = 0
    """Counts the must-act decisions (names each one for think time)."""
    shuffles: int = 0
    """How many rack swaps have shuffled tiles back into the bag (names the next swap's random stream)."""
    warned: bool = False
    """The end warning has been given (once, README: greedy pairs ≤ number of players)."""
    signals: tuple[tuple[Signal, ...], ...] = ()
    """Per seat its active team signals, in the order given (team games only)."""
    six_line: tuple[bool, ...] = ()
    """Per seat: it has scored one line of six equal stars, the placed half included (Kassiopeia)."""
    andromeda: tuple[int, ...] = ()
    """Per seat: its weakest colour right after its 20th double star, −1 before."""
    end_reason: str = ""
    """Why the game ended: "voll" (no two neighbouring free cells), "sofort" (all six at the top),
    "steine" (no seat has a double star left)."""
    side_signals: bool = False
    """speednova@2: signals are side moves (the table keeps them in the team's log, not the game's), so nothing
    of the game's own moves may depend on them: a placement never clears a signal; a "Feld frei halten" whose
    cell is taken simply counts as gone out (``signals.active``). speednova@1: False, as its logs were written."""

    @property
    def is_finished(self) -> bool:
        """True once the game is over."""
        return self.phase == PHASE_OVER

    @property
    def top(self) -> int:
        """The top of every track: 36 for teams and solo, else 18."""
        return TRACK_TOP_LONG if self.teams or self.seats == 1 else TRACK_TOP

    @property
    def thresholds(self) -> tuple[int, ...]:
        """The values whose reaching ignites a Supernova: 18 (and 36 for teams); none in solo."""
        if self.seats == 1:
            return ()
        return (TRACK_TOP, TRACK_TOP_LONG) if self.teams else (TRACK_TOP,)

    @property
    def rack_size(self) -> int:
        """How many double stars a rack is refilled to."""
        if self.solo == "rekordjagd":
            return REKORDJAGD_RACK
        return SOLO_CLASSIC_RACK if self.solo == "klassisch" else RACK_SIZE

    def track_of(self, seat: int) -> int:
        """Return the track owner a seat scores for (its team with teams, else itself)."""
        return seat % 2 if self.teams else seat

    def team_of(self, seat: int) -> tuple[int, ...]:
        """Return the seats sharing ``seat``'s track (the seat alone without teams)."""
        return (seat % 2, seat % 2 + 2) if self.teams else (seat,)

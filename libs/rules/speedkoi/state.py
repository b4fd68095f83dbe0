"""The state of a Speedkoi game: one frozen record of plain tuples (copied, compared and hashed cheaply)."""

from __future__ import annotations

from dataclasses import dataclass

Part = tuple[str | int, ...]
"""One part of a seat's last move ("legte Gold 7", "Pilger Gold → Stein 5"): a kind and its data."""

LEGEN, LIBELLE, STEG, KOI, ZIEHEN, ENDE = "legen", "libelle", "steg", "koi", "ziehen", "ende"
PHASES: tuple[str, ...] = (LEGEN, LIBELLE, STEG, KOI, ZIEHEN, ENDE)
"""``legen``: play or discard a lantern; ``libelle``/``steg``: move a figure one stone or decline;
``koi``: take the top of a discard pile; ``ziehen``: draw; ``ende``: the game is over."""


@dataclass(frozen=True, slots=True)
class KoiState:
    """Everything of a game; views redact it per seat (hands, deck order and the set-aside lanterns are hidden)."""

    spielart: str
    seats: int
    hands: tuple[tuple[int, ...], ...]
    """Per seat its lanterns (codes), sorted."""
    known: tuple[tuple[int, ...], ...]
    """Per seat the lanterns everyone saw it take into its hand (from a pile, by a Koi) and still holds, sorted."""
    deck: tuple[int, ...]
    """Hidden lanterns; the next draw is the last one."""
    aside: tuple[int, ...]
    """With two players the 30 lanterns set aside unseen (never drawn)."""
    piles: tuple[tuple[int, ...], ...]
    """Per colour the discarded values, bottom first (the top is the last)."""
    rows: tuple[tuple[tuple[int, ...], ...], ...]
    """Per seat, per colour the values laid, in order."""
    stones: tuple[tuple[int, ...], ...]
    """Per seat, per path the stone its figure stands on (0: no figure there yet)."""
    masters: tuple[int, ...]
    """Per seat the path its master walks (-1: the master is still free)."""
    tiles: tuple[tuple[str | None, ...], ...]
    """Per path, per stone 0 … 9 the tile lying there (None: none, or taken)."""
    taken: tuple[tuple[int, ...], ...]
    """Per seat how many tiles of each kind it took (``material.TILE_KINDS``: pearls first)."""
    blossoms: tuple[int, ...]
    teahouse: tuple[int, ...]
    arrivals: tuple[tuple[int, ...], ...]
    """Per path the seats whose figure reached its end stone, in order (Teehaus bonus)."""
    current: int
    start: int
    turn: int
    phase: str
    jetty_path: int
    """While a Steg is to be used: the path it lay on (the figure must be on another path); else -1."""
    discarded: int
    """The colour discarded this turn (its pile's top may not be drawn back), else -1."""
    last: tuple[tuple[Part, ...], ...]
    """Per seat what it did in its last turn (shown until it is its turn again)."""
    end_reason: str = ""
    """"" while running, "ziel" (fifth figure in the goal area) or "stapel" (last hidden lantern drawn)."""
    ended_by: int = -1

    @property
    def is_finished(self) -> bool:
        """True once the game has ended."""
        return self.phase == ENDE

    def pearls(self, seat: int) -> int:
        """Return the seat's pearls."""
        return self.taken[seat][0]

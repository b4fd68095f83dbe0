"""Who plays whom in a quick-match queue: pure functions over the waiting players (no I/O), used by one
matching round of a pool (services/lobby/matchmaking.py).

Two players are of like strength when their ratings differ by at most the narrower of their two windows; a
window is ±WINDOW_START rating points on entering the queue and widens by WINDOW_GROWTH points per second of
waiting, so a player nobody fits at first finds opponents further away the longer they wait. A table of k
players forms when k players who all accept k seats all lie within the narrowest window among them.

Rounds go through the waiting players oldest first; each takes the largest table they accept that can be
filled with humans of like strength (nearest rating first, then longest waiting). A player whose own time for
computers has come ("Computer nach … auffüllen") and who found no humans is seated at the smallest table they
accept, with the humans of like strength whose time for computers has come too, the rest computers of the level
whose rating is nearest to the humans' mean.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

WINDOW_START = 100
"""± rating points a player accepts on entering the queue (the shown rating: a new player is 1500 ± 500)."""
WINDOW_GROWTH = 10.0
"""Rating points the window widens by per second of waiting: ±400 after 30 s, ±700 after a minute."""
DEFAULT_LEVEL = "normal"
"""The computers' level when no level has a rating in the list yet."""


@dataclass(frozen=True)
class Waiting:
    """A player in the queue, as the matcher sees them."""

    match_id: str
    rating: int
    seat_counts: tuple[int, ...]
    since: datetime
    fill_after: int | None
    """Seconds until computers may fill the table; None: never."""

    def window(self, now: datetime) -> float:
        """The ± rating points this player accepts now."""
        return WINDOW_START + WINDOW_GROWTH * max(0.0, (now - self.since).total_seconds())

    def may_fill(self, now: datetime) -> bool:
        """Whether this player's time for computers has come."""
        return self.fill_after is not None and (now - self.since).total_seconds() >= self.fill_after


@dataclass(frozen=True)
class Group:
    """One table to seat: its humans in the order they sit, and how many computers of which level join them."""

    humans: tuple[Waiting, ...]
    seat_count: int
    bot_level: str | None = None

    @property
    def computers(self) -> int:
        """How many seats go to computers."""
        return self.seat_count - len(self.humans)


def form_groups(waiting: Sequence[Waiting], now: datetime, computer_ratings: Mapping[str, int]) -> list[Group]:
    """Return the tables to seat now; nobody is in two of them, and every group is of like strength."""
    queue = sorted(waiting, key=lambda each: (each.since, each.match_id))
    taken: set[str] = set()
    groups: list[Group] = []
    for anchor in queue:
        if anchor.match_id in taken:
            continue
        others = [each for each in queue if each.match_id not in taken and each is not anchor]
        group = _human_table(anchor, others, now)
        if group is None and anchor.may_fill(now):
            group = _filled_table(anchor, [each for each in others if each.may_fill(now)], now, computer_ratings)
        if group is not None:
            groups.append(group)
            taken.update(each.match_id for each in group.humans)
    return groups


def needs_computers(waiting: Sequence[Waiting], now: datetime) -> bool:
    """Whether anyone's time for computers has come (then the round asks for the levels' ratings)."""
    return any(each.may_fill(now) for each in waiting)


def nearest_level(rating: float, computer_ratings: Mapping[str, int]) -> str:
    """The computer level whose rating is nearest to `rating` (DEFAULT_LEVEL when none is rated yet)."""
    if not computer_ratings:
        return DEFAULT_LEVEL
    return min(sorted(computer_ratings), key=lambda level: abs(computer_ratings[level] - rating))


def _human_table(anchor: Waiting, others: Sequence[Waiting], now: datetime) -> Group | None:
    for count in sorted(anchor.seat_counts, reverse=True):
        members = _like(anchor, [each for each in others if count in each.seat_counts], count - 1, now)
        if len(members) == count - 1:
            return Group(humans=(anchor, *members), seat_count=count)
    return None


def _filled_table(anchor: Waiting, others: Sequence[Waiting], now: datetime,
                  computer_ratings: Mapping[str, int]) -> Group:
    count = min(anchor.seat_counts)
    members = _like(anchor, [each for each in others if count in each.seat_counts], count - 1, now)
    humans = (anchor, *members)
    mean = sum(each.rating for each in humans) / len(humans)
    return Group(humans=humans, seat_count=count, bot_level=nearest_level(mean, computer_ratings))


def _like(anchor: Waiting, candidates: Sequence[Waiting], wanted: int, now: datetime) -> list[Waiting]:
    """Up to `wanted` candidates who, with the anchor, all lie within the narrowest window among them."""
    chosen: list[Waiting] = []
    low = high = anchor.rating
    narrowest = anchor.window(now)
    for candidate in sorted(candidates, key=lambda each: (abs(each.rating - anchor.rating), each.since)):
        if len(chosen) == wanted:
            break
        window = min(narrowest, candidate.window(now))
        if max(high, candidate.rating) - min(low, candidate.rating) <= window:
            chosen.append(candidate)
            low, high, narrowest = min(low, candidate.rating), max(high, candidate.rating), window
    return chosen

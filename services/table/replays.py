"""Step-through replays of ended games: the record at any event n, folded once and kept in a bounded cache.

Scrubbing through a game asks for n, n + 1, n + 2, ... (or jumps back): every answer must not fold the log
from its first event again. Per game this keeps the log (each event as its encoded JSON, a quarter of the
decoded objects' memory; decoded again when folded or shown), the record at a checkpoint every `every` events
(at most `MARKS` of them per game, whatever its length) and the record last served (the cursor): a request
for n folds on from the cursor when that is at or before n, else from the nearest checkpoint at or before
n, so scrubbing forward costs one fold per step and a jump at most `every` − 1 folds. Only ended games are
kept (their logs never change); the least recently used game is dropped beyond `games` of them.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from libs.platform.envelope import Event, EventType
from services.table.event_store import StoredEvent
from services.table.records import CorruptLog, GameRecord, Seat, begin, seats_of

MARKS = 64
"""Checkpoints kept per game at most (a long game spaces them wider)."""
MIN_EVERY = 8
"""Checkpoints are at least this many events apart (a short game needs few)."""
GAMES = 32
"""Games kept at once by default (a long Speedspore game of 700 events costs about 0.4 MiB of encoded log and
0.25 MiB of checkpoints)."""


def is_ended(events: list[StoredEvent]) -> bool:
    """True when the log ends with GameEnded (the game is over and its log final)."""
    return bool(events) and events[-1].event.type == EventType.GAME_ENDED


@dataclass
class GameReplay:
    """One ended game's log with the records folded so far: checkpoints and the cursor."""

    bodies: list[bytes]
    """Event n's encoded JSON at index n − 1."""
    seqs: list[int]
    """Event n's stream sequence at index n − 1."""
    seats: tuple[Seat, ...]
    every: int
    marks: dict[int, GameRecord] = field(default_factory=dict)
    """Record at n = 1 + k × every, by k (filled as folds pass them)."""
    cursor: GameRecord | None = None
    sides: dict[int, list[StoredEvent]] = field(default_factory=dict)
    """The team logs' entries (side moves) by the game event they follow, in the merged order (empty for most
    games): folded in right after that event, so the record at n holds them, as the live table did."""
    folds: int = 0
    """Events folded for this game so far (the benchmark and the tests read it)."""

    @property
    def last(self) -> int:
        """The number of the log's last event (GameEnded)."""
        return len(self.bodies)

    def stored(self, n: int) -> StoredEvent:
        """Return event `n` (1 ≤ n ≤ last) as the log stores it."""
        return StoredEvent(seq=self.seqs[n - 1], event=Event.decode(self.bodies[n - 1]))

    def event(self, n: int) -> Event:
        """Return event `n` (1 ≤ n ≤ last)."""
        return Event.decode(self.bodies[n - 1])

    def record_at(self, n: int) -> GameRecord:
        """Return the record after event `n` (1 ≤ n ≤ last): the same fold the table made when the game was at n.

        Every MoveMade keeps its effects (the view at n shows the last move's effects, as the live one did).
        Raises CorruptLog when the log cannot be folded up to n.
        """
        if not 1 <= n <= self.last:
            raise IndexError(n)
        record = self._start_for(n)
        while record.n < n:
            record = self._with_sides(record.fold(self.stored(record.n + 1)))
            self.folds += 1
            if (record.n - 1) % self.every == 0:
                self.marks.setdefault((record.n - 1) // self.every, record)
        self.cursor = record
        return record

    def side_entries(self, n: int) -> list[StoredEvent]:
        """Return the team logs' entries that follow game event `n` (every team's, in the merged order)."""
        return self.sides.get(n, [])

    def _with_sides(self, record: GameRecord) -> GameRecord:
        """Return `record` with the team logs' entries that follow its event folded on."""
        for stored in self.sides.get(record.n, ()):
            record = record.fold_side(stored)
        return record

    def _start_for(self, n: int) -> GameRecord:
        """The folded record at or before `n` closest to it: the cursor, a checkpoint, or event 1."""
        cursor = self.cursor
        k = (n - 1) // self.every
        while k > 0 and k not in self.marks:
            k -= 1
        mark = self.marks.get(k)
        if mark is None:
            mark = self._with_sides(begin(self.stored(1)))
            self.marks[0] = mark
        if cursor is not None and mark.n <= cursor.n <= n:
            return cursor
        return mark


def _by_event(side: list[StoredEvent]) -> dict[int, list[StoredEvent]]:
    """Team-log entries grouped by the game event they follow, each group in the merged order (team, then n)."""
    groups: dict[int, list[StoredEvent]] = {}
    for stored in sorted(side, key=lambda s: (s.event.data.get("after", 0), s.event.data.get("team", 0), s.event.n)):
        groups.setdefault(int(stored.event.data.get("after", 0)), []).append(stored)
    return groups


class Replays:
    """The step-through replays this replica holds, least recently used dropped beyond `games`."""

    def __init__(self, games: int = GAMES, marks: int = MARKS) -> None:
        self._games: OrderedDict[str, GameReplay] = OrderedDict()
        self._limit = games
        self._marks = marks

    def cached(self, game_id: str) -> GameReplay | None:
        """Return the kept replay of a game, if any (marking it recently used)."""
        replay = self._games.get(game_id)
        if replay is not None:
            self._games.move_to_end(game_id)
        return replay

    def keep(self, game_id: str, events: list[StoredEvent], side: list[StoredEvent] | None = None) -> GameReplay:
        """Keep the replay of an ended game's log (`is_ended(events)` must hold) and return it (CorruptLog: the
        log does not begin with GameStarted); `side`: every entry of its team logs (side moves)."""
        if not is_ended(events):
            raise ValueError("only an ended game's log is final enough to keep")
        kept = self._games.get(game_id)
        if kept is not None:  # two first requests raced: one replay serves both
            self._games.move_to_end(game_id)
            return kept
        if events[0].event.type != EventType.GAME_STARTED:
            raise CorruptLog(f"game {game_id}: the log does not begin with GameStarted")
        every = max(MIN_EVERY, -(-len(events) // self._marks))
        replay = GameReplay(bodies=[stored.event.encode() for stored in events],
                            seqs=[stored.seq for stored in events], seats=seats_of(events[0].event), every=every,
                            sides=_by_event(side or []))
        self._games[game_id] = replay
        while len(self._games) > self._limit:
            self._games.popitem(last=False)
        return replay

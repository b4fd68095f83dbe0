"""The table's command handlers: start a game, make a move, and finish a game, always log first."""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import msgspec

from libs.platform import signing
from libs.platform import table_options as options
from libs.platform.contracts.commands import StartGame, StartSeat
from libs.platform.contracts.events import (
    EndedSeat,
    GameEnded,
    GameSeat,
    GameStarted,
    MoveMade,
    Outcome,
    PlatformSettings,
    PlayerLeft,
)
from libs.platform.envelope import Event, EventType, new_event
from libs.platform.logging import debug_enabled, get_logger
from libs.platform.private import salt_for, seal
from libs.platform.rpc import UNAVAILABLE_REASON, CommandRefused
from libs.platform.service import Runtime
from libs.platform.team_log import SideMove, side_event, team_msg_id
from libs.rules import ConfigError, IllegalMove, registry
from libs.rules.engine import Step, audience_of
from libs.rules.evolve import evolve
from libs.rules.registry import UnknownRules
from services.table import metrics
from services.table.archive import Archive
from services.table.event_store import AppendConflict, GameLog, StoredEvent
from services.table.followup_hints import FollowupHint, HintSeal, hint_after_move, hint_after_start
from services.table.modes import checked_mode, ended_fields
from services.table.records import (
    CorruptLog,
    GameRecord,
    OutOfOrder,
    begin,
    fold_merged,
    fold_on,
    replay,
)
from services.table.seeds import SeedSource, commitment
from services.table.snapshots import SNAPSHOT_EVERY, NoSnapshots, Snapshots

CHOSEN_BY = ("player", "bot", "timeout", "departed", "operator")
SEAT_KINDS = ("human", "bot")
BOT_NAMES = frozenset({"Computer", *(f"Computer {number}" for number in range(1, 17))})
"""What a computer seat may be called: the platform's names only, so no computer passes for a person (the
lobby refuses these names to players)."""



class GameNotFound(CommandRefused):
    def __init__(self, game_id: str) -> None:
        super().__init__(404, f"Die Partie {game_id} gibt es nicht.", "game_not_found")


class LogBehind(CommandRefused):
    """The log as this replica could read it ends before an event it knows is stored (on a cluster any replica of
    the stream answers a read, and one may lag its leader by a few messages): 503, try again in a moment."""

    def __init__(self, game_id: str, n: int) -> None:
        super().__init__(503, UNAVAILABLE_REASON, "unavailable")
        self.game_id, self.n = game_id, n


LAGGING_READS = 6
"""How often a replica reads a game's log again while it ends before an event known to be stored ..."""
LAGGING_PAUSE = 0.05
"""... with this many seconds between reads (a lagging replica of the stream is a few messages behind)."""


class LeftGame(CommandRefused):
    """The player left the game: the seat is the computer's for good (403: asking again will not help)."""

    def __init__(self) -> None:
        super().__init__(403, "Du hast die Partie verlassen; der Computer spielt jetzt für dich.", "left_game")


CHOSEN_FOR_DEPARTED = frozenset({"departed", "timeout"})
"""Who may still decide for a seat whose human left: the computer playing on, or a think time that ran
out on a decision the human had begun (its deadline was set before they left)."""


@dataclass(frozen=True, slots=True)
class Stored:
    """Where a move was stored, as its answer names it: the game's event number, and the hash and signature of
    what was stored (the game's event; for a side move its team log's entry `entry` of team `team`)."""

    game_id: str
    n: int
    """The game log's event number after the move (a side move leaves it where it was)."""
    hash: str
    sig: dict[str, str] | None
    team: int | None = None
    """A side move: the team whose log holds it (None: the move is the game log's event `n`)."""
    entry: int = 0
    """A side move: its number in the team's log."""

    @property
    def signed_n(self) -> int:
        """The number the signature names: the game event's, or the team-log entry's."""
        return self.n if self.team is None else self.entry



@dataclass(frozen=True)
class Appended:
    """An event just stored after `before`, not yet folded on (`applied`: the move's step, already computed)."""

    before: GameRecord
    stored: StoredEvent
    applied: Step | None = None
    hinted: bool = False
    """Stored with a hint for the follow-up, which then does not fold it (nor write its snapshot: see `Games`)."""

    @property
    def game_id(self) -> str:
        return self.before.game_id

    @property
    def n(self) -> int:
        return self.stored.event.n

    def fold(self) -> GameRecord:
        """The game with the event folded on (CorruptLog if it does not fold on)."""
        return self.before.fold(self.stored, self.applied)


class Games:
    """Runs games on top of their logs; any number of replicas may do so for the same game at once.

    State is cached per replica and caught up from the log whenever it may be stale; an append that
    loses a race (JetStream refuses it) is decided again on the fresh state. A game whose subject is empty
    (never started, or archived and purged: docs/archive.md) is read from `archive`.
    """

    def __init__(self, log: GameLog, seeds: SeedSource, cache_size: int = 5000,
                 archive: Archive | None = None, snapshots: Snapshots | None = None,
                 keyring: signing.Keyring | None = None, purge_grace: float = 0.0,
                 hints: HintSeal | None = None) -> None:
        self._log = log
        self._quiet_trust = purge_grace / 2
        """Seconds after a game was last seen at the log's end during which a read may ask only "anything newer?"
        (`GameLog.has_after`): its bare "no" could also mean "purged since", but a running game's subject is purged
        at the earliest `purge_grace` (the archive's ARCHIVE_PURGE_GRACE_SECONDS) after a GameEnded appended after
        that moment; half of it leaves room for clocks apart. 0: every read asks for the last event's sequence."""
        self._confirmed: dict[str, float] = {}  # game id -> when (monotonic) its cached record was last the log's end
        self.keyring = keyring
        """Signs every event this table appends (None: unsigned events, a table without keys outside production)."""
        self._archive = archive or Archive(None)
        self._snapshots = snapshots or NoSnapshots()
        self._seeds = seeds
        self._cache: OrderedDict[str, GameRecord] = OrderedDict()
        self._unfolded: dict[str, Appended] = {}  # appended and answered, folded on at the next loop rounds
        self._locks: dict[str, asyncio.Lock] = {}
        self._cache_size = cache_size
        self._hints = hints if hints is not None else HintSeal(keyring)
        """Seals the hints beside this table's events and opens those its follow-up reads (from the signing keys)."""
        self._saving: set[asyncio.Task[None]] = set()  # snapshots being stored after a hinted event

    # ---- reading ----------------------------------------------------------------------------------
    async def load(self, game_id: str) -> GameRecord:
        """Return the game as its log stands now (404 if there is no such game)."""
        _check_id(game_id)
        async with self._lock(game_id):
            return await self._refresh(game_id)

    def cached(self, game_id: str) -> GameRecord | None:
        """Return the cached record of a game, if this replica holds one (it may be behind the log)."""
        return self._current(game_id)

    def forget(self, game_id: str) -> None:
        """Drop the game's cached record: one that has fallen behind for good (the follow-up acts on hints instead
        of folding), so that a later read starts from the game's latest snapshot rather than folding on from it."""
        self._cache.pop(game_id, None)
        self._confirmed.pop(game_id, None)
        self._unfolded.pop(game_id, None)
        metrics.CACHED_GAMES.set(len(self._cache))

    @property
    def hints(self) -> HintSeal:
        """The seal of the hints this table writes beside its events and its follow-up reads (followup_hints.py)."""
        return self._hints

    async def at_event(self, event: Event, seq: int) -> GameRecord:
        """Return the game at least as far as `event` (stored at stream sequence `seq`).

        The record at event n is the same on every replica (the fold of the log up to n), so a cached
        record at n, or one at n − 1 with this very event folded on, needs no trip to the log; anything
        else is read from it.

        The log read may lag the event (on a cluster a replica of the stream that is a few messages behind may
        answer it): the event handed over is folded on then, or the log read again, and LogBehind raised when
        it stays behind (the caller gets the event again later).
        """
        _check_id(event.game_id)
        async with self._lock(event.game_id):
            record, is_fresh = self._current(event.game_id), False
            for attempt in range(LAGGING_READS):
                if record is not None and record.n >= event.n:
                    return record
                if record is not None and record.n == event.n - 1 and not record.team_logs:
                    try:
                        folded = record.fold(StoredEvent(seq=seq, event=event))
                    except CorruptLog:
                        if is_fresh:  # the log itself does not fold on: an operator must look
                            raise
                    else:
                        self._remember(folded)
                        return folded
                if attempt:
                    await asyncio.sleep(LAGGING_PAUSE)
                try:
                    record, is_fresh = await self._refresh(event.game_id), True
                except GameNotFound:  # a lagging replica that has none of the game's log yet
                    record = None
            raise LogBehind(event.game_id, event.n)

    async def seated(self, game_id: str) -> GameRecord:
        """Return a record of the game good for who sits where (cached if known: seats never change)."""
        _check_id(game_id)
        record = self._current(game_id)
        return record if record is not None else await self.load(game_id)

    async def events(self, game_id: str) -> list[StoredEvent]:
        """Return the game's whole log: from the stream, or from the archive once purged from it (404 if
        neither knows the game)."""
        _check_id(game_id)
        events = await self._log.read(game_id) or await self._archive.events(game_id)
        if not events:
            raise GameNotFound(game_id)
        return events

    async def team_events(self, game_id: str, team: int) -> list[StoredEvent]:
        """Return one team log of the game whole (side moves): from the stream, or from the archive once the
        game's subjects were purged (empty when the team made no side move)."""
        _check_id(game_id)
        if await self._log.last_sequence(game_id):
            return await self._log.read_team(game_id, team)
        return [stored for stored in await self._archive.team_events(game_id) if stored.event.data.get("team") == team]

    async def keep_snapshot(self, record: GameRecord) -> None:
        """Store a snapshot of `record` for cold replicas (a failure costs them time only, so it is logged).

        Not for a game with team logs: its fold spans several logs, which a snapshot of one log's position
        does not pin down (such a game is folded from its logs, a few hundred events at most)."""
        if record.team_logs:
            return
        try:
            await self._snapshots.save(record)
        except Exception as error:
            get_logger(game_id=record.game_id).warning("snapshot_not_saved", n=record.n, error=repr(error)[:200])

    # ---- commands ---------------------------------------------------------------------------------
    async def start(self, command: StartGame) -> GameRecord:
        """Create a game from a start command and append its GameStarted event."""
        game_id = command.game_id or uuid.uuid4().hex
        _check_id(game_id)
        try:
            module = registry.latest(command.game)
        except (UnknownRules, KeyError) as error:
            raise CommandRefused(422, f"Unbekanntes Spiel: {command.game}.", "unknown_game") from error
        seats = _validate_seats(command.seats)
        try:
            settings = registry.engine(module.rules_id).normalize_config(command.settings or {}, len(seats))
        except ConfigError as error:
            raise CommandRefused(422, error.reason, error.code) from error
        platform = _validate_platform(command.platform)
        chosen = checked_mode(module.spec.home, module.spec.name, command)
        # A daily game plays the day's seed (the lobby's, everyone's that day); every other game a fresh one.
        seed = chosen.seed if chosen.seed is not None else self._seeds.draw()
        if command.game_id and await self._archive.holds(game_id):
            # Its subject may be purged (an empty subject takes a new event 1): the id stays taken for good.
            raise CommandRefused(409, f"Die Partie {game_id} gibt es schon.", "game_exists")
        event = self._signed(new_event(
            game_id=game_id, n=1, type=EventType.GAME_STARTED, actor="system", rules=module.rules_id,
            prev="0" * 64,
            data=GameStarted(
                game=module.game, rules=module.rules_id, settings=settings, seats=seats, platform=platform,
                table_id=command.table_id,
                # Sealed for nobody: every copy of the log carries only its digest until GameEnded reveals it.
                seed=seal(seed.hex(), (), salt_for(seed, game_id, 1, 0)), seed_commitment=commitment(seed),
                # Only when given, so games outside the modes keep their exact shape (and hashes).
                mode=chosen.mode if chosen.mode is not None else msgspec.UNSET,
                seed_reveal_at=chosen.seed_reveal_at if chosen.seed_reveal_at is not None else msgspec.UNSET,
            ).to_data(),
        ))
        # The game as it begins, before the append: the follow-up's hint is written from it.
        first = begin(StoredEvent(seq=0, event=_as_stored(event)))
        hint = hint_after_start(first, event) if self._hints.is_sealing else None
        async with self._lock(game_id):
            sent = time.monotonic()
            try:
                seq = await self._append(event, expected_last_seq=0, hint=hint)
            except AppendConflict as error:
                raise CommandRefused(409, f"Die Partie {game_id} gibt es schon.", "game_exists") from error
            self._confirmed[game_id] = sent
            record = evolve(first, last_seq=seq)
            self._remember(record)
        metrics.GAMES_STARTED.labels(module.game).inc()
        return record

    async def move(self, game_id: str, seat: int, move: Any, *, actor: str, chosen_by: str = "player",
                   expected_n: int | None = None) -> GameRecord:
        """Validate `move` for `seat`, append it to the log, and return the game after it.

        With `expected_n`, the move is only made if the log still ends at event `expected_n` (so a
        decision taken on an older position is refused instead of applied to a newer one).
        """
        appended = await self._append_move(game_id, seat, move, actor=actor, chosen_by=chosen_by,
                                           expected_n=expected_n)
        return appended if isinstance(appended, GameRecord) else self._fold_now(appended)

    async def play(self, game_id: str, seat: int, move: Any, *, actor: str, chosen_by: str = "player",
                   expected_n: int | None = None) -> Stored:
        """`move`, for a caller that needs only where the move was stored (the game's event number, the signed
        hash): return it as soon as it is in the log, and fold the move on right after the answer is written
        (`_fold_after_reply`). A side move (a team log's entry) leaves the game's log where it was: its answer
        names the game's last event's number, and the entry's own hash and signature (its team's receipt).

        A command sent again after its first sending was stored (its answer lost with a dropped connection, the
        sender's `call(attempt=...)` sent it again) is answered as the first would have been: when the log's event
        after `expected_n` is this very move (same seat, move, actor and origin), its place and receipt, not "stale"
        (`_made_already`)."""
        try:
            appended = await self._append_move(game_id, seat, move, actor=actor, chosen_by=chosen_by,
                                               expected_n=expected_n)
        except CommandRefused as refusal:
            if refusal.code != "stale" or expected_n is None:
                raise
            made = await self._made_already(game_id, seat, move, actor, chosen_by, expected_n)
            if made is None:
                raise
            return made
        if isinstance(appended, GameRecord):  # a side move, folded on already: the mover's team log holds it
            head = appended.team_of_seat(seat)
            if head is None:
                raise CorruptLog(f"game {game_id}: a side move of seat {seat}, which has no team log")
            return Stored(game_id=appended.game_id, n=appended.n, hash=head.last_hash, sig=head.last_sig,
                          team=head.team, entry=head.n)
        self._fold_after_reply(appended)
        event = appended.stored.event
        return Stored(game_id=event.game_id, n=event.n, hash=event.hash, sig=event.sig)

    async def _made_already(self, game_id: str, seat: int, move: Any, actor: str, chosen_by: str,
                            expected_n: int) -> Stored | None:
        """Where the log holds this very move right after event `expected_n` (a MoveMade of `seat` with the same move,
        actor and origin), else None. A move stored sealed (a private part) never equals its plain form: such a
        repeat stays "stale"."""
        following = [stored.event for stored in await self.events(game_id) if stored.event.n == expected_n + 1]
        if not following:
            return None
        event = following[0]
        data = event.data
        if event.type != EventType.MOVE_MADE or event.actor != actor or data.get("seat") != seat \
                or data.get("move") != move or data.get("chosen_by") != chosen_by:
            return None
        metrics.MOVES_REPEATED.inc()
        return Stored(game_id=event.game_id, n=event.n, hash=event.hash, sig=event.sig)

    async def _append_move(self, game_id: str, seat: int, move: Any, *, actor: str, chosen_by: str,
                           expected_n: int | None) -> Appended | GameRecord:
        """Validate `move` for `seat` and append it to the log (`move` says how); return it, not yet folded on.

        A side move (the rules name a team that alone may learn of it) goes to that team's log instead; it is
        folded on at once and the game after it returned (the game's log, its `n` and clocks unchanged)."""
        _check_id(game_id)
        if chosen_by not in CHOSEN_BY:
            raise CommandRefused(422, "Unbekannte Herkunft des Zuges.", "malformed")
        if not isinstance(move, dict):
            raise CommandRefused(422, "Ein Zug muss ein JSON-Objekt sein.", "malformed")
        async with self._lock(game_id):
            record = self._current(game_id)
            is_fresh = record is None
            if record is None:
                record = await self._refresh(game_id)
            if expected_n is not None and record.n < expected_n:  # the caller saw a newer log than this replica
                record, is_fresh = await self._at_least(game_id, expected_n), True
            for _attempt in range(5):
                try:
                    _check_can_move(record, seat, actor, chosen_by, expected_n)
                    applied = record.engine.apply(record.position, seat, move)
                except (CommandRefused, IllegalMove) as error:
                    if not is_fresh:  # our cache may be behind another replica: judge on the log's state
                        record, is_fresh = await self._refresh(game_id), True
                        continue
                    if isinstance(error, IllegalMove):
                        metrics.MOVES_REFUSED.labels("illegal").inc()
                        status = 409 if error.code in CONFLICT_CODES else 422
                        raise CommandRefused(status, error.reason, error.code) from error
                    metrics.MOVES_REFUSED.labels(error.code).inc()
                    raise
                team = record.engine.side_channel(record.position, seat, move)
                if team is not None:
                    after = await self._append_side(record, team, seat, move, actor, chosen_by, applied)
                    if after is None:
                        metrics.APPEND_CONFLICTS.inc()
                        record, is_fresh = await self._refresh(game_id), True
                        continue
                    metrics.MOVES.labels(record.module.game, chosen_by).inc()
                    return after
                data = _sealed_move_data(record, seat, move, chosen_by, applied)
                appended = await self._append_event(record, EventType.MOVE_MADE, actor, data, applied)
                if appended is None:
                    metrics.APPEND_CONFLICTS.inc()
                    record, is_fresh = await self._refresh(game_id), True
                    continue
                metrics.MOVES.labels(record.module.game, chosen_by).inc()
                return appended
        raise CommandRefused(409, "Die Partie ist gerade sehr umkämpft; bitte erneut versuchen.", "busy")

    async def leave(self, game_id: str, seat: int, player_id: str) -> GameRecord:
        """Record that the human at `seat` left: the computer plays on for the seat from now on."""
        _check_id(game_id)
        async with self._lock(game_id):
            record = await self._refresh(game_id)
            for _attempt in range(5):
                if record.ended is not None or record.is_over:
                    raise CommandRefused(409, "Die Partie ist schon zu Ende.", "game_over")
                if seat in record.left:
                    raise CommandRefused(409, "Du hast die Partie schon verlassen.", "already_left")
                data = PlayerLeft(seat=seat, player_id=player_id,
                                  with_other_humans=record.has_other_humans(seat)).to_data()
                after = await self._append_next(record, EventType.PLAYER_LEFT, player_id, data)
                if after is None:
                    record = await self._refresh(game_id)
                    continue
                return after
        raise CommandRefused(409, "Die Partie ist gerade sehr umkämpft; bitte erneut versuchen.", "busy")

    async def finish(self, game_id: str) -> GameRecord:
        """Append GameEnded if the game is over and not yet ended: the outcome, the revealed seed (a daily
        game's stays hidden: "" and when it shows), and for a solo mode's game its list keys; the badges the
        game earned when the game has any (`modes.ended_fields`)."""
        async with self._lock(game_id):
            record = await self._refresh(game_id)
            while record.ended is None and record.is_over:
                outcome = record.engine.outcome(record.position)
                data = GameEnded(
                    game=record.module.game, variant=record.variant, rules=record.module.rules_id,
                    table_id=record.table_id,
                    seats=[EndedSeat(**seat.to_json()) for seat in record.seats],
                    outcome=Outcome.from_data(outcome.to_json()),
                    left=sorted(record.left), left_with_other_humans=sorted(record.left_with_others),
                    **ended_fields(record, outcome),
                ).to_data()
                after = await self._append_next(record, EventType.GAME_ENDED, "system", data)
                if after is None:
                    record = await self._refresh(game_id)
                    continue
                record = after
                metrics.GAMES_ENDED.labels(record.module.game).inc()
            return record

    # ---- internals --------------------------------------------------------------------------------
    async def _append_next(self, record: GameRecord, event_type: str, actor: str, data: dict[str, Any],
                           applied: Step | None = None) -> GameRecord | None:
        """Append the event after `record` and return the game with it folded on (`applied`: the move's
        step, already computed); None if another writer appended first (the caller decides again)."""
        appended = await self._append_event(record, event_type, actor, data, applied)
        return None if appended is None else self._fold_now(appended)

    async def _append_event(self, record: GameRecord, event_type: str, actor: str, data: dict[str, Any],
                            applied: Step | None = None) -> Appended | None:
        """Append the event after `record` and return it as stored; None if another writer appended first."""
        event = self._signed(new_event(game_id=record.game_id, n=record.n + 1, type=event_type, actor=actor,
                                       rules=record.module.rules_id, prev=record.last_hash, data=data))
        hint = None
        if applied is not None and event_type == EventType.MOVE_MADE and self._hints.is_sealing:
            hint = hint_after_move(record, applied.position, event)
        sent = time.monotonic()
        try:
            seq = await self._append(event, expected_last_seq=record.last_seq, hint=hint)
        except AppendConflict:
            # Another writer was first: the next read must look for its event, not trust a "nothing newer" (on a
            # cluster a lagging replica of the stream may still say so).
            self._confirmed.pop(record.game_id, None)
            return None
        self._confirmed[record.game_id] = sent  # the log ended with this very event when it was stored
        if event_type == EventType.GAME_ENDED:
            event = _as_stored(event)  # its outcome is kept whole in the record (a move's effects are packed)
        return Appended(before=record, stored=StoredEvent(seq=seq, event=event), applied=applied,
                        hinted=hint is not None)

    async def _append_side(self, record: GameRecord, team: tuple[int, ...], seat: int, move: dict[str, Any],
                           actor: str, chosen_by: str, applied: Step) -> GameRecord | None:
        """Append a side move to its team's log after `record` (bound to its event n by number and hash) and return
        the game with it folded on; None if another writer appended to that team log first."""
        head = next((head for head in record.team_logs if head.seats == team and seat in head.seats), None)
        if head is None:
            raise CorruptLog(f"game {record.game_id}: the rules name a team {team} without a team log")
        side = SideMove(team=head.team, seats=head.seats, after=record.n, after_hash=record.last_hash, seat=seat,
                        move=move, chosen_by=chosen_by, effects=applied.effects)
        # Signed like a game event, over the team's own message (signing.signed_message: team<k>), once, before the
        # append: a side move's receipt is its entry's.
        event = _as_stored(self._signed(side_event(game_id=record.game_id, n=head.n + 1, prev=head.last_hash,
                                                   actor=actor, rules=record.module.rules_id, side=side), head.team))
        started = time.perf_counter()
        try:
            seq = await self._log.append_team(event, head.team, team_msg_id(record.game_id, head.team, event.n),
                                              head.last_seq)
        except AppendConflict:
            return None
        finally:
            metrics.APPEND_SECONDS.observe(time.perf_counter() - started)
        after = record.fold_side(StoredEvent(seq=seq, event=event), applied)
        self._remember(after)
        return after

    async def _refresh_sides(self, game_id: str, record: GameRecord) -> GameRecord:
        """Catch a game with team logs up with its log and its team logs, folded in their one order
        (`records.fold_merged`); folded afresh from all of them when a team entry came in behind the record."""
        last = await self._log.last_sequence(game_id)
        if last == 0 and record.ended is not None:
            return record  # an ended game never changes (purged: docs/archive.md)
        if 0 < last < record.last_seq:
            return record  # a lagging replica of the stream answered (`_refresh`)
        if last == 0:
            return await self._replay_sides(game_id)
        tail = [] if last == record.last_seq else await self._log.read(game_id, after_seq=record.last_seq)
        side: list[StoredEvent] = []
        for head in record.team_logs:
            side += await self._log.read_team(game_id, head.team, after_seq=head.last_seq)
        if not tail and not side:
            return record
        try:
            return fold_merged(record, tail, side)
        except OutOfOrder:
            return await self._replay_sides(game_id)

    async def _replay_sides(self, game_id: str) -> GameRecord:
        """Fold a game with team logs afresh from all its logs (from the stream, or all from the archive)."""
        events = await self._log.read(game_id)
        if events:
            first = begin(events[0])
            side = [stored for head in first.team_logs for stored in await self._log.read_team(game_id, head.team)]
        else:
            events = await self._archive.events(game_id)
            if not events:
                raise GameNotFound(game_id)
            side = await self._archive.team_events(game_id)
        return replay(events, side)

    async def _append(self, event: Event, expected_last_seq: int, hint: FollowupHint | None = None) -> int:
        started = time.perf_counter()
        try:
            if hint is None:
                seq = await self._log.append(event, expected_last_seq)
            else:
                seal = self._hints
                seq = await self._log.append(event, expected_last_seq,
                                             lambda data: seal.headers(hint, event.game_id, event.n, data))
        finally:
            metrics.APPEND_SECONDS.observe(time.perf_counter() - started)
        # In the trace of the request or message that made it (its trace id follows the event to the follow-up,
        # the bots, ledger and leaderboard); what was moved is not logged: it may be a seat's secret.
        if debug_enabled():
            get_logger(game_id=event.game_id).debug("event_appended", n=event.n, type=event.type, seq=seq)
        return seq

    async def _at_least(self, game_id: str, n: int) -> GameRecord:
        """The game at event `n` or later, as a caller that saw event `n` expects: read again while the log as read
        ends before it and the stream's leader holds more (a lagging replica of the stream answered the read;
        LogBehind when it stays behind). Where the leader's log ends there too, that record is returned: the
        caller's event `n` is not in the log (its check then refuses the move as stale)."""
        record = await self._refresh(game_id)
        if record.n >= n or await self._log.leader_last_sequence(game_id) <= record.last_seq:
            return record
        for _attempt in range(LAGGING_READS):
            await asyncio.sleep(LAGGING_PAUSE)
            record = await self._refresh(game_id)
            if record.n >= n:
                return record
        raise LogBehind(game_id, n)

    async def _refresh(self, game_id: str) -> GameRecord:
        """Catch the cached record up with the log (or rebuild it); 404 when the game has no log."""
        record = self._current(game_id)
        if record is not None and record.team_logs:
            started = time.perf_counter()
            record = await self._refresh_sides(game_id, record)
            metrics.REPLAY_SECONDS.observe(time.perf_counter() - started)
            self._remember(record)
            return record
        if record is None:
            started = time.perf_counter()
            record = await self._thaw(game_id)
            if record is not None:
                metrics.REPLAY_SECONDS.observe(time.perf_counter() - started)
                self._remember(record)
                return record
        if record is not None and self._trusts_nothing_newer(game_id, record):
            asked = time.monotonic()
            if not await self._log.has_after(game_id, record.last_seq):
                self._confirmed[game_id] = asked
                self._cache.move_to_end(game_id)
                return record
        asked = time.monotonic()
        last = await self._log.last_sequence(game_id)
        if record is not None and (record.last_seq == last or 0 < last < record.last_seq):
            # Behind the cached record (0 < last): a replica of the stream that lags its leader answered the read
            # (on a cluster any replica answers); the record, from a newer read or this replica's own append, stays.
            if record.last_seq == last:
                self._confirmed[game_id] = asked
            self._cache.move_to_end(game_id)
            return record
        started = time.perf_counter()
        if last == 0:  # nothing on the stream: no such game, or one archived and purged (docs/archive.md)
            if record is not None:
                # An ended game never changes; a running one is never purged: a lagging replica answered.
                self._cache.move_to_end(game_id)
                return record
            events = await self._archive.events(game_id)
            if not events:
                raise GameNotFound(game_id)
            record = replay(events)
        elif record is None:
            record = replay(await self.events(game_id))  # purged between the two reads: from the archive
        else:
            record = fold_on(record, await self._log.read(game_id, after_seq=record.last_seq))
        if record.team_logs:  # first read of a game with team logs: fold them in at their places
            record = await self._replay_sides(game_id)
        metrics.REPLAY_SECONDS.observe(time.perf_counter() - started)
        self._remember(record)
        self._confirmed[game_id] = asked
        return record

    def _trusts_nothing_newer(self, game_id: str, record: GameRecord) -> bool:
        """Whether "nothing newer" from `GameLog.has_after` proves the cached record current: always for an ended
        game (it never changes, purged or not), for a running one only within `_quiet_trust` of the moment it was
        last seen at the log's end (a purge since would need a GameEnded since, and the grace after it)."""
        if record.ended is not None:
            return True
        confirmed = self._confirmed.get(game_id)
        return confirmed is not None and time.monotonic() - confirmed < self._quiet_trust

    async def _thaw(self, game_id: str) -> GameRecord | None:
        """Return the game from its latest snapshot with the log's tail folded on; None when there is no snapshot
        this code can use or the log does not bear it out (the caller folds the whole log).

        The log is read from the snapshot's own last event on (one batched read, to its end), and that event
        must be the one the snapshot was taken after: same stream sequence, number and hash.
        """
        record = await self._snapshots.load(game_id)
        if record is None:
            return None
        events = await self._log.read(game_id, after_seq=record.last_seq - 1)
        if not events:  # purged from the stream since (docs/archive.md): the archive holds the same events
            events = [stored for stored in await self._archive.events(game_id) if stored.seq >= record.last_seq]
        first = events[0] if events else None
        if first is None or (first.seq, first.event.n, first.event.hash) != (record.last_seq, record.n,
                                                                               record.last_hash):
            metrics.SNAPSHOT_LOADS.labels("behind_log").inc()
            get_logger(game_id=game_id).warning("snapshot_not_in_log", n=record.n, seq=record.last_seq)
            return None
        try:
            record = fold_on(record, events[1:])
        except CorruptLog:
            return None  # the whole fold says so, with its reason
        metrics.SNAPSHOT_LOADS.labels("used").inc()
        return record

    def _current(self, game_id: str) -> GameRecord | None:
        """The game's cached record (None if not cached), with a move appended and answered folded on first."""
        if game_id in self._unfolded:
            self._fold_unfolded(game_id)
        return self._cache.get(game_id)

    def _fold_now(self, appended: Appended) -> GameRecord:
        """Fold `appended` on (raising what folding raises) and return the game after it."""
        after = appended.fold()
        self._remember(after)
        self._snapshot_if_due(appended, after)
        return after

    def _snapshot_if_due(self, appended: Appended, after: GameRecord) -> None:
        """Store a snapshot of `after` in the background when its event is a 16th and was hinted: the follow-up
        does not fold a hinted event, so the table that appended it, which just folded it, keeps the snapshot
        (docs/snapshots.md). Unhinted events' snapshots stay the follow-up's, which folds them."""
        if not appended.hinted or appended.n % SNAPSHOT_EVERY:
            return
        task = asyncio.get_running_loop().create_task(self.keep_snapshot(after))
        self._saving.add(task)
        task.add_done_callback(self._saving.discard)

    def _fold_after_reply(self, appended: Appended) -> None:
        """Fold `appended` on two rounds of the loop from now: the next round writes the reply that reports it
        (libs/platform/nats_client.py writes what a round published in the round after it), so the fold
        follows the answer instead of delaying it. Whoever reads the game before then folds it on first."""
        self._unfolded[appended.game_id] = appended
        loop = asyncio.get_running_loop()
        loop.call_soon(loop.call_soon, self._fold_unfolded, appended.game_id)

    def _fold_unfolded(self, game_id: str) -> None:
        """Fold on the game's appended move, if it is still waiting and the cache still holds the game before it."""
        appended = self._unfolded.pop(game_id, None)
        if appended is None or self._cache.get(game_id) is not appended.before:
            return  # folded already, or the game left the cache: a later read folds the log on
        try:
            after = appended.fold()
            self._remember(after)
            self._snapshot_if_due(appended, after)
        except CorruptLog:
            # Our own event does not fold on (a rule module's bug): forget the game, so that the next read
            # rebuilds it from the log and reports the corruption there.
            get_logger(game_id=game_id).error("own_move_not_folded", n=appended.n)
            self._cache.pop(game_id, None)

    def _remember(self, record: GameRecord) -> None:
        self._cache[record.game_id] = record
        self._cache.move_to_end(record.game_id)
        while len(self._cache) > self._cache_size:
            evicted, _ = self._cache.popitem(last=False)
            self._locks.pop(evicted, None)
            self._confirmed.pop(evicted, None)
            self._unfolded.pop(evicted, None)
        metrics.CACHED_GAMES.set(len(self._cache))

    def _lock(self, game_id: str) -> asyncio.Lock:
        return self._locks.setdefault(game_id, asyncio.Lock())

    def _signed(self, event: Event, team: int | None = None) -> Event:
        """`event` with the table's signature of its hash beside it (once per event, before its append; `team`: an
        entry of that team's log, signed over the team's message)."""
        return event if self.keyring is None else self.keyring.signed(event, team)


def _as_stored(event: Event) -> Event:
    """Return `event` as every other replica (and the archive) reads it back: decoded from its stored bytes, its
    keys in the log's canonical order rather than the rules', so views built from it match theirs byte for byte."""
    return Event.decode(event.encode())


def _sealed_move_data(record: GameRecord, seat: int, move: dict[str, Any], chosen_by: str,
                      step: Step) -> dict[str, Any]:
    """Return the data of the MoveMade after `record`: a private move or effect is sealed for its audience
    (others see a digest)."""
    n, index = record.n + 1, 0

    def sealed(part: dict[str, Any], audience: tuple[int, ...] | None) -> dict[str, Any]:
        nonlocal index
        if audience is None:
            return part
        index += 1
        return seal(part, audience, salt_for(record.seed, record.game_id, n, index))

    return MoveMade(seat=seat, move=sealed(move, step.move_audience), chosen_by=chosen_by,
                    effects=[sealed(effect, audience_of(effect)) for effect in step.effects]).to_data()


def _check_can_move(record: GameRecord, seat: int, actor: str, chosen_by: str, expected_n: int | None) -> None:
    """Refuse a decision taken on an older position, or one by a player for a seat they left (over HTTP or
    over NATS alike); everything else the engine checks."""
    if expected_n is not None and record.n != expected_n:
        raise CommandRefused(409, "Der Spielstand hat sich inzwischen geändert.", "stale")
    if record.ended is not None:
        raise CommandRefused(409, "Die Partie ist schon zu Ende.", "game_over")
    if 0 <= seat < len(record.seats) and seat in record.left and (
            chosen_by not in CHOSEN_FOR_DEPARTED or actor == record.seats[seat].player_id):
        raise LeftGame()


CONFLICT_CODES = frozenset({"game_over"})
"""Refusals of the engine that mean "the game has moved on" (409) rather than "this move is wrong" (422)."""


_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""A game id is one NATS subject token: ASCII letters, digits, "-" and "_" (no dots, wildcards, spaces)."""


def _check_id(game_id: str) -> None:
    """Refuse (404) an id no game can have, without naming it: it may hold NUL, RTL marks or wildcards."""
    if _GAME_ID.fullmatch(game_id) is None:
        raise CommandRefused(404, "Diese Partie gibt es nicht.", "game_not_found")


def _validate_platform(raw: PlatformSettings | None) -> PlatformSettings:
    """Return the platform settings of a game: think time per decision (None: no clock), tempo, turbo, stake."""
    raw = raw or PlatformSettings()
    try:
        return PlatformSettings(think_time=options.think_time(raw.think_time), tempo=options.tempo(raw.tempo),
                                turbo=options.turbo(raw.turbo), stake=options.stake(raw.stake))
    except options.InvalidTableOption as error:
        raise CommandRefused(422, error.reason, error.code) from error


def _validate_seats(raw: list[StartSeat]) -> list[GameSeat]:
    """The seats of a game to start, as the log will name them; refused (422) when malformed, or when two seats
    name one human (a player holds one seat of a game; computers, without a player id, any number)."""
    if not raw:
        raise CommandRefused(422, "Die Partie braucht Plätze.", "malformed")
    first_seat: dict[str, int] = {}
    for i, seat in enumerate(raw):
        if seat.kind == "human" and seat.player_id:
            earlier = first_seat.setdefault(seat.player_id, i)
            if earlier != i:
                raise CommandRefused(422, f"Platz {earlier + 1} und Platz {i + 1} nennen denselben Spieler: jeder "
                                          "Mensch spielt auf genau einem Platz einer Partie.", "two_seats_one_player")
    seats = []
    for i, seat in enumerate(raw):
        if seat.kind not in SEAT_KINDS:
            raise CommandRefused(422, f"Platz {i + 1} ist ungültig beschrieben.", "malformed")
        if seat.kind == "bot" and seat.level not in options.BOT_LEVELS:
            raise CommandRefused(422, f"Platz {i + 1}: {options.TEXTS['bot_level']}", "invalid_bot_level")
        if seat.kind == "human" and not seat.player_id:
            raise CommandRefused(422, f"Platz {i + 1}: Spieler fehlt.", "malformed")
        if seat.kind == "bot" and seat.name and seat.name not in BOT_NAMES:
            raise CommandRefused(422, f"Platz {i + 1}: Computergegner heißen „Computer“ oder „Computer 1“, "
                                 "„Computer 2“ und so fort.", "invalid_bot_name")
        name = seat.name or ("Computer" if seat.kind == "bot" else f"Platz {i + 1}")
        seats.append(GameSeat(name=name[:40], kind=seat.kind, player_id=seat.player_id,
                              level=seat.level if seat.kind == "bot" else None, account=seat.account))
    return seats


def games_of(runtime: Runtime) -> Games:
    """The table process's games (`create_app` puts them into the runtime)."""
    games: Games = runtime.extras["games"]
    return games

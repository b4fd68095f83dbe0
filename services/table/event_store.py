"""A game's event log on JetStream: one subject per game, appends guarded by the subject's last sequence."""

from __future__ import annotations

from dataclasses import dataclass

from nats.js import JetStreamContext
from nats.js.errors import APIError, NotFoundError

from libs.platform.contracts.subjects import GAMES_STREAM, game_subject
from libs.platform.envelope import Event

# JetStream's answer when Nats-Expected-Last-Subject-Sequence no longer holds: another writer was first.
WRONG_LAST_SEQUENCE = 10071


class AppendConflict(Exception):
    """Someone else appended to this game's log first; reload and decide again."""


@dataclass(frozen=True)
class StoredEvent:
    """An event together with its stream sequence (the optimistic-concurrency token)."""

    seq: int
    event: Event


class GameLog:
    """Reads and appends the events of games on the GAMES stream."""

    def __init__(self, js: JetStreamContext) -> None:
        self._js = js

    async def last_sequence(self, game_id: str) -> int:
        """Return the stream sequence of the game's latest event, 0 when the game has none."""
        try:
            msg = await self._js.get_last_msg(GAMES_STREAM, game_subject(game_id))
        except NotFoundError:
            return 0
        return int(msg.seq or 0)

    async def read(self, game_id: str, after_seq: int = 0) -> list[StoredEvent]:
        """Return the game's events stored after stream sequence `after_seq`, oldest first."""
        subject = game_subject(game_id)
        last = await self.last_sequence(game_id)
        events: list[StoredEvent] = []
        seq = after_seq
        while seq < last:
            try:
                msg = await self._js.get_msg(GAMES_STREAM, seq=seq + 1, subject=subject, next=True)
            except NotFoundError:
                break
            assert msg.seq is not None and msg.data is not None
            events.append(StoredEvent(seq=msg.seq, event=Event.decode(msg.data)))
            seq = msg.seq
        return events

    async def append(self, event: Event, expected_last_seq: int) -> int:
        """Append `event` if the game's log still ends at `expected_last_seq`; return its sequence.

        Raises AppendConflict when another writer appended first. A retried append of the same event
        (same Nats-Msg-Id) is stored once.
        """
        headers = {
            "Nats-Msg-Id": event.msg_id,
            "Nats-Expected-Last-Subject-Sequence": str(expected_last_seq),
        }
        try:
            ack = await self._js.publish(game_subject(event.game_id), event.encode(), headers=headers,
                                         stream=GAMES_STREAM)
        except APIError as error:
            if error.err_code == WRONG_LAST_SEQUENCE:
                raise AppendConflict(str(error)) from error
            raise
        if ack.duplicate:
            # Our own earlier attempt was stored; whoever stored it, the log holds this n exactly once.
            raise AppendConflict("duplicate append")
        return int(ack.seq)

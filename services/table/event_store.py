"""A game's event log on JetStream: one subject per game, appends guarded by the subject's last sequence."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

import msgspec
import nats.errors
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.errors import APIError, NotFoundError

from libs.platform.contracts.subjects import GAMES_STREAM, game_subject, team_subject
from libs.platform.envelope import Event
from libs.platform.nats_client import last_message, next_message
from libs.platform.rpc import UNAVAILABLE
from libs.platform.tracing import with_trace

# JetStream's answer when Nats-Expected-Last-Subject-Sequence no longer holds: another writer was first.
WRONG_LAST_SEQUENCE = 10071
# A clustered stream's answer while a message with the same Nats-Msg-Id is being replicated (a single server never
# gives it): another writer is storing this very event number right now, or our own earlier attempt is.
MSG_ID_IN_PROCESS = 10158
APPEND_PATIENCE = 12.0
"""Seconds an append keeps trying while JetStream cannot take it (a stream's leader lost: a new one is elected in
about 4 s on a 3-node cluster; the connection's node lost: the client reconnects to another)."""
APPEND_RETRY_PAUSE = 0.25


class AppendConflict(Exception):
    """Someone else appended to this game's log first; reload and decide again."""


@dataclass(frozen=True)
class StoredEvent:
    """An event together with its stream sequence (the optimistic-concurrency token)."""

    seq: int
    event: Event


READ_BATCH = 1000
"""Events one direct-get batch returns at most (a game has a few hundred at the very most)."""
READ_TIMEOUT = 5.0


class GameLog:
    """Reads and appends the events of games on the GAMES stream.

    Reads use JetStream's direct get (the stream allows it): the last message of a game's subject in one
    request, and all of a game's events after a sequence in one batched request (one reply per event,
    then an end-of-batch status), instead of one API request per event.
    """

    def __init__(self, js: JetStreamContext, nc: NatsClient | None = None) -> None:
        self._js = js
        self._nc: NatsClient = nc if nc is not None else js._nc

    async def last_sequence(self, game_id: str) -> int:
        """Return the stream sequence of the game's latest event, 0 when the game has none.

        One direct get of the subject's last message, read from its `Nats-Sequence` header (what
        nats-py's `get_last_msg` returns too, without lifting the reply into a stream message and parsing
        its timestamp: every view asks this once).
        """
        msg = await last_message(self._nc, GAMES_STREAM, game_subject(game_id), READ_TIMEOUT)
        return 0 if msg is None else int((msg.headers or {}).get("Nats-Sequence") or 0)

    async def has_after(self, game_id: str, seq: int) -> bool:
        """Return True if the game's subject holds an event stored after stream sequence `seq`.

        One direct get of the next event from `seq` + 1: "nothing newer" comes back as a bare 404, where
        `last_sequence` brings the whole last event (1–2 KB and its headers) only for its sequence. It cannot
        tell "nothing newer" from "purged since" (docs/archive.md): `Games` asks it only where a purge cannot
        have happened in between.
        """
        return await next_message(self._nc, GAMES_STREAM, game_subject(game_id), seq + 1, READ_TIMEOUT) is not None

    async def leader_last_sequence(self, game_id: str) -> int:
        """Return the stream sequence of the game's latest event as the stream's leader stores it (JetStream's
        regular get: on a cluster a direct get may be answered by a replica a few messages behind), 0 when none."""
        try:
            msg = await self._js.get_last_msg(GAMES_STREAM, game_subject(game_id))
        except NotFoundError:
            return 0
        return int(msg.seq or 0)

    async def team_last_sequence(self, game_id: str, team: int) -> int:
        """Return the stream sequence of the last entry of a game's team log, 0 when it has none."""
        msg = await last_message(self._nc, GAMES_STREAM, team_subject(game_id, team), READ_TIMEOUT)
        return 0 if msg is None else int((msg.headers or {}).get("Nats-Sequence") or 0)

    async def read_team(self, game_id: str, team: int, after_seq: int = 0) -> list[StoredEvent]:
        """Return the entries of a game's team log stored after stream sequence `after_seq`, oldest first."""
        return await self._read_subject(team_subject(game_id, team), after_seq)

    async def read(self, game_id: str, after_seq: int = 0) -> list[StoredEvent]:
        """Return the game's events stored after stream sequence `after_seq`, oldest first."""
        return await self._read_subject(game_subject(game_id), after_seq)

    async def _read_subject(self, subject: str, after_seq: int) -> list[StoredEvent]:
        events: list[StoredEvent] = []
        start = after_seq + 1
        while True:
            batch, pending = await self._read_batch(subject, start)
            events += batch
            if not pending or not batch:
                return events
            start = batch[-1].seq + 1

    async def _read_batch(self, subject: str, start: int, size: int = READ_BATCH) -> tuple[list[StoredEvent], int]:
        """Return up to `size` events of `subject` from stream sequence `start`, and how many are left.

        The replies are collected by the subscription's callback as they arrive, in order (nats-py runs one
        subscription's callbacks one after another), rather than awaited one by one with `next_msg`,
        which costs a task and a timer per event; the whole batch may take READ_TIMEOUT.
        """
        events: list[StoredEvent] = []
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        async def collect(msg: Msg) -> None:
            if done.done():
                return
            headers = msg.headers or {}
            status = headers.get("Status")
            try:
                if status == "404":  # nothing (more) on this subject
                    done.set_result(0)
                elif status is not None:  # "204 EOB": the end of this batch
                    done.set_result(int(headers.get("Nats-Num-Pending") or 0))
                else:
                    events.append(StoredEvent(seq=int(headers["Nats-Sequence"]), event=Event.decode(msg.data)))
            except Exception as error:  # an unreadable reply fails the read, as it did when awaited
                done.set_exception(error)

        replies = await self._nc.subscribe(self._nc.new_inbox(), cb=collect)
        try:
            request = msgspec.json.encode({"seq": start, "next_by_subj": subject, "batch": size})
            await self._nc.publish(f"$JS.API.DIRECT.GET.{GAMES_STREAM}", request, reply=replies.subject)
            try:
                pending = await asyncio.wait_for(done, READ_TIMEOUT)
            except TimeoutError:
                raise nats.errors.TimeoutError from None
            return events, pending
        finally:
            await replies.unsubscribe()

    async def append(self, event: Event, expected_last_seq: int,
                     headers_for: Callable[[bytes], dict[str, str]] | None = None) -> int:
        """Append `event` if the game's log still ends at `expected_last_seq`; return its sequence.

        Raises AppendConflict when another writer appended first. A retried append of the same event
        (same Nats-Msg-Id) is stored once. `headers_for` gives headers to store beside the event, from its
        stored bytes (the follow-up's hint: followup_hints.py); they are no part of the event.
        """
        return await self._append_to(game_subject(event.game_id), event, event.msg_id, expected_last_seq, headers_for)

    async def append_team(self, event: Event, team: int, msg_id: str, expected_last_seq: int) -> int:
        """Append a team-log entry if that team log still ends at `expected_last_seq`; return its sequence
        (AppendConflict when another writer was first)."""
        return await self._append_to(team_subject(event.game_id, team), event, msg_id, expected_last_seq)

    async def _append_to(self, subject: str, event: Event, msg_id: str, expected_last_seq: int,
                         headers_for: Callable[[bytes], dict[str, str]] | None = None) -> int:
        """Store `event` on `subject` if it still ends at `expected_last_seq`: exactly once, also when JetStream
        cannot answer for a while (a leader election, the connection's node lost).

        An attempt that got no answer may have been stored all the same, so the same bytes are sent again (same
        Nats-Msg-Id, same expected sequence) for up to APPEND_PATIENCE seconds; once JetStream answers that the
        id is taken or the subject moved on, the event stored right after `expected_last_seq` tells whether it is
        this one (then its sequence is returned) or another writer's (AppendConflict). After that the error of
        the last attempt is raised (the caller answers 503: try again). `headers_for` adds headers computed from the
        event's bytes (the follow-up's sealed hint).
        """
        # The trace context travels in the headers, never in the event: its bytes are hashed and signed.
        headers = with_trace({
            "Nats-Msg-Id": msg_id,
            "Nats-Expected-Last-Subject-Sequence": str(expected_last_seq),
        })
        payload = event.encode()
        if headers_for is not None:
            headers.update(headers_for(payload))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + APPEND_PATIENCE
        unanswered = False  # an earlier attempt got no answer: it may be stored
        while True:
            try:
                ack = await self._js.publish(subject, payload, headers=headers, stream=GAMES_STREAM)
            except APIError as error:
                if error.err_code == MSG_ID_IN_PROCESS and unanswered and loop.time() < deadline:
                    await asyncio.sleep(APPEND_RETRY_PAUSE)  # likely our own attempt, still being replicated
                    continue
                if error.err_code in (WRONG_LAST_SEQUENCE, MSG_ID_IN_PROCESS):
                    if unanswered and (seq := await self._stored_as(subject, event, expected_last_seq)):
                        return seq
                    raise AppendConflict(str(error)) from error
                if not isinstance(error, UNAVAILABLE) or loop.time() >= deadline:
                    raise
            except UNAVAILABLE:
                if loop.time() >= deadline:
                    raise
            else:
                if not ack.duplicate:
                    return int(ack.seq)
                # This id is stored: by an earlier attempt of ours, or by another writer of the same event number.
                if seq := await self._stored_as(subject, event, expected_last_seq):
                    return seq
                raise AppendConflict("duplicate append")
            unanswered = True
            await asyncio.sleep(APPEND_RETRY_PAUSE)

    async def _stored_as(self, subject: str, event: Event, expected_last_seq: int) -> int:
        """The stream sequence of `event` if it is the entry stored on `subject` right after `expected_last_seq`
        (the same hash: the same event, with the same time stamp and signature), else 0."""
        following, _ = await self._read_batch(subject, expected_last_seq + 1, size=1)
        return following[0].seq if following and following[0].event.hash == event.hash else 0

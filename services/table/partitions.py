"""Game affinity: each table API replica serves a share of the games' command partitions, held as leases in
JetStream's key-value store (docs/architecture.md, "Game affinity").

nats-server maps `table.cmd.<command>.<game>` onto `table.part.<k>.cmd.<command>.<game>` (k = partition(60, game),
libs/platform/nats_mappings.py). A replica serves partition k only while it holds k's lease: key `partition.<k>`
of bucket TABLE_LEASES, its value the replica's id, written with a per-message TTL (`Nats-TTL`) and renewed every
third of it with the revision it last wrote (`Nats-Expected-Last-Subject-Sequence`). A replica that dies stops
renewing; the server drops its keys when their TTL runs out, and the living replicas create them anew. Who is
alive is the bucket too: every replica renews `replica.<id>` the same way, and each takes an even share of the
partitions among the ids it finds (sorted, so the shares add up to all of them), taking free partitions up to its
share and letting go of those above it.

Nothing here decides correctness: two replicas serving one partition for a moment (a lease taken over from a
replica that was only slow) split its commands, and the game's log refuses the loser's append (error 10071) as it
always did. A partition nobody holds (a handover) is answered by the shared subject every replica serves
(`rpc.call` falls back on "no responders"). Leases decide only which replica has a game warm.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import secrets
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import msgspec
import nats.errors
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js import JetStreamContext
from nats.js.api import KeyValueConfig, StorageType
from nats.js.errors import APIError, BadRequestError, KeyWrongLastSequenceError, NotFoundError

from libs.platform.contracts.subjects import TABLE_LEASES_BUCKET, TABLE_LEASES_STREAM, TABLE_PARTITIONS
from libs.platform.logging import get_logger
from libs.platform.rpc import stop_answering_on
from services.table.metrics import PARTITIONS_HELD

WRONG_LAST_SEQUENCE = 10071
"""JetStream's refusal of a write whose expected last subject sequence is not the subject's last one."""
READ_TIMEOUT = 2.0
"""Seconds to read every lease of the bucket (one batched direct get)."""
_KEY_PREFIX = f"$KV.{TABLE_LEASES_BUCKET}."
_TOKEN = re.compile(r"[^A-Za-z0-9_-]")

Serve = Callable[[int], Awaitable[list[Subscription]]]
"""Subscribe a partition's commands; returns the subscriptions to drain when the partition is given up."""


def replica_id() -> str:
    """A name for this process, unique among the replicas (host, process id, a random suffix): one key token."""
    return _TOKEN.sub("-", f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}")


def partition_key(partition: int) -> str:
    """The lease key of a partition."""
    return f"partition.{partition}"


def replica_key(replica: str) -> str:
    """The key that says a replica is alive."""
    return f"replica.{replica}"


def share(members: list[str], replica: str, partitions: int = TABLE_PARTITIONS) -> int:
    """How many partitions `replica` should hold among `members` (sorted ids, itself among them): an even share,
    the first `partitions % len(members)` members one more, so the shares add up to `partitions`."""
    ordered = sorted(members)
    base, extra = divmod(partitions, len(ordered))
    return base + (1 if ordered.index(replica) < extra else 0)


async def ensure_lease_bucket(js: JetStreamContext, replicas: int = 1) -> None:
    """Create the lease bucket unless it exists (no bucket TTL: every key carries its own, `Nats-TTL`)."""
    try:
        await js.stream_info(TABLE_LEASES_STREAM)
        return
    except NotFoundError:
        pass
    config = KeyValueConfig(bucket=TABLE_LEASES_BUCKET, history=1, storage=StorageType.FILE, replicas=replicas,
                            direct=True, description="Table API replicas and the command partitions each serves")
    try:
        await js.create_key_value(config)
    except BadRequestError as error:  # another replica created it a moment ago
        if error.err_code != 10058:
            raise


@dataclass
class Lease:
    """A partition this replica holds: the revision it last wrote and the partition's subscriptions."""

    partition: int
    revision: int
    subscriptions: list[Subscription] = field(default_factory=list)


class PartitionLeases:
    """This replica's leases: `tick` renews, takes and gives up partitions; `release` gives up all of them."""

    def __init__(self, nc: NatsClient, js: JetStreamContext, serve: Serve, ttl: int, replica: str | None = None,
                 partitions: int = TABLE_PARTITIONS) -> None:
        self._nc = nc
        self._js = js
        self._serve = serve
        self.ttl = ttl
        self.replica = replica or replica_id()
        self.partitions = partitions
        self.held: dict[int, Lease] = {}
        self._log = get_logger(replica=self.replica)

    async def tick(self) -> None:
        """Renew this replica's own key and its leases, then take free partitions up to its share or give up
        those above it. The writes of a round go out together: under full load one round trip may take long, and
        60 of them one after another would outlast the TTL."""
        await self._write(replica_key(self.replica), None)
        leases = await read_leases(self._nc)
        members = sorted({value for key, value in leases.items() if key.startswith("replica.")} | {self.replica})
        owners = {key: value for key, value in leases.items() if key.startswith("partition.")}
        await asyncio.gather(*(self._renew(partition, owners.get(partition_key(partition)))
                               for partition in list(self.held)))
        wanted = share(members, self.replica, self.partitions)
        if len(self.held) > wanted:
            await self._give_up(random.sample(sorted(self.held), len(self.held) - wanted))
        elif len(self.held) < wanted:
            free = [k for k in range(self.partitions) if partition_key(k) not in owners and k not in self.held]
            # Random, so replicas taking at once mostly try different partitions; one that loses a race to another
            # tries again next round.
            await asyncio.gather(*(self._take(partition)
                                   for partition in random.sample(free, min(len(free), wanted - len(self.held)))))
        PARTITIONS_HELD.set(len(self.held))

    async def release(self) -> None:
        """Give up every partition and this replica's key, so the others take over at their next renewal
        instead of after the TTL (a graceful stop)."""
        await self._give_up(sorted(self.held))
        try:
            # A purge marker that expires itself: no trace of a stopped replica stays in the bucket.
            await self._js.publish(_KEY_PREFIX + replica_key(self.replica), b"", stream=TABLE_LEASES_STREAM,
                                   headers={"KV-Operation": "PURGE", "Nats-Rollup": "sub"}, msg_ttl=max(1, self.ttl))
        except Exception:  # down or gone: the key expires with its TTL anyway
            pass
        PARTITIONS_HELD.set(0)

    async def _renew(self, partition: int, owner: str | None) -> None:
        lease = self.held[partition]
        try:
            if owner == self.replica:
                lease.revision = await self._write(partition_key(partition), lease.revision)
            elif owner is None:  # it ran out (a round came late) and nobody took it: ours again, same subscriptions
                lease.revision = await self._write(partition_key(partition), 0)
            else:  # another replica took it after ours ran out
                await self._drop(partition, "lost")
                return
        except KeyWrongLastSequenceError:  # another replica was first
            await self._drop(partition, "lost")
        except (nats.errors.Error, APIError) as error:  # NATS away for a moment: the next round tries again
            self._log.warning("lease_renewal_failed", partition=partition, error=type(error).__name__)

    async def _take(self, partition: int) -> None:
        revision: int | None
        try:
            revision = await self._write(partition_key(partition), 0)
        except KeyWrongLastSequenceError:  # another replica was first, or the key is a deleted one's marker
            revision = await self._take_deleted(partition)
        if revision is None:
            return
        lease = Lease(partition, revision)
        self.held[partition] = lease
        lease.subscriptions = await self._serve(partition)

    async def _take_deleted(self, partition: int) -> int | None:
        """Take a partition whose last record is a delete marker (given up by its holder); None when it is held."""
        try:
            entry = await self._js.get_msg(TABLE_LEASES_STREAM, subject=_KEY_PREFIX + partition_key(partition),
                                           direct=True)
        except NotFoundError:
            return None
        if (entry.headers or {}).get("KV-Operation") not in ("DEL", "PURGE"):
            return None
        try:
            return await self._write(partition_key(partition), entry.seq)
        except KeyWrongLastSequenceError:
            return None

    async def _give_up(self, partitions: list[int]) -> None:
        await asyncio.gather(*(self._give_up_one(partition) for partition in partitions))

    async def _give_up_one(self, partition: int) -> None:
        lease = self.held.get(partition)
        if lease is None:
            return
        await self._drop(partition, "given_up")
        try:  # only if still ours: never delete a lease another replica holds by now
            await self._js.publish(_KEY_PREFIX + partition_key(partition), b"", stream=TABLE_LEASES_STREAM,
                                   headers={"KV-Operation": "DEL",
                                            "Nats-Expected-Last-Subject-Sequence": str(lease.revision)})
        except (nats.errors.Error, APIError):  # changed meanwhile, or down: the lease expires with its TTL
            pass

    async def _drop(self, partition: int, why: str) -> None:
        lease = self.held.pop(partition, None)
        if lease is None:
            return
        for subscription in lease.subscriptions:
            await stop_answering_on(self._nc, subscription)
        self._log.info("partition_" + why, partition=partition)

    async def _write(self, key: str, expected: int | None) -> int:
        """Write this replica's id under `key` with the TTL; with `expected`, only if the key's last revision is
        that (0: only if there is none). Returns the new revision."""
        headers = None if expected is None else {"Nats-Expected-Last-Subject-Sequence": str(expected)}
        try:
            ack = await self._js.publish(_KEY_PREFIX + key, self.replica.encode(), stream=TABLE_LEASES_STREAM,
                                         headers=headers, msg_ttl=self.ttl)
        except APIError as error:
            if error.err_code == WRONG_LAST_SEQUENCE:
                raise KeyWrongLastSequenceError(description=error.description) from error
            raise
        return int(ack.seq)


async def read_leases(nc: NatsClient, timeout: float = READ_TIMEOUT) -> dict[str, str]:
    """Every live key of the lease bucket with its value (the holder's id), read in one batched direct get of each
    key's last record; keys whose TTL ran out are gone, given-up ones (delete markers) left out."""
    found: dict[str, str] = {}
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def collect(msg: Msg) -> None:
        if done.done():
            return
        headers = msg.headers or {}
        status = headers.get("Status")
        if status == "404" or (status is not None and status.startswith("204")):  # nothing, or the batch's end
            done.set_result(None)
        elif status is not None:
            done.set_exception(APIError(code=int(status), description=headers.get("Description", "")))
        elif headers.get("KV-Operation") not in ("DEL", "PURGE"):
            found[headers["Nats-Subject"].removeprefix(_KEY_PREFIX)] = msg.data.decode()

    replies = await nc.subscribe(nc.new_inbox(), cb=collect)
    try:
        request = msgspec.json.encode({"multi_last": [f"{_KEY_PREFIX}>"], "batch": 4 * TABLE_PARTITIONS + 256})
        await nc.publish(f"$JS.API.DIRECT.GET.{TABLE_LEASES_STREAM}", request, reply=replies.subject)
        try:
            await asyncio.wait_for(done, timeout)
        except TimeoutError:
            raise nats.errors.TimeoutError from None
        return found
    finally:
        await replies.unsubscribe()

"""Snapshots of folded games: a cold replica starts from the game's last snapshot and folds only the tail.

A record is the fold of the log up to one stream sequence, and the event at a stream sequence never changes,
so a snapshot cannot go stale: at worst it is behind, and the tail is folded on. It is only ever a shortcut
(docs/snapshots.md):

- it is used by the code that wrote it alone: its *fingerprint* covers the snapshot format, the Python and
  msgspec versions and the source of every module whose classes it holds (the rules, the record, the
  contracts), so a deploy that changes any of them folds from the log again;
- the game's log must still hold the snapshot's last event at its stream sequence, with its number and hash,
  before the tail is folded on (`Games._thaw`); anything else and the game is folded from the log;
- reading one admits only the classes of those modules (`_Unpickler.find_class`), never a callable.

Written every `SNAPSHOT_EVERY` (16) events and at GameEnded: in a game of humans by the table that appended the
event (`Games`: the follow-up acts on its hint without folding it), else by the follow-up (`followup.py`). The audit,
the replay endpoint and the export never read them: they fold the log.
"""

from __future__ import annotations

import hashlib
import io
import pickle
import sys
import zlib
from dataclasses import fields
from functools import cache
from pathlib import Path
from typing import Any

import msgspec
import nats.errors
from nats.aio.client import Client as NatsClient
from nats.js import JetStreamContext
from nats.js.errors import APIError

from libs.platform.contracts.subjects import GAME_SNAPSHOTS_STREAM, snapshot_subject
from libs.platform.logging import get_logger
from libs.platform.nats_client import last_message
from libs.rules import registry
from services.table import metrics
from services.table.records import GameRecord

SNAPSHOT_FORMAT = b"GSN1"
"""The first bytes of every snapshot (this layout: format, fingerprint, compressed pickle)."""
_PICKLE_AT = len(SNAPSHOT_FORMAT) + hashlib.sha256().digest_size
"""Where the compressed pickle begins: after the format mark and the fingerprint."""
SNAPSHOT_EVERY = 16
"""Events between two snapshots of a running game: a cold replica folds at most 15 on (under 1 ms); the writer
freezes a record (~200–300 µs) once per 16 events."""
PICKLE_PROTOCOL = 5
READ_TIMEOUT = 5.0

_REPO = Path(__file__).resolve().parents[2]
_SOURCES = ("libs/rules", "services/table/records.py", "libs/platform/contracts", "libs/platform/envelope.py")
"""Where the classes a snapshot holds are defined (and the code that folds them)."""
_MODULES = ("libs.rules.", "services.table.records", "libs.platform.contracts.")
"""Modules whose classes a snapshot may name."""
_FUNCTIONS = frozenset({("msgspec._utils", "rebuild")})
"""The one callable a snapshot may name: msgspec's constructor of a pickled Struct (of an admitted class)."""


@cache
def fingerprint() -> bytes:
    """Return the digest of everything a snapshot's meaning depends on (SHA-256), computed once per process."""
    digest = hashlib.sha256(SNAPSHOT_FORMAT)
    digest.update(f"{sys.version_info[0]}.{sys.version_info[1]} pickle {PICKLE_PROTOCOL} "
                  f"msgspec {msgspec.__version__}".encode())
    for source in _SOURCES:
        root = _REPO / source
        for path in sorted(root.rglob("*.py")) if root.is_dir() else [root]:
            digest.update(path.relative_to(_REPO).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.digest()


_ATOMS = (str, int, bool, type(None))


class _SharedTuples:
    """The process's shared copies of small plain tuples, in two generations of at most `size` each.

    Most games hold a few dozen tuples of their own (a wall, the scores) beside the common ones (wall rows,
    settings pairs): a full generation becomes the older one, what is asked for again moves up, and what no
    game asks for any more is dropped. A tuple is its own key, so sharing costs no more than a dict slot; a
    copy is shared only when its items have the same types too, since (1, 0) == (True, False) but a game
    holding one must not be handed the other."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._recent: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        self._older: dict[tuple[Any, ...], tuple[Any, ...]] = {}

    def share(self, value: tuple[Any, ...]) -> tuple[Any, ...]:
        """Return the shared copy of `value` (`value` itself when it is the first)."""
        found = self._recent.get(value)
        if found is None:
            found = self._older.get(value)
            self._put(value if found is None else found)
        if found is None or not _same_types(found, value):
            return value
        return found

    def clear(self) -> None:
        """Forget every shared copy (the games holding one keep it)."""
        self._recent, self._older = {}, {}

    def _put(self, value: tuple[Any, ...]) -> None:
        if len(self._recent) >= self._size:
            self._older, self._recent = self._recent, {}
        self._recent[value] = value


def _same_types(one: tuple[Any, ...], other: tuple[Any, ...]) -> bool:
    """True when two equal tuples also hold items of the same types (inner tuples alike)."""
    return all(type(a) is type(b) and (type(a) is not tuple or _same_types(a, b))
               for a, b in zip(one, other, strict=True))


_SHARED_TUPLES = _SharedTuples(4096)


def forget_shared_tuples() -> None:
    """Start the process's shared tuples afresh, as a replica that has just started holds them (the bench measures
    thawed games' memory from there)."""
    _SHARED_TUPLES.clear()

_JSON = msgspec.json.Decoder()
_ENCODE = msgspec.json.Encoder().encode


def _is_plain_tuple(obj: Any, depth: int = 2) -> bool:
    """A small tuple of words, numbers and flags (or of such tuples, two levels deep at most): immutable, so any
    number of games may share one copy."""
    return type(obj) is tuple and len(obj) <= 16 and all(
        type(item) in _ATOMS or (depth > 1 and _is_plain_tuple(item, depth - 1)) for item in obj)


def _shared(value: Any) -> Any:
    """Return decoded JSON with its arrays as shared tuples (`_SHARED_TUPLES`, inner ones first) and its words
    interned."""
    if type(value) is str:
        return sys.intern(value)
    if type(value) is not list:
        return value
    return _SHARED_TUPLES.share(tuple(_shared(item) for item in value))


def _shared_tuple(encoded: bytes) -> tuple[Any, ...]:
    """Return the tuple `encoded` (JSON) names, shared (`_shared`)."""
    value = _shared(_JSON.decode(encoded))
    if not _is_plain_tuple(value):
        raise pickle.UnpicklingError("a shared tuple is not one")
    return value  # type: ignore[no-any-return]


class _Pickler(pickle.Pickler):
    """Writes interned strings (the rules' words: colours, phases, kinds) and small plain tuples (wall rows,
    settings) as references, so a thawed record shares them with every other cached game instead of holding its
    own copies, as a folded one does. (A reference must not contain the object itself: the pickler asks again
    for every object inside a reference; so a tuple is named by its JSON bytes.)"""

    def persistent_id(self, obj: Any) -> Any:
        if type(obj) is str:
            return obj if len(obj) <= 64 and sys.intern(obj) is obj else None
        if type(obj) is tuple and obj and _is_plain_tuple(obj):
            return _ENCODE(obj)
        return None


class _Unpickler(pickle.Unpickler):
    """Reads a snapshot, admitting only the record's own classes (see `_MODULES`)."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _FUNCTIONS:
            return super().find_class(module, name)
        if module.startswith(_MODULES):
            found = super().find_class(module, name)
            # A class defined there (not one merely imported into it, such as Path or a function).
            if isinstance(found, type) and str(getattr(found, "__module__", "")).startswith(_MODULES):
                return found
        raise pickle.UnpicklingError(f"a snapshot may not name {module}.{name}")

    def persistent_load(self, pid: Any) -> Any:
        if type(pid) is str:
            return sys.intern(pid)
        if type(pid) is bytes:
            return _shared_tuple(pid)
        raise pickle.UnpicklingError("unknown persistent reference")


def freeze(record: GameRecord) -> bytes:
    """Return the snapshot of `record`: format, fingerprint, then the record's fields (its engine by rules id)
    pickled and compressed."""
    state = {field.name: getattr(record, field.name) for field in fields(record) if field.name != "engine"}
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=PICKLE_PROTOCOL).dump((record.module.rules_id, state))
    return SNAPSHOT_FORMAT + fingerprint() + zlib.compress(buffer.getvalue(), 1)


def thaw(data: bytes, game_id: str) -> GameRecord | None:
    """Return the record a snapshot holds; None when it was written by other code (another fingerprint)
    or is not one of `game_id` (metrics say which)."""
    if data[:_PICKLE_AT] != SNAPSHOT_FORMAT + fingerprint():
        metrics.SNAPSHOT_LOADS.labels("other_code").inc()
        return None
    try:
        rules_id, state = _Unpickler(io.BytesIO(zlib.decompress(data[_PICKLE_AT:]))).load()
        record = GameRecord(engine=registry.engine(rules_id), **state)
    except Exception as error:  # unreadable: fold from the log (and say so)
        metrics.SNAPSHOT_LOADS.labels("unreadable").inc()
        get_logger(game_id=game_id).warning("snapshot_unreadable", error=repr(error)[:200])
        return None
    if record.game_id != game_id or type(record.n) is not int or type(record.last_seq) is not int:
        metrics.SNAPSHOT_LOADS.labels("unreadable").inc()
        return None
    return record


class Snapshots:
    """The snapshots of games on the GAME_SNAPSHOTS stream: the latest one per game's subject."""

    def __init__(self, js: JetStreamContext, nc: NatsClient | None = None) -> None:
        self._js = js
        self._nc: NatsClient = nc if nc is not None else js._nc
        fingerprint()  # read the sources now, at startup, not in the first cold load

    async def load(self, game_id: str) -> GameRecord | None:
        """Return the game's latest snapshot as a record, None if there is none this code can use."""
        try:
            msg = await last_message(self._nc, GAME_SNAPSHOTS_STREAM, snapshot_subject(game_id), READ_TIMEOUT)
        except (nats.errors.TimeoutError, nats.errors.NoRespondersError, APIError):
            metrics.SNAPSHOT_LOADS.labels("unreachable").inc()
            return None
        if msg is None:
            metrics.SNAPSHOT_LOADS.labels("missing").inc()
            return None
        return thaw(msg.data, game_id)

    async def save(self, record: GameRecord) -> None:
        """Store a snapshot of `record` as the game's latest (the stream keeps one per game)."""
        await self._js.publish(snapshot_subject(record.game_id), freeze(record), stream=GAME_SNAPSHOTS_STREAM)
        metrics.SNAPSHOTS_WRITTEN.inc()


class NoSnapshots(Snapshots):
    """No snapshots at all (a table without the stream, in-memory logs): every cold game is folded from its log."""

    def __init__(self) -> None:
        pass

    async def load(self, game_id: str) -> GameRecord | None:
        return None

    async def save(self, record: GameRecord) -> None:
        return None

"""The table's export: a finished game's whole log as one JSON document, for its players and operators.

The document (``speed-game-export/1``, field by field in docs/audit.md) is what ``speed audit FILE``
checks with nothing but the published rules. A player's export carries the other seats' private parts
only as digests (it verifies all the same); an operator's is whole.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Header

from libs.audit import EXPORT_FORMAT
from libs.platform.clock import clock_of
from libs.platform.envelope import EventType, utc_stamp
from libs.platform.http_errors import refusals
from libs.platform.private import reveal_for
from libs.platform.responses import JsonBody
from libs.platform.rpc import CommandRefused
from libs.platform.service import RuntimeDep
from libs.rules import registry
from libs.rules.registry import UnknownRules
from services.table.event_store import StoredEvent
from services.table.games import games_of
from services.table.modes import is_revealed
from services.table.records import seats_of
from services.table.team_exports import TeamLogCopy, readable_team_logs, team_logs_field
from services.table.viewers import Viewer, require_player_or_operator, viewer_of

router = APIRouter(prefix="/games", tags=["games"], responses=refusals(401, 403, 404, 409))


@router.get("/{game_id}/export")
async def export_game(game_id: str, runtime: RuntimeDep,
                      authorization: Annotated[str | None, Header()] = None) -> JsonBody:
    """A finished game's whole log with its rules, settings, seats and revealed seed (``speed audit`` checks it).

    Only its players (their own private parts whole, the others' as digests) and operators (everything
    whole) may export it; a running game, or a daily game before its seed is revealed, cannot be exported.
    """
    games = games_of(runtime)
    events = await games.events(game_id)
    started = events[0].event
    # As the replay: no token is a reader who neither played nor runs the platform (403); a header that is
    # no valid token is refused (401).
    viewer = viewer_of(runtime, seats_of(started), authorization)
    require_player_or_operator(viewer)
    ended = events[-1].event
    if ended.type != EventType.GAME_ENDED:
        raise CommandRefused(409, "Die Partie läuft noch; exportieren lässt sie sich erst nach dem Ende, "
                                  "mit offengelegter Saat.", "game_running")
    seed = ended.data.get("seed") or ""
    if not seed:
        record = await games.load(game_id)
        if not is_revealed(record, clock_of(runtime)):
            raise CommandRefused(409, "Die Saat dieser Tagespartie wird erst am "
                                      f"{record.seed_reveal_at} offengelegt; erst dann lässt sie sich exportieren.",
                                 "seed_not_revealed")
        seed = record.seed_hex
    team_logs = await readable_team_logs(games, events[0].event, viewer)
    document = export_document(events, viewer, seed, clock_of(runtime).now(), team_logs)
    keyring = games.keyring
    # The public keys that signed its events and the entries of the team logs it carries (docs/audit.md,
    # "Signatures and receipts"); a key the table no longer knows is left out, and the audit says which events it
    # cannot verify.
    signed = [*events, *(stored for log in team_logs for stored in log.events)]
    document["signing_keys"] = [] if keyring is None else keyring.published_for(
        stored.event.sig["kid"] for stored in signed if stored.event.sig)
    return JsonBody(document, headers={"Content-Disposition": f'attachment; filename="speed-{game_id}.json"'})


def export_document(events: list[StoredEvent], viewer: Viewer, seed: str, now: datetime,
                    team_logs: list[TeamLogCopy] | None = None) -> dict[str, Any]:
    """Return the export of a finished game's log as ``viewer`` may read it (``seed``: the revealed seed, hex),
    made at ``now`` (the platform's clock, the one the seed's reveal is judged by); ``team_logs``: the team logs
    the viewer may read (``readable_team_logs``), added as ``team_logs`` when the game has any."""
    started = events[0].event
    data = started.data
    rules_id = started.rules
    number = rules_id.rpartition("@")[2]
    version: int | None
    try:
        version = registry.get(rules_id).version
    except UnknownRules:
        version = int(number) if number.isdigit() else None
    whole = viewer.is_operator
    return {
        "format": EXPORT_FORMAT,
        "game_id": started.game_id,
        "game": data.get("game"),
        "rules": {"id": rules_id, "game": data.get("game"), "version": version},
        "settings": data.get("settings"),
        "platform": data.get("platform"),
        "seats": [{"seat": index, **seat} for index, seat in enumerate(data.get("seats") or [])],
        "seed": seed,
        "seed_commitment": data.get("seed_commitment"),
        "scope": viewer.scope,
        "viewer_seat": None if whole else viewer.seat,
        "exported_at": utc_stamp(now),
        "events": [_entry(stored, viewer.seat, whole) for stored in events],
        **team_logs_field(team_logs),
    }


def _entry(stored: StoredEvent, seat: int | None, whole: bool) -> dict[str, Any]:
    """Return one event's full envelope: whole for an operator, the other seats' private parts as digests
    for a player (the hash covers the redacted form, so both verify)."""
    body = stored.event.to_json()
    if not whole:
        body["data"] = reveal_for(body["data"], seat)
    return body

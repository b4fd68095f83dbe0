"""The table's signing keys in public, and the receipts its answers carry (docs/audit.md, "Signatures and receipts").

`GET /keys` publishes every key the table ever signed with (the active one marked) with its history (from when it
signed, from when it signs no more), so anyone can verify a game's signatures and a player's receipts without
trusting the export that names them, and check each signature was made while its key was valid; retired keys stay
listed for as long as games signed with them exist (the history is append-only). `receipt_of` turns what a seat's
answer shows the game after into the receipt it carries: the game's last event, or, for a member of a team whose
log's last entry follows that event (a side move), that entry (with `team`); never another team's entry.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from libs.platform.service import RuntimeDep
from libs.platform.signing import ALGORITHM, KEY_ID_HEX, SIGNATURE_CONTEXT
from services.table.games import games_of
from services.table.records import GameRecord

router = APIRouter(tags=["keys"])


class PublishedKey(BaseModel):
    """One Ed25519 verification key of the table."""

    kid: str = Field(description=f"key id: the first {KEY_ID_HEX} hex digits of SHA-256 over the raw public key")
    alg: str = Field(description=f'always "{ALGORITHM}"')
    public_key: str = Field(description="the raw 32-byte public key, lowercase hex (64 digits)")
    active: bool = Field(description="the key new events are signed with (exactly one)")
    created: str | None = Field(default=None, description="when the key was made (UTC, ISO 8601); null: unknown")
    activated: str | None = Field(default=None, description="from when the key signs (it became the active key); "
                                                            "null: unknown (a key of unknown period) or not yet")
    retired: str | None = Field(default=None, description="from when the key signs no more; null: still signing, "
                                                          "or its end not recorded")


class PublishedKeys(BaseModel):
    """The table's verification keys: the active one and every retired one."""

    signed_message: str = Field(description="what each game event's signature is made over, in UTF-8")
    team_signed_message: str = Field(description="what each team-log entry's signature (a side move's) is made "
                                                 "over, in UTF-8 (k: the team's index)")
    active: str | None = Field(description="the active key's id (null: this table signs nothing)")
    keys: list[PublishedKey]


class ReceiptOut(BaseModel):
    """The table's signed receipt of a move's event: keep it to prove later what the log said at event n."""

    game_id: str
    n: int = Field(description="the move's event number in the game's log; for a side move (`team` set) its "
                               "entry number in that team's log")
    hash: str = Field(description="the event's SHA-256 hash, hex (covers the whole envelope but hash and sig)")
    kid: str = Field(description="the id of the key that signed (GET /keys)")
    sig: str = Field(description=f"Ed25519 signature, hex (128 digits), of "
                                 f"\"{SIGNATURE_CONTEXT}:<game_id>:<n>:<hash>\" in UTF-8 (a side move's: "
                                 f"\"{SIGNATURE_CONTEXT}:<game_id>:team<team>:<n>:<hash>\")")
    team: int | None = Field(default=None, description="a side move's receipt (a team signal): the team whose log "
                                                        "holds the entry; absent for a game event's")


class MoveAnswer(BaseModel):
    """The answer to a move: the caller's view after it (as `GET /games/{id}/view`), and the move's receipt."""

    receipt: ReceiptOut | None = Field(default=None, description="null only from a table without signing keys")


@router.get("/keys", response_model=PublishedKeys)
async def signing_keys(runtime: RuntimeDep) -> dict[str, Any]:
    """The table's Ed25519 verification keys: the active one (signs every new event) and every retired one (so
    games signed with it still verify). Also at `/.well-known/speed-keys`."""
    keyring = games_of(runtime).keyring
    return {"signed_message": f"{SIGNATURE_CONTEXT}:<game_id>:<n>:<hash>",
            "team_signed_message": f"{SIGNATURE_CONTEXT}:<game_id>:team<k>:<n>:<hash>",
            "active": None if keyring is None else keyring.active,
            "keys": [] if keyring is None else keyring.published()}


router.add_api_route("/.well-known/speed-keys", signing_keys, methods=["GET"], response_model=PublishedKeys,
                     include_in_schema=False)


def receipt_of(record: GameRecord, seat: int | None = None) -> dict[str, Any] | None:
    """The receipt of what `seat`'s answer shows the game after (None if it is unsigned): the game's last event,
    or, when the last thing folded for `seat` is an entry of their own team's log (a side move after the game's
    last event), that entry's, with ``team``. Only the seat's own team log is looked at, so an opponent or a
    spectator (`seat` None) only ever gets the game event's receipt, whatever the other team signalled."""
    team = record.team_of_seat(seat)
    if team is not None and team.n and team.after == record.n:
        if team.last_sig is None:
            return None
        return {"game_id": record.game_id, "n": team.n, "hash": team.last_hash, "kid": team.last_sig["kid"],
                "sig": team.last_sig["sig"], "team": team.team}
    if record.last_sig is None:
        return None
    return {"game_id": record.game_id, "n": record.n, "hash": record.last_hash, "kid": record.last_sig["kid"],
            "sig": record.last_sig["sig"]}

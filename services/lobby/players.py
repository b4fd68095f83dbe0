"""Handlers for players: guests, registration, login."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from libs.platform.auth import Identity, PlayerKind, issue_token
from libs.platform.logging import get_logger
from libs.platform.rpc import CommandRefused
from libs.platform.service import Runtime
from services.lobby.database import sessions_of
from services.lobby.errors import conflict, invalid
from services.lobby.facts import publish_registration
from services.lobby.limits import (
    ACCOUNT_KEY_MAX,
    account_login_succeeded,
    begin_account_attempt,
    login_failed,
    take_login,
)
from services.lobby.models import Player
from services.lobby.names import check_name, normalize, skeleton
from services.lobby.passwords import hash_password, verify_password

PASSWORD_MIN, PASSWORD_MAX = 8, 128
_WRONG_LOGIN = "Name oder Passwort stimmt nicht."


@dataclass(frozen=True)
class SignedIn:
    """A player together with a fresh bearer token."""

    identity: Identity
    token: str


def check_password(password: str) -> str:
    """Return the password if it is long enough and not absurdly long, else refuse it (422)."""
    if len(password) < PASSWORD_MIN:
        raise invalid(f"Das Passwort braucht mindestens {PASSWORD_MIN} Zeichen.", "password_too_short")
    if len(password) > PASSWORD_MAX:
        raise invalid(f"Das Passwort darf höchstens {PASSWORD_MAX} Zeichen haben.", "password_too_long")
    return password


def _taken() -> CommandRefused:
    return conflict("Dieser Name ist schon vergeben. Bitte wähle einen anderen.", "name_taken")


async def sign_up_guest(runtime: Runtime, raw_name: str) -> SignedIn:
    """Create a guest (no password, no wallet); a registered player's name is not available to guests."""
    name = check_name(raw_name)
    async with sessions_of(runtime).begin() as session:
        if await _registered_like(session, name) is not None:
            raise _taken()
        player = Player(player_id=uuid.uuid4().hex, name=name, name_skeleton=skeleton(name),
                        kind=PlayerKind.GUEST.value, created_at=datetime.now(UTC))
        session.add(player)
    return _signed_in(runtime, player)


async def register_player(runtime: Runtime, raw_name: str, password: str) -> SignedIn:
    """Register a player under a unique name and publish the registration fact."""
    name = check_name(raw_name)
    password_hash = await asyncio.to_thread(hash_password, check_password(password))
    player = Player(player_id=uuid.uuid4().hex, name=name, name_skeleton=skeleton(name),
                    kind=PlayerKind.REGISTERED.value, password_hash=password_hash, created_at=datetime.now(UTC))
    sessions = sessions_of(runtime)
    try:
        async with sessions.begin() as session:
            if await _registered_like(session, name) is not None:
                raise _taken()
            session.add(player)
    except IntegrityError as error:  # the same (or a look-alike) name registered a moment ago by someone else
        raise _taken() from error
    try:
        async with sessions.begin() as session:
            await publish_registration(runtime.js, session, player)
    except Exception:
        # The outbox worker publishes it later; the player is registered either way.
        get_logger(player_id=player.player_id).warning("registration_publish_deferred", exc_info=True)
    return _signed_in(runtime, player)


async def log_in(runtime: Runtime, raw_name: str, password: str, client: str) -> SignedIn:
    """Return a token for a registered player whose password matches, else 401; 429 when `client` or the
    account has had too many attempts (services/lobby/limits.py)."""
    take_login(runtime, client)
    # Unknown names count too (the answer must not tell which names exist); a registered name's skeleton is
    # far shorter than the column, so cutting what a login sends (NFKC can make one character eighteen) loses
    # no account.
    account = skeleton(raw_name)[:ACCOUNT_KEY_MAX]
    await begin_account_attempt(runtime, account)
    async with sessions_of(runtime)() as session:
        player = await _registered_for_login(session, raw_name)
    if player is None or player.password_hash is None \
            or not await asyncio.to_thread(verify_password, password, player.password_hash):
        login_failed(runtime, client)
        raise CommandRefused(401, _WRONG_LOGIN, "wrong_login")
    await account_login_succeeded(runtime, account)
    return _signed_in(runtime, player)


async def identity_of_player(runtime: Runtime, token_identity: Identity) -> Identity:
    """Return who the token's player is now, as the database knows them (name and kind); 401 when the
    database knows no such player (deleted, or a token for an id never issued here)."""
    async with sessions_of(runtime)() as session:
        player = await session.get(Player, token_identity.player_id)
    if player is None:
        raise CommandRefused(401, "Diesen Spieler gibt es nicht (mehr). Bitte melde dich neu an.", "unknown_player")
    return Identity(player_id=player.player_id, name=player.name, kind=PlayerKind(player.kind))


async def _registered_like(session: AsyncSession, name: str) -> Player | None:
    """The registered player whose name looks like `name` (same skeleton), if there is one."""
    result = await session.execute(select(Player).where(Player.name_skeleton == skeleton(name),
                                                        Player.kind == PlayerKind.REGISTERED.value).limit(1))
    return result.scalar_one_or_none()


async def _registered_for_login(session: AsyncSession, raw_name: str) -> Player | None:
    """The registered player a login names: the one of exactly that name (any case) first, else the one
    whose name looks like it (players registered before look-alikes were refused may share a skeleton)."""
    name = normalize(raw_name)
    result = await session.execute(select(Player).where(
        or_(Player.name_skeleton == skeleton(name), func.lower(Player.name) == name.lower()),
        Player.kind == PlayerKind.REGISTERED.value).limit(5))
    found = list(result.scalars())
    return next((player for player in found if player.name.lower() == name.lower()), found[0] if found else None)


def _signed_in(runtime: Runtime, player: Player) -> SignedIn:
    identity = Identity(player_id=player.player_id, name=player.name, kind=PlayerKind(player.kind))
    token = issue_token(runtime.settings.auth_secret, identity, runtime.settings.auth_token_days)
    return SignedIn(identity=identity, token=token)

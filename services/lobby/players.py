"""Handlers for players: guests, registration, login."""

from __future__ import annotations

import asyncio
import re
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from libs.platform.auth import Identity, PlayerKind, issue_token
from libs.platform.logging import get_logger
from libs.platform.rpc import CommandRefused
from libs.platform.service import Runtime
from services.lobby.database import sessions_of
from services.lobby.errors import conflict, invalid
from services.lobby.facts import publish_registration
from services.lobby.models import Player
from services.lobby.passwords import hash_password, verify_password

NAME_MIN, NAME_MAX = 3, 20
PASSWORD_MIN, PASSWORD_MAX = 8, 128
_NAME_PATTERN = re.compile(r"[^\W_][\w .\-]*")
_WRONG_LOGIN = "Name oder Passwort stimmt nicht."


@dataclass(frozen=True)
class SignedIn:
    """A player together with a fresh bearer token."""

    identity: Identity
    token: str


def check_name(raw: str) -> str:
    """Return the name with surrounding and repeated spaces removed, or refuse it (422)."""
    name = " ".join(raw.split())
    if len(name) < NAME_MIN:
        raise invalid(f"Der Name braucht mindestens {NAME_MIN} Zeichen.", "name_too_short")
    if len(name) > NAME_MAX:
        raise invalid(f"Der Name darf höchstens {NAME_MAX} Zeichen haben.", "name_too_long")
    if not _NAME_PATTERN.fullmatch(name):
        raise invalid("Der Name beginnt mit einem Buchstaben oder einer Ziffer und enthält nur Buchstaben, "
                      "Ziffern, Leerzeichen, Punkt, Binde- und Unterstrich.", "name_invalid")
    return name


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
        if await _registered_by_name(session, name) is not None:
            raise _taken()
        player = Player(player_id=uuid.uuid4().hex, name=name, kind=PlayerKind.GUEST.value,
                        created_at=datetime.now(UTC))
        session.add(player)
    return _signed_in(runtime, player)


async def register_player(runtime: Runtime, raw_name: str, password: str) -> SignedIn:
    """Register a player under a unique name and publish the registration fact."""
    name = check_name(raw_name)
    password_hash = await asyncio.to_thread(hash_password, check_password(password))
    player = Player(player_id=uuid.uuid4().hex, name=name, kind=PlayerKind.REGISTERED.value,
                    password_hash=password_hash, created_at=datetime.now(UTC))
    sessions = sessions_of(runtime)
    try:
        async with sessions.begin() as session:
            if await _registered_by_name(session, name) is not None:
                raise _taken()
            session.add(player)
    except IntegrityError as error:  # the same name registered a moment ago by someone else
        raise _taken() from error
    try:
        async with sessions.begin() as session:
            await publish_registration(runtime.js, session, player)
    except Exception:
        # The outbox worker publishes it later; the player is registered either way.
        get_logger(player_id=player.player_id).warning("registration_publish_deferred", exc_info=True)
    return _signed_in(runtime, player)


async def log_in(runtime: Runtime, raw_name: str, password: str) -> SignedIn:
    """Return a token for a registered player whose password matches, else 401."""
    async with sessions_of(runtime)() as session:
        player = await _registered_by_name(session, " ".join(raw_name.split()))
    if player is None or player.password_hash is None:
        raise CommandRefused(401, _WRONG_LOGIN, "wrong_login")
    if not await asyncio.to_thread(verify_password, password, player.password_hash):
        raise CommandRefused(401, _WRONG_LOGIN, "wrong_login")
    return _signed_in(runtime, player)


async def _registered_by_name(session: AsyncSession, name: str) -> Player | None:
    result = await session.execute(select(Player).where(func.lower(Player.name) == name.lower(),
                                                        Player.kind == PlayerKind.REGISTERED.value))
    return result.scalar_one_or_none()


def _signed_in(runtime: Runtime, player: Player) -> SignedIn:
    identity = Identity(player_id=player.player_id, name=player.name, kind=PlayerKind(player.kind))
    token = issue_token(runtime.settings.auth_secret, identity, runtime.settings.auth_token_days)
    return SignedIn(identity=identity, token=token)

"""Players: `POST /guests`, `POST /players`, `POST /sessions`, `GET /me`."""

from __future__ import annotations

from fastapi import APIRouter, Request

from libs.platform.http_errors import refusals
from libs.platform.service import CurrentPlayer, RuntimeDep
from services.lobby.limits import client_of, counted_signup
from services.lobby.players import SignedIn, identity_of_player, log_in, register_player, sign_up_guest
from services.lobby.schemas import CredentialsBody, NameBody, PlayerOut, SignedInOut

router = APIRouter(tags=["players"], responses=refusals(401, 409, 429))


def _out(signed_in: SignedIn) -> SignedInOut:
    identity = signed_in.identity
    return SignedInOut(player_id=identity.player_id, name=identity.name, kind=identity.kind.value,
                       token=signed_in.token)


@router.post("/guests", status_code=201)
async def create_guest(body: NameBody, runtime: RuntimeDep, request: Request) -> SignedInOut:
    """Play as a guest: no password, no stake (429 after too many sign-ups from one address)."""
    with counted_signup(runtime, client_of(request, runtime)):
        return _out(await sign_up_guest(runtime, body.name))


@router.post("/players", status_code=201)
async def create_player(body: CredentialsBody, runtime: RuntimeDep, request: Request) -> SignedInOut:
    """Register with a unique name and a password (429 after too many sign-ups from one address)."""
    with counted_signup(runtime, client_of(request, runtime)):
        return _out(await register_player(runtime, body.name, body.password))


@router.post("/sessions")
async def create_session(body: CredentialsBody, runtime: RuntimeDep, request: Request) -> SignedInOut:
    """Log in as a registered player (429 after too many attempts from one address or for one account)."""
    return _out(await log_in(runtime, body.name, body.password, client_of(request, runtime)))


@router.get("/me")
async def me(player: CurrentPlayer, runtime: RuntimeDep) -> PlayerOut:
    """The player behind the bearer token, as the lobby knows them now (401 if it knows them no more)."""
    known = await identity_of_player(runtime, player)
    return PlayerOut(player_id=known.player_id, name=known.name, kind=known.kind.value)

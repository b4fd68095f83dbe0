"""A player's home: solo modes (`POST /solo`), daily seeds, campaigns, "Weiterspielen"."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from libs.platform.http_errors import refusals
from libs.platform.service import CurrentPlayer, RuntimeDep
from services.lobby import daily, modes, stakes
from services.lobby.schemas import ModeSoloBody

router = APIRouter(tags=["home"], responses=refusals(403, 404, 409, 503))


@router.post("/solo", status_code=201)
async def start_mode_game(body: ModeSoloBody, player: CurrentPlayer, runtime: RuntimeDep) -> dict[str, Any]:
    """A game in one of the game's solo modes, started at once: the table with `game_id` and `mode`
    (daily: `day`, `attempt`, `practice`; campaign: `stage`)."""
    return await modes.start_mode_game(runtime, player, body.game, body.mode, body.settings, body.opponents,
                                       body.bot_level, body.stage, body.give_up_unfinished)


@router.get("/daily")
async def upcoming_daily_seeds(runtime: RuntimeDep) -> list[dict[str, Any]]:
    """Today's and tomorrow's commitment (sha256 of the seed) of every daily mode; the seeds stay secret."""
    return await daily.upcoming_commitments(runtime)


@router.get("/daily/{game}/{mode}/{day}")
async def daily_seed(game: str, mode: str, day: str, runtime: RuntimeDep) -> dict[str, Any]:
    """One day's commitment; its seed (hex) once the day is over (Europe/Berlin), else `seed: null`."""
    return await daily.commitment_of_day(runtime, game, mode, day)


@router.get("/games/{game}/modes")
async def game_modes(game: str, runtime: RuntimeDep) -> list[dict[str, Any]]:
    """The game's solo modes; a daily mode with today's commitment (`today`)."""
    return await modes.modes_of_game(runtime, game)


@router.get("/me/campaigns/{game}/{mode}")
async def my_campaign(game: str, mode: str, player: CurrentPlayer, runtime: RuntimeDep) -> dict[str, Any]:
    """The player's progress in a campaign: each stage open or not, won or not, and the highest open one."""
    return await modes.campaign_of(runtime, player, game, mode)


@router.get("/me/unfinished")
async def my_unfinished_games(player: CurrentPlayer, runtime: RuntimeDep) -> list[dict[str, Any]]:
    """"Weiterspielen": the player's solo games still running, newest first."""
    return await modes.unfinished_games(runtime, player)


@router.get("/me/wallet")
async def my_wallet(player: CurrentPlayer, runtime: RuntimeDep) -> dict[str, Any]:
    """The player's own Taler, asked of the ledger (`ledger.cmd.balance`): `{"player_id", "kind", "balance"}`;
    `balance` is null for guests (they play without stake) and for a wallet the ledger has not opened yet;
    503 `ledger_unavailable` when the ledger does not answer."""
    return await stakes.wallet_of(runtime, player)


@router.get("/pots/{game_id}")
async def game_pot(game_id: str, player: CurrentPlayer, runtime: RuntimeDep) -> dict[str, Any]:
    """A game's Taler as the end table shows them, from the ledger (`ledger.cmd.pot`): `state` ("none" without
    stake, "open" until the end, "settled"), the pot's `total`, what went to the `house`, the payout's `memo`,
    and per seat that paid or won `paid`, `won` and `net` (won − paid). Open to every signed-in player: the
    stake and the places are public, so is their arithmetic. 404 for a game the lobby never started."""
    return await stakes.pot_of(runtime, game_id)

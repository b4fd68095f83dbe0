"""Solo modes (`POST /solo`): a game's daily mode, campaign and free mode as its rule module declares them.

What the lobby decides here (docs/services/lobby.md, "Solo modes"):
- The mode fixes what it fixes (settings, opponents, computer levels); a player's other choice is refused.
- Daily: the day's seed (services/lobby/daily.py) and the player's attempt that day, counted in
  `daily_attempts` (attempt 1 counts, later ones are practice).
- Campaign: stage 1 is open; stage k+1 opens when the player won stage k (`campaign_progress`, written from
  the game-end facts by `record_campaign_win`).
- At most one unfinished game per (player, game, mode): a second start is refused (409 `unfinished_game`)
  unless the player gives the older one up; then the lobby lets the player leave it at the table service
  (the computer finishes it, it counts as left) and marks the older table finished at once.
A per-(player, game, mode) advisory lock makes "check, count, start" one step across replicas.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from libs.platform.auth import Identity
from libs.platform.clock import clock_of
from libs.platform.contracts.commands import LEAVE_GAME, LeaveGame
from libs.platform.contracts.events import GameEnded, GameMode
from libs.platform.days import day_end, iso_z
from libs.platform.http_errors import shown
from libs.platform.logging import get_logger
from libs.platform.rpc import CommandRefused
from libs.platform.service import Runtime
from libs.platform.table_options import NO_CLOCK
from libs.rules.home import SoloMode, Stage
from libs.rules.protocol import Json
from services.lobby import daily
from services.lobby.database import sessions_of
from services.lobby.errors import conflict, invalid
from services.lobby.models import CampaignWin, DailyAttempt, GameTable, Seat
from services.lobby.table_settings import PLATFORM_KEYS, TableSettings, game_title, rule_module, validate_settings
from services.lobby.tables import (
    FINISHED,
    OPEN,
    PLAYING,
    _bot_seat,
    _human_seat,
    _start,
    ask_table,
    describe,
    mode_json,
)


@dataclass(frozen=True)
class Plan:
    """What a mode game is started with: checked settings, the computers' levels (one per seat), the stage."""

    checked: TableSettings
    levels: tuple[str, ...]
    stage: int | None = None


async def start_mode_game(runtime: Runtime, player: Identity, game: str, mode_key: str, settings: dict[str, Any],
                          opponents: int | None, bot_level: str | None, stage: int | None,
                          give_up_unfinished: bool) -> dict[str, Any]:
    """Start a game of `game`'s solo mode `mode_key` for `player` at once (a new solo table); return the table.

    Refusals (nothing changes): 422 unknown game, invalid or fixed settings/opponents/levels; 404 unknown
    mode; 409 `stage_locked`, `unfinished_game` (unless `give_up_unfinished`); 503 table service away.
    """
    module = rule_module(game)
    mode = mode_of(module, mode_key)
    if stage is not None and not mode.is_campaign:
        raise invalid(f"„{mode.title}“ hat keine Etappen.", "invalid_stage")
    try:
        async with sessions_of(runtime).begin() as session:
            await _lock_mode(session, player.player_id, module.game, mode.key)
            chosen = await _playable_stage(session, player.player_id, module.game, mode, stage) \
                if mode.is_campaign else None
            plan = _plan(module.game, mode, settings, opponents, bot_level, chosen)
            await _settle_unfinished(runtime, session, player, module.game, mode, give_up=give_up_unfinished)
            table = _mode_table(player, plan, mode, clock_of(runtime).now())
            session.add(table)
            await session.flush()
            seats = await _launch(runtime, session, player, table, mode, plan)
    except IntegrityError as error:  # backstop behind the advisory lock (attempt numbers are unique)
        raise conflict("Gerade wurde schon eine Partie in diesem Modus gestartet. Bitte versuche es noch einmal.",
                       "mode_busy") from error
    return describe(table, seats)


async def rematch_mode_table(runtime: Runtime, player: Identity, table_id: str,
                             next_stage: bool) -> dict[str, Any] | None:
    """"Nochmal" at a solo mode table: the next game in the same mode (None: not a mode table).

    Daily: today's seed and the player's next attempt (practice from the second on). Campaign: the same stage,
    or with `next_stage` the next one (409 `stage_locked` unless it is open). Free: same settings and seats.
    Another unfinished game in the same mode refuses it (409 `unfinished_game`).
    """
    async with sessions_of(runtime)() as session:
        found = await session.get(GameTable, table_id)
        if found is None or found.mode is None:
            return None
        game, key = found.game, found.mode
    module = rule_module(game)
    mode = mode_of(module, key)
    try:
        async with sessions_of(runtime).begin() as session:
            await _lock_mode(session, player.player_id, game, key)
            table = (await session.execute(select(GameTable).where(GameTable.table_id == table_id)
                                           .with_for_update())).scalar_one()
            if table.status == PLAYING:
                raise conflict("Die Partie an diesem Tisch läuft noch.", "still_playing")
            if table.host_id != player.player_id:
                raise CommandRefused(403, "Nochmal spielen kann nur, wer an diesem Tisch mitgespielt hat.",
                                     "not_a_player")
            if next_stage and not mode.is_campaign:
                raise invalid(f"„{mode.title}“ hat keine Etappen.", "invalid_stage")
            old_seats = list((await session.execute(
                select(Seat).where(Seat.table_id == table_id).order_by(Seat.seat))).scalars().all())
            if mode.is_campaign:
                wanted = (table.mode_stage or 1) + (1 if next_stage else 0)
                plan = _plan(game, mode, _platform_of(table), None, None,
                             await _playable_stage(session, player.player_id, game, mode, wanted))
            else:
                levels = tuple(seat.level or table.bot_level for seat in old_seats if seat.kind == "bot")
                plan = Plan(checked=TableSettings(game=game, rules_id=module.rules_id, game_settings=table.settings,
                                                  tempo=table.tempo, think_time=table.think_time, turbo=table.turbo),
                            levels=levels)
            await _settle_unfinished(runtime, session, player, game, mode, give_up=False)
            for seat in old_seats:
                await session.delete(seat)
            await session.flush()
            table.settings, table.player_count = plan.checked.game_settings, 1 + len(plan.levels)
            seats = await _launch(runtime, session, player, table, mode, plan)
    except IntegrityError as error:
        raise conflict("Gerade wurde schon eine Partie in diesem Modus gestartet. Bitte versuche es noch einmal.",
                       "mode_busy") from error
    return describe(table, seats)


def mode_of(module: Any, key: str) -> SoloMode:
    """Return the solo mode `key` of a rule module's home, or 404 with a German reason."""
    mode: SoloMode | None = module.spec.home.mode(key)
    if mode is None:
        raise CommandRefused(404, f"Einen Spielmodus „{shown(key)}“ gibt es bei {game_title(module)} nicht.",
                             "unknown_mode")
    return mode


async def unfinished_games(runtime: Runtime, player: Identity) -> list[dict[str, Any]]:
    """"Weiterspielen": the player's solo games still running (plain solo tables and mode games), newest first.

    Read from the lobby's own tables (status `playing`), so every replica answers alike, also after restarts.
    """
    async with sessions_of(runtime)() as session:
        tables = (await session.execute(
            select(GameTable).where(GameTable.host_id == player.player_id, GameTable.is_solo.is_(True),
                                    GameTable.status == PLAYING)
            .order_by(GameTable.started_at.desc()))).scalars().all()
    games = []
    for table in tables:
        mode = mode_json(table)
        games.append({"table_id": table.table_id, "game_id": table.game_id, "game": table.game,
                      "mode": mode["key"] if mode else None, "mode_title": mode["title"] if mode else None,
                      "day": mode["day"] if mode else None, "attempt": mode["attempt"] if mode else None,
                      "practice": bool(mode and mode["practice"]), "stage": mode["stage"] if mode else None,
                      "started_at": table.started_at.isoformat() if table.started_at else None})
    return games


async def campaign_of(runtime: Runtime, player: Identity, game: str, key: str) -> dict[str, Any]:
    """A player's campaign: every stage with whether it is open and whether the player has won it."""
    module = rule_module(game)
    mode = mode_of(module, key)
    if not mode.is_campaign:
        raise CommandRefused(404, f"„{mode.title}“ ist keine Reise mit Etappen.", "not_a_campaign")
    async with sessions_of(runtime)() as session:
        won = await _won_stages(session, player.player_id, module.game, mode.key)
    stages = [{**stage.to_json(), "open": _is_open(stage.number, won), "won": stage.number in won}
              for stage in mode.stages]
    return {"game": module.game, "mode": mode.key, "title": mode.title, "stages": stages,
            "current": _highest_open(mode, won)}


async def modes_of_game(runtime: Runtime, game: str) -> list[dict[str, Any]]:
    """A game's solo modes as its home declares them; a daily mode with today's commitment (`today`)."""
    module = rule_module(game)
    modes: tuple[SoloMode, ...] = module.spec.home.modes
    now = clock_of(runtime).now()
    today, _ = daily.today_and_tomorrow(now)
    stored = await daily.ensure_seeds(runtime, [(module.game, mode.key, today) for mode in modes if mode.daily])
    described = []
    for mode in modes:
        seed = stored.get((module.game, mode.key, today))
        described.append({**mode.to_json(), "today": daily.describe_seed(seed, mode, now) if seed else None})
    return described


async def record_campaign_win(runtime: Runtime, ended: GameEnded, game_id: str) -> int:
    """Record the stage won by the human in first place of a campaign game's end; return how many were new.

    Idempotent (one row per player, game, mode and stage): a redelivered or repeated end changes nothing.
    A human who left the game never wins it.
    """
    mode = ended.mode
    if not isinstance(mode, GameMode) or mode.stage is None:
        return 0
    stage = mode.stage
    winners = [seat.player_id for index, seat in enumerate(ended.seats)
               if seat.kind == "human" and seat.player_id and index not in ended.left
               and index < len(ended.outcome.places) and ended.outcome.places[index] == 1]
    if not winners:
        return 0
    rows = [{"player_id": player_id, "game": ended.game, "mode": mode.key, "stage": stage, "game_id": game_id}
            for player_id in winners]
    async with sessions_of(runtime).begin() as session:
        result = await session.execute(insert(CampaignWin).values(rows).on_conflict_do_nothing())
    return int(getattr(result, "rowcount", 0) or 0)


# ---- the steps --------------------------------------------------------------------------------------------

async def _lock_mode(session: AsyncSession, player_id: str, game: str, mode: str) -> None:
    """Serialise a player's starts in one mode across replicas (held until the transaction ends)."""
    await session.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))"),
                          {"key": f"lobby.mode:{player_id}:{game}:{mode}"})


def _plan(game: str, mode: SoloMode, settings: dict[str, Any], opponents: int | None, bot_level: str | None,
          stage: Stage | None) -> Plan:
    """Check a player's choices against what the mode (or the campaign's stage) fixes; return the plan."""
    platform = {key: value for key, value in settings.items() if key in PLATFORM_KEYS}
    chosen = {key: value for key, value in settings.items() if key not in PLATFORM_KEYS}
    fixed: Json | None = stage.settings if stage is not None else mode.settings
    if fixed is not None:
        for key, value in chosen.items():
            if key not in fixed or fixed[key] != value:
                raise invalid(f"„{mode.title}“ spielt mit festen Einstellungen: „{shown(key)}“ lässt sich hier "
                              "nicht wählen.", "fixed_settings")
        chosen = dict(fixed)
    if stage is not None:
        if opponents is not None or bot_level is not None:
            raise invalid(f"Die Gegner jeder Etappe von „{mode.title}“ stehen fest.", "fixed_opponents")
        levels = tuple(stage.opponents)
    else:
        count = mode.opponents[0] if opponents is None else opponents
        if count not in mode.opponents:
            raise invalid(f"In „{mode.title}“ spielst du gegen {_either(mode.opponents)} Computer.",
                          "invalid_opponents")
        level = mode.bot_levels[0] if bot_level is None else bot_level
        if level not in mode.bot_levels:
            raise invalid(f"In „{mode.title}“ spielen die Computer „{_either(mode.bot_levels)}“.",
                          "invalid_bot_level")
        levels = (level,) * count
    checked = validate_settings(game, {**chosen, **platform}, 1 + len(levels), is_solo=True)
    return Plan(checked=checked, levels=levels, stage=stage.number if stage is not None else None)


async def _playable_stage(session: AsyncSession, player_id: str, game: str, mode: SoloMode,
                          wanted: int | None) -> Stage:
    """The campaign stage to play: `wanted` (422 if there is none such, 409 `stage_locked` if not open yet),
    else the highest open one."""
    won = await _won_stages(session, player_id, game, mode.key)
    number = _highest_open(mode, won) if wanted is None else wanted
    stage = mode.stage(number)
    if stage is None:
        raise invalid(f"„{mode.title}“ hat Etappen 1 bis {len(mode.stages)}.", "invalid_stage")
    if not _is_open(number, won):
        raise conflict(f"Etappe {number} von „{mode.title}“ ist noch gesperrt: gewinne zuerst Etappe {number - 1}.",
                       "stage_locked")
    return stage


async def _won_stages(session: AsyncSession, player_id: str, game: str, mode: str) -> set[int]:
    rows = await session.execute(select(CampaignWin.stage).where(
        CampaignWin.player_id == player_id, CampaignWin.game == game, CampaignWin.mode == mode))
    return set(rows.scalars().all())


def _is_open(number: int, won: set[int]) -> bool:
    return number == 1 or (number - 1) in won


def _highest_open(mode: SoloMode, won: set[int]) -> int:
    return max(stage.number for stage in mode.stages if _is_open(stage.number, won))


async def _settle_unfinished(runtime: Runtime, session: AsyncSession, player: Identity, game: str, mode: SoloMode,
                             *, give_up: bool) -> None:
    """Refuse while the player has an unfinished game in this mode, or (`give_up`) leave it and close its table."""
    running = (await session.execute(
        select(GameTable).where(GameTable.host_id == player.player_id, GameTable.is_solo.is_(True),
                                GameTable.status == PLAYING, GameTable.game == game, GameTable.mode == mode.key)
        .with_for_update())).scalars().all()
    for table in running:
        if not give_up:
            raise conflict(f"Du hast in „{mode.title}“ noch eine unfertige Partie ({table.game_id}): spiel sie "
                           "weiter oder gib sie auf („give_up_unfinished“).", "unfinished_game")
        await _leave_game(runtime, str(table.game_id), player.player_id)
        # The computer finishes it at the table; for the lobby the player's game there is over now.
        table.status, table.finished_at = FINISHED, clock_of(runtime).now()
        get_logger(table_id=table.table_id, game_id=table.game_id).info("unfinished_game_given_up", mode=mode.key)


async def _leave_game(runtime: Runtime, game_id: str, player_id: str) -> None:
    """Let the player leave a running game at the table service (already left or ended is fine)."""
    try:
        await ask_table(runtime, LEAVE_GAME, LeaveGame(game_id=game_id, player_id=player_id))
    except CommandRefused as refusal:
        if refusal.status != 404:  # a game the table does not know (any more) needs no leaving
            raise


def _mode_table(player: Identity, plan: Plan, mode: SoloMode, now: datetime) -> GameTable:
    checked = plan.checked
    return GameTable(
        table_id=uuid.uuid4().hex, game=checked.game, settings=checked.game_settings, tempo=checked.tempo,
        think_time=checked.think_time, stake=0, turbo=checked.turbo, is_solo=True, host_id=player.player_id,
        player_count=1 + len(plan.levels), bot_level=plan.levels[0] if plan.levels else "normal",
        fill_with_bots=True, status=OPEN, mode=mode.key, created_at=now)


async def _launch(runtime: Runtime, session: AsyncSession, player: Identity, table: GameTable, mode: SoloMode,
                  plan: Plan) -> list[Seat]:
    """Seat the player and the plan's computers, set the game's mode (day, attempt, stage) and start it."""
    seats = [_human_seat(table.table_id, 0, player)]
    seats += [_bot_seat(table.table_id, index, index, level) for index, level in enumerate(plan.levels, start=1)]
    table.tempo, table.think_time, table.turbo = plan.checked.tempo, plan.checked.think_time, plan.checked.turbo
    table.mode_stage, table.mode_day, table.mode_attempt = plan.stage, None, None
    seed: str | None = None
    if mode.daily:
        day, stored = await daily.seed_of_today(runtime, table.game, mode.key)
        attempts = await session.scalar(select(func.coalesce(func.max(DailyAttempt.attempt), 0)).where(
            DailyAttempt.player_id == player.player_id, DailyAttempt.game == table.game,
            DailyAttempt.mode == mode.key, DailyAttempt.day == day))
        table.mode_day, table.mode_attempt, seed = day, int(attempts or 0) + 1, stored.seed
    await _start(runtime, session, table, seats, seed=seed,
                 seed_reveal_at=iso_z(day_end(table.mode_day)) if table.mode_day is not None else None)
    if table.mode_day is not None and table.mode_attempt is not None:
        session.add(DailyAttempt(player_id=player.player_id, game=table.game, mode=mode.key, day=table.mode_day,
                                 attempt=table.mode_attempt, game_id=str(table.game_id)))
        await session.flush()
    return seats


def _platform_of(table: GameTable) -> dict[str, Any]:
    return {"tempo": table.tempo, "think_time": NO_CLOCK if table.think_time is None else table.think_time,
            "turbo": table.turbo}


def _either(values: tuple[Any, ...]) -> str:
    """German "1, 2 oder 3"."""
    shown_values = [str(value) for value in values]
    return shown_values[0] if len(shown_values) == 1 else ", ".join(shown_values[:-1]) + " oder " + shown_values[-1]

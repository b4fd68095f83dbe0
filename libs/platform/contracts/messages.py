"""Work items on JetStream streams that are not part of a game's log: bot turns and think-time deadlines."""

from __future__ import annotations

from typing import Any, ClassVar

from libs.platform.contracts.base import Contract

__all__ = ["BotTurn", "TimerDeadline"]


class BotTurn(Contract, frozen=True, kw_only=True):
    """"A computer must decide": put on BOT_TURNS (`bot.turn.<game>`) by the table's follow-up consumer for
    every computer seat (a bot, or a human who left) that must decide; taken by one bot replica, which
    answers with `table.cmd.move` (`expected_n = n`)."""

    WHAT: ClassVar[str] = "Der Auftrag bot.turn"

    game_id: str
    n: int
    """The position (event number) the decision is for."""
    seat: int
    level: str
    rules: str
    chosen_by: str = "bot"
    """"bot", or "departed" for a human who left."""
    pace: float = 1.0
    """How long the computer pauses, relative to BOT_MOVE_DELAY (tempo and turbo of the table)."""
    must: bool = True
    """The seat must decide (False: it only may act, e.g. answer an offer, and its policy may pass)."""
    view: dict[str, Any]
    """The seat's redacted view, exactly as a human at that seat would see it."""


class TimerDeadline(Contract, frozen=True, kw_only=True):
    """A seat's think-time deadline: scheduled by the table on `timer.set.<game>.<seat>` (TIMERS), fired by
    JetStream onto `timer.fire.<game>.<seat>` at `deadline`, and read back by the table's timer consumer."""

    WHAT: ClassVar[str] = "Die Frist timer.fire"

    game_id: str
    seat: int
    n: int
    """The event after which the seat's decision began."""
    deadline: str
    """ISO 8601 in UTC (think time plus grace, rounded up to the second)."""

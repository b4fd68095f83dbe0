"""What a game offers a player beyond one game: solo modes, their lists, campaigns, badges and chat.

A rule module declares these once in ``GameSpec.home`` (a ``Home``); the services read the declaration
(lobby: which solo modes exist, their fixed settings and opponents, daily seeds, campaign stages, whether a
table may chat; table: a game's mode, its list key and the badges it earned; leaderboard: the lists, their
ordering, badge titles and streak badges). Nothing here does I/O: badge checks are pure functions of a
finished game (its final state, folded from the log, and its outcome). See ``docs/rules/protocol.md``,
"A player's home".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from libs.rules.protocol import Json, Outcome

__all__ = [
    "BOT_LEVELS",
    "Badge",
    "Finished",
    "Home",
    "ListKey",
    "SoloMode",
    "Stage",
    "Streak",
    "list_key",
]

BOT_LEVELS: tuple[str, ...] = ("easy", "normal", "strong")


class ListKey(StrEnum):
    """One part of a list's ordering, read from a seat's outcome (higher is better)."""

    SCORE = "score"
    """The seat's points."""
    TIE_BREAK = "tie_break"
    """The outcome's tie-break value (Speedkoi: pearls)."""
    RANK = "rank"
    """The whole vector the game ranked by (``Outcome.rank_key``: Speednova's colours, weakest first)."""


def list_key(outcome: Outcome, seat: int, order: tuple[ListKey, ...]) -> tuple[int, ...]:
    """Return the vector a seat's result is placed by in a mode's lists (compared element by element)."""
    parts: list[int] = []
    for key in order:
        if key is ListKey.SCORE:
            parts.append(outcome.scores[seat])
        elif key is ListKey.TIE_BREAK:
            parts.append(outcome.tie_break[seat])
        else:
            parts.extend(outcome.rank_key(seat))
    return tuple(parts)


@dataclass(frozen=True)
class Stage:
    """One step of a campaign (Speedkoi's Gärten-Reise: a garden): its settings and its opponents."""

    number: int
    """1-based; stage 1 is open from the start, stage k+1 opens when stage k is won."""
    title: str
    settings: Json = field(default_factory=dict)
    opponents: tuple[str, ...] = ("normal",)
    """The computers' levels, one per opponent seat."""

    def to_json(self) -> Json:
        """Return the stage as plain JSON data."""
        return {"number": self.number, "title": self.title, "settings": dict(self.settings),
                "opponents": list(self.opponents)}


@dataclass(frozen=True)
class SoloMode:
    """A way to play a game alone (against computers or none) with its own lists.

    Settings, opponent count and computer strength are either fixed by the mode or chosen by the player
    within what the mode allows. A daily mode's seed is the day's (one per game, mode and Europe/Berlin
    day, committed before the day and revealed after it); a campaign mode plays its ``stages`` in order.
    """

    key: str
    title: str
    description: str = ""
    daily: bool = False
    settings: Json | None = None
    """Fixed game settings (None: the player chooses, as at any solo table)."""
    opponents: tuple[int, ...] = (1, 2, 3)
    """How many computers the player may choose (one value: fixed)."""
    bot_levels: tuple[str, ...] = BOT_LEVELS
    """The computer strengths the player may choose (one value: fixed)."""
    list_order: tuple[ListKey, ...] = (ListKey.RANK,)
    """How the mode's all-time list and day lists order results (best first)."""
    stages: tuple[Stage, ...] = ()
    """A campaign's stages (empty: not a campaign)."""

    @property
    def is_campaign(self) -> bool:
        """True if the mode is played as a sequence of stages."""
        return bool(self.stages)

    def stage(self, number: int) -> Stage | None:
        """Return stage ``number`` (1-based), or None if the mode has no such stage."""
        return next((stage for stage in self.stages if stage.number == number), None)

    def to_json(self) -> Json:
        """Return the mode as plain JSON data (for lobbies and docs)."""
        return {"key": self.key, "title": self.title, "description": self.description, "daily": self.daily,
                "settings": None if self.settings is None else dict(self.settings),
                "opponents": list(self.opponents), "bot_levels": list(self.bot_levels),
                "list_order": [key.value for key in self.list_order],
                "campaign": [stage.to_json() for stage in self.stages]}


@dataclass(frozen=True)
class Finished:
    """A finished game as a badge check sees one seat of it: everything folded from the log."""

    config: Json
    """The game's normalised settings."""
    state: Any
    """The rule module's final state."""
    outcome: Outcome
    seat: int
    seats: tuple[Mapping[str, Any], ...]
    """Every seat as ``GameStarted`` records it (``kind``, ``level``, ...)."""
    mode: str | None
    """The solo mode the game was played in (None: not a solo mode game)."""

    @property
    def opponents(self) -> tuple[Mapping[str, Any], ...]:
        """The other seats."""
        return tuple(seat for index, seat in enumerate(self.seats) if index != self.seat)

    @property
    def is_solo(self) -> bool:
        """True if this seat was the only human."""
        return all(seat.get("kind") != "human" for seat in self.opponents)

    @property
    def place(self) -> int:
        """The seat's (shared) place."""
        return self.outcome.places[self.seat]

    @property
    def score(self) -> int:
        """The seat's points."""
        return self.outcome.scores[self.seat]


@dataclass(frozen=True)
class Streak:
    """A streak badge's condition: a finished game of the daily ``mode`` on ``days`` Berlin days in a row."""

    mode: str
    days: int


@dataclass(frozen=True)
class Badge:
    """A badge (or stamp) a player earns once: by a finished game (``earned``) or by a daily streak.

    ``earned`` must be a pure function of the finished game; it is evaluated when the game ends and its
    answer is recorded in ``GameEnded``, so the leaderboard awards from the log alone.
    """

    key: str
    title: str
    description: str
    earned: Callable[[Finished], bool] | None = None
    streak: Streak | None = None
    book: str = "Abzeichen"
    """Which collection it belongs to, as players read it (e.g. "Abzeichen", "Gartenbuch")."""
    solo_only: bool = True
    """Only games without other humans can earn it (the texts give badges for solo games)."""

    def to_json(self) -> Json:
        """Return the badge as plain JSON data (its check stays code)."""
        body: Json = {"key": self.key, "title": self.title, "description": self.description, "book": self.book,
                      "solo_only": self.solo_only, "kind": "streak" if self.streak else "game"}
        if self.streak is not None:
            body["streak"] = {"mode": self.streak.mode, "days": self.streak.days}
        return body


def _chat_always(config: Json) -> bool:
    return True


@dataclass(frozen=True)
class Home:
    """A game's solo modes, badges and chat rule (``GameSpec.home``)."""

    modes: tuple[SoloMode, ...] = ()
    badges: tuple[Badge, ...] = ()
    chat_allowed: Callable[[Json], bool] = _chat_always
    """Whether the seated players of a game with these settings may write free text to each other."""

    def mode(self, key: str) -> SoloMode | None:
        """Return the solo mode ``key``, or None."""
        return next((mode for mode in self.modes if mode.key == key), None)

    def badge(self, key: str) -> Badge | None:
        """Return the badge ``key``, or None."""
        return next((badge for badge in self.badges if badge.key == key), None)

    @property
    def default_mode(self) -> SoloMode | None:
        """The mode a plain solo game counts for: the first that is neither daily nor a campaign."""
        return next((mode for mode in self.modes if not mode.daily and not mode.is_campaign), None)

    def earned(self, finished: Finished) -> tuple[str, ...]:
        """Return the keys of the game badges this seat earned with this finished game."""
        return tuple(
            badge.key for badge in self.badges
            if badge.earned is not None and (finished.is_solo or not badge.solo_only) and badge.earned(finished)
        )

    def to_json(self) -> Json:
        """Return the modes and badges as plain JSON data."""
        return {"modes": [mode.to_json() for mode in self.modes],
                "badges": [badge.to_json() for badge in self.badges]}

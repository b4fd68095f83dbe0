"""The shared contract of every rule module: moves, views and outcomes are plain JSON data."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from libs.rules.rng import SeededRng

Json = dict[str, Any]

__all__ = [
    "ComputationLine",
    "ConfigError",
    "IllegalMove",
    "Json",
    "Outcome",
    "Phrase",
    "RuleModule",
]


class IllegalMove(Exception):
    """A move the rules refuse; ``reason`` is the German sentence the player reads."""

    def __init__(self, reason: str, code: str = "illegal") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


class ConfigError(Exception):
    """Settings the rules refuse; ``reason`` is the German sentence the player reads."""

    def __init__(self, reason: str, code: str = "illegal") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


def _plain(value: Any) -> Any:
    """Turn mappings and tuples inside params into plain JSON containers."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class Phrase:
    """A German sentence with its stable key and the data it was built from (for translation)."""

    key: str
    params: Mapping[str, Any]
    text: str

    def to_json(self) -> Json:
        """Return ``{"key", "params", "text"}`` as plain JSON data."""
        return {"key": self.key, "params": _plain(self.params), "text": self.text}


@dataclass(frozen=True)
class ComputationLine:
    """One line of a German "Rechenweg": a label, its points and the data behind it."""

    label: str
    points: int
    key: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> Json:
        """Return ``{"label", "points", "key", "params"}`` as plain JSON data."""
        return {"label": self.label, "points": self.points, "key": self.key, "params": _plain(self.params)}


@dataclass(frozen=True)
class Outcome:
    """The end of a game: places, scores, tie-breaks, computation lines and leaderboard points per seat."""

    places: tuple[int, ...]
    scores: tuple[int, ...]
    tie_break: tuple[int, ...]
    lines: tuple[tuple[ComputationLine, ...], ...]
    leaderboard_points: tuple[int, ...]
    summary: Phrase

    def to_json(self) -> Json:
        """Return the outcome as plain JSON data."""
        return {
            "places": list(self.places),
            "scores": list(self.scores),
            "tie_break": list(self.tie_break),
            "lines": [[line.to_json() for line in seat_lines] for seat_lines in self.lines],
            "leaderboard_points": list(self.leaderboard_points),
            "summary": self.summary.to_json(),
        }


PLACE_BONUS: tuple[int, ...] = (30, 15, 5, 0)
"""Leaderboard bonus per place ("Bestenliste": 30 / 15 / 5), place 4 gets nothing."""


def leaderboard_points(scores: tuple[int, ...], places: tuple[int, ...]) -> tuple[int, ...]:
    """Return max(score, 0) plus the bonus of the (shared) place for every seat."""
    return tuple(
        max(score, 0) + (PLACE_BONUS[place - 1] if place <= len(PLACE_BONUS) else 0)
        for score, place in zip(scores, places, strict=True)
    )


def shared_places(keys: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """Return 1-based places for per-seat sort keys (higher is better); equal keys share the better place."""
    return tuple(1 + sum(1 for other in keys if other > key) for key in keys)


@runtime_checkable
class RuleModule(Protocol):
    """What every game's rules provide; all functions are pure and never mutate their inputs."""

    game: str
    version: int

    @property
    def rules_id(self) -> str:
        """Return ``f"{game}@{version}"``."""
        ...

    def settings_options(self) -> Json:
        """Return the settings a table can choose (names, values, defaults, availability) for a lobby."""
        ...

    def normalize_config(self, config: Json, seats: int) -> Json:
        """Return the config with defaults filled in; raise ConfigError with a German reason."""
        ...

    def setup(self, config: Json, seats: int, seed: bytes) -> Any:
        """Return the initial state for these settings and this seed."""
        ...

    def to_move(self, state: Any) -> tuple[int, ...]:
        """Return the seats that must decide now (empty when the game is over)."""
        ...

    def legal_moves(self, state: Any, seat: int) -> list[Json]:
        """Return every legal move of this seat in a deterministic order (empty if it need not move)."""
        ...

    def apply(self, state: Any, seat: int, move: Json) -> tuple[Any, list[Json]]:
        """Return the new state and its effects (German log lines); raise IllegalMove, input untouched."""
        ...

    def preview(self, state: Any, seat: int, move: Json) -> Json:
        """Return what this move would bring; raise IllegalMove if it is illegal."""
        ...

    def view(self, state: Any, seat: int | None) -> Json:
        """Return everything this seat (None: a spectator) may see, and nothing more."""
        ...

    def is_over(self, state: Any) -> bool:
        """Return True once the game has ended."""
        ...

    def outcome(self, state: Any) -> Outcome:
        """Return the final ranking; raise ValueError while the game is running."""
        ...

    def determinize(self, view: Json, seat: int, rng: SeededRng) -> Any:
        """Return a full state consistent with this seat's view, hidden parts sampled from rng."""
        ...

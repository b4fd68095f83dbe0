"""What each Speedmosaik workshop provides; the rule module dispatches to the workshop of a game."""

from __future__ import annotations

from typing import Any, Protocol

from libs.rules.protocol import Json, Outcome
from libs.rules.rng import SeededRng


class Workshop(Protocol):
    """One workshop's rules (Kachelwand, Kirchenfenster, Sternpavillon): pure functions over its state.

    ``config`` is the normalised Speedmosaik config (it names the workshop and its options). Every
    view carries that config as ``"einstellungen"``, so ``determinize`` can be routed by the view alone.
    """

    name: str

    def owns(self, state: Any) -> bool:
        """Return True if ``state`` is a state of this workshop."""
        ...

    def setup(self, config: Json, seats: int, seed: bytes) -> Any:
        """Return the first state of a game."""
        ...

    def to_move(self, state: Any) -> tuple[int, ...]:
        """Return the seats that must decide now (several at once where the rules say so)."""
        ...

    def legal_moves(self, state: Any, seat: int) -> list[Json]:
        """Return the seat's legal moves in a canonical order."""
        ...

    def apply(self, state: Any, seat: int, move: Json) -> tuple[Any, list[Json]]:
        """Return the new state and German effects; raise IllegalMove and leave the input unchanged."""
        ...

    def preview(self, state: Any, seat: int, move: Json) -> Json:
        """Return what the move would bring (points, losses, warnings) without making it."""
        ...

    def view(self, state: Any, seat: int | None, rules_id: str) -> Json:
        """Return what ``seat`` may see (None: a spectator)."""
        ...

    def is_over(self, state: Any) -> bool:
        """Return True once the game has ended."""
        ...

    def outcome(self, state: Any) -> Outcome:
        """Return places, scores, tie-breaks, computation lines and leaderboard points."""
        ...

    def determinize(self, view: Json, seat: int, rng: SeededRng) -> Any:
        """Return a full state consistent with ``view``; hidden parts sampled from ``rng``."""
        ...

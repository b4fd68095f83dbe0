"""The Speedkoi rule module (``speedkoi@1``): the protocol's calls, each sent to its rule function."""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import Chance, GameSpec, Hidden, Json, Outcome, Pending, RulesBase, TimeoutRule
from libs.rules.rng import SeededRng
from libs.rules.speedkoi import config as settings
from libs.rules.speedkoi import rules, scoring
from libs.rules.speedkoi.home import HOME
from libs.rules.speedkoi.material import GAME
from libs.rules.speedkoi.preview import preview
from libs.rules.speedkoi.setup import new_game
from libs.rules.speedkoi.state import ENDE, KoiState
from libs.rules.speedkoi.view import make_view, state_from_view

_PENDING: tuple[Pending, ...] = tuple(Pending(seat) for seat in range(4))

SPEC = GameSpec(
    game=GAME,
    version=1,
    title="Speedkoi",
    seat_counts=(2, 3, 4),
    hidden=frozenset({Hidden.HAND, Hidden.SUPPLY}),
    chance=Chance.DURING_PLAY,
    timeout=TimeoutRule.COMPUTER_DECIDES,
    variant_key=settings.KEY,
    variants=settings.SPIELARTEN,
    leaderboard=scoring.LEADERBOARD,
    home=HOME,
)
"""Speedkoi: 2–4 seats (solo: one human and 1–3 computers), hidden hands and deck, drawing during play, one
seat decides at a time, no undo; on a timeout the computer makes that one decision (lantern, dragonfly, Steg,
Koi or draw)."""


def _state(state: Any) -> KoiState:
    if type(state) is not KoiState:
        raise TypeError("not a Speedkoi state")
    return state


class Speedkoi(RulesBase):
    """Speedkoi rules, version 1 (classic and Laternenfest)."""

    spec = SPEC

    def valid_configs(self) -> list[Json]:
        """Return both Spielarten."""
        return settings.valid_configs()

    def settings_options(self) -> Json:
        """Return the Spielart a table can choose."""
        return settings.options()

    def normalize_config(self, config: Json, seats: int) -> Json:
        """Return ``{"spielart": …}``; raise ConfigError with a German reason."""
        return settings.normalize(config)

    def setup(self, config: Json, seats: int, seed: bytes) -> KoiState:
        """Return the first state, dealt and laid out from ``seed``."""
        return new_game(settings.normalize(config)[settings.KEY], seats, bytes(seed))

    def pending(self, state: Any) -> tuple[Pending, ...]:
        """Return the one seat that must decide (none once the game is over)."""
        state = _state(state)
        return () if state.phase == ENDE else (_PENDING[state.current],)

    def legal_moves(self, state: Any, seat: int) -> list[Json]:
        """Return the seat's legal moves in canonical order (a move that ends the game comes confirmed)."""
        return rules.legal_moves(_state(state), seat)

    def apply(self, state: Any, seat: int, move: Json) -> tuple[Any, list[Json]]:
        """Return the new state and its effects; raise IllegalMove and leave the input as it was."""
        return rules.apply(_state(state), seat, move)

    def preview(self, state: Any, seat: int, move: Json) -> Json:
        """Return what the move would bring (a move that ends the game: its warning)."""
        return preview(_state(state), seat, move)

    def view(self, state: Any, seat: int | None) -> Json:
        """Return what the seat may see."""
        return make_view(_state(state), seat, self.rules_id)

    def is_over(self, state: Any) -> bool:
        """Return True once the game has ended."""
        return _state(state).phase == ENDE

    def outcome(self, state: Any) -> Outcome:
        """Return places, scores, pearls as tie-break, Rechenweg, leaderboard points; ValueError while running."""
        return scoring.outcome(_state(state))

    def determinize(self, view: Json, seat: int, rng: SeededRng) -> KoiState:
        """Return a full state matching the view; the lanterns the seat has not seen are dealt anew."""
        if view.get("spiel") != GAME:
            raise ValueError("not a Speedkoi view")
        return state_from_view(view, seat, rng)


MODULE = Speedkoi()

__all__ = ["MODULE", "SPEC", "Speedkoi"]

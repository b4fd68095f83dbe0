"""The Speedspore rule modules (``speedspore@2``, and ``speedspore@1`` for its logs): the protocol's calls,
each sent to its rule function.

The two versions share every rule; they differ only in where the nine gullys stand (``board.GULLY_EDGES``)
and, on the Einsteiger island, which gully is which (``island.EINSTEIGER_GULLYS``). Version 2 puts them on
the published frame; version 1 stays registered so that its logs replay exactly as they were written.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from libs.rules.protocol import Chance, GameSpec, Hidden, IllegalMove, Json, Outcome, Pending, RulesBase, TimeoutRule
from libs.rules.rng import SeededRng
from libs.rules.speedspore import config as settings
from libs.rules.speedspore import previews, rules, scoring
from libs.rules.speedspore.home import HOME
from libs.rules.speedspore.material import GAME
from libs.rules.speedspore.setup import new_game
from libs.rules.speedspore.state import ENDE, SporeState
from libs.rules.speedspore.view import make_view, state_from_view

SPEC_V1 = GameSpec(
    game=GAME,
    version=1,
    title="Speedspore",
    seat_counts=(2, 3, 4),
    hidden=frozenset({Hidden.HAND, Hidden.OWN_POINTS, Hidden.SUPPLY}),
    chance=Chance.DURING_PLAY,
    simultaneous=True,
    may_act=True,
    undo_steps=3,
    timeout=TimeoutRule.GAME_CHOOSES,
    variant_key=None,
    leaderboard=scoring.LEADERBOARD,
    open_moves=frozenset({"angebot", "gegenangebot", "tausch"}),
    home=HOME,
)
"""Speedspore: 2–4 seats (solo: one human and 1–3 computers), hidden hands, Funde and decks, dice during
play, discards and offer answers at once, "Zurück" up to three builds or supply trades, timeouts chosen by
the game (roll, end the turn, a fixed choice, "nein"). Version 1: its gullys on its own positions."""

SPEC = dataclasses.replace(SPEC_V1, version=2)
"""Version 2, the one new games take: version 1's rules with the gullys on the published frame."""


def _state(state: Any) -> SporeState:
    if type(state) is not SporeState:
        raise TypeError("not a Speedspore state")
    return state


class Speedspore(RulesBase):
    """Speedspore rules, version 2 (the version in ``spec`` decides where the gullys stand)."""

    spec = SPEC

    def valid_configs(self) -> list[Json]:
        """Return all 12 settings combinations."""
        return settings.valid_configs()

    def settings_options(self) -> Json:
        """Return the settings a table can choose."""
        return settings.options()

    def normalize_config(self, config: Json, seats: int) -> Json:
        """Return the full config; raise ConfigError with a German reason."""
        return settings.normalize(config)

    def setup(self, config: Json, seats: int, seed: bytes) -> SporeState:
        """Return the first state (founding, Platz 1 first) laid out from ``seed``."""
        return new_game(settings.normalize(config), seats, bytes(seed), self.spec.version)

    def pending(self, state: Any) -> tuple[Pending, ...]:
        """Return the seats that must decide."""
        if type(state) is not SporeState:  # ``_state``, inline: asked several times per move
            raise TypeError("not a Speedspore state")
        return rules.pending(state)

    def legal_moves(self, state: Any, seat: int) -> list[Json]:
        """Return the seat's legal moves (offers: a canonical family)."""
        state = _state(state)
        if not rules.is_pending(state, seat):
            return []
        return rules.legal_moves(state, seat)

    def apply(self, state: Any, seat: int, move: Json) -> tuple[Any, list[Json]]:
        """Return the new state and its effects; raise IllegalMove and leave the input as it was."""
        state = _state(state)
        if not rules.is_pending(state, seat):
            raise IllegalMove("Du bist gerade nicht am Zug.", "not_your_turn")
        return rules.apply(state, seat, move)

    def undoable(self, state: Any, seat: int, move: Json) -> bool:
        """True for builds and supply trades."""
        return rules.undoable(_state(state), seat, move)

    def preview(self, state: Any, seat: int, move: Json) -> Json:
        """Return what the move brings as the seat can know it (refused like ``apply``): never a drawn card,
        a roll, a robbed card or another seat's hidden hand (``previews.describe``)."""
        state = _state(state)
        if not rules.is_pending(state, seat):
            raise IllegalMove("Du bist gerade nicht am Zug.", "not_your_turn")
        new, _ = rules.apply(state, seat, move)
        return previews.describe(state, new, seat, move)

    def view(self, state: Any, seat: int | None) -> Json:
        """Return what the seat may see."""
        return make_view(_state(state), seat, self.rules_id)

    def is_over(self, state: Any) -> bool:
        """Return True once the game has ended."""
        if type(state) is not SporeState:  # ``_state``, inline: asked several times per move
            raise TypeError("not a Speedspore state")
        return state.phase == ENDE

    def outcome(self, state: Any) -> Outcome:
        """Return places, scores, Rechenweg and leaderboard points; ValueError while running."""
        return scoring.outcome(_state(state))

    def determinize(self, view: Json, seat: int, rng: SeededRng) -> SporeState:
        """Return a full state matching the seat's view; hidden parts sampled anew."""
        if view.get("spiel") != GAME:
            raise ValueError("not a Speedspore view")
        return state_from_view(view, seat, rng)

    def timeout_move(self, state: Any, seat: int) -> Json | None:
        """Return the move made for a seat whose think time ran out."""
        return rules.timeout_move(_state(state), seat)


class SpeedsporeV1(Speedspore):
    """Speedspore rules, version 1: the same rules with version 1's gully positions and Einsteiger gullys."""

    spec = SPEC_V1


MODULE = Speedspore()
"""``speedspore@2``, the latest: what new games are played with."""
MODULE_V1 = SpeedsporeV1()
"""``speedspore@1``: registered beside version 2 so that every log written with it replays as it was."""

__all__ = ["MODULE", "MODULE_V1", "SPEC", "SPEC_V1", "Speedspore", "SpeedsporeV1"]

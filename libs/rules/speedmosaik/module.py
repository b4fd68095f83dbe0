"""The Speedmosaik rule module (``speedmosaik@1``): one protocol, dispatched to the game's workshop."""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import GameSpec, Hidden, IllegalMove, Json, Outcome, Pending, RulesBase
from libs.rules.rng import SeededRng
from libs.rules.speedmosaik import config as settings
from libs.rules.speedmosaik.kachelwand import WORKSHOP as KACHELWAND
from libs.rules.speedmosaik.kirchenfenster import WORKSHOP as KIRCHENFENSTER
from libs.rules.speedmosaik.sternpavillon import WORKSHOP as STERNPAVILLON
from libs.rules.speedmosaik.workshop import Workshop

WORKSHOPS: dict[str, Workshop] = {
    KACHELWAND.name: KACHELWAND,
    KIRCHENFENSTER.name: KIRCHENFENSTER,
    STERNPAVILLON.name: STERNPAVILLON,
}
"""The playable workshops by name; a workshop becomes selectable in the settings once it is here."""


SPEC = GameSpec(
    game="speedmosaik",
    version=1,
    seat_counts=(2, 3, 4),
    hidden=frozenset({Hidden.SUPPLY}),
    simultaneous=True,
    variant_key="workshop",
    variants=tuple(WORKSHOPS),
)
"""Speedmosaik: 2–4 seats, only the bag's order is hidden, chance only at setup and refills (from the seed),
several seats choose wall columns at once (free wall), no undo, the computer decides on a timeout."""


class Speedmosaik(RulesBase):
    """Speedmosaik rules, version 1.

    Adding a workshop or an option that no earlier game could have chosen keeps the version: every log
    already written replays exactly as before (the golden playthroughs guard this). Changing what an
    existing setting does would be a new version.
    """

    spec = SPEC

    def valid_configs(self) -> list[Json]:
        """Return every config this version accepts (each workshop with each of its options)."""
        return settings.valid_configs(tuple(WORKSHOPS))

    def settings_options(self) -> Json:
        """Return the settings a table can choose: each workshop with its options, values and defaults."""
        return settings.options_description(tuple(WORKSHOPS))

    def normalize_config(self, config: Json, seats: int) -> Json:
        """Return the full config with defaults; raise ConfigError with a German reason."""
        return settings.normalize(config, seats, tuple(WORKSHOPS))

    def setup(self, config: Json, seats: int, seed: bytes) -> Any:
        """Return the first state of a game with these settings, shuffled from ``seed``."""
        normalized = self.normalize_config(config, seats)
        return WORKSHOPS[normalized["workshop"]].setup(normalized, seats, bytes(seed))

    def pending(self, state: Any) -> tuple[Pending, ...]:
        """Return the seats that must decide now (Speedmosaik has no may-act seats)."""
        return tuple(Pending(seat) for seat in _workshop_of(state).to_move(state))

    def to_move(self, state: Any) -> tuple[int, ...]:
        """Return the seats that must decide now, or () once the game is over."""
        return _workshop_of(state).to_move(state)

    def legal_moves(self, state: Any, seat: int) -> list[Json]:
        """Return this seat's legal moves in the workshop's canonical order."""
        return _workshop_of(state).legal_moves(state, seat)

    def apply(self, state: Any, seat: int, move: Json) -> tuple[Any, list[Json]]:
        """Return the new state and German effect lines; raise IllegalMove and leave the input as it was."""
        return _workshop_of(state).apply(state, seat, move)

    def preview(self, state: Any, seat: int, move: Json) -> Json:
        """Return what the move would bring, without making it."""
        return _workshop_of(state).preview(state, seat, move)

    def view(self, state: Any, seat: int | None) -> Json:
        """Return what the seat may see (never the bag's order or the seed)."""
        return _workshop_of(state).view(state, seat, self.rules_id)

    def is_over(self, state: Any) -> bool:
        """Return True once the game has ended."""
        return _workshop_of(state).is_over(state)

    def outcome(self, state: Any) -> Outcome:
        """Return ranking, scores, tie-breaks, Rechenweg and leaderboard points."""
        return _workshop_of(state).outcome(state)

    def determinize(self, view: Json, seat: int, rng: SeededRng) -> Any:
        """Return a full state matching the view; hidden parts are sampled from rng."""
        if view.get("spiel") != self.game:
            raise ValueError("not a Speedmosaik view")
        workshop = WORKSHOPS.get(str(view.get("einstellungen", {}).get("workshop")))
        if workshop is None:
            raise ValueError("the view names no known workshop")
        return workshop.determinize(view, seat, rng)


def _workshop_of(state: Any) -> Workshop:
    for workshop in WORKSHOPS.values():
        if workshop.owns(state):
            return workshop
    raise TypeError("not a Speedmosaik state")


MODULE = Speedmosaik()

__all__ = ["MODULE", "WORKSHOPS", "IllegalMove", "Speedmosaik"]

"""The Speedmosaik rule module (``speedmosaik@1``): one protocol, each call sent to the game's workshop.

``WORKSHOPS`` holds each workshop's rule functions; a state's type names its workshop, and the module
calls that workshop's function directly. What every workshop shares (who is to move, the end, the
outcome's guard) is done here once; the engine has done what every game shares.
"""

from __future__ import annotations

from typing import Any

from libs.rules.protocol import GameSpec, Hidden, IllegalMove, Json, Outcome, Pending, RulesBase
from libs.rules.rng import SeededRng
from libs.rules.speedmosaik import config as settings
from libs.rules.speedmosaik.home import HOME
from libs.rules.speedmosaik.kachelwand import play as kachelwand_play
from libs.rules.speedmosaik.kachelwand.round_end import movers as kachelwand_movers
from libs.rules.speedmosaik.kachelwand.rules import new_game as kachelwand_new_game
from libs.rules.speedmosaik.kachelwand.scoring import final_outcome as kachelwand_ranking
from libs.rules.speedmosaik.kachelwand.state import KachelwandState
from libs.rules.speedmosaik.kachelwand.view import make_view as kachelwand_view
from libs.rules.speedmosaik.kachelwand.view import state_from_view as kachelwand_from_view
from libs.rules.speedmosaik.kirchenfenster import rules as kirchenfenster_rules
from libs.rules.speedmosaik.kirchenfenster.preview import preview as kirchenfenster_preview
from libs.rules.speedmosaik.kirchenfenster.scoring import final_outcome as kirchenfenster_ranking
from libs.rules.speedmosaik.kirchenfenster.state import KirchenfensterState
from libs.rules.speedmosaik.kirchenfenster.view import make_view as kirchenfenster_view
from libs.rules.speedmosaik.kirchenfenster.view import state_from_view as kirchenfenster_from_view
from libs.rules.speedmosaik.sternpavillon import rules as sternpavillon_rules
from libs.rules.speedmosaik.sternpavillon.preview import preview as sternpavillon_preview
from libs.rules.speedmosaik.sternpavillon.scoring import final_outcome as sternpavillon_ranking
from libs.rules.speedmosaik.sternpavillon.state import SternpavillonState
from libs.rules.speedmosaik.sternpavillon.view import make_view as sternpavillon_view
from libs.rules.speedmosaik.sternpavillon.view import state_from_view as sternpavillon_from_view
from libs.rules.speedmosaik.workshop import Workshop, current_mover

WORKSHOPS: dict[str, Workshop] = {
    workshop.name: workshop
    for workshop in (
        Workshop(
            name="kachelwand",
            state_type=KachelwandState,
            new_game=kachelwand_new_game,
            movers=kachelwand_movers,
            legal_moves=kachelwand_play.legal_moves,
            apply=kachelwand_play.apply,
            preview=kachelwand_play.preview,
            view=kachelwand_view,
            ranking=kachelwand_ranking,
            from_view=kachelwand_from_view,
        ),
        Workshop(
            name="kirchenfenster",
            state_type=KirchenfensterState,
            new_game=kirchenfenster_rules.new_game,
            movers=current_mover,
            legal_moves=kirchenfenster_rules.legal_moves,
            apply=kirchenfenster_rules.apply,
            preview=kirchenfenster_preview,
            view=kirchenfenster_view,
            ranking=kirchenfenster_ranking,
            from_view=kirchenfenster_from_view,
        ),
        Workshop(
            name="sternpavillon",
            state_type=SternpavillonState,
            new_game=sternpavillon_rules.new_game,
            movers=current_mover,
            legal_moves=sternpavillon_rules.legal_moves,
            apply=sternpavillon_rules.apply,
            preview=sternpavillon_preview,
            view=sternpavillon_view,
            ranking=sternpavillon_ranking,
            from_view=sternpavillon_from_view,
        ),
    )
}
"""The playable workshops by name; a workshop becomes selectable in the settings once it is here."""

_BY_STATE: dict[type, Workshop] = {workshop.state_type: workshop for workshop in WORKSHOPS.values()}

_PENDING: tuple[Pending, ...] = tuple(Pending(seat) for seat in range(settings.MAX_SEATS))
"""One must-act entry per seat, made once (``pending`` is asked after every move)."""


SPEC = GameSpec(
    game="speedmosaik",
    version=1,
    seat_counts=(2, 3, 4),
    hidden=frozenset({Hidden.SUPPLY}),
    simultaneous=True,
    variant_key="workshop",
    variants=tuple(WORKSHOPS),
    home=HOME,
)
"""Speedmosaik: 2–4 seats, only the bag's order is hidden, chance only at setup and refills (from the seed),
several seats choose wall columns at once (free wall), no undo, the computer decides on a timeout."""


def _workshop_of(state: Any) -> Workshop:
    try:
        return _BY_STATE[type(state)]
    except KeyError:
        raise TypeError("not a Speedmosaik state") from None


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
        workshop = WORKSHOPS[normalized["workshop"]]
        return workshop.new_game(settings.as_items(normalized), seats, bytes(seed))

    def pending(self, state: Any) -> tuple[Pending, ...]:
        """Return the seats that must decide now, () once the game is over (Speedmosaik has no may-act seats)."""
        return tuple(_PENDING[seat] for seat in _workshop_of(state).movers(state))

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
        _workshop_of(state)  # a state of no workshop is refused as everywhere else
        return bool(state.is_finished)

    def outcome(self, state: Any) -> Outcome:
        """Return ranking, scores, tie-breaks, Rechenweg and leaderboard points; ValueError while running."""
        workshop = _workshop_of(state)
        if not state.is_finished:
            raise ValueError("the game is not over yet")
        return workshop.ranking(state.boards)

    def determinize(self, view: Json, seat: int, rng: SeededRng) -> Any:
        """Return a full state matching the view; hidden parts are sampled from rng."""
        if view.get("spiel") != self.game:
            raise ValueError("not a Speedmosaik view")
        workshop = WORKSHOPS.get(str(view.get("einstellungen", {}).get("workshop")))
        if workshop is None:
            raise ValueError("the view names no known workshop")
        return workshop.from_view(view, rng)


MODULE = Speedmosaik()

__all__ = ["MODULE", "SPEC", "WORKSHOPS", "IllegalMove", "Speedmosaik"]

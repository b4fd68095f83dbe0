"""The Speednova rule modules (``speednova@1``, ``speednova@2``): the protocol's functions, each sent to the part
that does it.

Version 2 differs in one thing only: team signals are *side moves* (``side_channel`` names the team), which the
table keeps in the team's own log beside the game's, so nothing of the game's log may depend on them
(``NovaState.side_signals``: a placement no longer clears a kept-free cell's signal in the game's log). Version 1
stays registered and replays its logs exactly as they were written, signals in the game's log and all.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from libs.rules.protocol import Chance, GameSpec, Hidden, IllegalMove, Json, Outcome, Pending, RulesBase, TimeoutRule
from libs.rules.rng import SeededRng
from libs.rules.speednova import config as settings
from libs.rules.speednova import rules, signals
from libs.rules.speednova.home import HOME
from libs.rules.speednova.outcome import LEADERBOARD, final_outcome
from libs.rules.speednova.placement import parse
from libs.rules.speednova.state import NovaState
from libs.rules.speednova.view import GAME, make_view, state_from_view

SPEC = GameSpec(
    game=GAME,
    version=1,
    seat_counts=(1, 2, 3, 4),
    title="Speednova",
    hidden=frozenset({Hidden.HAND, Hidden.TEAM, Hidden.SUPPLY}),
    chance=Chance.DURING_PLAY,
    may_act=True,
    teams=True,
    timeout=TimeoutRule.GAME_CHOOSES,
    leaderboard=LEADERBOARD,
    home=HOME,
)
"""Speednova: 1–4 seats, hidden racks, team signals and the bag's order; draws during play; team members may
signal at any time; no undo (a placed tile is never taken back); on a timeout the game places and declines."""

SPEC_V2 = replace(SPEC, version=2)
"""speednova@2: the same game; team signals are side moves kept in the team's log (see the module's doc)."""

TEAMS: tuple[tuple[int, ...], ...] = ((0, 2), (1, 3))


def _state(state: Any) -> NovaState:
    if not isinstance(state, NovaState):
        raise TypeError("not a Speednova state")
    return state


class Speednova(RulesBase):
    """Speednova rules, version 1 (``Speednova()``) or 2 (``Speednova(SPEC_V2)``)."""

    spec = SPEC

    def __init__(self, spec: GameSpec = SPEC) -> None:
        self.spec = spec

    @property
    def side_signals(self) -> bool:
        """True from version 2 on: signals are side moves, kept out of the game's log."""
        return self.spec.version >= 2

    def valid_configs(self) -> list[Json]:
        """Return every normalised config (see ``config.valid_configs``)."""
        return settings.valid_configs()

    def settings_options(self) -> Json:
        """Return the settings a table can choose: teams (four seats) and the solo variant (one seat)."""
        return settings.options_description()

    def normalize_config(self, config: Json, seats: int) -> Json:
        """Return the full config for ``seats``; raise ConfigError with a German reason."""
        return settings.normalize(config, seats)

    def teams(self, config: Json, seats: int) -> tuple[tuple[int, ...], ...]:
        """Seats 0 + 2 against 1 + 3 with teams on (the text's Platz 1 + 3 against 2 + 4)."""
        return TEAMS if seats == settings.TEAM_SEATS and config.get(settings.TEAMS_KEY) == "mit" else ()

    def setup(self, config: Json, seats: int, seed: bytes) -> NovaState:
        """Return the first state, the bag shuffled from ``seed``."""
        return rules.new_game(self.normalize_config(config, seats), seats, bytes(seed), self.side_signals)

    def pending(self, state: Any) -> tuple[Pending, ...]:
        """The mover must act; in team games the others may signal."""
        return rules.pending(_state(state))

    def legal_moves(self, state: Any, seat: int) -> list[Json]:
        """Return the seat's legal moves (placements in canonical form, swap decision, team signals)."""
        return rules.legal_moves(_state(state), seat)

    def apply(self, state: Any, seat: int, move: Json) -> tuple[NovaState, list[Json]]:
        """Return the new state and its effects; raise IllegalMove and leave the input as it was."""
        return rules.apply(_state(state), seat, move)

    def move_audience(self, state: Any, seat: int, move: Json) -> tuple[int, ...] | None:
        """A team signal is read by the team only; every other move by everyone."""
        nova = _state(state)
        return nova.team_of(seat) if nova.teams and "signal" in move else None

    def side_channel(self, state: Any, seat: int, move: Json) -> tuple[int, ...] | None:
        """Version 2: a team signal is a side move read by the team only (the table keeps it in the team's log,
        beside the game's); version 1 and every other move: None (the move belongs in the game's log)."""
        if not self.side_signals:
            return None
        nova = _state(state)
        return nova.team_of(seat) if nova.teams and isinstance(move, dict) and "signal" in move else None

    def side_teams(self, config: Json, seats: int) -> tuple[tuple[int, ...], ...]:
        """Version 2 with teams: both teams keep a team log of their signals (team k: seats k and k + 2)."""
        return self.teams(config, seats) if self.side_signals else ()

    def preview(self, state: Any, seat: int, move: Json) -> Json:
        """Return what the move would bring (a placement: its lines and points); never a future draw."""
        nova = _state(state)
        if "signal" in move:
            if nova.current == seat and nova.phase == "tauschen":
                raise IllegalMove("Entscheide zuerst, ob du deine Bank tauschst.", "decide_swap")
            return signals.preview(nova, seat, move)
        if seat != nova.current:
            raise IllegalMove("Du bist nicht am Zug; du kannst nur Teamsignale geben.", "not_your_turn")
        if "tauschen" in move:
            swap = rules.check_swap(nova, move)
            count = len(nova.racks[seat])
            text = (f"Du legst alle {count} Steine zurück in den Beutel und ziehst neue." if swap
                    else "Du behältst deine Bank.")
            return {"zug": dict(move), "text": {"key": "speednova.tausch_vorschau", "params": {"tauschen": swap},
                                                "text": text}}
        return rules.preview_placement(nova, seat, parse(nova, seat, move))

    def view(self, state: Any, seat: int | None) -> Json:
        """Return what the seat may see (never other racks, the bag's order, the seed or the other team's signals)."""
        return make_view(_state(state), seat, self.rules_id)

    def is_over(self, state: Any) -> bool:
        """True once the game has ended."""
        return _state(state).is_finished

    def outcome(self, state: Any) -> Outcome:
        """Return the ranking by weakest colour; ValueError while the game runs."""
        return final_outcome(_state(state))

    def determinize(self, view: Json, seat: int, rng: SeededRng) -> NovaState:
        """Return a full state matching the seat's view; hidden parts sampled from ``rng``."""
        if view.get("spiel") != GAME:
            raise ValueError("not a Speednova view")
        return state_from_view(view, seat, rng)

    def timeout_move(self, state: Any, seat: int) -> Json | None:
        """Decline the swap; for a placement the game places (see ``rules.timeout_placement``)."""
        return rules.timeout_move(_state(state), seat)


MODULE = Speednova()
"""speednova@1: signals in the game's log (kept for its logs)."""
MODULE_V2 = Speednova(SPEC_V2)
"""speednova@2, the latest: signals are side moves in the team's log."""

__all__ = ["MODULE", "MODULE_V2", "SPEC", "SPEC_V2", "Speednova"]

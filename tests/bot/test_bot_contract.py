"""The one bot contract: the policy registry, the shared skeleton and the generic Monte-Carlo fallback.

The fallback is tested on Speedmosaik by forcing it (the game has policies of its own), with small
budgets where whole games are played; its real strength and decision times are measured by `make bench`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import pytest

from libs.rules import registry
from libs.rules.engine import UNDO_KEY, Engine, Position
from libs.rules.protocol import Json
from libs.rules.rng import SeededRng
from services.bot.policies import LEVELS, advise, decide
from services.bot.policies import registry as policies
from services.bot.policies.contract import Candidate, DeterminizedPolicy, Situation
from services.bot.policies.montecarlo import Budget, MonteCarloPolicy, place_share
from services.bot.policies.speedmosaik import kachelwand, kirchenfenster, sternpavillon
from tests.bot.games import Player, play
from tests.rules.helpers import registered_plugins
from tests.rules.speedmosaik_builders import free_board, lines, table, with_full_bag

RULES = "speedmosaik@1"
QUICK = MonteCarloPolicy({
    "easy": Budget(moves=40, determinizations=1, candidates=4, halving=False, noise=0.35),
    "normal": Budget(moves=100, determinizations=2, candidates=8, halving=True, noise=0.0),
    "strong": Budget(moves=200, determinizations=3, candidates=8, halving=True, noise=0.0),
})
"""The fallback with small budgets, so whole games stay quick in tests."""

def fallback(level: str, policy: MonteCarloPolicy = QUICK) -> Player:
    """Return a player that is the generic fallback at ``level``, whatever policy the game has."""
    return lambda engine, view, seat, rng: policy.decide(engine, view, seat, level, rng)


def random_player(engine: Engine, view: Json, seat: int, rng: SeededRng) -> Json | None:
    """Return a random legal move, made from the seat's view like any bot."""
    state = engine.determinize(view, seat, rng.derive("determinize"))
    return rng.choice(engine.legal_moves(engine.from_state(state, int(view["plaetze"])), seat))


def share_of_first(engine: Engine, config: Json, first: Player, second: Player, games: int) -> float:
    """Return the first player's share of won games (ties half), seats alternating."""
    score = 0.0
    for game in range(games):
        players = (first, second) if game % 2 == 0 else (second, first)
        places = play(engine, config, players, f"gegen-{game}".encode())
        score += place_share(places, game % 2)
    return score / games


@pytest.fixture
def tiny() -> Iterator[Engine]:
    """The conformance suite's tiny game (may-act offers, simultaneous laying, hidden hands, "Zurück")."""
    with registered_plugins("tests.rules.tinygame"):
        yield registry.engine("tinygame@1")


# ---- the registry ---------------------------------------------------------------------------------------
def test_each_workshop_has_its_own_policy_and_anything_else_gets_the_fallback() -> None:
    engine = registry.engine(RULES)
    for workshop, policy in (("kachelwand", kachelwand.POLICY), ("kirchenfenster", kirchenfenster.POLICY),
                             ("sternpavillon", sternpavillon.POLICY)):
        view = engine.view(engine.start(engine.normalize_config({"workshop": workshop}, 2), 2, b"r"), 0)
        assert policies.policy_for(RULES, view) is policy
    assert policies.policy_for(RULES, {"einstellungen": {"workshop": "neu"}}) is policies.FALLBACK
    assert policies.policy_for(RULES, {}) is policies.FALLBACK


def test_a_new_game_has_computer_players_on_the_day_it_is_registered(tiny: Engine) -> None:
    position = tiny.start(tiny.normalize_config({}, 3), 3, b"neu")
    view = tiny.view(position, 0)
    assert policies.policy_for(tiny.rules_id, view) is policies.FALLBACK
    for level in LEVELS:
        assert decide(tiny.rules_id, view, 0, level, SeededRng(b"r")) in tiny.legal_moves(position, 0)
    move, reason = advise(tiny.rules_id, view, 0, SeededRng(b"r"))
    assert move == decide(tiny.rules_id, view, 0, "strong", SeededRng(b"r"))
    assert reason["key"] == "bot.rat.durchgespielt" and "zu Ende gespielten Partien" in reason["text"]


class FirstMove(DeterminizedPolicy):
    """A dedicated policy in a few lines: every legal move is worth the same, so the first is chosen."""

    DETERMINIZATIONS: ClassVar[Mapping[str, int]] = {"easy": 1, "normal": 3, "strong": 3}

    def evaluate_one(self, situation: Situation, position: Position) -> list[Candidate]:
        return [Candidate(move, 0.0) for move in situation.engine.legal_moves(position, situation.seat)]

    def reason(self, situation: Situation, chosen: Candidate) -> Json:
        return {"key": "test.erster", "params": {}, "text": "Der erste Zug."}


def test_a_dedicated_policy_fills_the_skeletons_hooks_and_is_registered_per_game(tiny: Engine) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(policies, "_POLICIES", dict(policies._POLICIES))
        policies.register("tinygame", FirstMove(), variant="team")
        team = tiny.view(tiny.start({"variante": "team"}, 4, b"team"), 0)
        alone = tiny.view(tiny.start({"variante": "einzeln"}, 4, b"team"), 0)
        assert isinstance(policies.policy_for(tiny.rules_id, team), FirstMove)
        assert policies.policy_for(tiny.rules_id, alone) is policies.FALLBACK
        first = tiny.legal_moves(tiny.start({"variante": "team"}, 4, b"team"), 0)[0]
        assert decide(tiny.rules_id, team, 0, "strong", SeededRng(b"r")) == first
        assert advise(tiny.rules_id, team, 0, SeededRng(b"r")) == (first, {"key": "test.erster", "params": {},
                                                                          "text": "Der erste Zug."})


# ---- the fallback on Speedmosaik ------------------------------------------------------------------------
@pytest.mark.parametrize("config", [{"workshop": "kachelwand", "wall": "frei", "jokers": "mit"},
                                    {"workshop": "kirchenfenster"}, {"workshop": "sternpavillon"}])
def test_the_fallback_finishes_every_workshop_with_legal_moves_only(config: Json) -> None:
    places = play(registry.engine(RULES), config, (fallback("easy"), fallback("strong")), b"ende")
    assert sorted(places)[0] == 1 and len(places) == 2


def test_the_fallback_beats_random_play_clearly() -> None:
    engine = registry.engine(RULES)
    assert share_of_first(engine, {"workshop": "kachelwand"}, fallback("normal"), random_player, 8) >= 0.75


def _midgame(engine: Engine, config: Json, moves: int) -> Position:
    position = engine.start(engine.normalize_config(config, 3), 3, b"mitte")
    rng = SeededRng(b"mitte")
    for _ in range(moves):
        seat = engine.must_act(position)[0]
        position = engine.apply(position, seat, rng.choice(engine.legal_moves(position, seat))).position
    return position


@pytest.mark.parametrize("config", [{"workshop": "kachelwand"}, {"workshop": "sternpavillon"}])
def test_a_fallback_decision_is_deterministic_given_the_rng(config: Json) -> None:
    engine = registry.engine(RULES)
    position = _midgame(engine, config, 25)
    seat = engine.must_act(position)[0]
    view = engine.view(position, seat)
    policy = policies.FALLBACK
    for level in LEVELS:
        move = policy.decide(engine, view, seat, level, SeededRng(b"gleich"))
        assert move in engine.legal_moves(position, seat)
        assert policy.decide(engine, view, seat, level, SeededRng(b"gleich")) == move
    advised, reason = policy.advise(engine, view, seat, SeededRng(b"gleich"))
    assert advised == policy.decide(engine, view, seat, "strong", SeededRng(b"gleich"))
    assert reason["key"] == "bot.rat.durchgespielt"
    assert reason["params"]["partien"] > 0 and 0 <= reason["params"]["anteil"] <= 100
    assert reason["text"].startswith(f"In {reason['params']['partien']} zufällig zu Ende gespielten Partien")


def test_the_fallback_chooses_wall_columns_for_seats_deciding_at_the_same_time() -> None:
    engine = registry.engine(RULES)
    risky = free_board(wall_rows=("GB...", "BGS..", "", "....R"), pattern=lines(r1=("rot", 1), r2=("rot", 2)))
    other = free_board(pattern=lines(r1=("gelb", 1)))
    state = with_full_bag(table((risky, other), wall_kind="frei", centre=("blau",)))
    position = engine.apply(engine.from_state(state, 2), 0, {"source": "mitte", "farbe": "blau", "reihe": 0}).position
    assert engine.must_act(position) == (0, 1)
    for level in LEVELS:
        moves = {seat: fallback(level, policies.FALLBACK)(engine, engine.view(position, seat), seat,
                                                          SeededRng(b"spalte")) for seat in (1, 0)}
        after = position
        for seat, move in moves.items():
            assert move in engine.legal_moves(after, seat)
            after = engine.apply(after, seat, move).position


def test_a_single_legal_move_is_played_without_playouts(tiny: Engine) -> None:
    position = tiny.start({"variante": "einzeln"}, 2, b"eins")
    rng = SeededRng(b"eins")
    # Pass every turn: in the second round each seat lays its one last card, its only legal move.
    while tiny.view(position, 0)["phase"] != "legen" or tiny.view(position, 0)["runde"] != 2:
        seat = tiny.must_act(position)[0]
        legal = tiny.legal_moves(position, seat)
        step: Json = {"passen": True} if {"passen": True} in legal else rng.choice(legal)
        position = tiny.apply(position, seat, step).position
    seat = tiny.must_act(position)[0]
    (only,) = tiny.legal_moves(position, seat)
    move, reason = policies.FALLBACK.advise(tiny, tiny.view(position, seat), seat, SeededRng(b"eins"))
    assert move == only
    assert reason == {"key": "bot.rat.einziger_zug", "params": {"zug": only}, "text": "Es gibt nur diesen einen Zug."}


# ---- may-act seats and simultaneous decisions (the tiny game) -----------------------------------------
def _play_tiny(engine: Engine, config: Json, seats: int, seed: bytes, levels: tuple[str, ...]) -> dict[str, Any]:
    """Play through the service's entry point: may-act seats are asked too, and may decline (None)."""
    position = engine.start(engine.normalize_config(config, seats), seats, seed)
    rng = SeededRng(seed, "bots")
    seen: dict[str, Any] = {"declined": 0, "accepted": 0}
    turn = 0
    while not engine.is_over(position):
        pending = engine.pending(position)
        acted = False
        for entry in sorted(pending, key=lambda p: p.must):  # may-act seats first: they answer the offer
            view = engine.view(position, entry.seat)
            move = decide(engine.rules_id, view, entry.seat, levels[entry.seat], rng.derive(f"{turn}-{entry.seat}"))
            turn += 1
            if move is None:
                assert not entry.must
                seen["declined"] += 1
                continue
            assert UNDO_KEY not in move and move in engine.legal_moves(position, entry.seat)
            seen["accepted"] += not entry.must
            position = engine.apply(position, entry.seat, move).position
            acted = True
            break
        assert acted
    seen["places"] = engine.outcome(position).places
    return seen


@pytest.mark.parametrize(("config", "seats"), [({}, 2), ({}, 3), ({"variante": "team"}, 4)])
def test_the_fallback_plays_may_act_offers_and_simultaneous_laying_to_the_end(
        tiny: Engine, config: Json, seats: int) -> None:
    levels = tuple(LEVELS[seat % len(LEVELS)] for seat in range(seats))
    seen = _play_tiny(tiny, config, seats, b"klein", levels)
    assert min(seen["places"]) == 1 and len(seen["places"]) == seats
    if seats == 3:
        # In this (seeded) game offers are made, declined (None: nothing submitted) and accepted.
        assert seen["declined"] > 0 and seen["accepted"] > 0


def test_a_may_act_seat_decides_between_accepting_and_not_acting(tiny: Engine) -> None:
    position = tiny.start({"variante": "einzeln"}, 3, b"angebot")
    position = tiny.apply(position, 0, {"anbieten": True}).position
    assert tiny.may_act(position) == (1, 2)
    for seat in (1, 2):
        view = tiny.view(position, seat)
        for level in LEVELS:
            move = decide(tiny.rules_id, view, seat, level, SeededRng(b"a"))
            assert move in ({"annehmen": True}, None)
            assert decide(tiny.rules_id, view, seat, level, SeededRng(b"a")) == move
        move, reason = advise(tiny.rules_id, view, seat, SeededRng(b"a"))
        assert reason["key"] == ("bot.rat.abwarten" if move is None else "bot.rat.durchgespielt")

"""What clients show beside the board ("Was geht?", reasons, trade plans): a first version.

``extras(state, seat)`` is merged into a seat's view under "anzeige"; ``missing_reason`` and ``trade_plan``
are also used by the rules (refusal reasons, the canonical "mit Tausch" plan listed by ``legal_moves``).
Everything here reads only what the seat may see: its own hand, the board, the supply.
"""

from __future__ import annotations

from typing import Any

from libs.rules.speedspore import building
from libs.rules.speedspore.material import BUILD_NAMES, BUILDS, COSTS, KIND_COUNT, KIND_NAMES, KINDS
from libs.rules.speedspore.state import HAUPT, SporeState


def _missing(hand: tuple[int, ...], build: str) -> tuple[int, ...]:
    return tuple(max(0, need - have) for have, need in zip(hand, COSTS[build], strict=True))


def trade_plan(state: SporeState, seat: int, build: str) -> list[Any] | None:
    """Return the supply trades (``[{"gib", "nimm"}, …]``) that make the build affordable, [] if it already
    is, None if no trades at the seat's rates can (canonical: cheapest rate, then most spare cards)."""
    hand = list(state.hands[seat])
    cost = COSTS[build]
    missing = _missing(state.hands[seat], build)
    if not any(missing):
        return []
    rates = building.rates(state, seat)
    supply = list(state.supply)
    plan: list[Any] = []
    for take in range(KIND_COUNT):
        for _ in range(missing[take]):
            if supply[take] < 1:
                return None
            options = [give for give in range(KIND_COUNT)
                       if give != take and hand[give] - cost[give] >= rates[give]]
            if not options:
                return None
            give = min(options, key=lambda k: (rates[k], -(hand[k] - cost[k]), k))
            hand[give] -= rates[give]
            hand[take] += 1
            supply[take] -= 1
            supply[give] += rates[give]
            plan.append({"gib": KINDS[give], "nimm": KINDS[take]})
    return plan


def _plan_words(state: SporeState, seat: int, plan: list[Any]) -> str:
    rates = building.rates(state, seat)
    parts = []
    for step in plan:
        give, take = KINDS.index(step["gib"]), KINDS.index(step["nimm"])
        parts.append(f"{rates[give]} {KIND_NAMES[give]} gegen {KIND_NAMES[take]} ({rates[give]}:1)")
    return ", ".join(parts)


def missing_reason(state: SporeState, seat: int, build: str) -> str | None:
    """Return why the seat cannot build this now (German), or None if it can."""
    if build == "mutation":
        if not state.deck:
            return "Der Mutationsstapel ist leer."
    else:
        if building.pieces_left(state, seat, build) <= 0:
            return f"Du hast keine {BUILD_NAMES[build]} mehr."
        if not building.spots(state, seat, build):
            if build == "turm":
                return "Du hast keinen Fruchtkörper für einen Turm."
            return "Es gibt gerade keinen Platz dafür."
    missing = _missing(state.hands[seat], build)
    if not any(missing):
        return None
    words = " und ".join(f"{count} {KIND_NAMES[kind]}" for kind, count in enumerate(missing) if count)
    plan = trade_plan(state, seat, build)
    if plan:
        return f"Es fehlen {words} – Tausch möglich: {_plan_words(state, seat, plan)}."
    return f"Es fehlen {words}."


def extras(state: SporeState, seat: int | None) -> dict[str, Any]:
    """Return what the seat's screen shows beside the board (``{}`` for spectators)."""
    if seat is None:
        return {}
    own_turn = state.phase == HAUPT and state.current == seat
    what: list[Any] = []
    for build in BUILDS:
        reason = missing_reason(state, seat, build)
        places = 1 if build == "mutation" else len(building.spots(state, seat, build))
        if reason is None:
            status, plan = "baubar", []
        else:
            plan_or_none = trade_plan(state, seat, build) if places else None
            status = "mit_tausch" if plan_or_none else "nicht"
            plan = plan_or_none or []
        what.append({"bau": build, "status": status if own_turn else "nicht_am_zug", "plaetze": places,
                     "tausch": plan, "grund": reason})
    return {"was_geht": what}

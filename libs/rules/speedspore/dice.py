"""Rolling ("zufall": two seeded dice; "ausgeglichen": the 36 outcomes as a deck) and the harvest of a roll."""

from __future__ import annotations

from hashlib import sha256

from libs.rules.rng import SeededRng
from libs.rules.speedspore.board import FIELD_CORNERS, FIELD_COUNT
from libs.rules.speedspore.material import DESERT, KIND_COUNT
from libs.rules.speedspore.state import SporeState, YieldLine, YieldRecord

ALL_OUTCOMES: tuple[int, ...] = tuple(range(36))
RESHUFFLE_AT = 5


def shuffled_deck(seed: bytes, number: int) -> tuple[int, ...]:
    """Return the dice deck of shuffle ``number`` (label ``speedspore/wuerfelstapel/<number>``)."""
    return tuple(SeededRng(seed, f"speedspore/wuerfelstapel/{number}").shuffle(ALL_OUTCOMES))


_SIX_LIMIT = (1 << 64) - (1 << 64) % 6
"""``randbelow(6)`` takes a word below this (docs/rules/rng.md)."""


def _two_dice(seed: bytes, number: int) -> tuple[int, int]:
    """Return roll ``number``'s dice: ``SeededRng(seed, f"speedspore/wurf/{number}")``, two ``randbelow(6) + 1``.

    Both words come from the stream's first block, computed here straight (docs/rules/rng.md); only when one
    of them is rejected (about once in 10¹⁸) is the generator itself asked.
    """
    label = f"speedspore/wurf/{number}".encode()
    digest = sha256(bytes(seed) + len(label).to_bytes(4, "big") + label + _BLOCK_ZERO).digest()
    first, second = int.from_bytes(digest[:8], "big"), int.from_bytes(digest[8:16], "big")
    if first < _SIX_LIMIT and second < _SIX_LIMIT:
        return first % 6 + 1, second % 6 + 1
    rng = SeededRng(seed, f"speedspore/wurf/{number}")
    return rng.randbelow(6) + 1, rng.randbelow(6) + 1


_BLOCK_ZERO = (0).to_bytes(8, "big")


def roll(state: SporeState) -> tuple[tuple[int, int], tuple[int, ...], tuple[int, ...], int]:
    """Return (dice, dice deck, dice seen, shuffles) after the next roll."""
    if state.dice_mode == "zufall":
        return _two_dice(state.seed, state.rolls + 1), (), (), state.shuffles
    outcome = state.dice_deck[-1]
    deck = state.dice_deck[:-1]
    seen = (*state.dice_seen, outcome)
    shuffles = state.shuffles
    if len(deck) <= RESHUFFLE_AT:
        shuffles += 1
        deck, seen = shuffled_deck(state.seed, shuffles), ()
    return (outcome // 6 + 1, outcome % 6 + 1), deck, seen, shuffles


Rolling = dict[int, tuple[tuple[int, int, tuple[int, ...]], ...]]
"""Per number token the yielding fields carrying it: ``(field, kind, corners)``."""


def rolling_fields(numbers: tuple[int, ...], fields: tuple[int, ...]) -> Rolling:
    """Return per number token the yielding fields that carry it: ``(field, kind, corners)``, fields ascending
    (kept per island: it never changes during a game)."""
    key = (numbers, fields)
    table = _ROLLING.get(key)
    if table is None:
        found: dict[int, list[tuple[int, int, tuple[int, ...]]]] = {}
        for field in range(FIELD_COUNT):
            if fields[field] != DESERT:
                found.setdefault(numbers[field], []).append((field, fields[field], FIELD_CORNERS[field]))
        table = {number: tuple(entries) for number, entries in found.items()}
        if len(_ROLLING) >= 256:
            _ROLLING.clear()
        _ROLLING[key] = table
    return table


_ROLLING: dict[tuple[tuple[int, ...], tuple[int, ...]], Rolling] = {}


def harvest(state: SporeState, number: int, dice: tuple[int, int], rolls: int | None = None
            ) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], YieldRecord]:
    """Return (new hands, new supply, record) for a roll of ``number`` (not 7); ``state.rolls`` counts it already
    (or ``rolls`` gives the count).

    Each field with the number gives each adjacent Fruchtkörper 1 and each tower 2 of its kind, except the
    mold's field. A kind the supply cannot pay in full goes to nobody, unless one seat alone is owed it:
    that seat gets what is left.
    """
    seats = state.seats
    roll = state.rolls if rolls is None else rolls
    owed: dict[int, list[int]] = {}
    """Per seat owed anything: per kind how much."""
    totals = [0] * KIND_COUNT
    lines: dict[int, list[YieldLine]] = {}
    mold: list[tuple[int, YieldLine]] = []
    owners, levels, mold_field = state.corner_owner, state.corner_level, state.mold
    for field, kind, corners in rolling_fields(state.numbers, state.fields).get(number, ()):
        for corner in corners:
            owner = owners[corner]
            if owner == -1:
                continue
            level = levels[corner]
            line: YieldLine = (field, number, kind, level, level == 2)
            if field == mold_field:
                mold.append((owner, line))
            elif owner in owed:
                owed[owner][kind] += level
                totals[kind] += level
                lines[owner].append(line)
            else:
                owed[owner] = counts = [0] * KIND_COUNT
                counts[kind] = level
                totals[kind] += level
                lines[owner] = [line]
    if not owed:  # nobody is owed anything: hands and supply stay as they are
        return state.hands, state.supply, YieldRecord(roll=roll, dice=dice, received=((),) * seats,
                                                      mold=tuple(mold), short=(), partial=())
    supply = list(state.supply)
    gains = {seat: [0] * KIND_COUNT for seat in owed}
    short: list[int] = []
    partial: list[tuple[int, int, int, int]] = []
    for kind in range(KIND_COUNT):
        total = totals[kind]
        if total == 0:
            continue
        if total <= supply[kind]:
            for seat, counts in owed.items():
                gains[seat][kind] = counts[kind]
            supply[kind] -= total
            continue
        takers = [seat for seat in sorted(owed) if owed[seat][kind]]
        if len(takers) == 1:
            seat = takers[0]
            got = supply[kind]
            gains[seat][kind] = got
            supply[kind] = 0
            partial.append((kind, seat, owed[seat][kind], got))
            lines[seat] = _cap(lines[seat], kind, got)
        else:
            short.append(kind)
            for seat in takers:
                lines[seat] = [line for line in lines[seat] if line[2] != kind]
    hands = list(state.hands)
    for seat, gain in gains.items():
        if any(gain):
            hand = hands[seat]
            hands[seat] = (hand[0] + gain[0], hand[1] + gain[1], hand[2] + gain[2], hand[3] + gain[3],
                           hand[4] + gain[4])
    received = tuple(tuple(lines[seat]) if seat in lines else () for seat in range(seats))
    record = YieldRecord(roll=roll, dice=dice, received=received, mold=tuple(mold), short=tuple(short),
                         partial=tuple(partial))
    return tuple(hands), tuple(supply), record


def _cap(lines: list[YieldLine], kind: int, got: int) -> list[YieldLine]:
    """Return the lines of ``kind`` cut down to ``got`` resources in all (others unchanged)."""
    result: list[YieldLine] = []
    for line in lines:
        if line[2] != kind:
            result.append(line)
            continue
        amount = min(line[3], got)
        got -= amount
        if amount:
            result.append((line[0], line[1], line[2], amount, line[4]))
    return result

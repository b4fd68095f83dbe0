"""Hypothesis strategies for hostile moves, and what a refusal of one must look like.

Shared by the rules' malformed-move properties (through the Engine) and the table's (over HTTP and NATS):
arbitrary JSON values, objects with known keys holding junk, and near-misses of legal moves.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

from hypothesis import strategies as st

from libs.rules.engine import UNDO_KEY
from libs.rules.protocol import Json

ODD_TEXTS = ("", " ", "\x00", "blau\x00", "\ud800", "a\udfffb", "\u202eblau", "Blau", "BLAU", "blau ", "lila",
             "zurueck", "null", "1", "0", "-1", "NaN")
"""Strings every parser should survive: NUL, lone surrogates, RTL override, case and spacing near-misses."""
ODD_INTS = (0, -1, 1, 2, 5, 6, 99, 2**31, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**30, 10**400, -(10**400))
"""Integers around every boundary a module or a wire format might have (64 bits, far beyond)."""
ODD_FLOATS = (0.0, -0.0, 1.0, 1.5, -1.0, math.nan, math.inf, -math.inf, 1e300, 5e-324)
RENAMED_KEYS = ("Farbe", "farbe ", "reihe\x00", "\ud800", "", "__proto__", "constructor", UNDO_KEY, "bestaetigt")


def long_text(length: int) -> str:
    """A string far longer than any name a move holds (a reason must not echo it back)."""
    return "Ü" * length


def _texts() -> st.SearchStrategy[str]:
    """Short strings of any code point (lone surrogates included), the odd strings above, very long strings."""
    return st.one_of(st.text(st.characters(exclude_categories=()), max_size=12), st.sampled_from(ODD_TEXTS),
                     st.sampled_from((1_000, 100_000)).map(long_text))


def json_scalars() -> st.SearchStrategy[Any]:
    """None, booleans, integers of any size, floats with NaN and infinities, hostile strings."""
    return st.one_of(
        st.none(), st.booleans(), st.integers(), st.sampled_from(ODD_INTS),
        st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(ODD_FLOATS), _texts(),
    )


def json_values(keys: Sequence[str] = ()) -> st.SearchStrategy[Any]:
    """Any JSON-like value (nested lists and objects of scalars); object keys drawn from ``keys`` and junk."""
    key = st.one_of(st.sampled_from([*keys, *RENAMED_KEYS]), _texts())
    return st.recursive(
        json_scalars(),
        lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(key, children, max_size=4)),
        max_leaves=10,
    )


def known_keys(moves: Iterable[Json]) -> list[str]:
    """Return the keys legal moves use, sorted (for objects that look like moves but hold junk)."""
    return sorted({key for move in moves for key in move})


def _neighbours(value: Any, seen: Sequence[Any]) -> list[Any]:
    """Return values next to ``value``: off by one, another type, another legal value of the same key."""
    near: list[Any] = [None, [value], {"wert": value}, *seen]
    if isinstance(value, bool):
        near += [not value, int(value), str(value).lower()]
    elif isinstance(value, int):
        near += [value + 1, value - 1, -value, float(value), str(value), value + 2**64, True, False]
    elif isinstance(value, str):
        near += [value + "x", value[:-1], value.upper(), value.capitalize(), " " + value, value + "\x00",
                 value + "\ud800", 0, True]
    return near


@st.composite
def mutated(draw: st.DrawFn, moves: Sequence[Json], keys: Sequence[str]) -> Any:
    """A legal move with one or two changes: a key dropped, added or renamed, a value made a neighbour or junk."""
    move = dict(draw(st.sampled_from(moves)))
    for _ in range(draw(st.sampled_from((1, 1, 2)))):  # mostly one change: the move stays close to legal
        kind = draw(st.sampled_from(("drop", "add", "rename", "neighbour", "neighbour", "neighbour", "junk")))
        present = sorted(move)
        if kind == "add" or not present:
            move[draw(st.one_of(st.sampled_from([*keys, *RENAMED_KEYS]), _texts()))] = draw(json_values(keys))
            continue
        key = draw(st.sampled_from(present))
        if kind == "drop":
            del move[key]
        elif kind == "rename":
            move[draw(st.one_of(st.sampled_from([*keys, *RENAMED_KEYS]), _texts()))] = move.pop(key)
        elif kind == "neighbour":
            seen = [other[key] for other in moves if key in other and other[key] != move[key]][:8]
            move[key] = draw(st.sampled_from(_neighbours(move[key], seen)))
        else:
            move[key] = draw(json_values(keys))
    return move


def hostile_moves(moves: Sequence[Json], keys: Sequence[str]) -> st.SearchStrategy[Any]:
    """Moves to try: any JSON value, objects of known keys holding junk, "Zurück" misspelt, near-misses of ``moves``.

    ``moves`` are legal moves of some seat (may be empty), ``keys`` the keys the game's moves use.
    """
    junk_objects = st.dictionaries(st.sampled_from([*keys, UNDO_KEY]), json_values(keys), min_size=1, max_size=5)
    undo_like = st.builds(lambda value, extra: {UNDO_KEY: value, **extra}, json_values(keys),
                          st.dictionaries(st.sampled_from([*keys, "x"]), json_scalars(), max_size=1))
    options = [json_values(keys), junk_objects, undo_like]
    if moves:
        options += [mutated(moves, keys)] * 3  # near-misses reach the rules behind the shape checks: more of them
    return st.one_of(options)


_ENGLISH = re.compile(r"\b(the|is|not|invalid|expected|object|type|error|must|field|value|missing|got)\b",
                      re.IGNORECASE)
MAX_REASON = 400
"""A reason is a sentence for a player: long enough for a rule, never the echo of a whole hostile value."""


def assert_german_reason(reason: Any) -> None:
    """Assert a refusal's reason is one short German sentence a player can read (and any wire can carry)."""
    assert isinstance(reason, str) and reason.strip(), f"no reason: {reason!r}"
    assert len(reason) <= MAX_REASON, f"reason of {len(reason)} characters: {reason[:80]!r}…"
    reason.encode("utf-8")  # a lone surrogate echoed into a reason would break every answer that carries it
    assert "\x00" not in reason, repr(reason)
    assert _ENGLISH.search(reason) is None, f"not German: {reason!r}"
    assert "Traceback" not in reason and "Error" not in reason, f"an exception, not a reason: {reason!r}"


def is_plain_json(value: Any) -> bool:
    """Return True if ``value`` is strict JSON text material (no NaN or infinities, no lone surrogates)."""
    try:
        json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except (ValueError, TypeError, UnicodeEncodeError):
        return False
    return True


def is_plain_open_move(value: Any) -> bool:
    """Return True if ``value`` holds only objects, lists, strings and non-negative ints (an open move's material).

    Open moves (``GameSpec.open_moves``) may be legal without being listed; they must then be this plain, so a
    float, a boolean or a negative count never slips through as a number.
    """
    kind = type(value)
    if kind is dict:
        return all(type(key) is str and is_plain_open_move(item) for key, item in value.items())
    if kind is list:
        return all(is_plain_open_move(item) for item in value)
    if kind is int:
        return value >= 0
    return kind is str

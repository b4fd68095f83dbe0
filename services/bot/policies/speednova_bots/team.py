"""Computer partners in Speednova's team game: the signals they give and how they read their team's signals.

A computer partner says „Ich habe viel <Farbe>“ for the colour most of its rack shows (at least
``MANY_TILES`` tiles) and „Brauche <Farbe>“ for one of the team's weakest colours that no rack tile shows;
it takes back a signal of its own that no longer holds (by giving it again). One change per decision, and
only when something changed, so a computer asked again and again settles at once ("does not act").

It respects its team's signals: never a placement on a cell marked „Feld frei halten“ while another one is
possible, more weight on a colour a partner needs, less on a colour a partner has plenty of (the partner
will place it).
"""

from __future__ import annotations

from dataclasses import dataclass

from libs.rules.protocol import Json
from libs.rules.speednova.signals import KEEP_FREE, MANY, NEED, signal_move, signal_text
from libs.rules.speednova.tiles import COLOUR_INDEX, COLOUR_NAMES, COLOURS, N_COLOURS, TILE_COLOURS, tile_code
from services.bot.policies.contract import Candidate

MANY_TILES = 3
"""A computer says „Ich habe viel …“ for a colour at least this many of its rack tiles show."""
NEEDED_WEIGHT = 1.5
"""A colour a partner asked for („Brauche …“) counts this much more in the bot's own placements."""
PLENTY_WEIGHT = 0.75
"""A colour a partner has plenty of („Ich habe viel …“) counts this much in the bot's own placements."""

Signal = tuple[str, int]


@dataclass(frozen=True)
class Preferences:
    """What the team's signals ask of a seat's placements: colour weights and cells to keep free."""

    weights: tuple[float, ...]
    keep_free: frozenset[int]
    needed: tuple[int, ...] = ()
    """Colours a partner asked for (for the advice's words)."""


NO_PREFERENCES = Preferences(weights=(1.0,) * N_COLOURS, keep_free=frozenset())


def _team_signals(view: Json) -> list[Json]:
    own = view.get("du") or {}
    return list(own.get("signale") or [])


def preferences(view: Json, seat: int) -> Preferences:
    """Return the weights and cells the team's signals ask ``seat`` to respect (none outside team games)."""
    entries = _team_signals(view)
    if not entries:
        return NO_PREFERENCES
    weights = [1.0] * N_COLOURS
    keep_free: set[int] = set()
    needed: list[int] = []
    for entry in entries:
        if entry["signal"] == KEEP_FREE:
            keep_free.add(int(entry["feld"]))  # the team's cells, the seat's own marks included
        elif entry["sitz"] != seat:
            colour = COLOUR_INDEX[entry["farbe"]]
            if entry["signal"] == NEED:
                weights[colour] *= NEEDED_WEIGHT
                needed.append(colour)
            elif entry["signal"] == MANY:
                weights[colour] *= PLENTY_WEIGHT
    return Preferences(weights=tuple(weights), keep_free=frozenset(keep_free), needed=tuple(needed))


def rack_codes(view: Json) -> list[int]:
    """Return the tile codes of the seat's own rack, as its view shows them."""
    return [tile_code(COLOUR_INDEX[entry["stein"][0]], COLOUR_INDEX[entry["stein"][1]])
            for entry in view["du"]["bank"]]


def colour_counts(codes: list[int]) -> list[int]:
    """Return per colour how many of the tiles show it (a double star of one colour counts once)."""
    counts = [0] * N_COLOURS
    for code in codes:
        for colour in set(TILE_COLOURS[code]):
            counts[colour] += 1
    return counts


def wanted_signals(view: Json, seat: int) -> list[Signal]:
    """Return the colour signals the seat's rack and its team's track call for now (at most one of each kind)."""
    codes = rack_codes(view)
    counts = colour_counts(codes)
    wanted: list[Signal] = []
    most = max(counts)
    if most >= MANY_TILES:
        wanted.append((MANY, counts.index(most)))
    track = view["tafeln"][view["spieler"][seat]["tafel"]]
    values = [track["werte"][colour] for colour in COLOURS]
    low = min(values)
    missing = [colour for colour, value in enumerate(values) if value == low and counts[colour] == 0]
    if missing and codes:
        wanted.append((NEED, missing[0]))
    return wanted


@dataclass(frozen=True)
class SignalDetail:
    """Why a signal move (or none) was chosen: the signal, whether it is taken back, and the rack's count."""

    signal: Signal | None
    withdraw: bool = False
    count: int = 0


def signal_candidates(view: Json, seat: int, legal: list[Json]) -> list[Candidate]:
    """Return "no signal" and at most one signal change: first taking back a stale own signal, else a new one."""
    own: list[Signal] = []
    for entry in _team_signals(view):
        if entry["sitz"] == seat and entry["signal"] in (MANY, NEED):
            own.append((entry["signal"], COLOUR_INDEX[entry["farbe"]]))
    wanted = wanted_signals(view, seat)
    counts = colour_counts(rack_codes(view))
    candidates = [Candidate(None, 0.0, SignalDetail(None))]
    change: Candidate | None = None
    stale = [signal for signal in own if signal not in wanted]
    fresh = [signal for signal in wanted if signal not in own]
    if stale:
        change = Candidate(signal_move(stale[0]), 1.0, SignalDetail(stale[0], withdraw=True))
    elif fresh:
        change = Candidate(signal_move(fresh[0]), 1.0, SignalDetail(fresh[0], count=counts[fresh[0][1]]))
    if change is not None and change.move in legal:
        candidates.append(change)
    return candidates


def signal_reason(detail: SignalDetail) -> Json:
    """Return the German reason for a signal (or for giving none)."""
    if detail.signal is None:
        return {"key": "speednova.rat.kein_signal", "params": {},
                "text": "Gib gerade kein neues Signal: dein Team weiß schon, was deine Bank hergibt."}
    kind, colour = detail.signal
    params = {"signal": kind, "farbe": COLOURS[colour], "zuruecknehmen": detail.withdraw}
    if detail.withdraw:
        text = f"Nimm das Signal {signal_text(detail.signal)} zurück: es stimmt nicht mehr."
    elif kind == MANY:
        text = (f"Gib deinem Team das Signal {signal_text(detail.signal)}: {detail.count} Steine deiner Bank "
                f"zeigen {COLOUR_NAMES[colour]}.")
    else:
        text = (f"Gib deinem Team das Signal {signal_text(detail.signal)}: {COLOUR_NAMES[colour]} ist eure "
                "schwächste Farbe, und keiner deiner Steine zeigt sie.")
    return {"key": "speednova.rat.signal", "params": params, "text": text}

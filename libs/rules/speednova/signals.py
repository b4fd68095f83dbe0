"""Team signals (teams of four only): "Ich habe viel <Farbe>", "Brauche <Farbe>", "Feld frei halten" on a free cell.

Giving the same signal again takes it back, "Zurücknehmen" takes back all of the seat's signals (eigene
Festlegung), a "Feld frei halten" goes out when its cell is taken. Only the team reads them: the move's
audience is the team, every effect about a signal is ``visible_to`` the team, and only partners' views show
them.

speednova@1 clears a kept-free cell's signal in the placement that takes the cell (a team-only effect
``signal_erloschen`` inside that public move). speednova@2 (``NovaState.side_signals``) keeps the game's own
moves free of signals: the signal stays stored but is no longer *active* (``active``), the team's view lists it
under ``signale_erloschen`` until the seat signals again, and nothing else changes.
"""

from __future__ import annotations

from libs.rules.evolve import evolve
from libs.rules.protocol import IllegalMove, Json
from libs.rules.speednova.board import FREE
from libs.rules.speednova.placement import is_int
from libs.rules.speednova.state import NovaState, Signal
from libs.rules.speednova.texts import effect, seat_name
from libs.rules.speednova.tiles import COLOUR_INDEX, COLOUR_NAMES, COLOURS

MANY = "viel"
NEED = "brauche"
KEEP_FREE = "frei"
WITHDRAW = "zuruecknehmen"
KINDS: tuple[str, ...] = (MANY, NEED, KEEP_FREE, WITHDRAW)


def signal_text(signal: Signal) -> str:
    """Return a signal as players read it: „Ich habe viel Komet“, „Brauche Nebel“, „Feld 40 frei halten“."""
    kind, value = signal
    if kind == MANY:
        return f"„Ich habe viel {COLOUR_NAMES[value]}“"
    if kind == NEED:
        return f"„Brauche {COLOUR_NAMES[value]}“"
    return f"„Feld {value} frei halten“"


def signal_json(seat: int, signal: Signal) -> Json:
    """Return a signal as a view shows it to the team."""
    kind, value = signal
    body: Json = {"sitz": seat, "signal": kind, "text": signal_text(signal)}
    if kind == KEEP_FREE:
        body["feld"] = value
    else:
        body["farbe"] = COLOURS[value]
    return body


def signal_move(signal: Signal) -> Json:
    """Return the move that gives (or takes back) this signal."""
    kind, value = signal
    return {"signal": kind, "feld": value} if kind == KEEP_FREE else {"signal": kind, "farbe": COLOURS[value]}


def active(state: NovaState, seat: int) -> tuple[Signal, ...]:
    """Return the seat's active signals: all it gave and did not take back, but (speednova@2) without a
    "Feld frei halten" whose cell has been taken since (speednova@1 removes those when the cell is taken)."""
    own = state.signals[seat]
    if not state.side_signals:
        return own
    return tuple(s for s in own if not (s[0] == KEEP_FREE and state.cells[s[1]] != FREE))


def gone_out(state: NovaState, seat: int) -> tuple[Signal, ...]:
    """Return the seat's "Feld frei halten" signals that went out because their cell was taken (speednova@2;
    kept until the seat signals again). Always empty in speednova@1 (the placement removed them)."""
    own = state.signals[seat]
    if not state.side_signals:
        return ()
    return tuple(s for s in own if s[0] == KEEP_FREE and state.cells[s[1]] != FREE)


def gone_json(seat: int, signal: Signal) -> Json:
    """Return a signal that went out as the team's view shows it (speednova@2)."""
    body = signal_json(seat, signal)
    body["text"] = f"Das Signal {signal_text(signal)} von {seat_name(seat)} erlischt: das Feld ist belegt."
    return body


def moves(state: NovaState, seat: int) -> list[Json]:
    """Return the seat's signal moves: both colour signals for every colour, "Feld frei halten" on every free cell
    (or on a cell it marked: taking it back), and "Zurücknehmen" while it has a signal."""
    result: list[Json] = [{"signal": kind, "farbe": colour} for kind in (MANY, NEED) for colour in COLOURS]
    result += [{"signal": KEEP_FREE, "feld": cell} for cell, value in enumerate(state.cells) if value == FREE]
    if active(state, seat):
        result.append({"signal": WITHDRAW})
    return result


def parse(state: NovaState, move: Json) -> Signal | None:
    """Return the signal a move names (None: "Zurücknehmen"); raise IllegalMove if it is malformed."""
    kind = move.get("signal")
    if not isinstance(kind, str) or kind not in KINDS:
        raise IllegalMove("Dieses Teamsignal gibt es nicht.", "unknown_signal")
    if kind == WITHDRAW:
        if set(move) != {"signal"}:
            raise IllegalMove("Dieser Zug hat ein unbekanntes Format.", "malformed")
        return None
    if kind == KEEP_FREE:
        if set(move) != {"signal", "feld"}:
            raise IllegalMove("Dieser Zug hat ein unbekanntes Format.", "malformed")
        cell = move["feld"]
        if not is_int(cell) or not 0 <= cell < len(state.cells):
            raise IllegalMove("Dieses Feld gibt es auf der Sternkarte nicht.", "unknown_cell")
        return (KEEP_FREE, cell)
    if set(move) != {"signal", "farbe"}:
        raise IllegalMove("Dieser Zug hat ein unbekanntes Format.", "malformed")
    colour = move["farbe"]
    if not isinstance(colour, str) or colour not in COLOUR_INDEX:
        raise IllegalMove("Diese Sternfarbe gibt es nicht.", "unknown_colour")
    return (kind, COLOUR_INDEX[colour])


def check(state: NovaState, seat: int, move: Json) -> Signal | None:
    """Return the signal of a legal signal move; raise IllegalMove (German reason) otherwise."""
    if not state.teams:
        raise IllegalMove("Teamsignale gibt es nur im Spiel zu viert in Teams.", "no_teams")
    signal = parse(state, move)
    if signal is None:
        if not active(state, seat):
            raise IllegalMove("Du hast gerade kein Signal, das du zurücknehmen könntest.", "no_signal")
    elif signal not in active(state, seat) and signal[0] == KEEP_FREE and state.cells[signal[1]] != FREE:
        raise IllegalMove("„Feld frei halten“ geht nur auf einem freien Feld.", "occupied")
    return signal


def apply(state: NovaState, seat: int, move: Json) -> tuple[NovaState, list[Json]]:
    """Give, repeat (take back) or withdraw signals; the effect is read by the team only."""
    signal = check(state, seat, move)
    team = state.team_of(seat)
    own = active(state, seat)
    if signal is None:
        after: tuple[Signal, ...] = ()
        text = f"{seat_name(seat)} nimmt alle Signale zurück."
        key, params = "signal_zurueck", {"signale": [signal_json(seat, s) for s in own]}
    elif signal in own:
        after = tuple(s for s in own if s != signal)
        text = f"{seat_name(seat)} nimmt das Signal {signal_text(signal)} zurück."
        key, params = "signal_zurueck", {"signale": [signal_json(seat, signal)]}
    else:
        after = (*own, signal)
        text = f"{seat_name(seat)} an das Team: {signal_text(signal)}."
        key, params = "signal", {"signale": [signal_json(seat, signal)]}
    all_signals = (*state.signals[:seat], after, *state.signals[seat + 1:])
    return evolve(state, signals=all_signals), [effect(key, text, visible_to=team, platz=seat + 1, **params)]


def preview(state: NovaState, seat: int, move: Json) -> Json:
    """Return what a signal move would do (for the team's eyes only)."""
    signal = check(state, seat, move)
    if signal is None:
        text = "Du nimmst alle deine Signale zurück."
    elif signal in active(state, seat):
        text = f"Du nimmst das Signal {signal_text(signal)} zurück."
    else:
        text = f"Du gibst deinem Team das Signal {signal_text(signal)}."
    return {"zug": dict(move), "text": effect("signal_vorschau", text)}


def clear_cells(state: NovaState, cells: tuple[int, ...]) -> tuple[tuple[tuple[Signal, ...], ...], list[Json]]:
    """Return the signals after ``cells`` were taken ("Feld frei halten" there goes out) and the team-only effects."""
    if not state.teams or state.side_signals:
        return state.signals, []
    effects: list[Json] = []
    result = []
    for seat, own in enumerate(state.signals):
        kept = tuple(s for s in own if not (s[0] == KEEP_FREE and s[1] in cells))
        for gone in own:
            if gone not in kept:
                effects.append(effect("signal_erloschen", f"Das Signal {signal_text(gone)} von {seat_name(seat)} "
                                                          "erlischt: das Feld ist belegt.",
                                      visible_to=state.team_of(seat), platz=seat + 1,
                                      signale=[signal_json(seat, gone)]))
        result.append(kept)
    return tuple(result), effects

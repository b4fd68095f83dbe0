"""The Ertragstafel of the last roll: per seat where its resources came from, what the mold ate, what nobody
got for shortage, both dice and their sum (rolls and yields are public: everyone sees them happen)."""

from __future__ import annotations

from libs.rules.protocol import Json, phrase_json
from libs.rules.speedspore.material import FIELD_KINDS, FIELD_NAMES, KIND_NAMES, KINDS
from libs.rules.speedspore.state import SporeState, YieldLine
from libs.rules.speedspore.texts import seat_name


def _line_json(state: SporeState, line: YieldLine) -> Json:
    field, number, kind, amount, tower = line
    name = FIELD_NAMES[state.fields[field]]
    text = f"{name} ({number}): {amount} {KIND_NAMES[kind]}" + (" (Turm ×2)" if tower else "")
    return {"feld": field, "feldart": FIELD_KINDS[state.fields[field]], "zahl": number, "rohstoff": KINDS[kind],
            "anzahl": amount, "turm": tower,
            "text": phrase_json("speedspore.ertrag.zeile", text,
                                {"feld": field, "zahl": number, "rohstoff": KINDS[kind], "anzahl": amount,
                                 "turm": tower})}


def _dice_json(dice: tuple[int, ...]) -> Json:
    total = sum(dice)
    return {"wuerfel": list(dice), "summe": total,
            "text": phrase_json("speedspore.ertrag.wuerfel", f"Gewürfelt: {dice[0]} + {dice[1]} = {total}",
                                {"wuerfel": list(dice), "summe": total})}


def yield_table(state: SporeState) -> Json | None:
    """Return the Ertragstafel of the last roll (None before the first roll).

    ``{"wurf", "wuerfel", "summe", "sieben", "spieler": [{"platz", "zeilen", "summe", "text"}], "schimmel",
    "knapp": [{"rohstoff", "text"}], "teilweise": [{"platz", "rohstoff", "geschuldet", "erhalten", "text"}],
    "text"}``. After a 7: no lines, ``"sieben": true``.
    """
    if len(state.dice) != 2:
        return None
    dice = _dice_json(state.dice)
    record = state.last_yield
    if record is None or sum(state.dice) == 7:
        return {"wurf": state.rolls, **dice, "sieben": dice["summe"] == 7, "spieler": [], "schimmel": None,
                "knapp": [], "teilweise": [],
                "text": phrase_json("speedspore.ertrag.sieben",
                                    f"{dice['text']['text']} – kein Ertrag.", {"summe": dice["summe"]})}
    players = []
    for seat in range(state.seats):
        lines = [_line_json(state, line) for line in record.received[seat]]
        total = sum(line[3] for line in record.received[seat])
        words = ", ".join(line["text"]["text"] for line in lines) if lines else "nichts"
        players.append({"platz": seat, "zeilen": lines, "summe": total,
                        "text": phrase_json("speedspore.ertrag.spieler", f"{seat_name(seat)}: {words}",
                                            {"platz": seat, "summe": total})})
    mold: Json | None = None
    field = state.mold
    if record.mold:
        field = record.mold[0][1][0]
        eaten = [{"platz": seat, **_line_json(state, line)} for seat, line in record.mold]
        who = ", ".join(f"{seat_name(seat)} {line[3]} {KIND_NAMES[line[2]]}" for seat, line in record.mold)
        name = FIELD_NAMES[state.fields[field]]
        mold = {"feld": field, "zahl": state.numbers[field], "entgangen": eaten,
                "text": phrase_json("speedspore.ertrag.schimmel",
                                    f"Der Schimmel frisst auf {name} ({state.numbers[field]}): {who}",
                                    {"feld": field, "zahl": state.numbers[field]})}
    short = [{"rohstoff": KINDS[kind],
              "text": phrase_json("speedspore.ertrag.knapp",
                                  f"{KIND_NAMES[kind]} reicht im Vorrat nicht für alle – niemand bekommt es.",
                                  {"rohstoff": KINDS[kind]})} for kind in record.short]
    partial = [{"platz": seat, "rohstoff": KINDS[kind], "geschuldet": owed, "erhalten": got,
                "text": phrase_json("speedspore.ertrag.teilweise",
                                    f"{KIND_NAMES[kind]} reicht nicht, aber nur {seat_name(seat)} bekommt es: "
                                    f"{got} statt {owed}.",
                                    {"platz": seat, "rohstoff": KINDS[kind], "geschuldet": owed, "erhalten": got})}
               for kind, seat, owed, got in record.partial]
    return {"wurf": state.rolls, **dice, "sieben": False, "spieler": players, "schimmel": mold, "knapp": short,
            "teilweise": partial, "text": dice["text"]}

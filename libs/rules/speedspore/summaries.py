"""The Zugkarte: what a seat did in its (current or last) turn, from the rules' per-turn log.

„Platz 2: würfelt 8, 2 Fäden, Fruchtkörper, tauscht 4 Humus gegen Moos, kauft Mutation“. Parts are merged
per kind and listed in the order their kind first happened. Hidden parts stay hidden: a bought mutation is
„kauft Mutation“ (never which), a robbed card is not named, Funde are never played (a Fund entry, should one
appear, is left out). Everything else in the log happened in the open (effects everyone reads).
"""

from __future__ import annotations

from libs.rules.protocol import Json, phrase_json
from libs.rules.speedspore.material import CARD_KEYS, CARD_NAMES, FIELD_NAMES, FUNDE, KIND_COUNT, KIND_NAMES, KINDS
from libs.rules.speedspore.state import LogEntry, SporeState
from libs.rules.speedspore.texts import bundle_json, bundle_words, seat_name

_COUNTED: dict[str, tuple[str, str]] = {
    "faden": ("Faden", "Fäden"),
    "gratis_faden": ("Gratis-Faden", "Gratis-Fäden"),
    "fruchtkoerper": ("Fruchtkörper", "Fruchtkörper"),
    "turm": ("Sporenturm", "Sporentürme"),
}


def _counted(kind: str, count: int) -> str:
    one, many = _COUNTED[kind]
    return one if count == 1 else f"{count} {many}"


def parts(state: SporeState, entries: tuple[LogEntry, ...]) -> list[Json]:
    """Return the turn's parts ``{"art", …, "text"}`` in the order their kind first happened (merged)."""
    order: list[str] = []
    counts: dict[str, int] = {}
    supply: dict[tuple[int, int, int], int] = {}
    result: dict[str, list[Json]] = {}

    def note(key: str) -> None:
        if key not in counts:
            order.append(key)
            counts[key] = 0
        counts[key] += 1

    singles: dict[str, list[Json]] = {}
    for entry in entries:
        kind = str(entry[0])
        if kind in _COUNTED or kind == "kauft":
            note(kind)
        elif kind == "vorrat":
            note("vorrat")
            terms = (int(entry[1]), int(entry[2]), int(entry[3]))
            supply[terms] = supply.get(terms, 0) + 1
        elif kind == "spielt" and int(entry[1]) in FUNDE:
            continue
        else:
            note(kind)
            singles.setdefault(kind, []).append(_single(state, entry))
    for key in order:
        if key in _COUNTED:
            result[key] = [{"art": key, "anzahl": counts[key], "text": _counted(key, counts[key])}]
        elif key == "kauft":
            count = counts[key]
            words = "kauft Mutation" if count == 1 else f"kauft {count} Mutationen"
            result[key] = [{"art": key, "anzahl": count, "text": words}]
        elif key == "vorrat":
            result[key] = []
            for (give, rate, take), times in supply.items():
                got = KIND_NAMES[take] if times == 1 else f"{times} {KIND_NAMES[take]}"
                result[key].append({"art": "vorrat", "gib": KINDS[give], "anzahl": rate * times, "nimm": KINDS[take],
                                    "erhalten": times, "kurs": f"{rate}:1",
                                    "text": f"tauscht {rate * times} {KIND_NAMES[give]} gegen {got}"})
        else:
            result[key] = singles[key]
    return [part for key in order for part in result[key]]


def _single(state: SporeState, entry: LogEntry) -> Json:
    kind = str(entry[0])
    if kind == "wurf":
        return {"art": kind, "summe": int(entry[1]), "text": f"würfelt {entry[1]}"}
    if kind == "schimmel":
        field, victim = int(entry[1]), int(entry[2])
        where = f"{FIELD_NAMES[state.fields[field]]} ({state.numbers[field] or 'ohne Zahl'})"
        text = f"Schimmel auf {where}" + (f", nimmt {seat_name(victim)} eine Karte" if victim >= 0 else "")
        return {"art": kind, "feld": field, "opfer": victim, "text": text}
    if kind == "spielt":
        card = int(entry[1])
        return {"art": kind, "karte": CARD_KEYS[card], "text": f"spielt {CARD_NAMES[card]}"}
    if kind == "handel":
        other = int(entry[1])
        give = tuple(int(v) for v in entry[2:2 + KIND_COUNT])
        take = tuple(int(v) for v in entry[2 + KIND_COUNT:2 + 2 * KIND_COUNT])
        return {"art": kind, "partner": other, "gib": bundle_json(give), "nimm": bundle_json(take),
                "text": f"handelt mit {seat_name(other)}: {bundle_words(give)} gegen {bundle_words(take)}"}
    if kind == "netzsog":
        target, amount = int(entry[1]), int(entry[2])
        return {"art": kind, "rohstoff": KINDS[target], "anzahl": amount,
                "text": f"Netzsog: {amount} {KIND_NAMES[target]}"}
    if kind == "naehrquelle":
        kinds = [int(value) for value in entry[1:]]
        names = " und ".join(KIND_NAMES[value] for value in kinds) or "nichts"
        return {"art": kind, "rohstoffe": [KINDS[value] for value in kinds], "text": f"Nährquelle: {names}"}
    if kind == "abwerfen":
        return {"art": kind, "anzahl": int(entry[1]), "text": f"wirft {entry[1]} Karten ab"}
    if kind == "verzichtet":
        return {"art": kind, "text": "verzichtet auf weitere Gratis-Fäden"}
    return {"art": kind, "text": kind}


def turn_summary(state: SporeState, seat: int) -> Json:
    """Return the seat's Zugkarte (its current or last turn): ``{"platz", "laeuft", "teile", "text"}``."""
    found = parts(state, state.turn_log[seat])
    running = state.current == seat and state.phase not in ("gruendung", "ende")
    words = ", ".join(part["text"] for part in found) if found else "noch nichts"
    return {"platz": seat, "laeuft": running, "teile": found,
            "text": phrase_json("speedspore.zugkarte", f"{seat_name(seat)}: {words}",
                                {"platz": seat, "teile": [part["art"] for part in found]})}

"""Speedspore's words for the game page's shell (docs/services/web.md, "What a board declares"): what to do now
(`prompt`), the strip's scores, one line per opponent's last turn, the board's own German for recorded effects
(`phrase`: names instead of "Platz 2", "1 Karte") and a preview in one line. Read from the view alone."""

from __future__ import annotations

import re
from typing import Any

from services.web.boards.seats import SEAT_WORD, named, seat_name
from services.web.boards.speedspore.geometry import FIELD_LETTERS, corner_name, edge_name

KINDS = ("totholz", "humus", "moos", "regenwasser", "mineralien")
KIND_NAMES = {"totholz": "Totholz", "humus": "Humus", "moos": "Moos", "regenwasser": "Regenwasser",
              "mineralien": "Mineralien"}
FIELD_SHORT = {"park": "Park", "deponie": "Deponie", "stadion": "Stadion", "klaerwerk": "Klärwerk",
               "ruine": "Ruine", "autobahnkreuz": "Kreuz"}
CARD_NAMES = {"sporenwolke": "Sporenwolke", "wuchsschub": "Wuchsschub", "naehrquelle": "Nährquelle",
              "netzsog": "Netzsog", "bibliothek": "Bibliothek", "kathedrale": "Kathedrale", "u-bahnhof": "U-Bahnhof",
              "museum": "Museum", "rathaus": "Rathaus"}
BUILD_WORDS = {"faden": ("einen Myzelfaden", "Myzelfäden"), "fruchtkoerper": ("einen Fruchtkörper", "Fruchtkörper"),
               "turm": ("einen Sporenturm", "Sporentürme")}


def board_of(view: dict[str, Any]) -> dict[str, Any]:
    """The rule module's part of the view (an empty dict when there is none)."""
    board = view.get("board")
    return board if isinstance(board, dict) else {}


def name(view: dict[str, Any], seat: Any) -> str:
    """A seat by its name (never "Platz 2")."""
    return seat_name(view, seat)


def count(number: int, one: str, many: str) -> str:
    """"1 Karte", "2 Karten"."""
    return f"{number} {one if number == 1 else many}"


def bundle(value: Any) -> str:
    """"2 Humus und 1 Moos" from {"humus": 2, "moos": 1} ("nichts" for none)."""
    if not isinstance(value, dict):
        return "nichts"
    parts = [f"{int(n)} {KIND_NAMES.get(str(k), str(k))}" for k, n in value.items() if isinstance(n, int) and n > 0]
    if not parts:
        return "nichts"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " und " + parts[-1]


def field_words(board: dict[str, Any], field: Any) -> str:
    """A field as the island shows it: its letter, kind and number ("Feld C (Ruine 10)")."""
    fields = board.get("felder") or []
    if not isinstance(field, int) or not 0 <= field < len(fields) or field >= len(FIELD_LETTERS):
        return "ein Feld"
    kind = str(fields[field].get("art"))
    number = fields[field].get("zahl")
    short = FIELD_SHORT.get(kind, kind)
    return f"Feld {FIELD_LETTERS[field]} ({short} {number})" if number else f"Feld {FIELD_LETTERS[field]} ({short})"


def _you(view: dict[str, Any]) -> int | None:
    you = view.get("you")
    return you if isinstance(you, int) else None


def _acts(view: dict[str, Any]) -> bool:
    you = _you(view)
    return you is not None and bool(view.get("legal_moves")) and (
        you in (view.get("to_move") or []) or you in (view.get("may_act") or []))


def prompt(view: dict[str, Any]) -> str | None:
    """While the viewer may act, what to do now in the game's words."""
    if not _acts(view):
        return None
    board = board_of(view)
    moves = [m for m in view.get("legal_moves") or [] if isinstance(m, dict)]
    you = _you(view)
    phase = board.get("phase")
    if any("abwerfen" in m for m in moves):
        players = board.get("spieler") or []
        need = int(players[you].get("abwerfen", 0)) if you is not None and you < len(players) else 0
        return f"Wirf {count(need, 'Karte', 'Karten')} ab: klicke sie in deiner Hand an"
    if phase == "gruendung":
        if any("fruchtkoerper" in m for m in moves):
            return "Gründe: setze einen Fruchtkörper auf eine markierte Ecke"
        return "Gründe: lege einen Myzelfaden an deinen neuen Fruchtkörper"
    if any("antwort" in m or "gegenangebot" in m for m in moves):
        offer = board.get("angebot") or {}
        text = (f"Antworte auf das Angebot von {name(view, board.get('dran'))}: "
                f"{bundle(offer.get('gib'))} für {bundle(offer.get('nimm'))}")
        return text
    if phase == "wurf":
        if any("ausspielen" in m for m in moves):
            return "Würfle oder spiele eine Mutation aus"
        return "Würfle"
    if phase == "schimmel":
        return "Versetze den Schimmel: klicke ein Feld an"
    if phase == "wuchsschub":
        free = int(board.get("gratis_faeden") or 0)
        return f"Lege {count(free, 'Myzelfaden', 'Myzelfäden')} gratis oder verzichte"
    if any("handeln" in m for m in moves):
        return "Handle mit einem, der angenommen hat, oder ziehe dein Angebot zurück"
    if any("zurueckziehen" in m for m in moves):
        return "Warte auf die Antworten oder ziehe dein Angebot zurück"
    return "Handle, baue oder beende deinen Zug"


def seat_scores(view: dict[str, Any]) -> list[str | None]:
    """Per seat its victory points as the viewer may know them (others' hidden Funde not counted)."""
    board = board_of(view)
    shown = (board.get("anzeige") or {}).get("siegpunkte") or []
    players = board.get("spieler") or []
    scores: list[str | None] = []
    for seat in range(len(view.get("seats") or players)):
        points = shown[seat].get("punkte") if seat < len(shown) and isinstance(shown[seat], dict) else None
        if points is None and seat < len(players):
            points = players[seat].get("punkte")
        scores.append(count(int(points), "Siegpunkt", "Siegpunkte") if isinstance(points, int) else None)
    return scores


# ---- effects -------------------------------------------------------------------------------------------------

def _short(effect: dict[str, Any], view: dict[str, Any], seat: int) -> str | None:
    """The part of a seat's turn one effect adds to its last-move line ("würfelt 8"), None for none."""
    key = str(effect.get("key", "")).removeprefix("speedspore.")
    params: dict[str, Any] = effect["params"] if isinstance(effect.get("params"), dict) else {}
    you = _you(view)
    board = board_of(view)
    if params.get("platz", seat) != seat and key not in ("sieben", "knapp"):
        return None
    if key == "wurf":
        return f"würfelt {params.get('summe', '?')}"
    if key == "gruendung.fruchtkoerper":
        return f"gründet mit einem Fruchtkörper ({corner_name(int(params.get('ecke', 0)))})"
    if key in ("gruendung.faden", "gratis_faden"):
        return "legt einen Myzelfaden" + (" gratis" if key == "gratis_faden" else "")
    if key.startswith("bau."):
        return "baut " + BUILD_WORDS.get(key[4:], ("etwas", ""))[0]
    if key == "abwerfen":
        return f"wirft {bundle(params.get('rohstoffe'))} ab"
    if key == "schimmel":
        return f"versetzt den Schimmel auf {field_words(board, params.get('feld'))}"
    if key == "raub.karte":
        victim = params.get("opfer")
        whom = "dir" if victim == you else name(view, victim)
        return f"nimmt {whom} 1 {KIND_NAMES.get(str(params.get('rohstoff')), '')}".rstrip()
    if key == "raub":
        victim = params.get("opfer")
        return f"nimmt {'dir' if victim == you else name(view, victim)} eine Karte"
    if key == "kauft":
        return "kauft eine Mutation"
    if key == "spielt":
        return f"spielt {CARD_NAMES.get(str(params.get('karte')), 'eine Mutation')}"
    if key == "vorrat":
        return (f"tauscht {params.get('anzahl', '?')} {KIND_NAMES.get(str(params.get('gib')), '')} gegen "
                f"1 {KIND_NAMES.get(str(params.get('nimm')), '')} mit dem Vorrat")
    if key == "angebot":
        return f"bietet {bundle(params.get('gib'))} für {bundle(params.get('nimm'))}"
    if key == "handel":
        partner = params.get("partner")
        return (f"tauscht mit {'dir' if partner == you else name(view, partner)}: {bundle(params.get('gib'))} "
                f"gegen {bundle(params.get('nimm'))}")
    if key == "naehrquelle":
        return f"nimmt {bundle(params.get('rohstoffe'))} aus dem Vorrat"
    if key == "netzsog":
        got = int(params.get("anzahl") or 0)
        return f"bekommt alles {KIND_NAMES.get(str(params.get('rohstoff')), '')}: {count(got, 'Karte', 'Karten')}"
    if key == "wolke":
        return "hält die Größte Sporenwolke"
    if key == "verzichtet":
        return "verzichtet auf den Rest des Wuchsschubs"
    if key == "antwort":
        answer = params.get("antwort")
        if answer == "gegen":
            return f"bietet stattdessen {bundle(params.get('gib'))} für {bundle(params.get('nimm'))}"
        return "nimmt das Angebot an" if answer == "ja" else "lehnt das Angebot ab"
    if key == "sieg":
        return f"gewinnt mit {count(int(params.get('punkte') or 0), 'Siegpunkt', 'Siegpunkten')}"
    return None


def _last_entry(view: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    entries = view.get("last_moves") or []
    entry = entries[seat] if isinstance(entries, list) and seat < len(entries) else None
    if not isinstance(entry, dict):
        return []
    return [e for e in entry.get("effects") or [] if isinstance(e, dict)]


def last_move_lines(view: dict[str, Any]) -> list[str]:
    """One line per opponent with a last turn: "Computer 1: würfelt 8, baut einen Myzelfaden"."""
    lines = []
    you = _you(view)
    for seat in range(len(view.get("seats") or [])):
        if seat == you:
            continue
        parts: list[str] = []
        effects = _last_entry(view, seat)
        secret_robbery = any(str(e.get("key")).endswith("raub.karte") for e in effects)
        traded = any(str(e.get("key")) == "speedspore.handel" for e in effects)
        offers = [e for e in effects if str(e.get("key")) == "speedspore.angebot"]
        for effect in effects:
            if secret_robbery and str(effect.get("key")) == "speedspore.raub":
                continue
            if effect in offers and (traded or effect is not offers[-1]):
                continue  # offers are talk: only the last one, and none when a trade followed
            part = _short(effect, view, seat)
            if part:
                parts.append(part)
        if parts:
            lines.append(f"{name(view, seat)}: {_merge(parts)}")
    return lines


def _merge(parts: list[str]) -> str:
    """Repeated parts once; repeated builds with their count ("baut 2 Myzelfäden")."""
    seen: dict[str, int] = {}
    for part in parts:
        seen[part] = seen.get(part, 0) + 1
    out = []
    for part, times in seen.items():
        plural = next((many for one, many in BUILD_WORDS.values() if one in part), None)
        if times > 1 and plural is not None:
            one = next(one for one, many in BUILD_WORDS.values() if many == plural)
            part = part.replace(one, f"{times} {plural}")
        out.append(part)
    return ", ".join(out)




_ONE = re.compile(r"(?<![\d,.])1 (Fäden|Karten|Siegpunkte|Myzelfäden|Fruchtkörper|Sporentürme|Türme)\b")
_SINGULAR = {"Fäden": "Faden", "Karten": "Karte", "Siegpunkte": "Siegpunkt", "Myzelfäden": "Myzelfaden",
             "Fruchtkörper": "Fruchtkörper", "Sporentürme": "Sporenturm", "Türme": "Turm"}


def names_for_seats(text: str, view: dict[str, Any]) -> str:
    """A recorded text with "Platz N" replaced by the seat's name and "1 Fäden" by "1 Faden"."""
    text = _ONE.sub(lambda found: f"1 {_SINGULAR[found.group(1)]}", text)
    return named(text, view)


def phrase(effect: dict[str, Any], view: dict[str, Any]) -> str | None:
    """The board's German for a recorded effect whose text names seats by number or counts without agreement."""
    key = str(effect.get("key", "")).removeprefix("speedspore.")
    params: dict[str, Any] = effect["params"] if isinstance(effect.get("params"), dict) else {}
    text = str(effect.get("text", ""))
    seat = params.get("platz")
    who = name(view, seat) if isinstance(seat, int) else ""
    if key == "netzsog":
        got = int(params.get("anzahl") or 0)
        return (f"Alle anderen geben {who} ihr {KIND_NAMES.get(str(params.get('rohstoff')), '')}: "
                f"{count(got, 'Karte', 'Karten')}.")
    if key == "schimmel":
        return f"{who} versetzt den Schimmel auf {field_words(board_of(view), params.get('feld'))}."
    if key == "gruendung.fruchtkoerper" and isinstance(params.get("ecke"), int):
        return f"{who} setzt einen Fruchtkörper auf {corner_name(params['ecke'])}."
    if key in ("gruendung.faden", "gratis_faden") and isinstance(params.get("kante"), int):
        free = " gratis" if key == "gratis_faden" else ""
        return f"{who} legt einen Myzelfaden{free} auf {edge_name(params['kante'])}."
    if key.startswith("bau.") and key[4:] in BUILD_WORDS:
        place = params.get("kante") if key == "bau.faden" else params.get("ecke")
        where = ""
        if isinstance(place, int):
            where = " auf " + (edge_name(place) if key == "bau.faden" else corner_name(place))
        return f"{who} baut {BUILD_WORDS[key[4:]][0]}{where}."
    if key == "zug" and "Platz 1" in text:
        return f"Die Gründung ist vorbei. {name(view, 0)} beginnt."
    if key == "sieg":
        return f"{who} erreicht {count(int(params.get('punkte') or 0), 'Siegpunkt', 'Siegpunkte')} und gewinnt."
    if SEAT_WORD.search(text):
        return names_for_seats(text, view)
    return None


def preview_line(move: Any, preview: Any, view: dict[str, Any]) -> str:
    """The move's gain in one German line from the table's preview answer (no field names, no keys)."""
    if not isinstance(preview, dict):
        return "Vorschau"
    if preview.get("zurueck"):
        return "Zurück: dein letzter Schritt wird zurückgenommen"
    phrase_body = preview.get("text")
    text = str(phrase_body.get("text")) if isinstance(phrase_body, dict) else str(phrase_body or "")
    text = names_for_seats(text, view)
    before, after = preview.get("punkte_vorher"), preview.get("punkte_nachher")
    if isinstance(move, dict) and "schimmel" in move:
        text = f"Schimmel auf {field_words(board_of(view), move['schimmel'])}" + (
            f", nimmt {name(view, move['opfer'])} eine zufällige Karte" if "opfer" in move else "")
    gain = re.search(r" · (\+\d+ Siegpunkte?)", text)
    if gain:  # the gain first: "+1 Siegpunkt: Fruchtkörper für …"
        text = f"{gain.group(1)}: {text.replace(gain.group(0), '')}"
    elif isinstance(before, int) and isinstance(after, int) and after != before:
        gained = after - before
        text = f"{'+' if gained > 0 else ''}{count(gained, 'Siegpunkt', 'Siegpunkte')}: {text}"
    hand = preview.get("hand_nachher")
    if isinstance(hand, dict) and preview.get("art") in ("vorrat", "handeln"):
        text += f" · danach hast du {bundle(hand)}"
    return text or "Zug"

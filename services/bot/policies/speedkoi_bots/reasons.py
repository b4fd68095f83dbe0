"""The German reason of an advised Speedkoi move ("Rat des Meisters"), built from the state and the move."""

from __future__ import annotations

from libs.rules.protocol import Json
from libs.rules.speedkoi.material import COLOUR_NAMES, COLOURS, END_STONE, FIGURE_NAMES, MASTER, lantern
from libs.rules.speedkoi.moves import DECLINE, DISCARD, DRAW, KOI, PLAY, STEP, Move
from libs.rules.speedkoi.rows import fits
from libs.rules.speedkoi.rules import move_json, warning
from libs.rules.speedkoi.state import LIBELLE, KoiState
from libs.rules.speedkoi.texts import lantern_words, signed, tile_words
from libs.rules.speedkoi.view import step_info

__all__ = ["reason", "thought_text"]


def _decimal(number: float) -> str:
    """Return a number with one decimal and a German comma: "4,5"."""
    return f"{abs(number):.1f}".replace(".", ",")


def thought_text(lead: float | None, games: int, rounds: int) -> str:
    """Return what the imagined games said of the move ("" when none were played)."""
    if lead is None or games == 0:
        return ""
    side = "vor dem" if lead >= 0 else "hinter dem"
    return (f" In {games} gedachten Partien, je {rounds} Runden weitergespielt, liegst du damit im Schnitt "
            f"{_decimal(lead)} Punkte {side} besten Gegner.")


def _step_words(state: KoiState, seat: int, path: int) -> str:
    info = step_info(state, seat, path)
    words = (f"{FIGURE_NAMES[info['figur']]} {COLOUR_NAMES[path]} → Stein {info['nach']} "
             f"({signed(int(info['punkte']))})")
    if info["plaettchen"]:
        words += f", dort liegt: {tile_words(str(info['plaettchen']))}"
    if info["teehaus"]:
        words += f", Teehaus-Bonus +{info['teehaus']}"
    return words


def _play_words(state: KoiState, seat: int, move: Move) -> str:
    name = lantern_words(lantern(move.colour, move.value))
    stone = state.stones[seat][move.colour]
    if stone == 0:
        who = "den Meister" if move.figure == MASTER or (move.figure == "" and state.masters[seat] == -1
                                                         and _no_pilgrim(state, seat)) else "einen Pilger"
        return f"Lege {name} an und stelle {who} auf den Pfad {COLOUR_NAMES[move.colour]}"
    if stone < END_STONE:
        return f"Lege {name} an: {_step_words(state, seat, move.colour)}"
    if move.onward != -1:
        return (f"Lege {name} an: {COLOUR_NAMES[move.colour]} steht schon auf dem Endstein, also zieht "
                f"{_step_words(state, seat, move.onward)}")
    return f"Lege {name} an (keine Figur kann ziehen, nur Reihe)"


def _no_pilgrim(state: KoiState, seat: int) -> bool:
    placed = sum(1 for stone in state.stones[seat] if stone)
    return placed - (1 if state.masters[seat] != -1 else 0) >= 4


def _users(state: KoiState, seat: int, colour: int, value: int) -> list[int]:
    return [other for other in range(state.seats) if other != seat and state.rows[other][colour]
            and fits(state.rows[other][colour], value)]


def _discard_words(state: KoiState, seat: int, move: Move) -> str:
    name = lantern_words(lantern(move.colour, move.value))
    fitting = fits(state.rows[seat][move.colour], move.value)
    why = "sie bringt dir gerade am wenigsten" if fitting else "sie passt nicht in deine Reihe"
    users = _users(state, seat, move.colour, move.value)
    if users:
        names = ", ".join(f"Platz {other + 1}" for other in users)
        return f"Wirf {name} ab: {why}; Achtung, {names} könnte sie brauchen"
    return f"Wirf {name} ab: {why}, und kein Gegner kann sie gerade brauchen"


def _take_words(state: KoiState, seat: int, colour: int, prefix: str) -> str:
    value = state.piles[colour][-1]
    name = lantern_words(lantern(colour, value))
    fitting = fits(state.rows[seat][colour], value)
    return f"{prefix}{name} von der Ablage" + (f": sie passt in deine Reihe {COLOUR_NAMES[colour]}" if fitting
                                               else "")


def _move_words(state: KoiState, seat: int, move: Move) -> str:
    action = move.action
    if action == PLAY:
        return _play_words(state, seat, move)
    if action == DISCARD:
        return _discard_words(state, seat, move)
    what = "Libelle" if state.phase == LIBELLE else "Steg"
    if action == STEP:
        return f"{what}: Ziehe {_step_words(state, seat, move.colour)}"
    if action == DECLINE:
        return f"Verzichte auf {'die Libelle' if what == 'Libelle' else 'den Steg'}"
    if action == KOI:
        return _take_words(state, seat, move.colour, "Koi: Nimm ")
    if action == DRAW and move.colour == -1:
        return "Ziehe eine verdeckte Laterne vom Stapel"
    return _take_words(state, seat, move.colour, "Nimm ")


def reason(state: KoiState, seat: int, move: Move, lead: float | None, games: int, rounds: int) -> Json:
    """Return ``{"key", "params", "text"}``: what the move does, its warning if it ends the game, the look-ahead."""
    words = _move_words(state, seat, move)
    warned = warning(state, seat, move)
    params: Json = {"zug": move_json(move), "aktion": move.action,
                    "farbe": COLOURS[move.colour] if move.colour >= 0 else None,
                    "vorsprung": None if lead is None else round(lead, 1), "partien": games, "runden": rounds,
                    "endet": warned is not None}
    if warned is not None:
        standings = warned.text.split(": ", 1)[-1].rstrip(".")
        text = f"{words} und beende damit die Partie: {standings}."
        params["warnung"] = warned.to_json()
        return {"key": "speedkoi.rat.ende", "params": params, "text": text + thought_text(lead, games, rounds)}
    return {"key": f"speedkoi.rat.{move.action}", "params": params,
            "text": f"{words}." + thought_text(lead, games, rounds)}

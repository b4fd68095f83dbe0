"""Speedspore's player's home (``GameSpec.home``): Freie Partie, the daily Tagesinsel and the Abzeichen.

The text promises solo games against 1–3 computers ("allein spielst du gegen 1–3 Computer") and "Rat" in
them; the daily island, the badges and their thresholds are the project's own (docs/rules/speedspore.md,
"Eigene Festlegungen: zu Hause"). Every badge is a pure function of the finished game (``Finished``).
"""

from __future__ import annotations

from libs.rules.home import Badge, Finished, Home, ListKey, SoloMode, Streak
from libs.rules.speedspore.material import FUNDE, WOLKE
from libs.rules.speedspore.state import SporeState

FREE = SoloMode(
    key="frei", title="Freie Partie",
    description="Du gegen 1 bis 3 Computer; Gegner, Stärke, Siegpunkte, Würfel und Insel stellst du selbst ein.",
)

DAILY = SoloMode(
    key="tagesinsel", title="Tagesinsel", daily=True,
    description="Jeden Tag eine neue Insel – gleiche Felder, gleiche Zahlen, gleiche Gullys, derselbe Sporenstapel "
                "und derselbe Startspieler für alle – gegen drei Computer „normal“, 10 Siegpunkte, Würfel "
                "„Ausgeglichen“. Nur dein erster Versuch des Tages kommt in die Tagesliste; sie ordnet nach Sieg, "
                "dann Siegpunkten, dann Sporentürmen, dann Handkarten.",
    settings={"siegpunkte": 10, "wuerfel": "ausgeglichen", "insel": "zufall"},
    opponents=(3,), bot_levels=("normal",), list_order=(ListKey.RANK,),
)
"""The same island for everyone: the day's seed lays it out and deals the mutation deck and the dice deck."""

LONG_TRAIL = 10
"""Threads in a row for "Langes Geflecht" (the Weitestes Geflecht starts at 5)."""
TREASURES = 2
"""Funde for "Schatzsucher"."""
QUICK_ROLLS = 60
"""At most this many rolls of the whole table for "Schnellkeimer" (10 points or more)."""
BIG_CLOUD = 4
"""Sporenwolken played for "Sporensturm"."""
STREAK_DAYS = 3


def _state(finished: Finished) -> SporeState:
    state = finished.state
    assert isinstance(state, SporeState)
    return state


def _won(finished: Finished) -> bool:
    return _state(finished).winner == finished.seat


def _towers(finished: Finished) -> int:
    return _state(finished).pieces[finished.seat][2]


def _funde(finished: Finished) -> int:
    return sum(1 for card in _state(finished).cards[finished.seat] if card in FUNDE)


def _clouds(finished: Finished) -> int:
    return sum(1 for card in _state(finished).played[finished.seat] if card == WOLKE)


def _quick(finished: Finished) -> bool:
    state = _state(finished)
    return _won(finished) and state.target >= 10 and state.rolls <= QUICK_ROLLS


def _three_strong_beaten(finished: Finished) -> bool:
    others = finished.opponents
    return _won(finished) and len(others) == 3 and all(
        seat.get("kind") == "bot" and seat.get("level") == "strong" for seat in others)


BADGES: tuple[Badge, ...] = (
    Badge("erste_insel", "Erste Insel", "Eine Solo-Partie gewonnen.", _won),
    Badge("turmbauer", "Turmbauer", "Alle vier Sporentürme in einer Partie gebaut.", lambda f: _towers(f) >= 4),
    Badge("langes_geflecht", "Langes Geflecht",
          f"Am Ende das Weiteste Geflecht mit mindestens {LONG_TRAIL} Fäden am Stück.",
          lambda f: _state(f).longest_holder == f.seat and _state(f).trail[f.seat] >= LONG_TRAIL),
    Badge("sporensturm", "Sporensturm",
          f"Mindestens {BIG_CLOUD} Sporenwolken ausgespielt und die Größte Sporenwolke gehalten.",
          lambda f: _state(f).largest_holder == f.seat and _clouds(f) >= BIG_CLOUD),
    Badge("schatzsucher", "Schatzsucher", f"Gewonnen mit mindestens {TREASURES} Funden.",
          lambda f: _won(f) and _funde(f) >= TREASURES),
    Badge("schnellkeimer", "Schnellkeimer",
          f"Eine Partie bis 10 oder 12 Siegpunkte nach höchstens {QUICK_ROLLS} Würfen am ganzen Tisch gewonnen.",
          _quick),
    Badge("drei_starke", "Gegen drei Computer „stark“", "Eine Partie gegen drei Computer „stark“ gewonnen.",
          _three_strong_beaten),
    Badge("tagesinsel_sieg", "Inselkönig", "Eine Tagesinsel gewonnen.", lambda f: _won(f) and f.mode == DAILY.key),
    Badge("insel_serie", "Insel-Serie", f"Die Tagesinsel an {STREAK_DAYS} Tagen in Folge gespielt.",
          streak=Streak(DAILY.key, STREAK_DAYS)),
)
"""The project's Abzeichen for solo games (the text names none)."""

HOME = Home(modes=(FREE, DAILY), badges=BADGES)
"""Chat is open at every table (the text shows "Logbuch und Chat" side by side)."""

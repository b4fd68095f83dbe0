"""Speedmosaik's solo modes and badges (``GameSpec.home``): the project's own decisions, see docs/rules/speedmosaik.md.

The text knows one solo way ("Solo: du allein gegen 1–3 Computergegner"); the project adds a daily mode,
the Tageswerkstatt, and two badges, so the player's home is exercised with a game that runs today.
"""

from __future__ import annotations

from libs.rules.home import Badge, Finished, Home, ListKey, SoloMode, Streak

FREE = SoloMode(
    key="solo", title="Solo",
    description="Du allein gegen 1–3 Computer; Werkstatt, Gegner und Stärke wählst du selbst.",
)

DAILY = SoloMode(
    key="tageswerkstatt", title="Tageswerkstatt", daily=True,
    description="Jeden Tag dieselben Steine in derselben Reihenfolge für alle: Kachelwand (feste Wand, ohne "
                "Joker) gegen einen Computer „normal“. Nur dein erster Versuch des Tages kommt in die Tagesliste; "
                "sie ordnet nach Punkten, bei Gleichstand nach vollständigen Reihen.",
    settings={"workshop": "kachelwand", "wall": "fest", "jokers": "ohne"},
    opponents=(1,), bot_levels=("normal",),
    list_order=(ListKey.SCORE, ListKey.TIE_BREAK),
)

MASTERPIECE_POINTS = 50
"""Meisterstück: this many points in one solo game."""

STREAK_DAYS = 3
"""Werkstatt-Serie: the Tageswerkstatt on this many days in a row."""


def _masterpiece(finished: Finished) -> bool:
    return finished.score >= MASTERPIECE_POINTS


HOME = Home(
    modes=(FREE, DAILY),
    badges=(
        Badge(key="meisterstueck", title="Meisterstück",
              description=f"Eine Solo-Partie mit mindestens {MASTERPIECE_POINTS} Punkten beendet.",
              earned=_masterpiece),
        Badge(key="werkstatt_serie", title="Werkstatt-Serie",
              description=f"Die Tageswerkstatt an {STREAK_DAYS} Tagen in Folge gespielt.",
              streak=Streak(mode=DAILY.key, days=STREAK_DAYS)),
    ),
)

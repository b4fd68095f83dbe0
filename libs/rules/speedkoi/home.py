"""Speedkoi's player's home (``GameSpec.home``): Freie Partie, Tagesgarten, Gärten-Reise and the Gartenbuch.

The text names the three solo modes, four of the Gartenbuch's 20 stamps and that two of the ten gardens are
Laternenfest; the gardens and the other 16 stamps are the project's own (docs/rules/speedkoi.md).
Every stamp is a pure function of the finished game (``Finished``); all are for solo games only.
"""

from __future__ import annotations

from collections.abc import Callable

from libs.rules.home import Badge, Finished, Home, ListKey, SoloMode, Stage
from libs.rules.speedkoi.material import CLASSIC, END_STONE, FESTIVAL, GOAL_FROM
from libs.rules.speedkoi.state import KoiState

BOOK = "Gartenbuch"

FREE = SoloMode(
    key="frei", title="Freie Partie",
    description="Du gegen 1 bis 3 Computer; Gegner, Stärke und Spielart stellst du selbst ein.",
)

DAILY = SoloMode(
    key="tagesgarten", title="Tagesgarten", daily=True,
    description="Jeden Tag ein neuer Garten – gleiche Laternen, gleiche Plättchen und derselbe Startspieler für "
                "alle – gegen zwei Computer „stark“, klassische Regeln. Nur dein erster Versuch des Tages kommt in "
                "die Tagesliste; sie ordnet nach Punkten, bei Gleichstand nach Perlen.",
    settings={"spielart": CLASSIC}, opponents=(2,), bot_levels=("strong",),
    list_order=(ListKey.SCORE, ListKey.TIE_BREAK),
)

GARDENS: tuple[Stage, ...] = (
    Stage(1, "Moosgarten", {"spielart": CLASSIC}, ("easy",)),
    Stage(2, "Bambushain", {"spielart": CLASSIC}, ("normal",)),
    Stage(3, "Kiesgarten", {"spielart": CLASSIC}, ("easy", "normal")),
    Stage(4, "Ahornhang", {"spielart": CLASSIC}, ("normal", "normal")),
    Stage(5, "Laternenufer", {"spielart": FESTIVAL}, ("normal", "normal")),
    Stage(6, "Irisbeet", {"spielart": CLASSIC}, ("normal", "normal", "normal")),
    Stage(7, "Steingarten", {"spielart": CLASSIC}, ("strong", "normal", "normal")),
    Stage(8, "Kirschhain", {"spielart": CLASSIC}, ("strong", "strong", "normal")),
    Stage(9, "Mondsee", {"spielart": FESTIVAL}, ("strong", "strong", "normal")),
    Stage(10, "Kaisergarten", {"spielart": CLASSIC}, ("strong", "strong", "strong")),
)
"""The Gärten-Reise; gardens 5 and 9 are Laternenfest. From one garden to the next the opponents never get
weaker: their number never drops, and, each garden's computers sorted strongest first, no computer is weaker
than the one in the same place of the garden before (so the strongest never gets weaker either).

A garden is its number (a player's progress is kept as the numbers of the gardens won, ``CampaignWin.stage``);
number and name stay together for ever. Gardens 6–8 had other opponents before 2026-12-02 (6: strong, normal;
7: normal × 3; 8: strong, normal, normal: garden 7 was weaker than 6); a garden won then stays won under its
number and name. The list is no part of a rules version: the rules never read it; a game's log holds its settings and
its seats with their computer levels (and, for the lobby, the garden's number), so no log replays
differently (docs/rules/speedkoi.md)."""

JOURNEY = SoloMode(
    key="reise", title="Gärten-Reise",
    description="Zehn Gärten mit immer mehr und stärkeren Gegnern, zwei davon als Laternenfest. Gewinnst du einen "
                "Garten, öffnet sich der nächste.",
    opponents=(1, 2, 3), list_order=(ListKey.SCORE, ListKey.TIE_BREAK), stages=GARDENS,
)

GOOD_GARDEN = 30
GRAND_GARDEN = 50
LONG_ROW = 8
BLOSSOM_RAIN = 6
DRAGONFLIES = 3
FAR_AHEAD = 20
TEA_CEREMONY = 6


def _state(finished: Finished) -> KoiState:
    state = finished.state
    assert isinstance(state, KoiState)
    return state


def _won(finished: Finished) -> bool:
    return finished.place == 1


def _master_on_end_stone(finished: Finished) -> bool:
    state = _state(finished)
    master = state.masters[finished.seat]
    return master != -1 and state.stones[finished.seat][master] == END_STONE


def _five_pearls(finished: Finished) -> bool:
    return _state(finished).taken[finished.seat][0] >= 5


def _nothing_in_minus(finished: Finished) -> bool:
    stones = [stone for stone in _state(finished).stones[finished.seat] if stone]
    return len(stones) >= 3 and all(stone >= 4 for stone in stones)


def _three_strong_beaten(finished: Finished) -> bool:
    others = finished.opponents
    return _won(finished) and len(others) == 3 and all(
        seat.get("kind") == "bot" and seat.get("level") == "strong" for seat in others)


def _best_other(finished: Finished) -> int:
    return max(score for seat, score in enumerate(finished.outcome.scores) if seat != finished.seat)


def _stamp(key: str, title: str, description: str, earned: Callable[[Finished], bool]) -> Badge:
    return Badge(key=key, title=title, description=description, earned=earned, book=BOOK)


STAMPS: tuple[Badge, ...] = (
    _stamp("meister_endstein", "Meister auf dem Endstein",
           "Dein Meister steht am Ende einer Solo-Partie auf einem Endstein.", _master_on_end_stone),
    _stamp("fuenf_perlen", "Fünf Perlen", "Am Ende mindestens fünf Perlen im Vorrat.", _five_pearls),
    _stamp("keine_figur_im_minus", "Keine Figur im Minus",
           "Mindestens drei Figuren auf den Pfaden und keine davon auf einem Minus-Stein (Stein 1 bis 3).",
           _nothing_in_minus),
    _stamp("drei_starke", "Gegen drei Computer „stark“ gewonnen",
           "Eine Partie gegen drei Computer „stark“ gewonnen.", _three_strong_beaten),
    _stamp("erster_sieg", "Erster Sieg", "Eine Solo-Partie gewonnen (auch geteilter erster Platz).", _won),
    _stamp("bluehender_garten", "Blühender Garten", f"Mindestens {GOOD_GARDEN} Punkte in einer Solo-Partie.",
           lambda f: f.score >= GOOD_GARDEN),
    _stamp("prachtgarten", "Prachtgarten", f"Mindestens {GRAND_GARDEN} Punkte in einer Solo-Partie.",
           lambda f: f.score >= GRAND_GARDEN),
    _stamp("drei_endsteine", "Drei Endsteine", "Drei deiner Figuren stehen am Ende auf Endsteinen.",
           lambda f: sum(1 for stone in _state(f).stones[f.seat] if stone == END_STONE) >= 3),
    _stamp("fuenf_pfade", "Fünf Pfade", "Alle fünf Figuren auf den Pfaden, keine davon im Minus.",
           lambda f: all(stone >= 4 for stone in _state(f).stones[f.seat])),
    _stamp("alle_im_ziel", "Alle im Ziel", "Alle fünf Figuren stehen am Ende im Zielbereich (Stein 7 bis 9).",
           lambda f: all(stone >= GOAL_FROM for stone in _state(f).stones[f.seat])),
    _stamp("lange_reihe", "Lange Reihe", f"Eine Reihe aus mindestens {LONG_ROW} Laternen.",
           lambda f: any(len(row) >= LONG_ROW for row in _state(f).rows[f.seat])),
    _stamp("bluetenregen", "Blütenregen", f"Kirschblüten im Wert von mindestens {BLOSSOM_RAIN} Punkten.",
           lambda f: _state(f).blossoms[f.seat] >= BLOSSOM_RAIN),
    _stamp("libellenschwarm", "Libellenschwarm", f"Mindestens {DRAGONFLIES} Libellen in einer Partie genommen.",
           lambda f: _state(f).taken[f.seat][1] >= DRAGONFLIES),
    _stamp("ohne_perlen", "Ohne Perlen", "Gewonnen, ohne eine einzige Perle zu nehmen.",
           lambda f: _won(f) and _state(f).taken[f.seat][0] == 0),
    _stamp("pilgerreise", "Pilgerreise", "Gewonnen, ohne den Meister loszuschicken.",
           lambda f: _won(f) and _state(f).masters[f.seat] == -1),
    _stamp("weit_voraus", "Weit voraus", f"Mit mindestens {FAR_AHEAD} Punkten Vorsprung gewonnen.",
           lambda f: _won(f) and f.score - _best_other(f) >= FAR_AHEAD),
    _stamp("hauchduenn", "Hauchdünn", "Gewonnen mit höchstens einem Punkt Vorsprung (oder dank der Perlen).",
           lambda f: _won(f) and f.score - _best_other(f) <= 1),
    _stamp("schlussstein", "Schlussstein",
           "Deine Figur war die fünfte im Zielbereich, und du hast die Partie damit gewonnen.",
           lambda f: _won(f) and _state(f).end_reason == "ziel" and _state(f).ended_by == f.seat),
    _stamp("teezeremonie", "Teezeremonie", f"Laternenfest: mindestens {TEA_CEREMONY} Punkte Teehaus-Bonus.",
           lambda f: _state(f).spielart == FESTIVAL and _state(f).teahouse[f.seat] >= TEA_CEREMONY),
    _stamp("tagesgaertner", "Tagesgärtner", "Einen Tagesgarten gewonnen.",
           lambda f: _won(f) and f.mode == DAILY.key),
)
"""The Gartenbuch: the text's four stamps first, then the project's sixteen."""

HOME = Home(modes=(FREE, DAILY, JOURNEY), badges=STAMPS)

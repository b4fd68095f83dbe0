"""Speednova's solo modes and badges (``GameSpec.home``): Rekordjagd, Tagesspiel, Klassisch; the Sternbilder and
Polarstern. See docs/rules/speednova.md.
"""

from __future__ import annotations

from libs.rules.home import Badge, Finished, Home, ListKey, SoloMode, Streak
from libs.rules.speednova.state import ANDROMEDA_TILES, NovaState

REKORDJAGD = SoloMode(
    key="rekordjagd", title="Rekordjagd",
    description="Allein auf der inneren Karte, ohne Bank: es kommt immer ein Doppelstern aus dem Beutel, den du "
                "legst. Die Tafel reicht bis 36; es zählt deine schwächste Farbe.",
    settings={"solo": "rekordjagd"}, opponents=(0,), list_order=(ListKey.RANK,),
)
TAGESSPIEL = SoloMode(
    key="tagesspiel", title="Tagesspiel", daily=True,
    description="Wie die Rekordjagd, aber heute bekommen alle dieselben Steine in derselben Reihenfolge. Es zählt "
                "nur der erste Versuch des Tages, danach kannst du üben.",
    settings={"solo": "rekordjagd"}, opponents=(0,), list_order=(ListKey.RANK,),
)
KLASSISCH = SoloMode(
    key="klassisch", title="Klassisch",
    description="Allein mit einer Bank aus 3 Steinen: du wählst, welchen du legst, und ziehst auf 3 nach. Ist keine "
                "deiner schwächsten Farben in der Bank, darfst du alle drei tauschen.",
    settings={"solo": "klassisch"}, opponents=(0,), list_order=(ListKey.RANK,),
)

KLEINER_WAGEN = 12
GROSSER_WAGEN = 15
ORION = 18
ANDROMEDA_LEVEL = 10
POLARSTERN_DAYS = 5


def _solo_state(finished: Finished) -> NovaState | None:
    state = finished.state
    return state if isinstance(state, NovaState) and state.seats == 1 else None


def _all_at_least(level: int) -> object:
    def earned(finished: Finished) -> bool:
        state = _solo_state(finished)
        return state is not None and min(state.tracks[0]) >= level
    return earned


def _andromeda(finished: Finished) -> bool:
    state = _solo_state(finished)
    return state is not None and state.andromeda[0] >= ANDROMEDA_LEVEL


def _kassiopeia(finished: Finished) -> bool:
    state = _solo_state(finished)
    return state is not None and state.six_line[0]


HOME = Home(
    modes=(REKORDJAGD, TAGESSPIEL, KLASSISCH),
    badges=(
        Badge(key="kleiner_wagen", title="Kleiner Wagen",
              description=f"Eine Runde allein mit allen Farben auf mindestens {KLEINER_WAGEN}.",
              earned=_all_at_least(KLEINER_WAGEN)),  # type: ignore[arg-type]
        Badge(key="grosser_wagen", title="Großer Wagen",
              description=f"Eine Runde allein mit allen Farben auf mindestens {GROSSER_WAGEN}.",
              earned=_all_at_least(GROSSER_WAGEN)),  # type: ignore[arg-type]
        Badge(key="orion", title="Orion",
              description=f"Eine Runde allein mit allen Farben auf mindestens {ORION}.",
              earned=_all_at_least(ORION)),  # type: ignore[arg-type]
        Badge(key="andromeda", title="Andromeda",
              description=f"Allein nach {ANDROMEDA_TILES} Steinen keine Farbe unter {ANDROMEDA_LEVEL}.",
              earned=_andromeda),
        Badge(key="kassiopeia", title="Kassiopeia",
              description="Allein eine Linie aus 6 gleichen Sternen gewertet (5 Punkte aus einer Linie).",
              earned=_kassiopeia),
        Badge(key="polarstern", title="Polarstern",
              description=f"Das Tagesspiel an {POLARSTERN_DAYS} Tagen in Folge gespielt.",
              streak=Streak(mode=TAGESSPIEL.key, days=POLARSTERN_DAYS)),
    ),
    chat_allowed=lambda config: config.get("teams") != "mit",
)

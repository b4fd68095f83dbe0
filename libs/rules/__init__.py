"""Pure game rules: the shared protocol, the registry and every game's rule module."""

from libs.rules import registry
from libs.rules.protocol import (
    ComputationLine,
    ConfigError,
    IllegalMove,
    Json,
    Outcome,
    Phrase,
    RuleModule,
)
from libs.rules.rng import SeededRng
from libs.rules.speedkoi import MODULE as SPEEDKOI
from libs.rules.speedmosaik import MODULE as SPEEDMOSAIK
from libs.rules.speednova import MODULE as SPEEDNOVA
from libs.rules.speednova import MODULE_V2 as SPEEDNOVA_V2
from libs.rules.speedspore import MODULE as SPEEDSPORE

registry.register(SPEEDMOSAIK)
registry.register(SPEEDKOI)
registry.register(SPEEDNOVA)
registry.register(SPEEDNOVA_V2)
registry.register(SPEEDSPORE)

__all__ = [
    "SPEEDKOI",
    "SPEEDMOSAIK",
    "SPEEDNOVA",
    "SPEEDNOVA_V2",
    "SPEEDSPORE",
    "ComputationLine",
    "ConfigError",
    "IllegalMove",
    "Json",
    "Outcome",
    "Phrase",
    "RuleModule",
    "SeededRng",
    "registry",
]

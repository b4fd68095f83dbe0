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
from libs.rules.speedspore import MODULE_V1 as SPEEDSPORE_V1

registry.register(SPEEDMOSAIK)
registry.register(SPEEDKOI)
registry.register(SPEEDNOVA)
registry.register(SPEEDNOVA_V2)
registry.register(SPEEDSPORE)
registry.register(SPEEDSPORE_V1)  # older logs replay with the version they name (docs/audit.md, "Rule versions")

__all__ = [
    "SPEEDKOI",
    "SPEEDMOSAIK",
    "SPEEDNOVA",
    "SPEEDNOVA_V2",
    "SPEEDSPORE",
    "SPEEDSPORE_V1",
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

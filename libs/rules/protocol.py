"""The shared contract of every rule module (protocol v2): moves, views and outcomes are plain JSON data.

A rule module declares what kind of game it is (``GameSpec``) and implements the pure functions of
``RuleModule``. Nobody calls a module directly for play: ``libs.rules.engine.Engine`` wraps it and does
every check all games share (game over, seat range, whose decision it is, a move's JSON shape), the
"Zurück" steps, the per-decision bookkeeping of think time, and per-viewer redaction. See
``docs/rules/protocol.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from libs.rules.rng import SeededRng

if TYPE_CHECKING:
    from libs.rules.home import Home

Json = dict[str, Any]

__all__ = [
    "Chance",
    "ComputationLine",
    "ConfigError",
    "GameSpec",
    "Hidden",
    "IllegalMove",
    "Json",
    "LeaderboardRule",
    "Outcome",
    "Pending",
    "Phrase",
    "RuleModule",
    "RulesBase",
    "TimeoutRule",
    "phrase_json",
]


class IllegalMove(Exception):
    """A move the rules refuse; ``reason`` is the German sentence the player reads."""

    def __init__(self, reason: str, code: str = "illegal") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


class ConfigError(Exception):
    """Settings the rules refuse; ``reason`` is the German sentence the player reads."""

    def __init__(self, reason: str, code: str = "illegal") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> Any:
    """Turn mappings and tuples inside params into plain JSON containers."""
    # Most params are numbers and words: checked by exact type first, as ``isinstance`` against the
    # Mapping ABC is slow and every effect of every move (and of every replayed move) passes here.
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict:
        return {key if type(key) is str else str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class Phrase:
    """A German sentence with its stable key and the data it was built from (for translation)."""

    key: str
    params: Mapping[str, Any]
    text: str

    def to_json(self) -> Json:
        """Return ``{"key", "params", "text"}`` as plain JSON data."""
        return phrase_json(self.key, self.text, self.params)


def phrase_json(key: str, text: str, params: Mapping[str, Any]) -> Json:
    """Return ``Phrase(key, params, text).to_json()`` without building the Phrase (effects are many)."""
    return {"key": key, "params": _plain(params), "text": text}


@dataclass(frozen=True, slots=True)
class ComputationLine:
    """One line of a German "Rechenweg": a label, its points and the data behind it."""

    label: str
    points: int
    key: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> Json:
        """Return ``{"label", "points", "key", "params"}`` as plain JSON data."""
        return {"label": self.label, "points": self.points, "key": self.key, "params": _plain(self.params)}


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: places, scores, tie-breaks, computation lines and leaderboard points per seat."""

    places: tuple[int, ...]
    scores: tuple[int, ...]
    tie_break: tuple[int, ...]
    lines: tuple[tuple[ComputationLine, ...], ...]
    leaderboard_points: tuple[int, ...]
    summary: Phrase
    rank_keys: tuple[tuple[int, ...], ...] | None = None
    """Per seat, the vector places were decided by (higher is better, compared element by element).

    None means ``(score, tie_break)``, the rule of most games; a game ranked otherwise (Speednova: the
    weakest colour, then the next weakest, ...) gives its vectors here, and they are part of the JSON.
    """

    def rank_key(self, seat: int) -> tuple[int, ...]:
        """Return the vector that ranks ``seat`` (higher is better)."""
        if self.rank_keys is not None:
            return self.rank_keys[seat]
        return (self.scores[seat], self.tie_break[seat])

    def to_json(self) -> Json:
        """Return the outcome as plain JSON data."""
        body: Json = {
            "places": list(self.places),
            "scores": list(self.scores),
            "tie_break": list(self.tie_break),
            "lines": [[line.to_json() for line in seat_lines] for seat_lines in self.lines],
            "leaderboard_points": list(self.leaderboard_points),
            "summary": self.summary.to_json(),
        }
        if self.rank_keys is not None:
            body["rank_keys"] = [list(key) for key in self.rank_keys]
        return body


PLACE_BONUS: tuple[int, ...] = (30, 15, 5, 0)
"""Leaderboard bonus per place ("Bestenliste": 30 / 15 / 5), place 4 gets nothing."""


def leaderboard_points(scores: tuple[int, ...], places: tuple[int, ...]) -> tuple[int, ...]:
    """Return max(score, 0) plus the bonus of the (shared) place for every seat (the default ``LeaderboardRule``)."""
    return LeaderboardRule().points(scores, places)


@dataclass(frozen=True)
class LeaderboardRule:
    """How a game's result becomes leaderboard points ("Bestenliste"): per point of the score, plus a place bonus.

    The texts differ: Speedmosaik "Deine Punkte (mindestens 0) plus Platzbonus 30 / 15 / 5"; Speednova "10
    Punkte je Punkt deiner schwächsten Farbe, dazu ein Platzbonus von 50 für den Sieg (ab drei Spielern 25
    für Platz 2, zu viert 10 für Platz 3)"; Speedkoi "10 Punkte je Wertungspunkt (mindestens 0) und einen
    Platzbonus von 50, 25 und 10". Tied seats share the better place and each get its bonus.
    """

    per_point: int = 1
    """Points per point of the seat's score (``Outcome.scores``), never below 0 in all."""
    place_bonus: tuple[int, ...] = PLACE_BONUS
    """Bonus of place 1, 2, 3, ...; places beyond get nothing."""
    bonus_needs_more_seats: bool = False
    """True: place k's bonus only at a table of more than k seats (Speednova: 25 for place 2 "ab drei
    Spielern", 10 for place 3 "zu viert", and no win bonus alone)."""

    def bonus(self, place: int, seats: int) -> int:
        """Return the bonus of a (shared) place at a table of ``seats``."""
        if place > len(self.place_bonus) or (self.bonus_needs_more_seats and seats <= place):
            return 0
        return self.place_bonus[place - 1]

    def points(self, scores: tuple[int, ...], places: tuple[int, ...]) -> tuple[int, ...]:
        """Return every seat's leaderboard points for these scores and (shared) places."""
        seats = len(places)
        return tuple(max(score, 0) * self.per_point + self.bonus(place, seats)
                     for score, place in zip(scores, places, strict=True))

    def to_json(self) -> Json:
        """Return the rule as plain JSON data."""
        return {"per_point": self.per_point, "place_bonus": list(self.place_bonus),
                "bonus_needs_more_seats": self.bonus_needs_more_seats}


def shared_places(keys: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """Return 1-based places for per-seat rank vectors (higher is better); equal vectors share the better place.

    Vectors compare element by element (the first difference decides), so a game ranks by any number of
    criteria in order: ``(score, tie_break)``, or Speednova's colours from the weakest upwards.
    """
    return tuple(1 + sum(1 for other in keys if other > key) for key in keys)


class Hidden(StrEnum):
    """Kinds of information a game keeps from some seats (declared in ``GameSpec.hidden``)."""

    HAND = "hand"
    """Each seat holds something only it sees (racks, lantern cards, resource cards)."""
    TEAM = "team"
    """Partners see something the other team does not (team signals)."""
    OWN_POINTS = "own_points"
    """A seat's own victory points are partly hidden from the others (Funde)."""
    SUPPLY = "supply"
    """The order of a bag, deck or draw pile: nobody sees it, not even the drawer in advance."""


class Chance(StrEnum):
    """When a game draws on its seed."""

    SETUP = "setup"
    """Only at setup (shuffles, layouts); the moves themselves are deterministic."""
    DURING_PLAY = "during_play"
    """Also during play: dice, drawing, robbing a random card (never visible before it happens)."""


class TimeoutRule(StrEnum):
    """What the computer does when a human's think time (plus grace) runs out."""

    COMPUTER_DECIDES = "computer_decides"
    """The bot makes that one whole decision for the player (Speedmosaik)."""
    GAME_CHOOSES = "game_chooses"
    """The module names the move (``timeout_move``): e.g. roll or end the turn, decline an offer."""


@dataclass(frozen=True)
class GameSpec:
    """What kind of game a rule module is: everything the platform and the conformance suite read from it."""

    game: str
    version: int
    seat_counts: tuple[int, ...]
    """How many seats a table may have (e.g. ``(2, 3, 4)``; ``(1, 2, 3, 4)`` for a game with a solo mode)."""
    title: str = ""
    """The game's name as players read it (German texts use it); empty: the capitalised ``game``."""
    hidden: frozenset[Hidden] = frozenset()
    chance: Chance = Chance.SETUP
    simultaneous: bool = False
    """Several seats may have to decide at once (each with its own clock)."""
    may_act: bool = False
    """Some seats may act without having to (answer an offer, send a team signal); no clock runs for them."""
    undo_steps: int = 0
    """How many steps "Zurück" can take back within a seat's own turn (0: no undo)."""
    teams: bool = False
    """Some configs play in teams (``RuleModule.teams`` names them)."""
    timeout: TimeoutRule = TimeoutRule.COMPUTER_DECIDES
    variant_key: str | None = None
    """The config key whose value names the leaderboard list a game counts for (None: the game itself)."""
    variants: tuple[str, ...] = ()
    """Every value ``variant_key`` can take (the leaderboard's lists)."""
    leaderboard: LeaderboardRule = field(default_factory=lambda: LeaderboardRule())
    """How an outcome becomes leaderboard points (``Outcome.leaderboard_points`` follows it)."""
    home: Home = field(default_factory=lambda: _no_home())
    """Solo modes, badges and the chat rule (``libs/rules/home.py``); none by default."""
    open_moves: frozenset[str] = frozenset()
    """Move keys whose legal values are too many to list (Speedspore's free trade offers).

    A move holding one of these keys may be legal without being among ``legal_moves``, which lists a
    canonical family of them; every other move a module accepts is listed. See docs/rules/protocol.md.
    """

    @property
    def rules_id(self) -> str:
        """Return ``f"{game}@{version}"``."""
        return f"{self.game}@{self.version}"

    @property
    def name(self) -> str:
        """The game's name as players read it."""
        return self.title or self.game.capitalize()

    def to_json(self) -> Json:
        """Return the spec as plain JSON data (for lobbies, docs and audits)."""
        return {
            "game": self.game, "title": self.name, "version": self.version, "rules": self.rules_id,
            "seat_counts": list(self.seat_counts), "hidden": sorted(kind.value for kind in self.hidden),
            "chance": self.chance.value, "simultaneous": self.simultaneous, "may_act": self.may_act,
            "undo_steps": self.undo_steps, "teams": self.teams, "timeout": self.timeout.value,
            "variant_key": self.variant_key, "variants": list(self.variants), "leaderboard": self.leaderboard.to_json(),
            "home": self.home.to_json(), "open_moves": sorted(self.open_moves),
        }


def _no_home() -> Home:
    # Imported here: libs.rules.home builds on this module's Outcome.
    from libs.rules.home import Home

    return Home()


@dataclass(frozen=True, slots=True)
class Pending:
    """A seat that has a decision open: it ``must`` act (its clock runs) or only may (no clock).

    ``decision`` names the decision for think time: while a seat's decision keeps the same name, its
    clock keeps running (e.g. Speedspore: the whole main phase of a turn, "Zurück" included). None lets
    the engine decide: a seat's decision is new when it becomes pending and after each of its own moves.
    """

    seat: int
    must: bool = True
    decision: str | None = None


@runtime_checkable
class RuleModule(Protocol):
    """What every game's rules provide; all functions are pure and never mutate their inputs.

    The engine calls ``apply``, ``preview`` and ``legal_moves`` only for a seat that is pending in a running
    game and with a move that is a JSON object; modules check only what is particular to their game.
    """

    spec: GameSpec

    @property
    def game(self) -> str:
        """The game's name (``spec.game``)."""
        ...

    @property
    def version(self) -> int:
        """The rules version (``spec.version``)."""
        ...

    @property
    def rules_id(self) -> str:
        """Return ``f"{game}@{version}"``."""
        ...

    def valid_configs(self) -> list[Json]:
        """Return every full config this version accepts (the conformance suite plays each one)."""
        ...

    def settings_options(self) -> Json:
        """Return the settings a table can choose (names, values, defaults, availability) for a lobby."""
        ...

    def normalize_config(self, config: Json, seats: int) -> Json:
        """Return the config with defaults filled in; raise ConfigError with a German reason."""
        ...

    def teams(self, config: Json, seats: int) -> tuple[tuple[int, ...], ...]:
        """Return the teams of a normalised config (e.g. ``((0, 2), (1, 3))``), or () without teams."""
        ...

    def setup(self, config: Json, seats: int, seed: bytes) -> Any:
        """Return the initial state for these settings and this seed."""
        ...

    def pending(self, state: Any) -> tuple[Pending, ...]:
        """Return the seats with an open decision, must-act and may-act (empty when the game is over)."""
        ...

    def legal_moves(self, state: Any, seat: int) -> list[Json]:
        """Return every legal move of this seat in a deterministic order (empty if it has none).

        Moves with a key of ``spec.open_moves`` are the exception: a canonical family of them is listed.
        """
        ...

    def apply(self, state: Any, seat: int, move: Json) -> tuple[Any, list[Json]]:
        """Return the new state and its effects (German log lines); raise IllegalMove, input untouched.

        An effect that only some seats may read carries ``"visible_to": [seats]``.
        """
        ...

    def undoable(self, state: Any, seat: int, move: Json) -> bool:
        """Return True if "Zurück" may take this (legal) move back later within the seat's turn."""
        ...

    def move_audience(self, state: Any, seat: int, move: Json) -> tuple[int, ...] | None:
        """Return the seats that may read the move itself, or None when everyone may (the usual case)."""
        ...

    def preview(self, state: Any, seat: int, move: Json) -> Json:
        """Return what this move would bring (never a future draw or roll); raise IllegalMove if illegal.

        The one move ``preview`` accepts and ``apply`` refuses is a confirm-first move: ``apply`` refuses it
        with code ``"warning"`` (the warning as reason) until it carries ``"bestaetigt": true``, while the
        preview shows that warning (Kachelwand's free wall).
        """
        ...

    def view(self, state: Any, seat: int | None) -> Json:
        """Return everything this seat (None: a spectator) may see, and nothing more."""
        ...

    def is_over(self, state: Any) -> bool:
        """Return True once the game has ended."""
        ...

    def outcome(self, state: Any) -> Outcome:
        """Return the final ranking; raise ValueError while the game is running."""
        ...

    def determinize(self, view: Json, seat: int, rng: SeededRng) -> Any:
        """Return a full state consistent with this seat's view, hidden parts sampled from rng."""
        ...

    def timeout_move(self, state: Any, seat: int) -> Json | None:
        """Return the move made for a seat whose think time ran out, or None: the computer decides."""
        ...


class RulesBase:
    """Defaults for the optional parts of ``RuleModule``; a module subclasses it and sets ``spec``."""

    spec: GameSpec

    @property
    def game(self) -> str:
        """The game's name."""
        return self.spec.game

    @property
    def version(self) -> int:
        """The rules version."""
        return self.spec.version

    @property
    def rules_id(self) -> str:
        """Return ``f"{game}@{version}"``."""
        return self.spec.rules_id

    def teams(self, config: Json, seats: int) -> tuple[tuple[int, ...], ...]:
        """No teams."""
        return ()

    def undoable(self, state: Any, seat: int, move: Json) -> bool:
        """Nothing can be taken back."""
        return False

    def move_audience(self, state: Any, seat: int, move: Json) -> tuple[int, ...] | None:
        """Every move is public."""
        return None

    def side_channel(self, state: Any, seat: int, move: Json) -> tuple[int, ...] | None:
        """No side moves: every move belongs in the game's log.

        Optional hook (``Engine.side_channel`` reads it where a module has it): a module returns the seats of a
        team for a *side move*, one that only that team may ever learn of, not even that it was made (Speednova's
        team signals from ``speednova@2``). The table keeps a side move in the team's own log beside the game's
        (docs/architecture.md, "Side moves"). A side move must change nothing that a seat outside the team can
        see or do: no effect or legality of any other move, no view, no pending decision, no clock.
        """
        return None

    def side_teams(self, config: Json, seats: int) -> tuple[tuple[int, ...], ...]:
        """The teams that may make side moves in a game with this config (each has a team log, numbered by its
        index here); none by default."""
        return ()

    def timeout_move(self, state: Any, seat: int) -> Json | None:
        """The computer makes the whole decision."""
        return None

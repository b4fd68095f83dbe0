"""The state of a Speedspore game: one frozen record of plain tuples (copied, compared and hashed cheaply).

Views redact it per seat: other seats' resource kinds and mutation cards, the mutation deck's order, the
dice deck's order and ``seed`` are hidden. Field ids, corner ids and edge ids are those of ``board``.
Resource tuples are counts per kind in ``material.KINDS`` order.
"""

from __future__ import annotations

from dataclasses import dataclass

GRUENDUNG, WURF, HAUPT, ABWERFEN, SCHIMMEL, WUCHSSCHUB, ENDE = (
    "gruendung", "wurf", "haupt", "abwerfen", "schimmel", "wuchsschub", "ende")
PHASES: tuple[str, ...] = (GRUENDUNG, WURF, HAUPT, ABWERFEN, SCHIMMEL, WUCHSSCHUB, ENDE)
"""``gruendung``: founding (Fruchtkörper, then its thread); ``wurf``: before the roll; ``haupt``: trading and
building; ``abwerfen``: seats with more than 7 cards discard half (at once); ``schimmel``: the active seat
moves the mold (and robs); ``wuchsschub``: free threads of a Wuchsschub; ``ende``: the game is over."""

Resources = tuple[int, ...]
"""Counts per resource kind (5 entries)."""

OPEN, JA, NEIN, GEGEN, SELF = "", "ja", "nein", "gegen", "-"


@dataclass(frozen=True, slots=True)
class Answer:
    """One seat's answer to the open offer: ``kind`` is "" (not yet), "ja", "nein", "gegen" or "-" (the offerer).

    For "gegen" (a counter-offer) ``give`` is what the answering seat gives, ``take`` what it wants.
    """

    kind: str
    give: Resources = ()
    take: Resources = ()


@dataclass(frozen=True, slots=True)
class Offer:
    """The active seat's open offer: it gives ``give`` and wants ``take``; ``answers`` per seat."""

    number: int
    """1 for the turn's first offer, … (at most 5 per turn)."""
    give: Resources
    take: Resources
    answers: tuple[Answer, ...]


YieldLine = tuple[int, int, int, int, bool]
"""(field, number, resource kind, amount, from a tower?) — one building's harvest from one field."""


@dataclass(frozen=True, slots=True)
class YieldRecord:
    """What one roll brought: per seat the lines it received, what the mold ate, what nobody got for shortage."""

    roll: int
    """The roll's number in the game (1, 2, …)."""
    dice: tuple[int, int]
    received: tuple[tuple[YieldLine, ...], ...]
    """Per seat the lines it really received (after the mold and the shortage rule)."""
    mold: tuple[tuple[int, YieldLine], ...]
    """(seat, line) pairs the mold's field would have given (empty when the mold's field was not rolled)."""
    short: tuple[int, ...]
    """Resource kinds nobody received because the supply was short (several seats owed it)."""
    partial: tuple[tuple[int, int, int, int], ...]
    """(kind, seat, owed, received): the one seat owed a short kind received what was left."""


LogEntry = tuple[str | int, ...]
"""One thing a seat did in its turn, e.g. ("faden", edge), ("fruchtkoerper", corner), ("turm", corner),
("vorrat", give kind, rate, take kind), ("handel", partner, given…, received…) with 5+5 counts,
("kauft",), ("spielt", card), ("wurf", sum), ("schimmel", field, victim or -1), ("netzsog", kind, amount),
("naehrquelle", kind, kind), ("abwerfen", count), ("gratis_faden", edge), ("verzichtet",)."""


@dataclass(frozen=True, slots=True)
class SporeState:
    """Everything of a game (see the module docstring for what views hide)."""

    seats: int
    target: int
    """Victory points to win (8, 10 or 12)."""
    dice_mode: str
    """"zufall" or "ausgeglichen"."""
    island: str
    """"zufall" or "einsteiger"."""
    fields: tuple[int, ...]
    """Per field its kind (0–4 resource, 5 Autobahnkreuz)."""
    numbers: tuple[int, ...]
    """Per field its number token (0 on the Autobahnkreuz)."""
    gullys: tuple[int, ...]
    """Per gully position its kind (-1: 3:1, else the resource traded 2:1)."""
    gully_edges: tuple[int, ...]
    """Per gully position the coast edge it stands on (``board.GULLY_EDGES`` of the rules version; public)."""
    seed: bytes
    """Source of future rolls and robberies (never in a view; determinize replaces it)."""
    phase: str
    current: int
    """The seat whose turn it is (in founding: the seat placing)."""
    turn: int
    """Turn number after founding (0 while founding)."""
    founding: int
    """Step of the founding in snake order (0 … 2·seats−1)."""
    founding_corner: int
    """In founding: the corner of the Fruchtkörper just placed whose thread comes next, else -1."""
    corner_owner: tuple[int, ...]
    """Per corner the seat with a building there, or -1."""
    corner_level: tuple[int, ...]
    """Per corner 0 (empty), 1 (Fruchtkörper) or 2 (Sporenturm): also its yield per resource."""
    edge_owner: tuple[int, ...]
    """Per edge the seat whose thread lies there, or -1."""
    hands: tuple[Resources, ...]
    supply: Resources
    cards: tuple[tuple[int, ...], ...]
    """Per seat its mutation cards (codes of ``material``), sorted; Funde stay here until the end."""
    bought: tuple[int, ...]
    """Mutation cards the current seat bought this turn (also in ``cards``; not playable this turn)."""
    deck: tuple[int, ...]
    """The mutation deck; the next card is the last."""
    played: tuple[tuple[int, ...], ...]
    """Per seat the mutation cards it played, in order (public)."""
    played_this_turn: bool
    rolled: bool
    """The current seat has rolled this turn."""
    rolls: int
    """Rolls so far in the game."""
    dice: tuple[int, ...]
    """The last roll's two dice, or () before the first roll."""
    dice_deck: tuple[int, ...]
    """"ausgeglichen": outcomes left ((d1−1)·6 + (d2−1)); the next is the last. Empty with "zufall"."""
    dice_seen: tuple[int, ...]
    """"ausgeglichen": outcomes played since the last shuffle (public)."""
    shuffles: int
    """How often the dice deck was shuffled."""
    mold: int
    """The field the mold sits on."""
    discard: tuple[int, ...]
    """Per seat how many cards it still has to discard (phase ``abwerfen``)."""
    after_mold: str
    """Phase after moving the mold: ``wurf`` (Sporenwolke before rolling) or ``haupt``."""
    free_threads: int
    """Free threads left of a Wuchsschub (phase ``wuchsschub``)."""
    offer: Offer | None
    offers_made: int
    """Offers the current seat made this turn."""
    robberies: int
    """Robberies so far (label of the random pick)."""
    pieces: tuple[tuple[int, int, int], ...]
    """Per seat (threads, Fruchtkörper, Sporentürme) on the board."""
    trail: tuple[int, ...]
    """Per seat the length of its longest trail of threads."""
    longest_holder: int
    """Weitestes Geflecht: holder or -1."""
    largest_holder: int
    """Größte Sporenwolke: holder or -1."""
    winner: int
    """-1 while running."""
    last_yield: YieldRecord | None
    """The last roll's yield record (None before the first roll and after a 7's roll: see ``dice``)."""
    turn_log: tuple[tuple[LogEntry, ...], ...]
    """Per seat what it did in its current or last turn."""
    harvest: tuple[int, ...]
    """Per seat resources received from rolls in the game."""
    trades: tuple[int, ...]
    """Per seat trades made (with the supply or with players)."""

    @property
    def is_finished(self) -> bool:
        """True once the game has ended."""
        return self.phase == ENDE

"""Zwergenstich (``tinygame@1``): the conformance suite's tiny test game, in the spirit of OpenSpiel's Kuhn poker.

Small on purpose, yet it uses every part of protocol v2 (see ``docs/rules/protocol.md``):

- 16 cards numbered 1–16, shuffled from the seed; every seat holds 2, the rest is the draw pile.
- Two rounds. In a round each seat has one turn (must act), starting with the round's first seat. In its
  turn a seat may "vormerken" a hand card for laying (up to 3 times; "Zurück" takes back up to 2 of
  these steps), "anbieten" once (while the offer stands, every other seat *may* accept it: it draws the
  top card and pays the offering seat 1 point), and ends the turn with "ziehen" (draw the top card) or
  "passen".
- Then every seat with cards lays one card face down at once (simultaneous, each a must-act seat); in the
  team variant (4 seats, 0+2 against 1+3) a seat may first give its partner a secret sign ("hoch"/"tief").
  When all have laid, the cards are shown: the highest card wins the trick, worth 2 points.
- Ranking by the vector (points, tricks, cards left in hand); equal vectors share a place; partners share
  their team's score. Timeouts: the game passes, or lays the marked (else the lowest) card.

It is not registered with ``libs.rules``; tests (and services started with this plugin) load it with
``registry.load_plugins("tests.rules.tinygame")``. It imports nothing but ``libs.rules``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from libs.rules.home import Badge, Finished, Home, ListKey, SoloMode, Stage, Streak
from libs.rules.protocol import (
    Chance,
    ComputationLine,
    ConfigError,
    GameSpec,
    Hidden,
    IllegalMove,
    Json,
    Outcome,
    Pending,
    Phrase,
    RulesBase,
    TimeoutRule,
    leaderboard_points,
    shared_places,
)
from libs.rules.rng import SeededRng

DECK = tuple(range(1, 17))
HAND_SIZE = 2
ROUNDS = 2
MARKS_PER_TURN = 3
TRICK_POINTS = 2
SIGNS = ("hoch", "tief")
VARIANTS = ("einzeln", "team")


def _first_trick(finished: Finished) -> bool:
    state = finished.state
    return isinstance(state, TinyState) and state.tricks[finished.seat] >= 1


def _no_points(finished: Finished) -> bool:
    return finished.score <= 0


HOME = Home(
    # Solo modes, a campaign and badges, so the services' machinery for them is tested with this game too.
    modes=(
        SoloMode(key="frei", title="Freies Spiel"),
        SoloMode(key="tagesstich", title="Tagesstich", daily=True, settings={"variante": "einzeln"},
                 opponents=(1,), bot_levels=("easy",), list_order=(ListKey.SCORE, ListKey.TIE_BREAK)),
        SoloMode(key="reise", title="Stich-Reise", list_order=(ListKey.SCORE,), stages=(
            Stage(number=1, title="Erster Stich", settings={"variante": "einzeln"}, opponents=("easy",)),
            Stage(number=2, title="Zweiter Stich", settings={"variante": "einzeln"}, opponents=("easy", "easy")),
        )),
    ),
    badges=(
        Badge(key="erster_stich", title="Erster Stich", description="Einen Stich gewonnen.", earned=_first_trick),
        Badge(key="leer", title="Leer ausgegangen", description="Eine Partie ohne Punkte beendet.",
              earned=_no_points, book="Stempel", solo_only=False),
        Badge(key="serie", title="Zwei Tage", description="Den Tagesstich an 2 Tagen in Folge gespielt.",
              streak=Streak(mode="tagesstich", days=2)),
    ),
    # Partners give only their secret sign (as Speednova's teams, which talk only through fixed signals).
    chat_allowed=lambda config: config.get("variante") != "team",
)

SPEC = GameSpec(
    game="tinygame", version=1, seat_counts=(2, 3, 4), title="Zwergenstich",
    hidden=frozenset({Hidden.HAND, Hidden.TEAM, Hidden.SUPPLY}), chance=Chance.DURING_PLAY,
    simultaneous=True, may_act=True, undo_steps=2, teams=True, timeout=TimeoutRule.GAME_CHOOSES,
    variant_key="variante", variants=VARIANTS, home=HOME,
)


@dataclass(frozen=True)
class TinyState:
    """The whole table; hands, marks, laid cards, signs and the pile order are the hidden parts."""

    seats: int
    team: bool
    round: int
    phase: str
    """``"zug"`` (one seat's turn after the other), ``"legen"`` (all lay at once) or ``"ende"``."""
    turns_done: int
    marks_left: int
    offered: bool
    offer_open: bool
    hands: tuple[tuple[int, ...], ...]
    marks: tuple[int | None, ...]
    laid: tuple[int | None, ...]
    signs: tuple[str | None, ...]
    pile: tuple[int, ...]
    """Draw order, top card first."""
    points: tuple[int, ...]
    tricks: tuple[int, ...]
    shown: tuple[tuple[int | None, ...], ...] = ()
    """The cards shown at the end of every finished round (None: that seat had no card)."""

    @property
    def active(self) -> int:
        """The seat whose turn it is in the ``zug`` phase."""
        return (self.round - 1 + self.turns_done) % self.seats


def _say(key: str, text: str, visible_to: tuple[int, ...] | None = None, **params: Any) -> Json:
    effect = Phrase(key, params, text).to_json()
    if visible_to is not None:
        effect["visible_to"] = sorted(visible_to)
    return effect


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class TinyGame(RulesBase):
    """Zwergenstich, version 1."""

    spec = SPEC

    # ---- settings ---------------------------------------------------------------------------------
    def valid_configs(self) -> list[Json]:
        """Return both variants (``team`` is played with 4 seats only)."""
        return [{"variante": variant} for variant in VARIANTS]

    def settings_options(self) -> Json:
        """Return the one option, its values and the seat counts each value is playable with."""
        return {"variante": {"label": "Spielart", "default": "einzeln", "values": [
            {"value": "einzeln", "label": "Jeder für sich", "available": True, "seats": [2, 3, 4]},
            {"value": "team", "label": "Zwei gegen zwei", "available": True, "seats": [4]}]}}

    def normalize_config(self, config: Json, seats: int) -> Json:
        """Return ``{"variante": ...}``; raise ConfigError for unknown keys or values and wrong seat counts."""
        if not _is_int(seats) or seats not in SPEC.seat_counts:
            raise ConfigError("Zwergenstich spielt man mit 2, 3 oder 4 Plätzen.", "seats")
        unknown = sorted(set(config) - {"variante"})
        if unknown:
            raise ConfigError(f"Die Einstellung „{unknown[0]}“ gibt es nicht.", "unknown_setting")
        variant = config.get("variante", "einzeln")
        if variant not in VARIANTS:
            raise ConfigError(f"Die Spielart „{variant}“ gibt es nicht.", "unknown_value")
        if variant == "team" and seats != 4:
            raise ConfigError("Zwei gegen zwei spielt man nur mit 4 Plätzen.", "seats")
        return {"variante": variant}

    def teams(self, config: Json, seats: int) -> tuple[tuple[int, ...], ...]:
        """Return ``((0, 2), (1, 3))`` in the team variant, else ()."""
        return ((0, 2), (1, 3)) if config.get("variante") == "team" else ()

    # ---- playing ----------------------------------------------------------------------------------
    def setup(self, config: Json, seats: int, seed: bytes) -> TinyState:
        """Shuffle the deck from the seed and deal 2 cards to every seat; the rest is the pile."""
        team = self.normalize_config(config, seats)["variante"] == "team"
        deck = SeededRng(bytes(seed), "tinygame/deck").shuffle(DECK)
        hands = tuple(tuple(sorted(deck[i * HAND_SIZE:(i + 1) * HAND_SIZE])) for i in range(seats))
        none: tuple[None, ...] = (None,) * seats
        return TinyState(seats=seats, team=team, round=1, phase="zug", turns_done=0, marks_left=MARKS_PER_TURN,
                         offered=False, offer_open=False, hands=hands, marks=none, laid=none, signs=none,
                         pile=tuple(deck[seats * HAND_SIZE:]), points=(0,) * seats, tricks=(0,) * seats)

    def pending(self, state: TinyState) -> tuple[Pending, ...]:
        """The seat in its turn must act (others may accept its open offer); when laying, all with cards must."""
        if state.phase == "zug":
            offer = f"angebot-{state.round}-{state.active}"
            return tuple(Pending(seat, True, f"zug-{state.round}-{seat}") if seat == state.active
                         else Pending(seat, False, offer)
                         for seat in range(state.seats) if seat == state.active or state.offer_open)
        if state.phase == "legen":
            return tuple(Pending(seat, True, f"legen-{state.round}") for seat in _layers(state))
        return ()

    def legal_moves(self, state: TinyState, seat: int) -> list[Json]:
        """Return the seat's moves in a fixed order (marks, offer, draw, pass / lay, signs)."""
        moves: list[Json]
        if state.phase == "zug" and seat == state.active:
            moves = [{"vormerken": card} for card in state.hands[seat] if card != state.marks[seat]]
            moves = moves if state.marks_left else []
            moves += [{"anbieten": True}] if state.pile and not state.offered else []
            moves += [{"ziehen": True}] if state.pile else []
            return [*moves, {"passen": True}]
        if state.phase == "zug" and state.offer_open:
            return [{"annehmen": True}]
        if state.phase == "legen" and seat in _layers(state):
            moves = [{"legen": card} for card in state.hands[seat]]
            signs = state.team and state.signs[seat] is None
            return moves + ([{"zeichen": sign} for sign in SIGNS] if signs else [])
        return []

    def _check(self, state: TinyState, seat: int, move: Json) -> tuple[str, Any]:
        """Return the move's (kind, value) or raise IllegalMove with a German reason."""
        if len(move) != 1:
            raise IllegalMove("Ein Zug besteht aus genau einer Angabe, z. B. {\"passen\": true}.", "malformed")
        ((kind, value),) = move.items()
        in_turn = state.phase == "zug" and seat == state.active
        if kind in ("anbieten", "ziehen", "passen", "annehmen") and value is not True:
            raise IllegalMove(f"„{kind}“ schreibt man als {{\"{kind}\": true}}.", "malformed")
        if kind in ("vormerken", "legen") and not _is_int(value):
            raise IllegalMove("Karten sind Zahlen von 1 bis 16.", "malformed")
        if kind == "vormerken":
            if not in_turn:
                raise IllegalMove("Vormerken kannst du nur in deinem eigenen Zug.", "wrong_phase")
            if value not in state.hands[seat]:
                raise IllegalMove(f"Die {value} hast du nicht auf der Hand.", "not_in_hand")
            if value == state.marks[seat]:
                raise IllegalMove(f"Die {value} ist schon vorgemerkt.", "already_marked")
            if not state.marks_left:
                raise IllegalMove("Mehr als dreimal Vormerken geht in einem Zug nicht.", "no_marks_left")
        elif kind in ("anbieten", "ziehen", "passen"):
            if not in_turn:
                raise IllegalMove("Das geht nur in deinem eigenen Zug.", "wrong_phase")
            if kind == "anbieten" and state.offered:
                raise IllegalMove("Du hast in diesem Zug schon etwas angeboten.", "already_offered")
            if kind != "passen" and not state.pile:
                raise IllegalMove("Der Stapel ist leer.", "pile_empty")
        elif kind == "annehmen":
            if state.phase != "zug" or seat == state.active or not state.offer_open:
                raise IllegalMove("Gerade steht kein Angebot, das du annehmen kannst.", "no_offer")
        elif kind == "legen":
            if state.phase != "legen":
                raise IllegalMove("Gelegt wird erst, wenn alle ihren Zug gemacht haben.", "wrong_phase")
            if value not in state.hands[seat]:
                raise IllegalMove(f"Die {value} hast du nicht auf der Hand.", "not_in_hand")
        elif kind == "zeichen":
            if not state.team:
                raise IllegalMove("Zeichen gibt es nur im Spiel zwei gegen zwei.", "no_team")
            if state.phase != "legen":
                raise IllegalMove("Ein Zeichen gibst du, bevor du legst.", "wrong_phase")
            if value not in SIGNS:
                raise IllegalMove("Ein Zeichen ist „hoch“ oder „tief“.", "malformed")
            if state.signs[seat] is not None:
                raise IllegalMove("Du hast in dieser Runde schon ein Zeichen gegeben.", "already_signed")
        else:
            raise IllegalMove("Diesen Zug kennt Zwergenstich nicht.", "unknown_move")
        return kind, value

    def apply(self, state: TinyState, seat: int, move: Json) -> tuple[TinyState, list[Json]]:
        """Return the state after the move and its German effects (private ones carry ``visible_to``)."""
        kind, value = self._check(state, seat, move)
        who, active = f"Platz {seat + 1}", f"Platz {state.active + 1}"
        if kind == "vormerken":
            marks = _put(state.marks, seat, value)
            return replace(state, marks=marks, marks_left=state.marks_left - 1), [
                _say("tiny.vormerken", f"Du merkst die {value} zum Legen vor.", (seat,), platz=seat + 1, karte=value)]
        if kind == "anbieten":
            return replace(state, offered=True, offer_open=True), [_say(
                "tiny.anbieten", f"{who} bietet an: Wer eine Karte zieht, zahlt {who} einen Punkt.", platz=seat + 1)]
        if kind == "annehmen":
            card, points = state.pile[0], list(state.points)
            points[seat] -= 1
            points[state.active] += 1
            after = replace(state, hands=_put(state.hands, seat, tuple(sorted((*state.hands[seat], card)))),
                            pile=state.pile[1:], points=tuple(points), offer_open=False)
            return after, [
                _say("tiny.annehmen", f"{who} nimmt das Angebot an, zieht eine Karte und zahlt {active} einen Punkt.",
                     platz=seat + 1, von=state.active + 1),
                _say("tiny.gezogen", f"Du ziehst die {card}.", (seat,), platz=seat + 1, karte=card)]
        if kind == "ziehen":
            card = state.pile[0]
            drawn = replace(state, hands=_put(state.hands, seat, tuple(sorted((*state.hands[seat], card)))),
                            pile=state.pile[1:])
            return _end_turn(drawn, [_say("tiny.ziehen", f"{who} zieht eine Karte.", platz=seat + 1),
                                     _say("tiny.gezogen", f"Du ziehst die {card}.", (seat,), platz=seat + 1,
                                          karte=card)])
        if kind == "passen":
            return _end_turn(state, [_say("tiny.passen", f"{who} passt.", platz=seat + 1)])
        if kind == "zeichen":
            partner = (seat + 2) % 4
            return replace(state, signs=_put(state.signs, seat, value)), [
                _say("tiny.zeichen", f"{who} gibt Platz {partner + 1} ein Zeichen.", platz=seat + 1,
                     partner=partner + 1),
                _say("tiny.zeichen_inhalt", f"{who} zeigt Platz {partner + 1}: {value}.", (seat, partner),
                     platz=seat + 1, partner=partner + 1, zeichen=value)]
        hand = tuple(card for card in state.hands[seat] if card != value)
        laid = replace(state, hands=_put(state.hands, seat, hand), laid=_put(state.laid, seat, value),
                       marks=_put(state.marks, seat, None) if state.marks[seat] == value else state.marks)
        effects = [_say("tiny.legen", f"{who} legt eine Karte verdeckt.", platz=seat + 1),
                   _say("tiny.gelegt", f"Du legst die {value} verdeckt.", (seat,), platz=seat + 1, karte=value)]
        return (laid, effects) if _layers(laid) else _show(laid, effects)

    def undoable(self, state: TinyState, seat: int, move: Json) -> bool:
        """Only "vormerken" can be taken back ("Zurück"), within the seat's own turn."""
        return set(move) == {"vormerken"}

    def move_audience(self, state: TinyState, seat: int, move: Json) -> tuple[int, ...] | None:
        """Marks and laid cards are the seat's own secret, a sign its team's; everything else is public."""
        if set(move) & {"vormerken", "legen"}:
            return (seat,)
        if set(move) == {"zeichen"} and state.team:
            return tuple(sorted((seat, (seat + 2) % 4)))
        return None

    def preview(self, state: TinyState, seat: int, move: Json) -> Json:
        """Return what the move would do; a draw never names the card, laying never who will win."""
        kind, value = self._check(state, seat, move)
        key, text = {
            "vormerken": ("tiny.vorschau.vormerken", f"Die {value} wird zum Legen vorgemerkt."),
            "anbieten": ("tiny.vorschau.anbieten", "Wer von den anderen eine Karte zieht, zahlt dir einen Punkt."),
            "annehmen": ("tiny.vorschau.annehmen", "Du ziehst eine Karte vom Stapel und zahlst einen Punkt."),
            "ziehen": ("tiny.vorschau.ziehen", "Du ziehst eine Karte vom Stapel; dein Zug endet."),
            "passen": ("tiny.vorschau.passen", "Dein Zug endet ohne Karte."),
            "legen": ("tiny.vorschau.legen", f"Du legst die {value} verdeckt."),
            "zeichen": ("tiny.vorschau.zeichen", f"Dein Partner sieht: {value}."),
        }[kind]
        return {"zug": dict(move), **Phrase(key, {"karte": value} if kind in ("vormerken", "legen") else {},
                                            text).to_json(), "stapel": len(state.pile)}

    def view(self, state: TinyState, seat: int | None) -> Json:
        """Return the public table, plus the seat's own hand, mark and laid card and its team's signs."""
        body: Json = {
            "spiel": SPEC.game, "regeln": SPEC.rules_id,
            "einstellungen": {"variante": "team" if state.team else "einzeln"}, "plaetze": state.seats,
            "runde": state.round, "runden": ROUNDS, "phase": state.phase,
            "am_zug": state.active + 1 if state.phase == "zug" else None, "zuege": state.turns_done,
            "vormerken_uebrig": state.marks_left, "angeboten": state.offered, "angebot_offen": state.offer_open,
            "stapel": len(state.pile), "aufgedeckt": [list(cards) for cards in state.shown],
            "spieler": [{"platz": other + 1, "karten": len(state.hands[other]),
                         "gelegt": state.laid[other] is not None, "zeichen_gegeben": state.signs[other] is not None,
                         "punkte": state.points[other], "stiche": state.tricks[other]} for other in range(state.seats)],
            "beendet": state.phase == "ende", "du": None,
        }
        if seat is not None:
            team = (seat, (seat + 2) % 4) if state.team else (seat,)
            body["du"] = {"platz": seat + 1, "hand": list(state.hands[seat]), "vorgemerkt": state.marks[seat],
                          "gelegt": state.laid[seat],
                          "zeichen": {str(member + 1): state.signs[member] for member in sorted(team)
                                      if state.signs[member] is not None}}
        return body

    def is_over(self, state: TinyState) -> bool:
        """Return True after the last round's cards were shown."""
        return state.phase == "ende"

    def outcome(self, state: TinyState) -> Outcome:
        """Rank by (points, tricks, cards in hand) of the seat, or of its team (partners share all three)."""
        if state.phase != "ende":
            raise ValueError("Zwergenstich läuft noch")
        members = [((seat, (seat + 2) % 4) if state.team else (seat,)) for seat in range(state.seats)]
        lines = tuple(tuple(line for member in team for line in _lines(state, member, seat)) for seat, team in
                      enumerate(members))
        scores = tuple(sum(state.points[member] for member in team) for team in members)
        tricks = tuple(sum(state.tricks[member] for member in team) for team in members)
        keys = tuple((scores[seat], tricks[seat], sum(len(state.hands[m]) for m in members[seat]))
                     for seat in range(state.seats))
        places = shared_places(keys)
        winners = [seat + 1 for seat in range(state.seats) if places[seat] == 1]
        names = " und ".join(f"Platz {winner}" for winner in winners)
        summary = Phrase("tiny.ergebnis", {"gewinner": winners, "punkte": max(scores)},
                         f"{names} {'gewinnt' if len(winners) == 1 else 'gewinnen'} mit {max(scores)} Punkten.")
        return Outcome(places=places, scores=scores, tie_break=tricks, lines=lines,
                       leaderboard_points=leaderboard_points(scores, places), summary=summary, rank_keys=keys)

    def determinize(self, view: Json, seat: int, rng: SeededRng) -> TinyState:
        """Return a state matching the view: unseen cards dealt anew to other hands, laid cards and the pile."""
        me, players = view["du"], view["spieler"]
        seats, team = int(view["plaetze"]), view["einstellungen"]["variante"] == "team"
        known = {*me["hand"], *([me["gelegt"]] if me["gelegt"] is not None else []),
                 *(card for cards in view["aufgedeckt"] for card in cards if card is not None)}
        unseen = rng.shuffle([card for card in DECK if card not in known])
        hands, laid, marks, signs = [], [], [], []
        for other, player in enumerate(players):
            if other == seat:
                hand, down, mark = tuple(me["hand"]), me["gelegt"], me["vorgemerkt"]
            else:
                hand, unseen = tuple(sorted(unseen[:player["karten"]])), unseen[player["karten"]:]
                down, unseen = (unseen[0], unseen[1:]) if player["gelegt"] else (None, unseen)
                mark = rng.choice([None, *hand])
            sign = me["zeichen"].get(str(other + 1))
            if sign is None and player["zeichen_gegeben"]:
                sign = rng.choice(SIGNS)
            hands.append(hand)
            laid.append(down)
            marks.append(mark)
            signs.append(sign)
        if len(unseen) != view["stapel"]:
            raise ValueError("the view does not add up to 16 cards")
        return TinyState(
            seats=seats, team=team, round=view["runde"], phase=view["phase"], turns_done=view["zuege"],
            marks_left=view["vormerken_uebrig"], offered=view["angeboten"], offer_open=view["angebot_offen"],
            hands=tuple(hands), marks=tuple(marks), laid=tuple(laid), signs=tuple(signs), pile=tuple(unseen),
            points=tuple(p["punkte"] for p in players), tricks=tuple(p["stiche"] for p in players),
            shown=tuple(tuple(cards) for cards in view["aufgedeckt"]))

    def timeout_move(self, state: TinyState, seat: int) -> Json | None:
        """Out of time the game passes, or lays the marked (else the lowest) card; an offer is left alone."""
        if state.phase == "zug" and seat == state.active:
            return {"passen": True}
        if state.phase == "legen" and seat in _layers(state):
            mark = state.marks[seat]
            return {"legen": mark if mark in state.hands[seat] else min(state.hands[seat])}
        return None


def _put(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1:])


def _layers(state: TinyState) -> tuple[int, ...]:
    """The seats that still have to lay a card this round."""
    return tuple(seat for seat in range(state.seats) if state.laid[seat] is None and state.hands[seat])


def _end_turn(state: TinyState, effects: list[Json]) -> tuple[TinyState, list[Json]]:
    """Close the turn (an open offer lapses); after the last turn of a round everyone lays."""
    if state.offer_open:
        effects.append(_say("tiny.verfallen", f"Das Angebot von Platz {state.active + 1} verfällt.",
                            platz=state.active + 1))
    after = replace(state, turns_done=state.turns_done + 1, marks_left=MARKS_PER_TURN, offered=False,
                    offer_open=False)
    if after.turns_done < after.seats:
        return after, effects
    after = replace(after, phase="legen")
    if not _layers(after):
        return _show(after, effects)
    effects.append(_say("tiny.alle_legen", "Jetzt legen alle gleichzeitig eine Karte verdeckt.", runde=state.round))
    return after, effects


def _show(state: TinyState, effects: list[Json]) -> tuple[TinyState, list[Json]]:
    """Show the laid cards; the highest wins the trick; then the next round starts, or the game ends."""
    cards = [card for card in state.laid if card is not None]
    winner = state.laid.index(max(cards)) if cards else None
    shown = ", ".join(f"Platz {seat + 1}: {card}" for seat, card in enumerate(state.laid) if card is not None)
    points, tricks = list(state.points), list(state.tricks)
    if winner is not None:
        points[winner] += TRICK_POINTS
        tricks[winner] += 1
        effects.append(_say("tiny.stich", f"Aufgedeckt – {shown}. Platz {winner + 1} gewinnt den Stich.",
                            karten=list(state.laid), gewinner=winner + 1))
    none: tuple[None, ...] = (None,) * state.seats
    after = replace(state, round=state.round + 1, phase="zug", turns_done=0, laid=none, signs=none,
                    points=tuple(points), tricks=tuple(tricks), shown=(*state.shown, state.laid))
    if state.round == ROUNDS:
        effects.append(_say("tiny.ende", "Die Partie ist zu Ende."))
        return replace(after, round=state.round, phase="ende"), effects
    effects.append(_say("tiny.runde", f"Runde {after.round} beginnt mit Platz {after.active + 1}.",
                        runde=after.round, platz=after.active + 1))
    return after, effects


def _lines(state: TinyState, member: int, seat: int) -> tuple[ComputationLine, ...]:
    """The Rechenweg lines of one member of ``seat``'s team (its tricks and its offers)."""
    whose = "" if member == seat else f" (Partner Platz {member + 1})"
    trick_points = TRICK_POINTS * state.tricks[member]
    return (ComputationLine(f"Stiche{whose}", trick_points, "tiny.zeile.stiche",
                            {"platz": member + 1, "stiche": state.tricks[member]}),
            ComputationLine(f"Angebote{whose}", state.points[member] - trick_points, "tiny.zeile.angebote",
                            {"platz": member + 1}))


MODULE = TinyGame()

__all__ = ["MODULE", "SPEC", "TinyGame", "TinyState"]

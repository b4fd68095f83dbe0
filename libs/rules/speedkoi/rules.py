"""Speedkoi's rules of play: checking a move, its warning, applying it, and every legal move of a seat.

``apply`` = ``moves.parse`` + ``check`` + ``apply_move``; bots may call ``apply_move`` with a ``Move`` that
``legal`` returned (it checks nothing again). All functions are pure: a state is never changed in place.
"""

from __future__ import annotations

from libs.rules.evolve import evolve
from libs.rules.protocol import IllegalMove, Json, Phrase
from libs.rules.speedkoi import scoring
from libs.rules.speedkoi.material import (
    BLOSSOM_POINTS,
    COLOUR_NAMES,
    COLOURS,
    DRAGONFLY,
    END_STONE,
    FESTIVAL,
    FIGURE_NAMES,
    GOAL_FIGURES,
    GOAL_FROM,
    JETTY,
    KOI,
    MASTER,
    PEARL,
    PILGRIM,
    STONE_VALUES,
    TEAHOUSE_BONUS,
    TILE_KIND_INDEX,
    TILE_NAMES,
    VALUES,
    lantern,
)
from libs.rules.speedkoi.moves import CONFIRM_KEY, DECK, DECLINE, DISCARD, DRAW, PLAY, STEP, Move, parse
from libs.rules.speedkoi.moves import KOI as KOI_MOVE
from libs.rules.speedkoi.rows import asks_figure, direction, fits, goal_count, movable, pilgrims_free
from libs.rules.speedkoi.state import ENDE, LEGEN, LIBELLE, STEG, ZIEHEN, KoiState, Part
from libs.rules.speedkoi.state import KOI as KOI_PHASE
from libs.rules.speedkoi.texts import effect, lantern_words, seat_name, signed, stone_words

# ---------------------------------------------------------------------------------------------------------
# Checking


def check(state: KoiState, seat: int, move: Move) -> None:
    """Raise IllegalMove (German reason, code) unless ``move`` is legal for ``seat`` now (warnings aside)."""
    phase = state.phase
    action = move.action
    if phase == LEGEN:
        if action not in (PLAY, DISCARD):
            raise IllegalMove("Lege eine Laterne an oder wirf eine ab.", "wrong_phase")
        code = lantern(move.colour, move.value)
        if code not in state.hands[seat]:
            raise IllegalMove(f"{lantern_words(code)} hast du nicht auf der Hand.", "not_in_hand")
        if action == PLAY:
            _check_play(state, seat, move)
        elif move.figure or move.onward != -1:
            raise IllegalMove("Beim Abwerfen zieht keine Figur.", "malformed")
        return
    if phase in (LIBELLE, STEG):
        what = "Libelle" if phase == LIBELLE else "Steg"
        if action == DECLINE:
            return
        if action != STEP:
            raise IllegalMove(f"{what}: Wähle eine Figur, die einen Stein weiterzieht, oder verzichte.", "wrong_phase")
        if move.colour not in movable(state, seat, state.jetty_path if phase == STEG else -1):
            where = "auf einem anderen Pfad " if phase == STEG else ""
            raise IllegalMove(f"{what}: Auf dem Pfad {COLOUR_NAMES[move.colour]} steht keine Figur von dir "
                              f"{where}auf Stein 1 bis 8.", "no_figure")
        return
    if phase == KOI_PHASE:
        if action != KOI_MOVE:
            raise IllegalMove("Koi: Nimm die oberste Laterne einer Ablage auf die Hand.", "wrong_phase")
        if not state.piles[move.colour]:
            raise IllegalMove(f"Die Ablage {COLOUR_NAMES[move.colour]} ist leer.", "empty_pile")
        return
    if action != DRAW:
        raise IllegalMove("Ziehe eine Laterne: vom Stapel oder die oberste einer Ablage.", "wrong_phase")
    if move.colour == -1:
        return  # the deck is never empty while the game runs (the last draw ends it)
    if not state.piles[move.colour]:
        raise IllegalMove(f"Die Ablage {COLOUR_NAMES[move.colour]} ist leer.", "empty_pile")
    if move.colour == state.discarded:
        raise IllegalMove("Die Laterne, die du gerade abgeworfen hast, darfst du nicht gleich wieder nehmen.",
                          "just_discarded")


def _check_play(state: KoiState, seat: int, move: Move) -> None:
    colour = move.colour
    row = state.rows[seat][colour]
    if not fits(row, move.value):
        way = "aufsteigend" if direction(row) > 0 else "absteigend"
        raise IllegalMove(f"{lantern_words(lantern(colour, move.value))} passt nicht in deine Reihe "
                          f"{COLOUR_NAMES[colour]}: Sie läuft {way}, zuletzt liegt {row[-1]}.", "does_not_fit")
    stone = state.stones[seat][colour]
    if asks_figure(state, seat, colour):
        if not move.figure:
            raise IllegalMove(f"Neuer Pfad {COLOUR_NAMES[colour]}: Sag, ob ein Pilger oder der Meister losgeht.",
                              "choose_figure")
    elif move.figure:
        raise IllegalMove("Hier wird nicht gefragt, ob Pilger oder Meister losgeht.", "no_choice")
    if stone == END_STONE:
        others = movable(state, seat)
        if others and move.onward == -1:
            raise IllegalMove(f"{COLOUR_NAMES[colour]} steht schon auf dem Endstein: Wähle, welche andere Figur "
                              "(Stein 1 bis 8) weiterzieht.", "choose_onward")
        if move.onward != -1 and move.onward not in others:
            raise IllegalMove(f"Auf dem Pfad {COLOUR_NAMES[move.onward]} steht keine Figur von dir auf Stein 1 "
                              "bis 8.", "no_figure")
    elif move.onward != -1:
        raise IllegalMove(f"Deine Figur auf dem Pfad {COLOUR_NAMES[colour]} zieht selbst; „weiter“ gilt nur, "
                          "wenn sie auf dem Endstein steht.", "no_choice")


def moving_path(state: KoiState, seat: int, move: Move) -> int:
    """Return the path whose figure a legal play or step moves one stone (-1: a new figure or none moves)."""
    if move.action == STEP:
        return move.colour
    if move.action != PLAY:
        return -1
    stone = state.stones[seat][move.colour]
    if stone == 0:
        return -1
    return move.onward if stone == END_STONE else move.colour


def ends_game(state: KoiState, seat: int, move: Move) -> str:
    """Return why a legal move would end the game ("ziel", "stapel") or ""."""
    if move.action == DRAW:
        return "stapel" if move.colour == -1 and len(state.deck) == 1 else ""
    path = moving_path(state, seat, move)
    if path >= 0 and state.stones[seat][path] == GOAL_FROM - 1 and goal_count(state) == GOAL_FIGURES - 1:
        return "ziel"
    return ""


def warning(state: KoiState, seat: int, move: Move) -> Phrase | None:
    """Return the warning of a legal move that would end the game, with the standings after it."""
    reason = ends_game(state, seat, move)
    if not reason:
        return None
    after = state
    if reason == "ziel":
        path = moving_path(state, seat, move)
        stones = state.stones[seat]
        moved = (*stones[:path], stones[path] + 1, *stones[path + 1:])
        after = evolve(state, stones=(*state.stones[:seat], moved, *state.stones[seat + 1:]))
    points = scoring.scores(after)
    ranks = scoring.places(after, points)
    cause = ("deine Figur wäre die fünfte im Zielbereich" if reason == "ziel"
             else "du ziehst die letzte verdeckte Laterne")
    standings = scoring.standings_text(points, ranks, seat)
    return Phrase("speedkoi.warnung.ende",
                  {"grund": reason, "punkte": list(points), "rang": ranks[seat], "platz": seat + 1},
                  f"Achtung, damit endet die Partie – {cause}: {standings}.")


def check_confirmed(state: KoiState, seat: int, move: Move) -> None:
    """Raise IllegalMove(code "warning") for a move that would end the game and is not confirmed."""
    if move.confirmed:
        return
    warned = warning(state, seat, move)
    if warned is not None:
        raise IllegalMove(warned.text, "warning")


def apply(state: KoiState, seat: int, move: Json) -> tuple[KoiState, list[Json]]:
    """Return the new state and its effects; raise IllegalMove and leave the state as it was."""
    parsed = parse(move)
    check(state, seat, parsed)
    check_confirmed(state, seat, parsed)
    return apply_move(state, seat, parsed)


# ---------------------------------------------------------------------------------------------------------
# Legal moves


def legal(state: KoiState, seat: int) -> list[Move]:
    """Return every legal move of ``seat`` in canonical order; a move that ends the game comes confirmed."""
    if state.phase == ENDE or seat != state.current:
        return []
    phase = state.phase
    if phase == LEGEN:
        return _legal_lanterns(state, seat)
    if phase in (LIBELLE, STEG):
        paths = movable(state, seat, state.jetty_path if phase == STEG else -1)
        steps = [Move(STEP, path) for path in paths]
        return [*(evolve(step, confirmed=True) if ends_game(state, seat, step) else step for step in steps),
                Move(DECLINE)]
    if phase == KOI_PHASE:
        return [Move(KOI_MOVE, colour) for colour, pile in enumerate(state.piles) if pile]
    draws = [Move(DRAW, -1, confirmed=len(state.deck) == 1)]
    draws += [Move(DRAW, colour) for colour, pile in enumerate(state.piles) if pile and colour != state.discarded]
    return draws


def _legal_lanterns(state: KoiState, seat: int) -> list[Move]:
    result: list[Move] = []
    rows = state.rows[seat]
    stones = state.stones[seat]
    ending = goal_count(state) == GOAL_FIGURES - 1
    others: list[int] | None = None
    previous = -1
    for code in state.hands[seat]:
        if code == previous:
            continue
        previous = code
        colour, value = divmod(code, VALUES)
        if fits(rows[colour], value):
            stone = stones[colour]
            if stone == 0:
                if asks_figure(state, seat, colour):
                    result += [Move(PLAY, colour, value, PILGRIM), Move(PLAY, colour, value, MASTER)]
                else:
                    result.append(Move(PLAY, colour, value))
            elif stone < END_STONE:
                result.append(Move(PLAY, colour, value, confirmed=ending and stone == GOAL_FROM - 1))
            else:
                if others is None:
                    others = movable(state, seat)
                if others:
                    result += [Move(PLAY, colour, value, onward=path,
                                    confirmed=ending and stones[path] == GOAL_FROM - 1) for path in others]
                else:
                    result.append(Move(PLAY, colour, value))
        result.append(Move(DISCARD, colour, value))
    return result


def move_json(move: Move) -> Json:
    """Return a move as the JSON a client sends."""
    action = move.action
    if action in (PLAY, DISCARD):
        body: Json = {"aktion": action, "farbe": COLOURS[move.colour], "wert": move.value}
        if move.figure:
            body["figur"] = move.figure
        if move.onward != -1:
            body["weiter"] = COLOURS[move.onward]
    elif action == STEP:
        body = {"aktion": action, "pfad": COLOURS[move.colour]}
    elif action == KOI_MOVE:
        body = {"aktion": action, "farbe": COLOURS[move.colour]}
    elif action == DRAW:
        body = {"aktion": action, "von": DECK if move.colour == -1 else COLOURS[move.colour]}
    else:
        body = {"aktion": action}
    if move.confirmed:
        body[CONFIRM_KEY] = True
    return body


def legal_moves(state: KoiState, seat: int) -> list[Json]:
    """Return every legal move of ``seat`` as JSON in canonical order."""
    return [move_json(move) for move in legal(state, seat)]


# ---------------------------------------------------------------------------------------------------------
# Applying


class _Turn:
    """The parts of a state one move changes, as lists; ``done`` builds the new state."""

    __slots__ = (
        "arrivals",
        "blossoms",
        "effects",
        "end_reason",
        "jetty_path",
        "parts",
        "phase",
        "seat",
        "state",
        "stones",
        "taken",
        "teahouse",
        "tiles",
    )

    def __init__(self, state: KoiState, seat: int) -> None:
        self.state = state
        self.seat = seat
        self.stones = list(state.stones[seat])
        self.tiles = state.tiles
        self.taken = state.taken[seat]
        self.blossoms = state.blossoms[seat]
        self.teahouse = state.teahouse[seat]
        self.arrivals = state.arrivals
        self.effects: list[Json] = []
        self.parts: list[Part] = list(state.last[seat])
        self.phase = ZIEHEN
        self.jetty_path = -1
        self.end_reason = ""

    def goal_count(self) -> int:
        seat = self.seat
        return sum(1 for other, stones in enumerate(self.state.stones) if other != seat
                   for stone in stones if stone >= GOAL_FROM) + sum(1 for stone in self.stones if stone >= GOAL_FROM)

    def art(self, path: int) -> str:
        return MASTER if self.state.masters[self.seat] == path else PILGRIM

    def step(self, path: int, via: str) -> None:
        """Move the seat's figure on ``path`` one stone and take what lies there."""
        seat = self.seat
        stone = self.stones[path] + 1
        self.stones[path] = stone
        art = self.art(path)
        self.parts.append(("figur", art, path, stone, via))
        reason = {"": "", "libelle": "Libelle: ", "steg": "Steg: ", "endstein": "Statt der Figur auf dem Endstein: "}
        self.effects.append(effect(
            "schritt", f"{reason[via]}{FIGURE_NAMES[art]} {COLOUR_NAMES[path]} von {seat_name(seat)} → "
                       f"{stone_words(stone)}.",
            platz=seat + 1, farbe=COLOURS[path], art=art, stein=stone, wert=STONE_VALUES[stone], anlass=via))
        self.enter(path, stone)

    def enter(self, path: int, stone: int) -> None:
        seat = self.seat
        tile = self.tiles[path][stone]
        if tile is not None:
            row = self.tiles[path]
            self.tiles = (*self.tiles[:path], (*row[:stone], None, *row[stone + 1:]), *self.tiles[path + 1:])
            kind = TILE_KIND_INDEX[tile]
            self.taken = (*self.taken[:kind], self.taken[kind] + 1, *self.taken[kind + 1:])
            self.parts.append(("plaettchen", tile))
            if tile in BLOSSOM_POINTS:
                self.blossoms += BLOSSOM_POINTS[tile]
                text = f"{seat_name(seat)} nimmt eine Kirschblüte: {signed(BLOSSOM_POINTS[tile])} Punkte."
            elif tile == PEARL:
                text = f"{seat_name(seat)} nimmt eine Perle (jetzt {self.taken[0]})."
            else:
                text = f"{seat_name(seat)} nimmt {'einen' if tile in (JETTY, KOI) else 'eine'} {TILE_NAMES[tile]}."
            self.effects.append(effect("plaettchen", text, platz=seat + 1, farbe=COLOURS[path], stein=stone,
                                       plaettchen=tile))
        if stone == END_STONE:
            arrived = self.arrivals[path]
            if seat not in arrived:
                rank = len(arrived)
                self.arrivals = (*self.arrivals[:path], (*arrived, seat), *self.arrivals[path + 1:])
                if self.state.spielart == FESTIVAL and rank < len(TEAHOUSE_BONUS):
                    bonus = TEAHOUSE_BONUS[rank]
                    self.teahouse += bonus
                    self.parts.append(("teehaus", bonus))
                    self.effects.append(effect(
                        "teehaus", f"{seat_name(seat)} erreicht als {'Erster' if rank == 0 else 'Zweiter'} den "
                                   f"Endstein des Pfads {COLOUR_NAMES[path]}: Teehaus-Bonus +{bonus}.",
                        platz=seat + 1, farbe=COLOURS[path], bonus=bonus, rang=rank + 1))
        if stone == GOAL_FROM and self.goal_count() >= GOAL_FIGURES:
            self.end_reason = "ziel"
            self.effects.append(effect("ende", "Die fünfte Figur steht im Zielbereich: Die Partie ist vorbei.",
                                       grund="ziel", platz=seat + 1))
            return
        self.follow_up(path, tile)

    def follow_up(self, path: int, tile: str | None) -> None:
        """Open the decision a dragonfly, a Steg or a Koi brings (if it can be used at all)."""
        seat = self.seat
        if tile == DRAGONFLY:
            if any(0 < stone < END_STONE for stone in self.stones):
                self.phase = LIBELLE
                self.effects.append(effect("libelle", f"Libelle: {seat_name(seat)} darf eine eigene Figur auf "
                                                      "Stein 1 bis 8 einen Stein weiterziehen.", platz=seat + 1))
            else:
                self.effects.append(effect("libelle_verfaellt", "Libelle: Keine eigene Figur steht auf Stein 1 "
                                                                "bis 8.", platz=seat + 1))
        elif tile == JETTY:
            if any(0 < stone < END_STONE and other != path for other, stone in enumerate(self.stones)):
                self.phase = STEG
                self.jetty_path = path
                self.effects.append(effect("steg", f"Steg: {seat_name(seat)} darf eine eigene Figur auf einem "
                                                   "anderen Pfad (Stein 1 bis 8) einen Stein weiterziehen.",
                                           platz=seat + 1, farbe=COLOURS[path]))
            else:
                self.effects.append(effect("steg_verfaellt", "Steg: Keine eigene Figur steht auf einem anderen Pfad "
                                                             "auf Stein 1 bis 8.", platz=seat + 1))
        elif tile == KOI:
            if any(self.state.piles):
                self.phase = KOI_PHASE
                self.effects.append(effect("koi", f"Koi: {seat_name(seat)} nimmt die oberste Laterne einer "
                                                  "Ablage zusätzlich auf die Hand.", platz=seat + 1))
            else:
                self.effects.append(effect("koi_verfaellt", "Koi: Alle Ablagen sind leer.", platz=seat + 1))

    def done(self, **changes: object) -> KoiState:
        state, seat = self.state, self.seat
        phase = ENDE if self.end_reason else self.phase
        fields: dict[str, object] = {
            "stones": (*state.stones[:seat], tuple(self.stones), *state.stones[seat + 1:]),
            "tiles": self.tiles, "arrivals": self.arrivals, "phase": phase, "jetty_path": self.jetty_path,
            "taken": (*state.taken[:seat], self.taken, *state.taken[seat + 1:]),
            "blossoms": (*state.blossoms[:seat], self.blossoms, *state.blossoms[seat + 1:]),
            "teahouse": (*state.teahouse[:seat], self.teahouse, *state.teahouse[seat + 1:]),
            "last": (*state.last[:seat], tuple(self.parts), *state.last[seat + 1:]),
        }
        if self.end_reason:
            fields.update(end_reason=self.end_reason, ended_by=seat)
        fields.update(changes)
        return evolve(state, **fields)


def _without(hand: tuple[int, ...], code: int) -> tuple[int, ...]:
    index = hand.index(code)
    return hand[:index] + hand[index + 1:]


def _with(hand: tuple[int, ...], code: int) -> tuple[int, ...]:
    index = 0
    while index < len(hand) and hand[index] < code:
        index += 1
    return (*hand[:index], code, *hand[index:])


def _replace(items: tuple, index: int, value: object) -> tuple:  # type: ignore[type-arg]
    return (*items[:index], value, *items[index + 1:])


def apply_move(state: KoiState, seat: int, move: Move) -> tuple[KoiState, list[Json]]:
    """Return the state after a legal move and its effects (nothing is checked again)."""
    action = move.action
    if action == PLAY:
        return _play(state, seat, move)
    if action == DISCARD:
        return _discard(state, seat, move)
    if action == STEP:
        turn = _Turn(state, seat)
        turn.step(move.colour, LIBELLE if state.phase == LIBELLE else STEG)
        return turn.done(), turn.effects
    if action == DECLINE:
        what = "libelle" if state.phase == LIBELLE else "steg"
        turn = _Turn(state, seat)
        turn.parts.append(("verzichtet", what))
        tile = "die Libelle" if what == "libelle" else "den Steg"
        turn.effects.append(effect("verzichtet", f"{seat_name(seat)} verzichtet auf {tile}.", platz=seat + 1,
                                   plaettchen=what))
        return turn.done(), turn.effects
    if action == KOI_MOVE:
        return _koi(state, seat, move.colour)
    return _draw(state, seat, move.colour)


def _play(state: KoiState, seat: int, move: Move) -> tuple[KoiState, list[Json]]:
    colour, value = move.colour, move.value
    code = lantern(colour, value)
    turn = _Turn(state, seat)
    rows = state.rows[seat]
    row = (*rows[colour], value)
    known = state.known[seat]
    changes: dict[str, object] = {
        "hands": _replace(state.hands, seat, _without(state.hands[seat], code)),
        "rows": _replace(state.rows, seat, _replace(rows, colour, row)),
    }
    if code in known:
        changes["known"] = _replace(state.known, seat, _without(known, code))
    turn.parts = [("legte", code)]
    turn.effects.append(effect("anlegen", f"{seat_name(seat)} legt {lantern_words(code)} an "
                                          f"(Reihe {COLOUR_NAMES[colour]}: {len(row)}).",
                               platz=seat + 1, farbe=COLOURS[colour], wert=value, reihe=list(row)))
    stone = turn.stones[colour]
    if stone == 0:
        art = move.figure or (PILGRIM if pilgrims_free(state, seat) else MASTER)
        if art == MASTER:
            changes["masters"] = _replace(state.masters, seat, colour)
        turn.stones[colour] = 1
        turn.parts.append(("figur", art, colour, 1, ""))
        who = "den Meister" if art == MASTER else "einen Pilger"
        turn.effects.append(effect("neue_figur", f"{seat_name(seat)} stellt {who} auf den Pfad "
                                                 f"{COLOUR_NAMES[colour]}: {stone_words(1)}.",
                                   platz=seat + 1, farbe=COLOURS[colour], art=art, stein=1, wert=STONE_VALUES[1]))
        if art == MASTER:  # the master counts from now on: ``art`` reads ``masters``
            turn.state = evolve(state, masters=changes["masters"])
        turn.enter(colour, 1)
    elif stone < END_STONE:
        turn.step(colour, "")
    elif move.onward != -1:
        turn.step(move.onward, "endstein")
    else:
        turn.parts.append(("nur_reihe",))
        turn.effects.append(effect("nur_reihe", "Keine Figur kann ziehen (nur Reihe).", platz=seat + 1,
                                   farbe=COLOURS[colour]))
    return turn.done(**changes), turn.effects


def _discard(state: KoiState, seat: int, move: Move) -> tuple[KoiState, list[Json]]:
    colour, value = move.colour, move.value
    code = lantern(colour, value)
    known = state.known[seat]
    changes: dict[str, object] = {
        "hands": _replace(state.hands, seat, _without(state.hands[seat], code)),
        "piles": _replace(state.piles, colour, (*state.piles[colour], value)),
        "phase": ZIEHEN, "discarded": colour,
        "last": _replace(state.last, seat, (("warf", code),)),
    }
    if code in known:
        changes["known"] = _replace(state.known, seat, _without(known, code))
    return evolve(state, **changes), [effect("abwerfen", f"{seat_name(seat)} wirft {lantern_words(code)} ab.",
                                             platz=seat + 1, farbe=COLOURS[colour], wert=value)]


def _take_from_pile(state: KoiState, seat: int, colour: int) -> tuple[dict[str, object], int]:
    pile = state.piles[colour]
    code = lantern(colour, pile[-1])
    return {
        "hands": _replace(state.hands, seat, _with(state.hands[seat], code)),
        "known": _replace(state.known, seat, _with(state.known[seat], code)),
        "piles": _replace(state.piles, colour, pile[:-1]),
    }, code


def _koi(state: KoiState, seat: int, colour: int) -> tuple[KoiState, list[Json]]:
    changes, code = _take_from_pile(state, seat, colour)
    changes.update(phase=ZIEHEN, last=_replace(state.last, seat, (*state.last[seat], ("koi", code))))
    return evolve(state, **changes), [effect("koi_nimmt", f"Koi: {seat_name(seat)} nimmt {lantern_words(code)} "
                                                          "von der Ablage auf die Hand.",
                                             platz=seat + 1, farbe=COLOURS[colour], wert=code % VALUES)]


def _draw(state: KoiState, seat: int, colour: int) -> tuple[KoiState, list[Json]]:
    if colour == -1:
        code = state.deck[-1]
        changes: dict[str, object] = {"hands": _replace(state.hands, seat, _with(state.hands[seat], code)),
                                      "deck": state.deck[:-1]}
        part: Part = ("zog",)
        effects = [effect("zieht", f"{seat_name(seat)} zieht eine verdeckte Laterne.", platz=seat + 1),
                   {**effect("gezogen", f"Du ziehst {lantern_words(code)}.", platz=seat + 1,
                             farbe=COLOURS[code // VALUES], wert=code % VALUES), "visible_to": [seat]}]
    else:
        changes, code = _take_from_pile(state, seat, colour)
        part = ("nahm", code)
        effects = [effect("nimmt", f"{seat_name(seat)} nimmt {lantern_words(code)} von der Ablage.",
                          platz=seat + 1, farbe=COLOURS[colour], wert=code % VALUES)]
    last = _replace(state.last, seat, (*state.last[seat], part))
    if colour == -1 and len(state.deck) == 1:
        effects.append(effect("ende", "Die letzte verdeckte Laterne ist gezogen: Die Partie ist vorbei.",
                              grund="stapel", platz=seat + 1))
        return evolve(state, **changes, last=last, phase=ENDE, end_reason="stapel", ended_by=seat,
                      discarded=-1), effects
    following = (seat + 1) % state.seats
    effects.append(effect("am_zug", f"{seat_name(following)} ist am Zug.", platz=following + 1))
    return evolve(state, **changes, last=_replace(last, following, ()), phase=LEGEN, discarded=-1,
                  current=following, turn=state.turn + 1), effects

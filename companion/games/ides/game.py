"""The public face of an Ides game: an immutable ``Game`` with ``legal_actions`` and ``apply``.

``Game.apply`` returns a new game or raises ``IllegalAction(code, message)``; nothing is ever
changed in place, so a dashboard can hold any state it has shown and a log can replay them.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.games.ides import rules as r
from companion.games.ides import snapshot as snap
from companion.games.ides.actions import (
    Action,
    Bribe,
    BuyFerryman,
    CardCoins,
    CardDone,
    CardMissTurn,
    CardMove,
    CardRollPurple,
    CardStockpile,
    DrawCard,
    DrawFreeTile,
    DrawTile,
    FateRoll,
    LayStockpiled,
    Move,
    Pass,
    Promote,
    PushBack,
    ReturnFerrymen,
    Roll,
    RollAction,
    StartExpressway,
    TakeMissATurn,
    action_to_dict,
)
from companion.games.ides.checks import forum_holder
from companion.games.ides.dice import Dice, DiceFaces, Die
from companion.games.ides.engine import Draft
from companion.games.ides.rules import IllegalAction, Rule
from companion.games.ides.state import (
    BOARD_SQUARES,
    Passage,
    Phase,
    Player,
    RollRecord,
    Square,
    Turn,
)


@dataclass(frozen=True, slots=True)
class Game:
    """One game of The Ides of March - Day of Caesars, between two actions."""

    players: tuple[Player, ...]
    current: int = 0
    turn: Turn = field(default_factory=Turn)
    turn_number: int = 1
    faces: DiceFaces = field(default_factory=DiceFaces)
    rolls: tuple[RollRecord, ...] = ()
    winner: int | None = None

    @classmethod
    def setup(
        cls,
        names: Sequence[str],
        *,
        first_seat: int = 0,
        starting_coins: int = 0,
        faces: DiceFaces | None = None,
    ) -> Game:
        """A new game for 2-4 players seated clockwise in ``names`` order."""
        if not r.MIN_PLAYERS <= len(names) <= r.MAX_PLAYERS:
            raise IllegalAction(Rule.BAD_SEAT, f"the game is for 2-4 players, not {len(names)}")
        if not 0 <= first_seat < len(names):
            raise IllegalAction(Rule.BAD_SEAT, f"no seat {first_seat} to start from")
        if starting_coins < 0:
            raise IllegalAction(Rule.CANNOT_AFFORD, "players cannot start in debt")
        players = tuple(Player(name=n, coins=starting_coins) for n in names)
        return cls(players=players, current=first_seat, faces=faces or DiceFaces())

    # ------------------------------------------------------------------ reading
    @property
    def phase(self) -> Phase:
        return self.turn.phase

    @property
    def player(self) -> Player:
        return self.players[self.current]

    @property
    def over(self) -> bool:
        return self.turn.phase is Phase.OVER

    @property
    def forum_holder(self) -> int | None:
        """The seat of the commander holding the Forum podium, if any."""
        return forum_holder(self.players)

    @property
    def expected_die(self) -> Die | None:
        """The die the current step's roll throws, if a roll is offered now."""
        if self.phase not in (Phase.TURN_CHOICE, Phase.PURPLE):
            return None
        return self._draft().expected_die()

    def _draft(self) -> Draft:
        return Draft(
            players=list(self.players),
            current=self.current,
            turn=self.turn,
            turn_number=self.turn_number,
            faces=self.faces,
            rolls=list(self.rolls),
            winner=self.winner,
        )

    # ----------------------------------------------------------------- actions
    def refusal(self, action: Action) -> IllegalAction | None:
        """Why ``action`` would be refused now, or None when it is legal.

        A roll without a face counts as legal here when throwing it would be.
        """
        try:
            self._draft().check(action, need_face=False)
        except IllegalAction as exc:
            return exc
        return None

    def legal_actions(self) -> list[Action]:
        """Exactly the choices the rules allow the current player now (rolls without faces)."""
        draft = self._draft()
        out: list[Action] = []
        for action in self.candidates():
            try:
                draft.check(action, need_face=False)
            except IllegalAction:
                continue
            out.append(action)
        return out

    def apply(self, action: Action) -> Game:
        """The game after ``action``; raises ``IllegalAction`` naming the rule if refused."""
        draft = self._draft()
        draft.check(action)
        draft.execute(action)
        return Game(
            players=tuple(draft.players),
            current=draft.current,
            turn=draft.turn,
            turn_number=draft.turn_number,
            faces=self.faces,
            rolls=tuple(draft.rolls),
            winner=draft.winner,
        )

    def play(self, action: Action, dice: Dice) -> tuple[Action, Game]:
        """Throws ``dice`` for a roll still without a face, then applies; returns the action
        as applied (with its face) and the new game."""
        if isinstance(action, Roll | Bribe | FateRoll) and action.face is None:
            action = throw(action, dice)
        return action, self.apply(action)

    def candidates(self) -> list[Action]:
        """Every action of the vocabulary that could fit this step, legal or not: a UI can
        show the rest disabled, with ``refusal`` saying why."""
        seats = range(len(self.players))
        phase = self.phase
        me = self.player
        cands: list[Action] = []
        tiles: list[Action] = [
            DrawTile(to_stockpile=s, ferryman=f) for s in (True, False) for f in (False, True)
        ]
        tiles.append(DrawTile(to_stockpile=False, captures=True))
        lays: list[Action] = [LayStockpiled(False), LayStockpiled(True), LayStockpiled(False, True)]
        moves: list[Action] = [Move(to, p) for to in BOARD_SQUARES for p in Passage]
        victims = self._draft().entrance_victims()
        moves += [
            Move(Square.PODIUM, Passage.STEP, chosen)
            for n in range(1, len(victims) + 1)
            for chosen in itertools.combinations(victims, n)
        ]
        if phase is Phase.FREE_TILE:
            cands += [
                DrawFreeTile(to_stockpile=s, ferryman=f)
                for s in (True, False)
                for f in (False, True)
            ]
            cands.append(DrawFreeTile(to_stockpile=False, captures=True))
        elif phase is Phase.TURN_CHOICE:
            cands += [Roll(Die.ORANGE), Roll(Die.PURPLE), Promote(), StartExpressway()]
            cands += [ReturnFerrymen(n) for n in range(1, me.ferrymen + 1)]
            cands += [
                PushBack(n, t, c)
                for n in me.push_back_numerals()
                for t in seats
                for c in range(1, r.PUSH_BACK_MAX_COINS + 1)
            ]
        elif phase is Phase.YELLOW:
            cands += [Bribe(), TakeMissATurn()]
        elif phase is Phase.ACTION:
            cands += tiles + lays + moves + [BuyFerryman(s) for s in seats] + [Pass()]
        elif phase is Phase.EXPRESSWAY:
            cands += lays + moves + [Pass()]
        elif phase is Phase.PURPLE:
            cands.append(Roll(Die.PURPLE))
        elif phase is Phase.CARD:
            card = self.turn.card
            if card is None or card.numeral is None:
                cands += [DrawCard(n) for n in range(1, r.NUMERALS + 1)]
            else:
                amounts = [d for d in range(-r.CARD_MAX_AMOUNT, r.CARD_MAX_AMOUNT + 1) if d]
                cands += [CardCoins(s, d) for s in seats for d in amounts]
                cands += [CardStockpile(s, d) for s in seats for d in amounts]
                cands += [CardMissTurn(s) for s in seats]
                cands += [CardMove(s, to) for s in seats for to in BOARD_SQUARES]
                cands += [CardRollPurple()] + [FateRoll(s) for s in seats] + [CardDone()]
        return cands

    # ---------------------------------------------------------------- snapshots
    def to_dict(self) -> dict[str, Any]:
        """A JSON-able snapshot; ``from_dict`` resumes from it exactly."""
        holder = self.forum_holder
        return {
            "format": snap.FORMAT,
            "players": [snap.player_to_dict(p) for p in self.players],
            "current": self.current,
            "turn_number": self.turn_number,
            "turn": snap.turn_to_dict(self.turn),
            "dice": self.faces.to_dict(),
            "rolls": [snap.roll_to_dict(roll) for roll in self.rolls],
            "winner": self.winner,
            "forum_holder": holder,
            "legal_actions": [action_to_dict(a) for a in self.legal_actions()],
        }

    @classmethod
    def from_dict(cls, data: Any, *, source: str | None = None) -> Game:
        """Resumes a snapshot; a damaged one raises ``InputError`` naming the field."""
        rd = snap.Reader(data, "", source)
        if rd.raw("format") != snap.FORMAT:
            raise rd.fail("format", f"expected {snap.FORMAT!r}")
        raw_players = rd.raw("players")
        if (
            not isinstance(raw_players, list)
            or not r.MIN_PLAYERS <= len(raw_players) <= r.MAX_PLAYERS
        ):
            raise rd.fail("players", "expected a list of 2-4 players")
        players = tuple(
            snap.player_from(snap.Reader(p, f"players[{i}]", source))
            for i, p in enumerate(raw_players)
        )
        n = len(players)
        raw_rolls = rd.raw("rolls")
        if not isinstance(raw_rolls, list):
            raise rd.fail("rolls", "expected a list")
        rolls = tuple(
            snap.roll_from(snap.Reader(x, f"rolls[{i}]", source), n)
            for i, x in enumerate(raw_rolls)
        )
        game = cls(
            players=players,
            current=rd.integer("current", 0, n - 1),
            turn=snap.turn_from(rd.sub("turn")),
            turn_number=rd.integer("turn_number", 1),
            faces=DiceFaces.from_dict(rd.raw("dice")),
            rolls=rolls,
            winner=rd.optional_int("winner", 0, n - 1),
        )
        if sum(p.square is Square.PODIUM for p in players) > 1:
            raise rd.fail("players", "two sigilla on the Forum podium")
        if (game.winner is not None) != game.over:
            raise rd.fail("winner", "a winner is named exactly when the phase is 'over'")
        finishing = game.phase is Phase.CARD and game.turn.ending  # out by their own card
        if game.player.out and not (game.over or finishing):
            raise rd.fail("current", "the current player is out of the game")
        return game


def rolled_die(action: RollAction) -> Die:
    """The die a roll action throws (a bribe and a fate roll throw the orange die)."""
    return action.die if isinstance(action, Roll) else Die.ORANGE


def throw(action: RollAction, dice: Dice) -> RollAction:
    """The roll with its face thrown by ``dice``."""
    return dataclasses.replace(action, face=dice.throw(rolled_die(action)))


def each_face(action: RollAction, faces: DiceFaces) -> list[RollAction]:
    """The roll once with every face its die can show, in the die's order: with physical
    dice the operator picks the one the real die shows."""
    shown = dict.fromkeys(faces.faces(rolled_die(action)))
    return [dataclasses.replace(action, face=face) for face in shown]

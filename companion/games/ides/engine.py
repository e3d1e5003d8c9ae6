"""The turn state machine: carries out an action already checked by ``checks.py``.

``Game`` (in ``game.py``) is the immutable public face; this module works on a private
``Draft`` copy so each rule reads as a few plain assignments.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from companion.games.ides import rules as r
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
    StartExpressway,
    TakeMissATurn,
)
from companion.games.ides.checks import PASSAGE_COST, Checks, refuse
from companion.games.ides.dice import DiceFaces, Die, Face
from companion.games.ides.rules import Rule
from companion.games.ides.state import (
    Card,
    Deck,
    Expressway,
    Passage,
    Phase,
    Player,
    Rank,
    RollRecord,
    Square,
    Token,
    Turn,
)


@dataclass
class Draft(Checks):
    """A mutable working copy of a game for the length of one ``apply``."""

    players: list[Player]
    current: int
    turn: Turn
    turn_number: int
    faces: DiceFaces
    rolls: list[RollRecord] = field(default_factory=list)
    winner: int | None = None
    passing: bool = False  # the turn is over: pass the dice once the Forum is settled

    def update(self, seat: int, **changes: object) -> None:
        self.players[seat] = replace(self.players[seat], **changes)  # type: ignore[arg-type]

    # --------------------------------------------------------------- execution
    def execute(self, action: Action) -> None:
        """Carries out an already checked action, then settles the Forum."""
        before = self.holder()
        self._execute(action)
        self._settle_forum(before)
        if self.passing and self.turn.phase is not Phase.OVER:
            self._pass_dice()

    def _execute(self, action: Action) -> None:
        seat = self.current
        me = self.me
        t = self.turn
        match action:
            case DrawFreeTile(to_stockpile=stock, ferryman=ferryman, captures=captures):
                self._take_tile(stock, ferryman, captures)
                if me.token is Token.MISS_A_TURN:
                    self.update(seat, token=Token.SPQR)
                    self.end_turn()
                else:
                    offer = me.expressway is Expressway.EARNED and me.rank is Rank.SENATOR
                    self.turn = replace(t, phase=Phase.TURN_CHOICE, expressway_offered=offer)
            case Roll(die=die, face=face) if face is not None:
                self._record(die, face)
                self._after_roll(die, face)
            case Bribe(face=face) if face is not None:
                self.update(seat, coins=me.coins - r.YELLOW_BRIBE)
                self._record(Die.ORANGE, face)
                self._after_roll(Die.ORANGE, face)
            case TakeMissATurn():
                self._miss_turn(seat)
                self.end_turn()
            case Promote():
                self.update(
                    seat,
                    coins=me.coins - r.PROMOTION,
                    rank=Rank.COMMANDER,
                    square=Square.HOME_CIRCLE,
                )
                self.end_turn()
            case ReturnFerrymen(count=n):
                self.update(
                    seat,
                    coins=me.coins + n * r.FERRYMAN_RETURN_REWARD,
                    stockpile=me.stockpile - n,
                    ferrymen=me.ferrymen - n,
                )
                self.end_turn()
            case StartExpressway():
                self.update(seat, expressway=Expressway.USED)
                self.turn = replace(t, phase=Phase.EXPRESSWAY, expressway_hill=me.square.hill)
            case PushBack(numeral=numeral, target=target, coins=coins):
                flipped = list(me.commander_flipped)
                flipped[numeral - 1] = True
                self.update(seat, coins=me.coins - coins, commander_flipped=tuple(flipped))
                victim = self.players[target]
                self.update(target, square=victim.square.back(victim.rank))
                self.turn = replace(t, pushed_back=True)
            case DrawTile(to_stockpile=stock, ferryman=ferryman, captures=captures):
                self._take_tile(stock, ferryman, captures)
                self._action_done(None)
            case LayStockpiled(ferryman=ferryman, captures=captures):
                if ferryman:
                    self.update(
                        seat,
                        stockpile=me.stockpile - 1,
                        ferrymen=me.ferrymen - 1,
                        ferrymen_laid=me.ferrymen_laid + 1,
                    )
                else:
                    self._shrink_stockpile(seat, 1)
                if captures:
                    self.update(seat, stockpile=self.me.stockpile + 1)
                if t.phase is Phase.ACTION:
                    self._action_done(None)
            case Move(to=to, passage=passage, send_back=send_back):
                self.turn = replace(t, ferryman_bought=False)
                self._move(to, passage, send_back)
            case BuyFerryman(seller=seller):
                s = self.players[seller]
                self.update(seller, ferrymen_laid=s.ferrymen_laid - 1)
                self.update(
                    seat,
                    coins=me.coins - r.FERRYMAN_PURCHASE,
                    stockpile=me.stockpile + 1,
                    ferrymen=me.ferrymen + 1,
                )
                # Scenario 11: bought, the ferryman may be used at once; the next choice
                # (cross with it, or keep it) completes this action.
                self.turn = replace(t, ferryman_bought=True)
            case Pass():
                if t.ferryman_bought:
                    self.turn = replace(t, ferryman_bought=False)
                    self._action_done(None)
                elif t.phase is Phase.EXPRESSWAY:
                    self._finish_expressway()
                elif t.bonus:
                    self.turn = replace(t, bonus=False)
                    self._continue()
                else:
                    self.turn = replace(t, actions_left=0)
                    self._continue()
            case DrawCard(numeral=numeral):
                self._draw_card(numeral)
            case CardCoins(seat=target, delta=delta):
                self.update(target, coins=self.players[target].coins + delta)
            case CardStockpile(seat=target, delta=delta):
                if delta > 0:
                    self.update(target, stockpile=self.players[target].stockpile + delta)
                else:
                    self._shrink_stockpile(target, -delta)
            case CardMissTurn(seat=target):
                if target == seat and t.purple_due:
                    # "Roll vs turn" case 1: the next roll is the purple die; only it is lost.
                    self.turn = replace(t, purple_due=False)
                else:
                    self._miss_turn(target)
                    if target == seat:
                        # "Roll vs turn" case 2: token flipped, the dice pass after the card.
                        self.turn = replace(t, ending=True)
            case CardMove(seat=target, to=to):
                self._place(target, to)
            case CardRollPurple():
                assert t.card is not None
                self.turn = replace(t, purple_due=True, card=replace(t.card, purple_ordered=True))
            case FateRoll(target=target, face=face) if face is not None:
                victim = self.players[target]
                missing = victim.token is Token.MISS_A_TURN or victim.out
                # Scenario 16: against a player in Miss-A-Turn mode the result is the roller's.
                self._record(Die.ORANGE, face, for_seat=seat if missing else target)
            case CardDone():
                self._card_done()
            case _:  # pragma: no cover - check() refuses anything else
                raise refuse(Rule.WRONG_STEP, f"cannot carry out {action!r}")

    # ------------------------------------------------------------ turn pieces
    def _record(self, die: Die, face: Face, for_seat: int | None = None) -> None:
        self.rolls.append(RollRecord(self.current, die, face, for_seat))
        del self.rolls[: -r.LAST_ROLLS_KEPT]

    def _take_tile(self, to_stockpile: bool, ferryman: bool, captures: bool) -> None:
        me = self.me
        if captures:  # the testudo is laid; the beaten outpost or slave revolt is kept
            self.update(self.current, stockpile=me.stockpile + 1)
        elif to_stockpile:
            self.update(
                self.current, stockpile=me.stockpile + 1, ferrymen=me.ferrymen + int(ferryman)
            )
        elif ferryman:
            self.update(self.current, ferrymen_laid=me.ferrymen_laid + 1)

    def _shrink_stockpile(self, seat: int, n: int) -> None:
        """Lays ``n`` stockpiled tiles, keeping ferrymen when other tiles remain."""
        p = self.players[seat]
        left = p.stockpile - n
        self.update(seat, stockpile=left, ferrymen=min(p.ferrymen, left))

    def _after_roll(self, die: Die, face: Face) -> None:
        t = self.turn
        holder_roll = self.holder() == self.current
        if t.phase is Phase.TURN_CHOICE and holder_roll:
            # Scenario 12: the Forum holder throws the purple die; green or purple count as
            # green, and a commander card is drawn first.
            if face is Face.RED:
                self.end_turn()
            else:
                self.turn = replace(
                    t, phase=Phase.CARD, actions_left=1, card=Card(Deck.COMMANDER, hill=1)
                )
            return
        if face is Face.RED:
            self._eliminate(self.current)
            self.end_turn()
        elif face is Face.YELLOW:
            self.turn = replace(t, phase=Phase.YELLOW)
        elif die is Die.ORANGE:
            purple = face is Face.PURPLE
            self.turn = replace(t, phase=Phase.ACTION, actions_left=1, purple_due=purple)
        else:
            pair = face is Face.PURPLE and not holder_roll
            self.turn = replace(
                t,
                phase=Phase.ACTION,
                purple_due=False,
                actions_left=2 if pair else 1,
                pair=pair,
                pair_card_drawn=False,
            )

    def _move(self, to: Square, passage: Passage, send_back: tuple[int, ...] = ()) -> None:
        seat, me, t = self.current, self.me, self.turn
        cost = PASSAGE_COST[passage]
        laid = passage is Passage.FERRYMAN and me.ferrymen_laid > 0
        from_stock = passage is Passage.FERRYMAN and not laid
        self.update(
            seat,
            coins=me.coins - cost,
            ferrymen_laid=me.ferrymen_laid - int(laid),
            ferrymen=me.ferrymen - int(from_stock),
            stockpile=me.stockpile - int(from_stock),
        )
        self._place(seat, to)
        for victim in send_back:
            # The grand entrance: the arriving senator chose to send this senator off the
            # board; it needs a green or purple to enter again.
            self.update(victim, square=Square.START)
        hill = to.hill
        if t.phase is Phase.EXPRESSWAY:
            # Scenario 17: one coin per hill traversed, no cards until the run ends.
            if hill is not None and hill != t.expressway_hill:
                self.update(seat, coins=self.me.coins + 1)
            self.turn = replace(t, expressway_hill=hill)
            return
        card: Card | None = None
        if not t.bonus and hill is not None:
            if passage.earns_coins:
                self.update(seat, coins=self.me.coins + passage.squares)
            if not (t.pair and t.pair_card_drawn):
                card = Card(self._deck(), hill=hill)
                self.turn = replace(t, pair_card_drawn=t.pair)
        self._action_done(card)

    def _place(self, seat: int, to: Square) -> None:
        """Puts a sigillum on ``to``; an occupant of the podium is bumped back (scenario 10)."""
        if to is Square.PODIUM:
            for other, p in enumerate(self.players):
                if other != seat and p.square is Square.PODIUM:
                    self.update(other, square=p.square.back(p.rank))
        self.update(seat, square=to)

    def _deck(self) -> Deck:
        return Deck.COMMANDER if self.me.rank is Rank.COMMANDER else Deck.SENATOR

    def _action_done(self, card: Card | None) -> None:
        t = self.turn
        t = replace(t, bonus=False) if t.bonus else replace(t, actions_left=t.actions_left - 1)
        self.turn = t
        if card is not None:
            self.turn = replace(t, phase=Phase.CARD, card=card)
        else:
            self._continue()

    def _continue(self) -> None:
        t = self.turn
        if t.bonus or t.actions_left > 0:
            self.turn = replace(t, phase=Phase.ACTION, card=None)
        elif t.purple_due:
            self.turn = replace(t, phase=Phase.PURPLE, card=None)
        else:
            self.end_turn()

    def _draw_card(self, numeral: int) -> None:
        t = self.turn
        assert t.card is not None
        seat, me = self.current, self.me
        i = numeral - 1
        if t.card.deck is Deck.SENATOR:
            row = list(me.senator_row)
            row[i] += 1
            self.update(seat, senator_row=tuple(row))
            if all(row) and me.expressway is Expressway.NONE:
                self.update(seat, expressway=Expressway.EARNED)
        else:
            row = list(me.commander_row)
            row[i] += 1
            self.update(seat, commander_row=tuple(row))
        self.turn = replace(t, card=replace(t.card, numeral=numeral))

    def _card_done(self) -> None:
        t = self.turn
        card = t.card
        assert card is not None
        self.turn = replace(t, card=None)
        if t.ending:
            self.end_turn()
            return
        if card.bonus_allowed and card.hill is not None and card.numeral == card.hill:
            self.turn = replace(self.turn, bonus=True)
        self._continue()

    def _finish_expressway(self) -> None:
        hill = self.me.square.hill
        if hill is None:
            self.end_turn()
        else:
            card = Card(Deck.SENATOR, hill=hill, bonus_allowed=False)
            self.turn = replace(self.turn, phase=Phase.CARD, card=card, ending=True)

    # --------------------------------------------------------------- the Forum
    def _miss_turn(self, seat: int) -> None:
        """Flips a token to Miss-A-Turn: the holder missing a turn reopens the game, anyone
        else missing one while the Forum is held is out."""
        self.update(seat, token=Token.MISS_A_TURN)
        holder = self.holder()
        if holder == seat:
            self._return_all()
        else:
            self._eliminate(seat)

    def _eliminate(self, seat: int) -> None:
        holder = self.holder()
        if holder is not None and holder != seat:
            self.update(seat, out=True, token=Token.MISS_A_TURN)

    def _return_all(self) -> None:
        for seat, p in enumerate(self.players):
            if p.out:
                self.update(seat, out=False, token=Token.SPQR)

    def _settle_forum(self, before: int | None) -> None:
        after = self.holder()
        if after != before:
            if before is not None:
                self._return_all()
            if after is not None:
                # Scenario 14: whoever is in Miss-A-Turn mode when the podium is taken is out.
                for seat, p in enumerate(self.players):
                    if seat != after and p.token is Token.MISS_A_TURN:
                        self.update(seat, out=True)
        if after is not None and all(p.out for s, p in enumerate(self.players) if s != after):
            self.winner = after
            self.turn = Turn(phase=Phase.OVER)

    def end_turn(self) -> None:
        """Marks the turn over; the dice pass after the Forum is settled, so a player who
        returns (or goes out) with this very action is counted when choosing who is next."""
        self.passing = True

    def _pass_dice(self) -> None:
        me = self.me
        if me.expressway is Expressway.EARNED and self.turn.expressway_offered:
            self.update(self.current, expressway=Expressway.LAPSED)
        n = len(self.players)
        for step in range(1, n + 1):
            seat = (self.current + step) % n
            if not self.players[seat].out:
                self.current = seat
                break
        self.turn_number += 1
        self.turn = Turn()

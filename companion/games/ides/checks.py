"""Whether an action is allowed now: each refusal names its rule.

Kept apart from carrying actions out (``engine.py``) so ``legal_actions`` can ask "would this
be refused?" for every candidate without doing any of the work.
"""

from __future__ import annotations

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
from companion.games.ides.dice import DiceFaces, Die, Face
from companion.games.ides.rules import IllegalAction, Rule
from companion.games.ides.state import (
    Expressway,
    Passage,
    Phase,
    Player,
    Rank,
    Square,
    Token,
    Turn,
)

PHASES: dict[type[Action], frozenset[Phase]] = {
    DrawFreeTile: frozenset({Phase.FREE_TILE}),
    Roll: frozenset({Phase.TURN_CHOICE, Phase.PURPLE}),
    Bribe: frozenset({Phase.YELLOW}),
    TakeMissATurn: frozenset({Phase.YELLOW}),
    Promote: frozenset({Phase.TURN_CHOICE}),
    ReturnFerrymen: frozenset({Phase.TURN_CHOICE}),
    StartExpressway: frozenset({Phase.TURN_CHOICE}),
    PushBack: frozenset({Phase.TURN_CHOICE}),
    DrawTile: frozenset({Phase.ACTION}),
    LayStockpiled: frozenset({Phase.ACTION, Phase.EXPRESSWAY}),
    Move: frozenset({Phase.ACTION, Phase.EXPRESSWAY}),
    BuyFerryman: frozenset({Phase.ACTION}),
    Pass: frozenset({Phase.ACTION, Phase.EXPRESSWAY}),
    DrawCard: frozenset({Phase.CARD}),
    CardCoins: frozenset({Phase.CARD}),
    CardStockpile: frozenset({Phase.CARD}),
    CardMissTurn: frozenset({Phase.CARD}),
    CardMove: frozenset({Phase.CARD}),
    CardRollPurple: frozenset({Phase.CARD}),
    FateRoll: frozenset({Phase.CARD}),
    CardDone: frozenset({Phase.CARD}),
}

PASSAGE_COST: dict[Passage, int] = {
    Passage.STEP: 0,
    Passage.LEAPFROG: 0,
    Passage.BRIBE_REVOLT: r.SLAVE_REVOLT_BRIBE,
    Passage.BRIBE_OUTPOST: r.OUTPOST_BRIBE,
    Passage.FERRYMAN: r.FERRYMAN_USE,
    Passage.BRIDGE_REUSE: r.BRIDGE_REUSE,
}


def forum_holder(players: tuple[Player, ...] | list[Player]) -> int | None:
    """The seat of the commander on the Forum podium, if any."""
    for seat, p in enumerate(players):
        if p.square is Square.PODIUM and p.rank is Rank.COMMANDER:
            return seat
    return None


def refuse(code: Rule, message: str) -> IllegalAction:
    return IllegalAction(code, message)


class Checks:
    """The rule checks, read against a draft of the game (see ``engine.Draft``)."""

    players: list[Player]
    current: int
    turn: Turn
    faces: DiceFaces

    # ----------------------------------------------------------------- reading
    @property
    def me(self) -> Player:
        return self.players[self.current]

    def holder(self) -> int | None:
        return forum_holder(self.players)

    def expected_die(self) -> Die:
        """The die a roll at this step throws: the Forum holder throws the purple die."""
        if self.turn.phase is Phase.TURN_CHOICE and self.holder() == self.current:
            return Die.PURPLE
        return Die.PURPLE if self.turn.phase is Phase.PURPLE else Die.ORANGE

    # -------------------------------------------------------------- validation
    def check(self, action: Action, *, need_face: bool = True) -> None:
        """Raises ``IllegalAction`` naming the rule if ``action`` is not allowed now."""
        phase = self.turn.phase
        if phase is Phase.OVER:
            raise refuse(Rule.GAME_OVER, "the game is over")
        if phase not in PHASES[type(action)]:
            raise refuse(
                Rule.WRONG_STEP, f"{action.KIND} is not a choice at the {phase.value} step"
            )
        me = self.me
        if self.turn.ferryman_bought:
            self._check_ferryman_follow_up(action)
        match action:
            case DrawFreeTile(to_stockpile=stock, ferryman=ferryman, captures=captures):
                if me.token is Token.MISS_A_TURN and not stock:
                    raise refuse(
                        Rule.MISS_A_TURN_STOCKPILE_ONLY,
                        "in Miss-A-Turn mode the free tile can only be stockpiled",
                    )
                self._check_capture(captures, laid=not stock, ferryman=ferryman)
            case Roll(die=die, face=face):
                if die is not self.expected_die():
                    raise refuse(Rule.WRONG_DIE, f"this roll uses the {self.expected_die()} die")
                self._check_face(die, face, need_face)
            case Bribe(face=face):
                self._afford(r.YELLOW_BRIBE, "the yellow bribe")
                self._check_face(Die.ORANGE, face, need_face)
            case Promote():
                if me.rank is Rank.COMMANDER:
                    raise refuse(Rule.ALREADY_COMMANDER, "already a commander")
                if me.square is not Square.HOME_CIRCLE:
                    raise refuse(Rule.NOT_AT_HOME, "promotion needs the senator on the home circle")
                self._afford(r.PROMOTION, "raising the commander")
            case ReturnFerrymen(count=count):
                if not 1 <= count <= me.ferrymen:
                    raise refuse(
                        Rule.NO_FERRYMAN,
                        f"can return 1 to {me.ferrymen} stockpiled ferrymen, not {count}",
                    )
            case StartExpressway():
                if me.expressway is not Expressway.EARNED or me.rank is not Rank.SENATOR:
                    raise refuse(
                        Rule.NO_EXPRESSWAY,
                        "the expressway needs a full senator row, once, on the next turn",
                    )
            case PushBack(numeral=numeral, target=target, coins=coins):
                self._check_push_back(numeral, target, coins)
            case DrawTile(to_stockpile=stock, ferryman=ferryman, captures=captures):
                self._check_capture(captures, laid=not stock, ferryman=ferryman)
            case TakeMissATurn():
                pass
            case LayStockpiled(ferryman=ferryman, captures=captures):
                if me.stockpile < 1:
                    raise refuse(Rule.NO_STOCKPILE, "the stockpile is empty")
                if ferryman and me.ferrymen < 1:
                    raise refuse(Rule.NO_FERRYMAN, "no ferryman in the stockpile")
                self._check_capture(captures, laid=True, ferryman=ferryman)
            case Move(to=to, passage=passage, send_back=send_back):
                self._check_move(me, to, passage)
                self._check_send_back(me, to, send_back)
            case BuyFerryman(seller=seller):
                self._check_seat(seller, other=True)
                if self.players[seller].ferrymen_laid < 1:
                    raise refuse(Rule.NO_FERRYMAN, "that player has no unused ferryman laid")
                self._afford(r.FERRYMAN_PURCHASE, "buying a ferryman")
            case Pass():
                t = self.turn
                optional = t.bonus or (t.pair and t.actions_left == 1) or t.ferryman_bought
                if phase is Phase.ACTION and not optional:
                    raise refuse(
                        Rule.MUST_ACT,
                        "a green result must be used: draw a tile, lay one, or move",
                    )
            case DrawCard(numeral=numeral):
                if self.turn.card is not None and self.turn.card.numeral is not None:
                    raise refuse(Rule.CARD_ALREADY_DRAWN, "this step's card is already drawn")
                self._check_numeral(numeral)
            case _:
                self._check_card_effect(action, need_face)

    def _check_card_effect(self, action: Action, need_face: bool) -> None:
        card = self.turn.card
        if card is None or card.numeral is None:
            raise refuse(Rule.WRONG_STEP, "draw the Fatum card first")
        match action:
            case CardCoins(seat=seat, delta=delta):
                self._check_seat(seat)
                self._check_amount(delta)
                if self.players[seat].coins + delta < 0:
                    raise refuse(
                        Rule.CANNOT_AFFORD,
                        f"{self.players[seat].name} has {self.players[seat].coins} coins",
                    )
            case CardStockpile(seat=seat, delta=delta):
                self._check_seat(seat)
                self._check_amount(delta)
                if self.players[seat].stockpile + delta < 0:
                    raise refuse(Rule.NO_STOCKPILE, "not that many tiles in the stockpile")
            case CardMissTurn(seat=seat):
                self._check_seat(seat)
                p = self.players[seat]
                if p.out:
                    raise refuse(Rule.PLAYER_OUT, f"{p.name} is out of the game already")
                if p.token is Token.MISS_A_TURN:
                    raise refuse(Rule.ALREADY_MISSING, f"{p.name} already misses a turn")
            case CardMove(seat=seat, to=to):
                self._check_seat(seat)
                p = self.players[seat]
                if p.square is Square.START:
                    raise refuse(Rule.NOT_ON_BOARD, f"{p.name} has not entered the board")
                if to is Square.START:
                    raise refuse(Rule.NO_MOVE_TO_START, "a sigillum on the board stays on it")
                if to is Square.PODIUM and p.square is Square.PODIUM:
                    raise refuse(Rule.SAME_SQUARE, "already on the podium")
            case CardRollPurple():
                if card.purple_ordered:
                    raise refuse(Rule.PURPLE_ALREADY_DUE, "this card's purple roll is ordered")
            case FateRoll(target=target, face=face):
                self._check_seat(target, other=True)
                self._check_face(Die.ORANGE, face, need_face)
            case CardDone():
                pass
            case _:  # pragma: no cover - every action type is matched above
                raise refuse(Rule.WRONG_STEP, f"unknown action {action!r}")

    def _check_ferryman_follow_up(self, action: Action) -> None:
        """Scenario 11: a ferryman just bought may carry the buyer across at once (paying
        its use as any ferryman in one's possession) or be kept for later: nothing else."""
        crossing = isinstance(action, Move) and action.passage is Passage.FERRYMAN
        if not (crossing or isinstance(action, Pass)):
            raise refuse(
                Rule.FERRYMAN_BOUGHT,
                "the ferryman just bought crosses now (by ferryman) or is kept (pass)",
            )

    def _check_capture(self, captures: bool, *, laid: bool, ferryman: bool) -> None:
        """Tiles and laying: a testudo laid over an outpost or slave revolt replaces it, and
        the player takes the beaten tile; only a tile laid on the road (not a ferryman) can."""
        if captures and (not laid or ferryman):
            raise refuse(
                Rule.TESTUDO_CAPTURE,
                "only a testudo laid on the road over an outpost or slave revolt takes it",
            )

    def _check_send_back(self, me: Player, to: Square, send_back: tuple[int, ...]) -> None:
        """The grand entrance: an arriving senator may send opponents' senators standing on
        hill 1 back off the board; nobody else can be sent, and each seat once."""
        if not send_back:
            return
        if me.square is not Square.START or to is not Square.PODIUM or me.rank is Rank.COMMANDER:
            raise refuse(
                Rule.GRAND_ENTRANCE, "only a senator entering the board can send others back"
            )
        if list(send_back) != sorted(set(send_back)):
            raise refuse(Rule.GRAND_ENTRANCE, "list each seat to send back once, in order")
        for seat in send_back:
            if seat not in self.entrance_victims():
                raise refuse(
                    Rule.GRAND_ENTRANCE, f"seat {seat} has no senator on hill 1 to send back"
                )

    def entrance_victims(self) -> tuple[int, ...]:
        """Opponents whose senator stands on hill 1 (the podium included)."""
        return tuple(
            seat
            for seat, p in enumerate(self.players)
            if seat != self.current and p.rank is Rank.SENATOR and p.square.hill == 1
        )

    def _check_face(self, die: Die, face: Face | None, need_face: bool) -> None:
        if face is None:
            if need_face:
                raise refuse(Rule.ROLL_UNTHROWN, "throw the die first: a roll needs its face")
            return
        if face not in self.faces.faces(die):
            raise refuse(Rule.NOT_A_FACE, f"the {die} die has no {face} face")

    def _afford(self, cost: int, what: str) -> None:
        if self.me.coins < cost:
            raise refuse(
                Rule.CANNOT_AFFORD, f"{what} costs {cost} coins; {self.me.name} has {self.me.coins}"
            )

    def _check_seat(self, seat: int, *, other: bool = False) -> None:
        if not 0 <= seat < len(self.players) or (other and seat == self.current):
            raise refuse(
                Rule.BAD_SEAT, f"seat {seat} is not {'an opponent' if other else 'a seat'}"
            )

    def _check_numeral(self, numeral: int) -> None:
        if not 1 <= numeral <= r.NUMERALS:
            raise refuse(Rule.BAD_NUMERAL, f"Fatum numerals run I-VII (1-7), not {numeral}")

    def _check_amount(self, delta: int) -> None:
        if delta == 0 or abs(delta) > r.CARD_MAX_AMOUNT:
            raise refuse(
                Rule.CARD_AMOUNT, f"a card changes 1 to {r.CARD_MAX_AMOUNT} at a time, not {delta}"
            )

    def _check_push_back(self, numeral: int, target: int, coins: int) -> None:
        if self.turn.pushed_back:
            raise refuse(Rule.PUSH_BACK_ONCE_PER_TURN, "one commander-stack push-back per turn")
        self._check_numeral(numeral)
        if numeral not in self.me.push_back_numerals():
            raise refuse(
                Rule.PUSH_BACK_UNAVAILABLE,
                f"needs 3 or more unflipped commander cards numbered {numeral}",
            )
        self._check_seat(target, other=True)
        if self.players[target].square is Square.START:
            raise refuse(Rule.NOT_ON_BOARD, "that sigillum has not entered the board")
        if not 1 <= coins <= r.PUSH_BACK_MAX_COINS:
            raise refuse(Rule.PUSH_BACK_COINS, "a push-back costs 1 to 3 coins, one per tile")
        self._afford(coins, "the push-back")

    def _check_move(self, me: Player, to: Square, passage: Passage) -> None:
        if to is Square.START:
            raise refuse(Rule.NO_MOVE_TO_START, "a sigillum on the board stays on it")
        if me.square is Square.START and (to is not Square.PODIUM or passage is not Passage.STEP):
            raise refuse(Rule.GRAND_ENTRANCE, "a sigillum enters the board on the Forum podium")
        if to is Square.PODIUM and me.square is Square.PODIUM:
            raise refuse(Rule.SAME_SQUARE, "already on the podium")
        if passage is Passage.BRIDGE_REUSE and me.rank is not Rank.COMMANDER:
            raise refuse(Rule.COMMANDER_ONLY, "only a commander may reuse a bridge")
        if passage is Passage.FERRYMAN and me.ferrymen + me.ferrymen_laid < 1:
            raise refuse(Rule.NO_FERRYMAN, "crossing by ferryman needs a ferryman of your own")
        self._afford(PASSAGE_COST[passage], f"the {passage} passage")

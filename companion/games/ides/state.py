"""The immutable pieces of an Ides game: players, the turn in progress, where sigilla stand.

The companion tracks the game's flow and economy, not the road board: a sigillum's place is
the *area* it stands in (a hill, the Forum podium, the home section, the home circle), which
is what the rules need for coins, cards, promotion and the Forum.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from companion.games.ides.dice import Die, Face
from companion.games.ides.rules import NUMERALS, PUSH_BACK_STACK


class Rank(StrEnum):
    SENATOR = "senator"
    COMMANDER = "commander"


class Token(StrEnum):
    """The player status token: the laurel SPQR side, or Miss-A-Turn."""

    SPQR = "spqr"
    MISS_A_TURN = "miss-a-turn"


class Square(StrEnum):
    """Where a sigillum stands, as far as the rules care."""

    START = "start"  # not yet entered the board
    PODIUM = "podium"  # the Forum podium, on hill 1
    HILL_1 = "hill-1"
    HILL_2 = "hill-2"
    HILL_3 = "hill-3"
    HILL_4 = "hill-4"
    HILL_5 = "hill-5"
    HILL_6 = "hill-6"
    HILL_7 = "hill-7"
    OUTSIDE = "outside"  # roads outside the seven hills: the home section and the crossings
    HOME_CIRCLE = "home-circle"

    @property
    def hill(self) -> int | None:
        """The hill number (1-7) this square lies on, or None outside the hills."""
        if self is Square.PODIUM:
            return 1
        if self.value.startswith("hill-"):
            return int(self.value[5:])
        return None

    def back(self, rank: Rank) -> Square:
        """Where a sigillum moved back (bumped, pushed, deposed) is tracked as standing.

        Only leaving the podium or the home circle changes the area the companion tracks;
        a step back within a hill or the home section stays in the same area.
        """
        if self is Square.PODIUM:
            return Square.HILL_1
        if self is Square.HOME_CIRCLE and rank is Rank.SENATOR:
            return Square.OUTSIDE
        return self


BOARD_SQUARES: tuple[Square, ...] = tuple(s for s in Square if s is not Square.START)


class Passage(StrEnum):
    """How a move gets from one tile to the next, which fixes its price and its coins."""

    STEP = "step"  # one square onto a laid road tile
    LEAPFROG = "leapfrog"  # over a testudo, bridge or defeated tile onto the next tile
    BRIBE_REVOLT = "bribe-revolt"  # pay 2 to leap a slave revolt tile
    BRIBE_OUTPOST = "bribe-outpost"  # pay 3 to leap an outpost
    FERRYMAN = "ferryman"  # pay 3 to cross the waterway with one of your ferrymen
    BRIDGE_REUSE = "bridge-reuse"  # a commander pays 1 to use a bridge again

    @property
    def squares(self) -> int:
        """Squares travelled; a dice move landing on hills 1-7 earns one coin per square."""
        return 1 if self is Passage.STEP else 2

    @property
    def earns_coins(self) -> bool:
        """A bribed passage earns no coin (the card is still drawn)."""
        return self not in (Passage.BRIBE_REVOLT, Passage.BRIBE_OUTPOST)


class Phase(StrEnum):
    """The step of the current player's turn the game waits on."""

    FREE_TILE = "free-tile"  # draw the free tile; place or stockpile it
    TURN_CHOICE = "turn-choice"  # roll, or a whole-turn alternative (promote, ferrymen, ...)
    YELLOW = "yellow"  # bribe and roll again, or take Miss-A-Turn
    ACTION = "action"  # a green option: draw a tile, lay a stockpiled one, move
    CARD = "card"  # draw a Fatum card, carry out what it says, then done
    PURPLE = "purple"  # roll the purple die
    EXPRESSWAY = "expressway"  # scenario 17: lay and move as far as possible
    OVER = "over"


class Expressway(StrEnum):
    """Scenario 17, once per player: NONE until the senator row fills."""

    NONE = "none"
    EARNED = "earned"
    USED = "used"
    LAPSED = "lapsed"


class Deck(StrEnum):
    SENATOR = "senator"
    COMMANDER = "commander"


EMPTY_ROW: tuple[int, ...] = (0,) * NUMERALS
UNFLIPPED: tuple[bool, ...] = (False,) * NUMERALS


@dataclass(frozen=True, slots=True)
class Player:
    """One seat: rank, coins, tiles held, status token and Fatum discard rows."""

    name: str
    rank: Rank = Rank.SENATOR
    coins: int = 0
    stockpile: int = 0  # tiles kept face up, ferrymen included
    ferrymen: int = 0  # ferryman tiles among the stockpile
    ferrymen_laid: int = 0  # ferrymen laid at a crossing and not yet used (others may buy them)
    token: Token = Token.SPQR
    out: bool = False  # eliminated while a commander holds the Forum
    square: Square = Square.START
    senator_row: tuple[int, ...] = EMPTY_ROW  # cards per numeral I-VII
    commander_row: tuple[int, ...] = EMPTY_ROW
    commander_flipped: tuple[bool, ...] = UNFLIPPED  # scenario 18 stacks already used
    expressway: Expressway = Expressway.NONE

    def with_coins(self, delta: int) -> Player:
        return replace(self, coins=self.coins + delta)

    def push_back_numerals(self) -> tuple[int, ...]:
        """Numerals (1-7) whose commander stack can still push an opponent back."""
        return tuple(
            n + 1
            for n in range(NUMERALS)
            if self.commander_row[n] >= PUSH_BACK_STACK and not self.commander_flipped[n]
        )


@dataclass(frozen=True, slots=True)
class Card:
    """The Fatum card of the current step: which deck, its numeral once drawn, and the hill
    the sigillum had just landed on (a match earns the numeral bonus action)."""

    deck: Deck
    hill: int | None
    numeral: int | None = None
    bonus_allowed: bool = True
    purple_ordered: bool = False  # scenario 9: this card ordered a purple-die roll


@dataclass(frozen=True, slots=True)
class RollRecord:
    """One throw of a die, for the dashboard and the log."""

    seat: int
    die: Die
    face: Face
    for_seat: int | None = None  # scenario 16: rolled for another player's fate


@dataclass(frozen=True, slots=True)
class Turn:
    """What the current turn still owes the player."""

    phase: Phase = Phase.FREE_TILE
    actions_left: int = 0  # green options still to take from dice results
    bonus: bool = False  # the next action is the numeral bonus (no coin, no card)
    pair: bool = False  # the actions come from a purple result on the purple die
    pair_card_drawn: bool = False  # that pair already drew its one Fatum card
    purple_due: bool = False  # a purple-die roll is still to come this turn
    card: Card | None = None
    ending: bool = False  # a card made the player miss a turn: the turn ends after it
    pushed_back: bool = False  # scenario 18 is used at most once per turn
    expressway_offered: bool = False  # the turn reached its choice with the expressway earned
    expressway_hill: int | None = None  # the hill the expressway run last stood on
    ferryman_bought: bool = False  # scenario 11: the action bought a ferryman; cross with it now?

"""The action vocabulary: every choice a player (or the operator for them) can make.

Actions are small immutable records; ``Game.legal_actions()`` lists exactly the ones allowed
now and ``Game.apply()`` refuses any other.  A roll carries its face once thrown, so a game
log replays exactly.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from companion.errors import InputError
from companion.games.ides.dice import Die, Face
from companion.games.ides.state import Passage, Square


@dataclass(frozen=True, slots=True)
class DrawFreeTile:
    """Step 1 of every turn: the free tile, laid on the board or kept in the stockpile.

    ``captures``: the tile is a testudo laid over an outpost or slave revolt, and the player
    takes the beaten tile into the stockpile."""

    KIND: ClassVar[str] = "draw-free-tile"
    to_stockpile: bool
    ferryman: bool = False
    captures: bool = False


@dataclass(frozen=True, slots=True)
class Roll:
    """Throw a die; ``face`` is None until thrown (see ``Game.play``)."""

    KIND: ClassVar[str] = "roll"
    die: Die
    face: Face | None = None


@dataclass(frozen=True, slots=True)
class Bribe:
    """Yellow: pay 1 coin to throw the orange die again."""

    KIND: ClassVar[str] = "bribe"
    face: Face | None = None


@dataclass(frozen=True, slots=True)
class TakeMissATurn:
    """Yellow: flip the status token to Miss-A-Turn and pass the dice."""

    KIND: ClassVar[str] = "take-miss-a-turn"


@dataclass(frozen=True, slots=True)
class Promote:
    """A senator on the home circle pays 3 coins to raise the commander; uses the turn."""

    KIND: ClassVar[str] = "promote"


@dataclass(frozen=True, slots=True)
class ReturnFerrymen:
    """Return unused stockpiled ferrymen to the bag for 1 coin each; uses the turn."""

    KIND: ClassVar[str] = "return-ferrymen"
    count: int


@dataclass(frozen=True, slots=True)
class StartExpressway:
    """Scenario 17: the one-time expressway turn after filling the senator row."""

    KIND: ClassVar[str] = "start-expressway"


@dataclass(frozen=True, slots=True)
class PushBack:
    """Scenario 18: flip a commander stack of 3+ and pay 1-3 coins to push an opponent back."""

    KIND: ClassVar[str] = "push-back"
    numeral: int
    target: int
    coins: int


@dataclass(frozen=True, slots=True)
class DrawTile:
    """Green option a: draw a tile from the bag and lay it or stockpile it (``captures`` as
    for ``DrawFreeTile``)."""

    KIND: ClassVar[str] = "draw-tile"
    to_stockpile: bool
    ferryman: bool = False
    captures: bool = False


@dataclass(frozen=True, slots=True)
class LayStockpiled:
    """Green option b: lay a tile from the stockpile (a ferryman laid stays buyable;
    ``captures`` as for ``DrawFreeTile``)."""

    KIND: ClassVar[str] = "lay-stockpiled"
    ferryman: bool = False
    captures: bool = False


@dataclass(frozen=True, slots=True)
class Move:
    """Green option c: move the sigillum; ``to`` is the area it lands in.

    ``send_back``: on a senator's grand entrance, the opponents' senators on hill 1 the
    arriving player chooses to send back off the board (seats, in increasing order)."""

    KIND: ClassVar[str] = "move"
    to: Square
    passage: Passage = Passage.STEP
    send_back: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class BuyFerryman:
    """Scenario 11: buy an opponent's laid, unused ferryman for 3 coins (as an action)."""

    KIND: ClassVar[str] = "buy-ferryman"
    seller: int


@dataclass(frozen=True, slots=True)
class Pass:
    """Forgo an optional action (the numeral bonus, the second purple action) or end the
    expressway run."""

    KIND: ClassVar[str] = "pass"


@dataclass(frozen=True, slots=True)
class DrawCard:
    """Draw the Fatum card from the deck of the player's rank; ``numeral`` is I-VII as 1-7."""

    KIND: ClassVar[str] = "draw-card"
    numeral: int


@dataclass(frozen=True, slots=True)
class CardCoins:
    """The card gives (positive) or takes (negative) coins from a player."""

    KIND: ClassVar[str] = "card-coins"
    seat: int
    delta: int


@dataclass(frozen=True, slots=True)
class CardStockpile:
    """The card adds tiles to a stockpile (drawn, or taken off the board) or lays some."""

    KIND: ClassVar[str] = "card-stockpile"
    seat: int
    delta: int


@dataclass(frozen=True, slots=True)
class CardMissTurn:
    """The card makes a player miss their next turn (or, mid-turn, their next roll)."""

    KIND: ClassVar[str] = "card-miss-turn"
    seat: int


@dataclass(frozen=True, slots=True)
class CardMove:
    """The card moves a sigillum (any player's) to an area; no coin and no card for it."""

    KIND: ClassVar[str] = "card-move"
    seat: int
    to: Square


@dataclass(frozen=True, slots=True)
class CardRollPurple:
    """Scenario 9: the card orders a purple-die roll, replacing any still to come."""

    KIND: ClassVar[str] = "card-roll-purple"


@dataclass(frozen=True, slots=True)
class FateRoll:
    """Scenario 16: roll the orange die for an opponent's fate."""

    KIND: ClassVar[str] = "fate-roll"
    target: int
    face: Face | None = None


@dataclass(frozen=True, slots=True)
class CardDone:
    """The card's instructions are carried out."""

    KIND: ClassVar[str] = "card-done"


Action = (
    DrawFreeTile
    | Roll
    | Bribe
    | TakeMissATurn
    | Promote
    | ReturnFerrymen
    | StartExpressway
    | PushBack
    | DrawTile
    | LayStockpiled
    | Move
    | BuyFerryman
    | Pass
    | DrawCard
    | CardCoins
    | CardStockpile
    | CardMissTurn
    | CardMove
    | CardRollPurple
    | FateRoll
    | CardDone
)
RollAction = Roll | Bribe | FateRoll

ACTION_TYPES: dict[str, type[Action]] = {cls.KIND: cls for cls in typing.get_args(Action)}


def action_to_dict(action: Action) -> dict[str, Any]:
    """A JSON-able object: ``{"kind": ..., field: value, ...}`` with enums as their values."""
    out: dict[str, Any] = {"kind": action.KIND}
    for f in dataclasses.fields(action):
        value = getattr(action, f.name)
        if isinstance(value, StrEnum):
            value = value.value
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out


_ENUMS: dict[str, type[StrEnum]] = {"die": Die, "face": Face, "to": Square, "passage": Passage}


def action_from_dict(data: Any, *, path: str = "action") -> Action:
    """Parses ``action_to_dict`` output; errors name the offending field."""
    if not isinstance(data, dict):
        raise InputError("expected an object with a 'kind'", field=path)
    kind = data.get("kind")
    cls = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise InputError(f"unknown action kind {kind!r}", field=f"{path}.kind")
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        where = f"{path}.{f.name}"
        has_default = f.default is not dataclasses.MISSING
        if f.name not in data:
            if has_default:
                continue
            raise InputError("missing", field=where)
        raw = data[f.name]
        enum = _ENUMS.get(f.name)
        if enum is not None:
            if raw is None and has_default and f.default is None:
                values[f.name] = None
                continue
            allowed = [e.value for e in enum]
            if raw not in allowed:
                raise InputError(f"expected one of {', '.join(allowed)}, got {raw!r}", field=where)
            values[f.name] = enum(raw)
        elif f.name == "send_back":
            values[f.name] = _seats(raw, where)
        elif isinstance(f.default, bool) or f.name in ("to_stockpile", "ferryman"):
            if not isinstance(raw, bool):
                raise InputError(f"expected true or false, got {raw!r}", field=where)
            values[f.name] = raw
        else:
            if not isinstance(raw, int) or isinstance(raw, bool):
                raise InputError(f"expected an integer, got {raw!r}", field=where)
            values[f.name] = raw
    return cls(**values)


MAX_SEATS_LISTED = 4  # a list of seats never needs more entries than the game has players


def _seats(raw: Any, where: str) -> tuple[int, ...]:
    if not isinstance(raw, list) or len(raw) > MAX_SEATS_LISTED:
        raise InputError(f"expected a list of at most {MAX_SEATS_LISTED} seats", field=where)
    for i, seat in enumerate(raw):
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise InputError(f"expected a seat number, got {seat!r}", field=f"{where}[{i}]")
    return tuple(raw)


def describe(action: Action) -> str:
    """A short developer's label; options left off (false or empty) are not listed."""
    shown = [
        f
        for f in dataclasses.fields(action)
        if not (getattr(action, f.name) == f.default and f.default in (False, ()))
    ]
    fields = ", ".join(f"{f.name}={getattr(action, f.name)}" for f in shown)
    return f"{action.KIND}({fields})" if fields else action.KIND

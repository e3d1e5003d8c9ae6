"""Ides of March actions and places in plain words, for the dashboard, the log and the demo.

The rules engine's own ``describe`` is for developers; players at the table read these.
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.games.ides import (
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
    Passage,
    Phase,
    Promote,
    PushBack,
    ReturnFerrymen,
    Roll,
    Square,
    StartExpressway,
    TakeMissATurn,
)

ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII")

SQUARES: dict[Square, str] = {
    Square.START: "the start",
    Square.PODIUM: "the Forum podium",
    Square.OUTSIDE: "the roads outside the hills",
    Square.HOME_CIRCLE: "the home circle",
}

PASSAGES: dict[Passage, str] = {
    Passage.STEP: "a step",
    Passage.LEAPFROG: "a leapfrog",
    Passage.BRIBE_REVOLT: "bribing past a slave revolt",
    Passage.BRIBE_OUTPOST: "bribing past an outpost",
    Passage.FERRYMAN: "by ferryman",
    Passage.BRIDGE_REUSE: "using a bridge again",
}

PHASES: dict[Phase, str] = {
    Phase.FREE_TILE: "draws the free tile",
    Phase.TURN_CHOICE: "rolls or chooses a whole-turn action",
    Phase.YELLOW: "bribes or takes Miss-A-Turn",
    Phase.ACTION: "takes a green action",
    Phase.CARD: "carries out a Fatum card",
    Phase.PURPLE: "rolls the purple die",
    Phase.EXPRESSWAY: "runs the expressway",
    Phase.OVER: "the game is over",
}


def square(where: Square) -> str:
    hill = where.hill
    if where is not Square.PODIUM and hill is not None:
        return f"hill {hill}"
    return SQUARES[where]


def numeral(n: int) -> str:
    return ROMAN[n - 1] if 1 <= n <= len(ROMAN) else str(n)


def _coins(n: int) -> str:
    return f"{n} coin" if n == 1 else f"{n} coins"


def _tiles(n: int) -> str:
    return f"{n} tile" if n == 1 else f"{n} tiles"


def _name(names: Sequence[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) else f"seat {seat + 1}"


def _thrown(text: str, face: object) -> str:
    return text if face is None else f"{text}: {getattr(face, 'value', face)}"


def _capture(captures: bool) -> str:
    return ": a testudo taking the outpost or slave revolt it covers" if captures else ""


def label(action: Action, names: Sequence[str]) -> str:
    """One line saying what ``action`` does (with its face once thrown)."""
    if isinstance(action, DrawFreeTile | DrawTile):
        what = "the free tile" if isinstance(action, DrawFreeTile) else "a tile"
        if action.ferryman:
            what += ", a ferryman,"
        where = "keep it in the stockpile" if action.to_stockpile else "lay it on the road"
        return f"Draw {what} and {where}{_capture(action.captures)}"
    if isinstance(action, Roll):
        return _thrown(f"Roll the {action.die.value} die", action.face)
    if isinstance(action, Bribe):
        return _thrown("Pay 1 coin and roll the orange die again", action.face)
    if isinstance(action, FateRoll):
        return _thrown(f"Roll the orange die for {_name(names, action.target)}'s fate", action.face)
    if isinstance(action, TakeMissATurn):
        return "Take Miss-A-Turn and pass the dice"
    if isinstance(action, Promote):
        return "Pay 3 coins to raise the commander"
    if isinstance(action, ReturnFerrymen):
        n = action.count
        return f"Return {n} ferrym{'a' if n == 1 else 'e'}n for {_coins(n)}"
    if isinstance(action, StartExpressway):
        return "Take the expressway"
    if isinstance(action, PushBack):
        return (
            f"Flip stack {numeral(action.numeral)} and pay {_coins(action.coins)} "
            f"to push {_name(names, action.target)} back"
        )
    if isinstance(action, LayStockpiled):
        if action.ferryman:
            return "Lay a stockpiled ferryman"
        return f"Lay a tile from the stockpile{_capture(action.captures)}"
    if isinstance(action, Move):
        sent = ", ".join(_name(names, s) for s in action.send_back)
        and_send = f", sending {sent} back off the board" if sent else ""
        return f"Move to {square(action.to)} ({PASSAGES[action.passage]}){and_send}"
    if isinstance(action, BuyFerryman):
        return f"Buy {_name(names, action.seller)}'s ferryman for 3 coins"
    if isinstance(action, Pass):
        return "Pass"
    if isinstance(action, DrawCard):
        return f"Fatum card {numeral(action.numeral)} drawn"
    if isinstance(action, CardCoins):
        verb = "gains" if action.delta > 0 else "pays"
        return f"Card: {_name(names, action.seat)} {verb} {_coins(abs(action.delta))}"
    if isinstance(action, CardStockpile):
        n = abs(action.delta)
        where = f"adds {_tiles(n)} to" if action.delta > 0 else f"lays {_tiles(n)} from"
        return f"Card: {_name(names, action.seat)} {where} the stockpile"
    if isinstance(action, CardMissTurn):
        return f"Card: {_name(names, action.seat)} misses a turn"
    if isinstance(action, CardMove):
        return f"Card: move {_name(names, action.seat)} to {square(action.to)}"
    if isinstance(action, CardRollPurple):
        return "Card: roll the purple die"
    if isinstance(action, CardDone):
        return "Card carried out"
    raise TypeError(f"no words for {action!r}")


def group(action: Action) -> str:
    """The heading an offered choice is listed under."""
    if isinstance(action, Roll | Bribe | FateRoll | CardRollPurple):
        return "Dice"
    if isinstance(action, Move | StartExpressway | PushBack | CardMove):
        return "Moves"
    if isinstance(action, DrawFreeTile | DrawTile | LayStockpiled | BuyFerryman | ReturnFerrymen):
        return "Tiles"
    if isinstance(action, DrawCard | CardCoins | CardStockpile | CardMissTurn | CardDone):
        return "Fatum card"
    return "Turn"

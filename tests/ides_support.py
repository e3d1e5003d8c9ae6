"""Shared moves for the Ides tests: set a seat up directly, then drive turns with chosen faces."""

from __future__ import annotations

import dataclasses
from typing import Any

from companion.games.ides import (
    CardDone,
    DrawCard,
    DrawFreeTile,
    Face,
    Game,
    Move,
    Passage,
    Phase,
    Roll,
    Square,
)
from companion.games.ides.dice import Die


def new(n: int = 2, **kwargs: Any) -> Game:
    return Game.setup(["Ann", "Bo", "Cy", "Di"][:n], **kwargs)


def seat(game: Game, index: int, **changes: Any) -> Game:
    """The game with one player's record changed (setting a scene without playing to it)."""
    players = list(game.players)
    players[index] = dataclasses.replace(players[index], **changes)
    return dataclasses.replace(game, players=tuple(players))


def free(game: Game, *, stockpile: bool = True) -> Game:
    assert game.phase is Phase.FREE_TILE
    return game.apply(DrawFreeTile(to_stockpile=stockpile))


def roll(game: Game, face: Face, die: Die = Die.ORANGE) -> Game:
    return game.apply(Roll(die, face))


def turn(game: Game, face: Face, die: Die = Die.ORANGE) -> Game:
    """The free tile laid on the board, then a roll showing ``face``."""
    return roll(free(game, stockpile=False), face, die)


def step(game: Game, to: Square, passage: Passage = Passage.STEP) -> Game:
    return game.apply(Move(to, passage))


def card(game: Game, numeral: int) -> Game:
    """Draws a card with ``numeral`` and carries out no instruction."""
    return game.apply(DrawCard(numeral)).apply(CardDone())


def kinds(game: Game) -> set[str]:
    return {a.KIND for a in game.legal_actions()}

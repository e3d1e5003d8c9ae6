"""Random legal play: a whole game driven by a seeded generator, for tests and the demo.

Every choice is drawn from ``Game.legal_actions()``.  The policy leans towards what real
players do (promote when they can, keep the podium, carry out a card's one or two
instructions), so a simulated game reaches a Forum win in a reasonable number of turns.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from companion.games.ides.actions import Action, Move
from companion.games.ides.dice import Dice, DiceFaces
from companion.games.ides.game import Game
from companion.games.ides.state import Passage, Phase

DEFAULT_NAMES = ("Aulus", "Livia", "Marcus", "Julia")
CARD_DONE_P = 0.7  # after each card instruction, the chance the card has no more
EAGER_P = 0.8  # the chance a player takes promotion or the expressway when offered
STEP_P = 0.7  # the chance a move is a plain step rather than a leapfrog or a bribe


def choose(game: Game, rng: random.Random) -> Action:
    """One legal action for the current player, drawn by the policy above."""
    legal = game.legal_actions()
    by_kind: dict[str, list[Action]] = {}
    for action in legal:
        by_kind.setdefault(action.KIND, []).append(action)
    if game.phase is Phase.CARD and "card-done" in by_kind and rng.random() < CARD_DONE_P:
        return by_kind["card-done"][0]
    for eager in ("promote", "start-expressway"):
        if eager in by_kind and rng.random() < EAGER_P:
            return by_kind[eager][0]
    if game.forum_holder == game.current and len(by_kind) > 1:
        by_kind.pop("move", None)
    kind = rng.choice(sorted(by_kind))
    options = by_kind[kind]
    if kind == "move" and rng.random() < STEP_P:
        steps: list[Action] = [
            a for a in options if isinstance(a, Move) and a.passage is Passage.STEP
        ]
        options = steps or options
    return rng.choice(options)


def simulate(
    players: Sequence[str] | int,
    rng: random.Random,
    *,
    max_steps: int = 20_000,
    faces: DiceFaces | None = None,
) -> list[tuple[Action, Game]]:
    """Plays from setup until the game is over or ``max_steps`` actions; returns each applied
    action (rolls with their faces) with the game after it."""
    names = list(DEFAULT_NAMES[:players]) if isinstance(players, int) else list(players)
    game = Game.setup(names, faces=faces)
    dice = Dice(game.faces, rng)
    history: list[tuple[Action, Game]] = []
    while not game.over and len(history) < max_steps:
        action, game = game.play(choose(game, rng), dice)
        history.append((action, game))
    return history

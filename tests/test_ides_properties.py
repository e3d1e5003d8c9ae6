"""Random legal play: coins never go negative, the Forum stays consistent, the game always
either ends with a Forum win or keeps offering legal choices, and logs replay exactly."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.ides import (
    Dice,
    DrawCard,
    Game,
    IllegalAction,
    Phase,
    Square,
    action_from_dict,
    action_to_dict,
    simulate,
    throw,
)
from companion.games.ides.actions import Bribe, FateRoll, Roll


def check_invariants(game: Game) -> None:
    holder = game.forum_holder
    for p in game.players:
        assert p.coins >= 0
        assert p.stockpile >= 0 and 0 <= p.ferrymen <= p.stockpile and p.ferrymen_laid >= 0
        assert min(p.senator_row) >= 0 and min(p.commander_row) >= 0
        if p.out:
            assert holder is not None, "out only while a commander holds the Forum"
    assert sum(p.square is Square.PODIUM for p in game.players) <= 1
    if game.over:
        assert game.winner is not None and game.winner == holder
        assert all(p.out for s, p in enumerate(game.players) if s != holder)
        assert game.legal_actions() == []
    else:
        assert game.winner is None
        if game.player.out:  # put out by their own card: they finish it, then the dice pass
            assert game.phase is Phase.CARD and game.turn.ending
        assert game.legal_actions(), f"stuck at {game.phase}"


def faced(action: object, rng: random.Random) -> object:
    if isinstance(action, Roll | Bribe | FateRoll) and action.face is None:
        return throw(action, Dice.seeded(rng.randrange(1 << 30)))
    return action


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32 - 1))
def test_random_legal_play_ends_or_keeps_going_correctly(players: int, seed: int) -> None:
    history = simulate(players, random.Random(seed), max_steps=4000)
    cards = [0] * players
    previous = Game.setup(["Aulus", "Livia", "Marcus", "Julia"][:players])
    for action, game in history:
        check_invariants(game)
        if isinstance(action, DrawCard):
            cards[previous.current] += 1
        previous = game
    final = history[-1][1]
    assert final.over or len(history) == 4000
    assert [sum(p.senator_row) + sum(p.commander_row) for p in final.players] == cards


@settings(max_examples=60, deadline=None)
@given(players=st.integers(2, 4), data=st.data())
def test_hypothesis_chosen_play_keeps_invariants(players: int, data: st.DataObject) -> None:
    game = Game.setup(["A", "B", "C", "D"][:players])
    rng = random.Random(data.draw(st.integers(0, 2**16)))
    for _ in range(150):
        if game.over:
            break
        action = data.draw(st.sampled_from(game.legal_actions()))
        game = game.apply(faced(action, rng))  # type: ignore[arg-type]
        check_invariants(game)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**16))
def test_legal_actions_are_exactly_the_accepted_ones(seed: int) -> None:
    rng = random.Random(seed)
    history = simulate(3, rng, max_steps=300)
    for _, game in history[:: max(1, len(history) // 25)]:
        legal = set(game.legal_actions())
        for candidate in game.candidates():
            concrete = faced(candidate, rng)
            try:
                game.apply(concrete)  # type: ignore[arg-type]
            except IllegalAction:
                assert candidate not in legal
            else:
                assert candidate in legal


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**16))
def test_log_replays_and_snapshots_resume_exactly(seed: int) -> None:
    history = simulate(4, random.Random(seed), max_steps=600)
    game = Game.setup(["Aulus", "Livia", "Marcus", "Julia"])
    for action, expected in history:
        line = json.loads(json.dumps(action_to_dict(action)))
        game = game.apply(action_from_dict(line))
        assert game == expected
        snapshot = json.loads(json.dumps(expected.to_dict()))
        assert Game.from_dict(snapshot) == expected


def test_a_seeded_simulation_reaches_a_forum_win() -> None:
    history = simulate(4, random.Random(2026))
    final = history[-1][1]
    assert final.over and final.phase is Phase.OVER
    assert final.winner == final.forum_holder
    assert simulate(4, random.Random(2026)) == history  # reproducible

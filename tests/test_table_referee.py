"""The demo's players wait for the table, and a stuck table is corrected with the truth."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from garum_helpers import TROIA, played

from companion.games.garum import Game
from companion.table.referee import DemoReferee
from companion.table.simcam import SimulatedPlayersCamera


@dataclass
class FakeSession:
    game: Game
    actions: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def operate(self, kind: str, **args: Any) -> str:
        self.actions.append((kind, args))
        return "corrected"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_waits_then_corrects_a_table_stuck_on_a_misread() -> None:
    _, states, games = played(3)
    session = FakeSession(games[0])
    clock = Clock()
    referee = DemoReferee(session, patience_s=5.0, clock=clock)  # type: ignore[arg-type]
    assert referee(0, states[0]) is False  # the table has not taken turn 1 yet
    clock.now = 4.9
    assert referee(0, states[0]) is False and session.actions == []
    clock.now = 5.0
    assert referee(0, states[0]) is False
    assert session.actions == [("correct", {"board": states[0].to_dict()})]
    session.game = games[1]  # the correction landed
    assert referee(0, states[0]) is True
    assert referee.corrections == 1


def test_players_wait_for_the_table_but_take_back_their_own_mistakes() -> None:
    _, states, _ = played(4)
    mistake = states[0].__class__(
        states[1].cells.replace(".", "B", 4), states[0].workers
    )  # a board the players take back at the next step
    camera = SimulatedPlayersCamera(
        TROIA, [states[0], mistake, states[0]], fps=1000, hand_s=0, still_s=0
    )
    asked: list[int] = []

    def waiter(index: int, truth: Any) -> bool:
        asked.append(index)
        return len([i for i in asked if i == index]) > 2  # the table takes it on the third look

    camera.waiter = waiter
    camera._render = lambda state, hand: state  # type: ignore[method-assign]  # no drawing needed
    frames = camera.frames()
    for _ in range(12):
        next(frames)
    camera.close()
    assert asked.count(0) == 3  # waited for step 0
    assert 1 not in asked  # a planned mistake is taken back without waiting

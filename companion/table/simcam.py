"""A synthetic camera watching simulated players: a hand over the board, then the new board.

Each change is rendered before it is shown (rendering a frame takes far longer than a real
camera exposure), so the moment the hand leaves is exact and :attr:`hand_left_s` can time
how long the table takes to show the change.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence

from companion.boards.profile import BoardProfile
from companion.games.garum.state import BoardState
from companion.vision.sources import Frame, SyntheticCamera


class SimulatedPlayersCamera:
    def __init__(
        self,
        profile: BoardProfile,
        states: Sequence[BoardState],
        *,
        seed: int = 0,
        fps: float = 10.0,
        hand_s: float = 1.0,
        still_s: float = 2.0,
    ) -> None:
        self._camera = SyntheticCamera(profile, BoardState(), seed=seed)
        self._states = list(states)
        self._period_s = 1.0 / fps
        self._hand_s = hand_s
        self._still_s = still_s
        self._closed = threading.Event()
        self.hand_left_s: dict[int, float] = {}  # change index -> monotonic time
        # Steps the players take back themselves at the next step (a planned mistake).
        self._taken_back = {
            i
            for i in range(len(self._states) - 1)
            if any(
                a != "." and b == "."
                for a, b in zip(self._states[i].cells, self._states[i + 1].cells, strict=True)
            )
        }
        # Real players wait for the table to take a move before the next one: ``waiter``
        # (index, true board) -> True once the table has it.  None: play on regardless.
        self.waiter: Callable[[int, BoardState], bool] | None = None

    def _render(self, state: BoardState, hand: bool) -> Frame:
        self._camera.state, self._camera.hand = state, hand
        return self._camera.frame()

    def _show(self, frame: Frame, duration_s: float) -> Iterator[Frame]:
        end = time.monotonic() + duration_s
        while not self._closed.is_set() and time.monotonic() < end:
            yield frame
            self._closed.wait(self._period_s)

    def frames(self) -> Iterator[Frame]:
        board = BoardState()
        yield from self._show(self._render(board, False), self._still_s)
        for index, state in enumerate(self._states):
            if self._closed.is_set():
                return
            over, after = self._render(board, True), self._render(state, False)
            yield from self._show(over, self._hand_s)
            self.hand_left_s[index] = time.monotonic()
            yield from self._show(after, self._still_s)
            if index not in self._taken_back:
                yield from self._wait(index, state, after)
            board = state
        while not self._closed.is_set():  # the game is over: the board stays in view
            yield from self._show(self._render(board, False), 3600.0)

    def _wait(self, index: int, state: BoardState, frame: Frame) -> Iterator[Frame]:
        waiter = self.waiter
        while waiter is not None and not self._closed.is_set() and not waiter(index, state):
            yield frame
            self._closed.wait(self._period_s)

    def close(self) -> None:
        self._closed.set()

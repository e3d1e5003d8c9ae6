"""A synthetic camera watching the demo's simulated players: a hand over the board, then the
board as they left it.

Each change is rendered before it is shown (rendering a frame takes far longer than a real
camera exposure), so the moment the hand leaves is exact and :attr:`hand_left_s` can time
how long the table takes to show the change.  A real hand never rests still over the board;
the rendered one comes and goes from frame to frame, so the stability gate sees it move
instead of taking a still picture of a hand for a reading.  A new game on another board
swaps the board under the camera; ``on_board`` tells the reader.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping

from companion.boards.profile import BoardProfile
from companion.games.garum.players import SimulatedPlayers
from companion.games.garum.state import BoardState
from companion.vision.sources import Frame, SyntheticCamera


class SimulatedPlayersCamera:
    def __init__(
        self,
        profile: BoardProfile,
        players: SimulatedPlayers,
        *,
        seed: int = 0,
        fps: float = 10.0,
        hand_s: float = 1.0,
    ) -> None:
        self._seed = seed
        self._camera = SyntheticCamera(profile, BoardState(), seed=seed)
        self._players = players
        self._period_s = 1.0 / fps
        self._hand_s = hand_s
        self._closed = threading.Event()
        self.hand_left_s: dict[int, float] = {}  # change index -> monotonic time
        self.on_board: Callable[[BoardProfile], None] | None = None

    @property
    def moves_at_s(self) -> Mapping[int, float]:
        """:attr:`hand_left_s`, as a benchmark of any game's simulated players reads it."""
        return self.hand_left_s

    @property
    def profile(self) -> BoardProfile:
        return self._camera.profile

    def _render(self, state: BoardState, hand: bool) -> Frame:
        self._camera.state, self._camera.hand = state, hand
        return self._camera.frame()

    def _moving_hand(self, over: Frame, bare: Frame, duration_s: float) -> Iterator[Frame]:
        end = time.monotonic() + duration_s
        hand = True
        while not self._closed.is_set() and time.monotonic() < end:
            yield over if hand else bare
            hand = not hand
            self._closed.wait(self._period_s)

    def frames(self) -> Iterator[Frame]:
        shown = self._players.board
        frame = self._render(shown, False)
        while not self._closed.is_set():
            move = self._players.step(time.monotonic())
            if move is not None:
                over = self._render(shown, True)
                if move.profile.name != self._camera.profile.name:
                    self._camera = SyntheticCamera(move.profile, BoardState(), seed=self._seed)
                    if self.on_board is not None:
                        self.on_board(move.profile)
                before = frame
                shown, frame = move.board, self._render(move.board, False)
                yield from self._moving_hand(over, before, self._hand_s)
                self.hand_left_s[len(self.hand_left_s)] = time.monotonic()
            yield frame
            self._closed.wait(self._period_s)

    def close(self) -> None:
        self._closed.set()

"""Reading sources that need no camera: a game record replayed as a table would see it."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence

from companion.games.garum.state import BoardState
from companion.table.ports import Reading


class RecordReadings:
    """Plays board states as stable readings, with a hand over the board between them."""

    def __init__(self, states: Sequence[BoardState], *, interval_s: float = 2.0) -> None:
        self._states = list(states)
        self._interval_s = interval_s
        self._closed = threading.Event()

    def readings(self) -> Iterator[Reading | None]:
        for state in self._states:
            if self._closed.wait(self._interval_s / 2):
                return
            yield None  # a hand over the board
            if self._closed.wait(self._interval_s / 2):
                return
            yield Reading(state)
        self._closed.wait()

    def close(self) -> None:
        self._closed.set()

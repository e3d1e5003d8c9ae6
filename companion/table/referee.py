"""The demo's referee: simulated players wait for the table, and misreads get corrected.

Real players wait for the table's light before the next move, and a real operator who sees
the table stuck on a misread (or on a view it cannot read) states the true board on the
dashboard.  The simulated players know the true board, so the demo does the same instead of
playing on while the table waits, which would leave it judging many moves as one.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from companion.errors import CompanionError
from companion.games.garum.state import BoardState
from companion.table.session import TableSession


class DemoReferee:
    def __init__(
        self,
        session: TableSession,
        *,
        patience_s: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._session = session
        self._patience_s = patience_s
        self._clock = clock
        self._since: dict[int, float] = {}
        self.corrections = 0

    def __call__(self, index: int, truth: BoardState) -> bool:
        """True once the table holds ``truth``; corrects it after ``patience_s`` otherwise."""
        game = self._session.game
        if game is None or game.state == truth or game.is_over:
            self._since.pop(index, None)
            return True
        now = self._clock()
        started = self._since.setdefault(index, now)
        if now - started >= self._patience_s:
            self._since[index] = now  # give the correction time to land before another
            try:
                self._session.operate("correct", board=truth.to_dict())
                self.corrections += 1
            except CompanionError as exc:
                print(f"demo referee: could not correct the board: {exc}", file=sys.stderr)
        return False

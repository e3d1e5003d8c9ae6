"""A simulated table: the real session and game log, fed with a simulated Garum game.

Only the camera is simulated (readings come from the Garum simulator); the session judges,
the log records and the publisher tails the log exactly as at a real table.  The café
benchmark runs fifty of these; the tests run them as separate processes to kill one.
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from companion.boards import load_profile
from companion.cafe.publisher import PublisherOptions, start_publisher
from companion.games.garum import random_setup, simulate_game
from companion.games.garum.referee import SetupRequest
from companion.games.garum.sighting import Sighting
from companion.games.garum.state import BoardState
from companion.table.commands import Observe
from companion.table.fakes import RecordingLights
from companion.table.log import GameLog
from companion.table.session import TableSession

Shown = BoardState  # what the simulated camera shows the table for one turn


class SimulatedTable:
    """One table's session and log; :meth:`new_game` returns the boards to feed, turn by turn."""

    def __init__(
        self, log_path: str | Path, *, seed: int, players: int = 4, board: str = "troia"
    ) -> None:
        self.log = GameLog(log_path)
        self.rng = random.Random(seed)
        self.players = players
        self.board = board
        self.profile = load_profile(board)
        self.session = TableSession(self.log, RecordingLights(), rng=self.rng)

    def new_game(self, variant: str = "standard") -> list[Shown]:
        setup = random_setup(self.profile, self.players, variant, self.rng)
        request = SetupRequest(
            board=self.board,
            variant=variant,
            seats=tuple((s.name, s.colours) for s in setup.seats),
            ghost=setup.ghost,
            first_seat=setup.first_seat,
        )
        self.session.operate("new_game", request=request)
        game = self.session.game
        assert game is not None
        return simulate_game(game.setup, self.rng)

    def feed(self, board: Shown) -> None:
        """The camera reports ``board`` to a session whose owner thread is running."""
        self.session.feed(Sighting(board))

    def show(self, board: Shown) -> str:
        """The camera reports ``board``; returns the session's outcome."""
        done = self.session.submit(Observe(Sighting(board)))
        self.session.drain()
        return str(done.result(timeout=10))

    def close(self) -> None:
        self.log.close()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m companion.cafe.simtable``: one simulated table publishing to a broker."""
    parser = argparse.ArgumentParser(prog="python -m companion.cafe.simtable")
    parser.add_argument("--log", required=True, help="the table's game log (SQLite)")
    parser.add_argument("--mqtt", required=True, metavar="URL")
    parser.add_argument("--table", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--turns", type=int, default=None, help="stop after this many turns")
    parser.add_argument("--turn-s", type=float, default=0.05, help="seconds between turns")
    parser.add_argument("--dispute", action="store_true", help="end on an illegal move")
    parser.add_argument("--dashboard", default=None, help="this table's dashboard URL")
    args = parser.parse_args(argv)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    table = SimulatedTable(args.log, seed=args.seed)
    publisher = start_publisher(
        args.log, args.table, args.mqtt, args.dashboard, options=PublisherOptions(poll_s=0.02)
    )
    try:
        boards = table.new_game()[: args.turns]
        for board in boards:
            if stop.wait(args.turn_s):
                break
            table.show(board)
        if args.dispute and not stop.is_set():
            table.show(_illegal_after(boards[-1] if boards else BoardState()))
        print("played", flush=True)
        stop.wait()
    finally:
        publisher.stop()
        table.close()
    return 0


def _illegal_after(board: BoardState) -> BoardState:
    """The board with a worker where none may stand yet: a move the rules refuse."""
    workers = list(board.workers)
    workers[workers.index(None)] = "Bv"
    return replace(board, workers=tuple(workers))


if __name__ == "__main__":
    sys.exit(main())

"""A simulated table: the real session and game log, played by a game's simulated players.

Only the players are simulated (their moves come from the game's seeded simulation, see
:mod:`companion.games.simulation_seam`); the session judges, the log records and the
publisher tails the log exactly as at a real table.  The café benchmark runs fifty of these;
the tests run them as separate processes to kill one.
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from companion.cafe.publisher import PublisherOptions, start_publisher
from companion.errors import InputError
from companion.games import registry
from companion.games.simulation_seam import Move, Simulation, simulation_of
from companion.table.commands import command_for
from companion.table.fakes import RecordingLights
from companion.table.log import GameLog
from companion.table.session import TableSession

Shown = Move  # what the simulated players do at the table: one move


class SimulatedTable:
    """One table's session and log; :meth:`new_game` returns the moves to make, in order.

    ``board`` and each game's ``variant`` are setup choices for games that have them."""

    def __init__(
        self,
        log_path: str | Path,
        *,
        seed: int,
        players: int | None = 4,
        board: str | None = None,
        game: str = registry.DEFAULT_GAME,
    ) -> None:
        self.rng = random.Random(seed)
        self.players = players
        self.board = board
        self._plugin = registry.game(game)
        self.simulation = self._simulated(seed, None)  # checks the game and its choices
        self.log = GameLog(log_path)
        self.session = TableSession(
            self.log, RecordingLights(), game=game, referee=self.simulation.referee(), rng=self.rng
        )

    def _simulated(self, seed: int, variant: str | None) -> Simulation:
        choices = {"board": self.board, "variant": variant}
        given = {name: value for name, value in choices.items() if value is not None}
        return simulation_of(self._plugin, seed, players=self.players, choices=given)

    def new_game(self, variant: str | None = None) -> list[Shown]:
        """Opens a new simulated game; returns the players' moves for the whole game."""
        self.simulation = self._simulated(self.rng.getrandbits(32), variant)
        self.session.operate("new_game", request=self.simulation.setup_request())
        match = self.session.match
        assert match is not None
        return self.simulation.script(match)

    def feed(self, move: Shown) -> None:
        """The players make ``move`` at a session whose owner thread is running."""
        self.session.submit(command_for(move))

    def show(self, move: Shown) -> str:
        """The players make ``move``; returns the session's outcome."""
        done = self.session.submit(command_for(move))
        self.session.drain()
        return str(done.result(timeout=10))

    def dispute(self) -> Shown:
        """A move the rules refuse, after which the table waits for the operator."""
        match = self.session.match
        move = self.simulation.dispute(match) if match is not None else None
        if move is None:
            raise InputError("no move of this game waits for the operator", field="dispute")
        return move

    def close(self) -> None:
        self.log.close()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m companion.cafe.simtable``: one simulated table publishing to a broker."""
    parser = argparse.ArgumentParser(prog="python -m companion.cafe.simtable")
    parser.add_argument("--log", required=True, help="the table's game log (SQLite)")
    parser.add_argument("--mqtt", required=True, metavar="URL")
    parser.add_argument("--table", required=True)
    parser.add_argument("--game", choices=list(registry.games()), default=registry.DEFAULT_GAME)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--turns", type=int, default=None, help="stop after this many moves")
    parser.add_argument("--turn-s", type=float, default=0.05, help="seconds between moves")
    parser.add_argument("--dispute", action="store_true", help="end on a move the rules refuse")
    parser.add_argument("--dashboard", default=None, help="this table's dashboard URL")
    args = parser.parse_args(argv)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    table = SimulatedTable(args.log, seed=args.seed, game=args.game)
    publisher = start_publisher(
        args.log, args.table, args.mqtt, args.dashboard, options=PublisherOptions(poll_s=0.02)
    )
    try:
        moves = table.new_game()[: args.turns]
        if args.dispute:
            table.dispute()  # a game without such a move is refused before any is made
        for move in moves:
            if stop.wait(args.turn_s):
                break
            table.show(move)
        if args.dispute and not stop.is_set():
            table.show(table.dispute())
        print("played", flush=True)
        stop.wait()
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        publisher.stop()
        table.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

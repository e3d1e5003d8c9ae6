"""``companion demo --mqtt URL --table ID``: the demo game played by a real, published table.

The plain demo only prints a game.  With a broker it runs the game through a table session
and a game log (in a temporary directory), so the café hub shows a live table.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import threading
from pathlib import Path

from companion.cafe.options import publisher_from_args
from companion.cafe.simtable import SimulatedTable
from companion.games.garum import score_state

ACK_WAIT_S = 10.0


def play_published_demo(args: argparse.Namespace, stop: threading.Event | None = None) -> int:
    stop = stop or threading.Event()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    with tempfile.TemporaryDirectory(prefix="companion-demo-") as tmp:
        log_path = Path(tmp) / "table.db"
        table = SimulatedTable(log_path, seed=seed, players=args.players, board=args.board)
        publisher = publisher_from_args(args, log_path)
        assert publisher is not None
        try:
            boards = table.new_game(args.variant)
            game = table.session.game
            assert game is not None
            setup = game.setup
            print(
                f"table {publisher.table} on {publisher.broker.address}: Garum on"
                f" {setup.board.title}, {setup.variant.value}, seed {seed}",
                flush=True,
            )
            for board in boards:
                if stop.wait(max(args.delay, 0)):
                    break
                turn = table.session.game.turn if table.session.game else None
                outcome = table.show(board)
                if turn is not None:
                    who = setup.seats[turn.seat].name if turn.seat is not None else "ghost"
                    print(f"  round {turn.round} turn {turn.number}: {who} [{outcome}]")
            last = max((e.seq for e in table.log.events()), default=0)
            if not publisher.wait_acked(last, ACK_WAIT_S):
                print(f"the broker acknowledged events up to {publisher.acked_seq} of {last}")
            final = table.session.game
            if final is not None:
                sheet = score_state(setup.board, final.state, setup.seats, setup.ghost)
                scores = ", ".join(f"{s.name} {s.total}" for s in sheet.seats)
                print(f"scores: {scores}; leader {' and '.join(sheet.winners)}")
        finally:
            publisher.stop()
            table.close()
    return 0

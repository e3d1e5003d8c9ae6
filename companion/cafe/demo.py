"""``companion demo --mqtt URL --table ID``: the demo game played by a real, published table.

The plain demo only prints a game.  With a broker it runs the game through a table session
and a game log (in a temporary directory), so the café hub shows a live table.  What it
prints is what the room is told: the café's own fold of the log.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import threading
from pathlib import Path
from typing import Any

from companion.cafe.options import publisher_from_args
from companion.cafe.simtable import SimulatedTable
from companion.cafe.snapshot import TableFold
from companion.games.registry import game

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
            fold = TableFold.from_log(table.log)
            now = fold.snapshot(publisher.table, None)
            print(
                f"table {publisher.table} on {publisher.broker.address}: "
                f"{game(fold.game_kind).title} on {now['board_title']}, {now['variant']},"
                f" seed {seed}",
                flush=True,
            )
            for board in boards:
                if stop.wait(max(args.delay, 0)):
                    break
                outcome = table.show(board)
                if now["turn"] is not None:
                    who = now["whose_turn"]["name"]
                    print(f"  round {now['round']} turn {now['turn']}: {who} [{outcome}]")
                now = _caught_up(fold, table, publisher.table)
            last = max((e.seq for e in table.log.events()), default=0)
            if not publisher.wait_acked(last, ACK_WAIT_S):
                print(f"the broker acknowledged events up to {publisher.acked_seq} of {last}")
            scores = ", ".join(f"{s['name']} {s['score']}" for s in now["seats"])
            print(f"scores: {scores}; leader {' and '.join(now['leader'])}")
        finally:
            publisher.stop()
            table.close()
    return 0


def _caught_up(fold: TableFold, table: SimulatedTable, name: str) -> dict[str, Any]:
    """The room's view of the table once the fold has read every event logged so far."""
    for event in table.log.events(after_seq=fold.seq):
        fold.apply(event)
    return fold.snapshot(name, None)

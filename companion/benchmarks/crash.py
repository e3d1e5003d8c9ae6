"""``companion bench crash``: kill the table with SIGKILL at random points, count what is lost."""

from __future__ import annotations

import argparse
import time

from companion.arguments import positive_count, seed
from companion.benchmarks._crash_harness import run_points
from companion.games import registry
from companion.progress import Progress

NAME = "crash"
HELP = "kill a table mid-game at random points: 0 acknowledged events lost, same resumed game"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--points", type=positive_count, default=100, help="kill points (default 100)"
    )
    parser.add_argument(
        "--turns", type=positive_count, default=64, help="turns per game (default 64)"
    )
    parser.add_argument("--seed", type=seed, default=1)
    parser.add_argument(
        "--game",
        choices=list(registry.games()),
        default=registry.DEFAULT_GAME,
        help=f"the game played (default {registry.DEFAULT_GAME})",
    )


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    bar = Progress(args.points, "kill points")
    try:
        report = run_points(
            args.points, args.seed, args.turns, lambda n: bar.advance(), game=args.game
        )
    finally:
        bar.close()
    elapsed = time.perf_counter() - started
    print(f"kill points:              {report.points}")
    print(f"acknowledged events:      {report.acknowledged}")
    print(f"acknowledged events lost: {report.lost}")
    print(f"hash chain broken:        {report.chain_broken}")
    print(f"killed mid-reading:       {report.mid_reading}")
    print(f"resumed state differs:    {report.resumed_differs}")
    print(f"finished game differs:    {report.finished_differs}")
    print(f"time:                     {elapsed:.1f} s")
    return 0 if report.ok else 1

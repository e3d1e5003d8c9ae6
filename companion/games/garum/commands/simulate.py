"""``companion simulate``: writes a random legal Garum game as a game record."""

from __future__ import annotations

import argparse
import random
import sys
from typing import Any

from companion.boards import BUILTIN, load_profile
from companion.errors import InputError
from companion.games.garum import Variant, random_setup, record_lines, simulate_game


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="write a random legal Garum game as a game record",
        description="Plays a random legal game and writes it in the game-record format.",
    )
    parser.add_argument("--board", default="troia", help=f"{' or '.join(BUILTIN)} or a file")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=4)
    parser.add_argument("--variant", choices=[v.value for v in Variant], default="standard")
    parser.add_argument("--seed", type=int, help="make the game reproducible")
    parser.add_argument("--out", metavar="FILE", help="write here instead of standard output")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    board = load_profile(args.board)
    setup = random_setup(board, args.players, args.variant, rng)
    text = "\n".join(record_lines(setup, simulate_game(setup, rng))) + "\n"
    if args.out:
        try:
            with open(args.out, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            raise InputError(f"cannot write: {exc.strerror or exc}", source=args.out) from None
    else:
        sys.stdout.write(text)
    return 0

"""``companion demo --game ides``: simulated players play a whole game of The Ides of March at
a live table (the real rules engine, game log, LED firmware behind a pseudo-terminal and
dashboard).

With ``--seed`` every choice and throw is drawn from a generator seeded with the seed and
the number of actions so far, so a game resumed from its log (``--data-dir``) goes on
exactly as it would have.
"""

from __future__ import annotations

import argparse
import random
import threading
from pathlib import Path
from typing import Any

from companion.arguments import positive_rate, seconds
from companion.errors import InputError
from companion.games.ides import Dice
from companion.games.ides import words as words
from companion.games.ides.live import ROLL_S
from companion.games.ides.simulate import DEFAULT_NAMES, choose
from companion.games.live_seam import DemoTable, LiveTable
from companion.link.lights import TableLights


def add_demo_arguments(parser: argparse._ArgumentGroup) -> None:
    parser.add_argument(
        "--turns-per-second",
        type=positive_rate,
        default=1.0,
        help="player choices per second (default 1, watchable)",
    )
    parser.add_argument(
        "--fast",
        action="store_true",
        help="no pause between choices and no dice animation (for tests)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="keep the game log here (ides.db) and resume an unfinished game; "
        "a temporary directory otherwise",
    )
    parser.add_argument(
        "--hold", type=seconds, default=None, help="seconds the dashboard stays up at the end"
    )


def demo(args: argparse.Namespace) -> DemoTable:
    if args.turns_per_second <= 0:
        raise InputError("expected a positive number", field="--turns-per-second")
    pause_s = 0.0 if args.fast else 1.0 / args.turns_per_second
    hold_s = args.hold if args.hold is not None else (0.0 if args.fast else 5.0)
    names = list(DEFAULT_NAMES[: args.players])
    game = {"game": "ides", "players": names, "dice_roll_s": 0.0 if args.fast else ROLL_S}
    stopped = "stopped"
    if args.data_dir is not None:
        stopped = f"stopped; --data-dir {args.data_dir} resumes this game"
    return DemoTable(
        data_dir=args.data_dir,
        game=game,
        players=SimulatedPlayers(args.seed, pause_s),
        hold_s=hold_s,
        stopped=stopped,
    )


class SimulatedPlayers:
    """Players who choose among the legal actions until the game is over."""

    def __init__(self, seed: int | None, pause_s: float) -> None:
        self.seed = seed
        self.pause_s = pause_s

    def play(self, table: LiveTable, stop: threading.Event) -> None:
        rng = random.Random(self.seed)
        while table.state == "playing" and not stop.is_set():
            match = table.match
            game = match.position
            if self.seed is not None:
                rng = random.Random(f"{self.seed}:{match.actions_applied}")
            names = [p.name for p in game.players]
            who = names[game.current]
            dice = _dice(game.faces, rng, self.seed)
            action = {"action": choose(game, rng), "by": "simulated", "dice": dice}
            applied = table.act("play", action)
            print(f"turn {game.turn_number:>3}  {who:<7} {words.label(applied, names)}", flush=True)
            if self.pause_s > 0:
                stop.wait(self.pause_s)

    def summary(self, table: LiveTable, shown: TableLights | None) -> str:
        match = table.match
        dice = "dark" if shown is None else " and ".join(c or "off" for c in shown.dice)
        return f"{match.ended} after {match.actions_applied} actions; dice LEDs: {dice}"


def _dice(faces: Any, rng: random.Random, seed: int | None) -> Dice | None:
    """Seeded dice for a reproducible demo; otherwise the table's secure dice."""
    return Dice(faces, rng) if seed is not None else None

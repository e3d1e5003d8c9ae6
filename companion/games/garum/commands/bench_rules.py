"""``companion bench rules``: random full Garum games per second on one core."""

from __future__ import annotations

import argparse
import random
import time

from companion.arguments import seconds, seed
from companion.boards import load_profile
from companion.games.garum import Game, Variant, random_setup, score_state, simulate_game

NAME = "rules"
HELP = "random full Garum games (simulated, then scored) per second, on one core"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=seconds, default=5.0, help="how long to measure")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=4)
    parser.add_argument("--board", default="troia")
    parser.add_argument("--variant", choices=[v.value for v in Variant], default="standard")
    parser.add_argument("--seed", type=seed, default=1)


def run(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    board = load_profile(args.board)
    setups = [random_setup(board, args.players, args.variant, rng) for _ in range(64)]
    games = 0
    started = time.perf_counter()
    deadline = started + args.seconds
    while time.perf_counter() < deadline:
        for _ in range(50):
            setup = setups[games % len(setups)]
            states = simulate_game(setup, rng)
            score_state(board, states[-1], setup.seats, setup.ghost)
            games += 1
    elapsed = time.perf_counter() - started
    turns = games * len(setups[0].turn_plan)
    print(f"board {board.name}, {args.players} players, {args.variant}")
    print(f"simulated and scored: {games} games in {elapsed:.2f} s")
    print(f"  {games / elapsed:,.0f} games/s  ({turns / elapsed:,.0f} turns/s)")

    # The checked path: every turn of a game judged through the public door.
    checked = 0
    started = time.perf_counter()
    deadline = started + min(args.seconds, 2.0)
    while time.perf_counter() < deadline:
        setup = setups[checked % len(setups)]
        game = Game.new(setup)
        for state in simulate_game(setup, rng):
            verdict, game = game.play(state)
            if not verdict.legal:
                raise AssertionError("a simulated game broke the rules")
        checked += 1
    elapsed = time.perf_counter() - started
    print(f"simulated and fully checked turn by turn: {checked / elapsed:,.0f} games/s")
    return 0

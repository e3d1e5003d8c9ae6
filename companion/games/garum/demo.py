"""``companion demo --game garum``: a simulated Garum game at a live table (a synthetic camera
watches simulated players), or with ``--terminal`` printed in the terminal only."""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from companion.arguments import seconds
from companion.boards import BUILTIN, load_profile
from companion.games.garum import Game, Variant, line_name, random_setup, score_state, simulate_game
from companion.games.garum.commands.score import render_table
from companion.games.garum.rules import COLOUR_NAMES
from companion.games.garum.state import BoardState
from companion.games.live_seam import DemoTable
from companion.games.simulated import DEFAULT_PACE_S, DEFAULT_PATIENCE_S, DEMO_MISTAKES

TERMINAL_PACE_S = 0.05


def add_demo_arguments(parser: argparse._ArgumentGroup) -> None:
    parser.add_argument("--board", default="troia", help=f"{' or '.join(BUILTIN)} or a file")
    parser.add_argument("--variant", choices=[v.value for v in Variant], default="standard")
    parser.add_argument(
        "--pace",
        "--delay",
        dest="pace_s",
        type=seconds,
        metavar="SECONDS",
        help=f"seconds the board stays still between turns (default {DEFAULT_PACE_S:g}; "
        f"--terminal: {TERMINAL_PACE_S:g}); --delay is the old name",
    )
    parser.add_argument(
        "--patience",
        dest="patience_s",
        type=seconds,
        default=DEFAULT_PATIENCE_S,
        metavar="SECONDS",
        help="the simulated players settle a flagged move themselves after this long "
        f"(default {DEFAULT_PATIENCE_S:g})",
    )
    parser.add_argument(
        "--wait-for-operator",
        action="store_true",
        help="the simulated players never settle a flag; they wait for the operator",
    )
    parser.add_argument(
        "--mistakes",
        type=_turns,
        default=DEMO_MISTAKES,
        metavar="TURNS",
        help="turns at which a player takes a tile of the wrong colour, e.g. 5,30 "
        f"(default {','.join(map(str, DEMO_MISTAKES))}; 'none' for a clean game)",
    )
    parser.add_argument(
        "--data", default="companion-data", metavar="FOLDER", help="the game log's folder"
    )
    parser.add_argument(
        "--terminal",
        action="store_true",
        help="play in the terminal only (no camera, LEDs or dashboard)",
    )


def demo(args: argparse.Namespace) -> DemoTable | int:
    """The live table: a synthetic camera, the emulated LEDs, the dashboard; a fresh game
    each start, since the simulated players sit down at an empty board."""
    if args.terminal:
        return play_in_terminal(args)
    profile = load_profile(args.board)
    drawn = random_setup(profile, args.players, args.variant, random.Random(args.seed))
    seating = {
        "board": drawn.board.name,
        "variant": drawn.variant.value,
        "seats": [{"name": s.name, "colours": list(s.colours)} for s in drawn.seats],
        "ghost": drawn.ghost,
        "first_seat": drawn.first_seat,
    }
    pace_s = DEFAULT_PACE_S if args.pace_s is None else args.pace_s
    patience_s = None if args.wait_for_operator else args.patience_s
    camera: dict[str, object] = {
        "kind": "synthetic",
        "interval_s": pace_s,
        "mistakes_at": list(args.mistakes),
    }
    if patience_s is None:
        camera["wait_for_operator"] = True
    else:
        camera["patience_s"] = patience_s
    if args.seed is not None:
        camera["seed"] = args.seed
    return DemoTable(
        data_dir=Path(args.data),
        camera=camera,
        game=seating,
        fresh=True,
        intro=players_note(args.mistakes, patience_s),
    )


def players_note(mistakes: tuple[int, ...], patience_s: float | None) -> str:
    """What the simulated players will do, so a newcomer knows when to try the buttons."""
    if mistakes:
        turns = ", ".join(map(str, mistakes))
        wrong = f"a player takes a tile of the wrong colour at turn {turns} of this first game"
    else:
        wrong = "the players make no mistakes"
    if patience_s is None:
        settle = "they wait for you to accept, correct or undo it"
    else:
        settle = f"they fix it themselves after {patience_s:g} s unless you act first"
    return f"demo: {wrong}; {settle}"


def play_in_terminal(args: argparse.Namespace) -> int:
    """A whole simulated game printed turn by turn, then the board and the scores."""
    rng = random.Random(args.seed)
    board = load_profile(args.board)
    setup = random_setup(board, args.players, args.variant, rng)
    names = {c: s.name for s in setup.seats for c in s.colours}
    print(f"Garum on {board.title}: {args.players} players, {setup.variant.value} variant")
    for seat in setup.seats:
        print(f"  {seat.name}: {', '.join(COLOUR_NAMES[c] for c in seat.colours)}")
    if setup.ghost:
        print(f"  ghost: {COLOUR_NAMES[setup.ghost]}")
    if setup.variant is Variant.HARUSPEX:
        print(f"  aureus order: {' '.join(map(str, setup.aureus))}")
    game = Game.new(setup)
    for state in simulate_game(setup, rng):
        turn = game.turn
        assert turn is not None
        before = game.bonus_scores[turn.colour]
        round_vat = game.round_vat
        verdict, game = game.play(state)
        if turn.colour == setup.turn_plan[4 * (turn.round - 1)].colour:
            print(f"\nround {turn.round}: aureus {round_vat or game.vats[turn.round - 1]}")
        who = names.get(turn.colour, "ghost")
        parts = [f"  {COLOUR_NAMES[turn.colour]:<6} ({who}) places a tile"]
        for line in verdict.new_workers:
            kind = "dominus" if state.workers[line] and state.workers[line][1] == "d" else "vilicus"  # type: ignore[index]
            parts.append(f"and a {kind} on {line_name(line)}")
        gained = game.bonus_scores[turn.colour] - before
        if gained:
            parts.append(f"(bonus +{gained})")
        status = "ok" if verdict.legal else ", ".join(verdict.codes)
        print(" ".join(parts) + f"  [{status}]")
        time.sleep(TERMINAL_PACE_S if args.pace_s is None else args.pace_s)
    print()
    print(render_board(game.state))
    print()
    print(
        render_table(
            score_state(board, game.state, setup.seats, setup.ghost),
            setup.ghost,
            board.score_track_length,
        )
    )
    return 0


def _turns(text: str) -> tuple[int, ...]:
    if text.strip().lower() == "none":
        return ()
    try:
        turns = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected turn numbers separated by commas (e.g. 5,30) or 'none', not {text!r}"
        ) from None
    if any(turn < 1 for turn in turns):
        raise argparse.ArgumentTypeError(f"turn numbers start at 1, not {text!r}")
    return turns


def render_board(state: BoardState) -> str:
    """The board as text: column workers on top, row workers on the left."""
    cols = state.workers[16:]
    top = "     " + " ".join((w or "..")[:2] for w in cols)
    lines = [top]
    for r, row in enumerate(state.rows):
        worker = (state.workers[r] or "..")[:2]
        lines.append(f"{worker}   " + "  ".join(row))
    return "\n".join(lines)

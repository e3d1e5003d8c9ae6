"""``companion score FILE``: final scoring of a game record or a board state."""

from __future__ import annotations

import argparse
import json
from typing import Any

from companion.errors import InputError
from companion.games.garum import ScoreSheet, line_name, score_state
from companion.games.garum.commands.record_files import read_record_or_state
from companion.games.garum.rules import COLOUR_NAMES
from companion.printable import printable


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score a Garum game record (its last state) or a single board state",
        description="Scores the board: bonuses, each worker's line, penalties, the tie-break.",
    )
    parser.add_argument("file", metavar="FILE", help="game record (.jsonl) or board state (.json)")
    parser.add_argument("--json", action="store_true", help="print the JSON document")
    parser.add_argument("--board", metavar="PROFILE", help="a board profile file to use instead")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    setup, state = read_record_or_state(args.file, args.board)
    if not state.is_certain:
        cell = state.cells.find("?")
        where = f"cell row {cell // 16}, column {cell % 16}" if cell >= 0 else "a worker space"
        raise InputError(
            f"cannot score a board with unreadable parts ({where} is '?')", source=args.file
        )
    sheet = score_state(setup.board, state, setup.seats, setup.ghost)
    if args.json:
        print(json.dumps(sheet.to_json()))
    else:
        print(render_table(sheet, setup.ghost, setup.board.score_track_length))
    return 0


def render_table(sheet: ScoreSheet, ghost: str | None, track: int) -> str:
    out: list[str] = []
    for colour, score in sheet.colours.items():
        name = COLOUR_NAMES[colour] + (" (ghost)" if colour == ghost else "")
        out.append(f"{name}")
        out.append(f"  bonuses{score.bonus:>34}")
        for line in score.lines:
            kind = "dominus" if line.kind == "d" else "vilicus"
            label = f"  {kind} on {line_name(line.line)}: {line.fish} fish"
            out.append(f"{label:<38}{line.points:>5}")
        out.append(f"  total{score.total:>36}")
    out.append("")
    out.append(f"{'seat':<16}{'colours':<10}{'total':>6}{'vilicus':>9}  track")
    for seat in sheet.seats:
        lap = f"+{seat.laps * track} tile, " if seat.laps else ""
        name = printable(seat.name)
        out.append(
            f"{name:<16}{''.join(seat.colours):<10}{seat.total:>6}{seat.vilicus:>9}  "
            f"{lap}space {seat.track_position}"
        )
    out.append("")
    if len(sheet.winners) == 1:
        out.append(f"Winner: {printable(sheet.winners[0])}")
    else:
        out.append(f"Shared victory: {', '.join(printable(w) for w in sheet.winners)}")
    return "\n".join(out)

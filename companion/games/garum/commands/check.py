"""``companion check FILE``: replays a game record and names every rule broken.

Like a linter it exits 0 when every turn is legal and 1 when a turn broke a rule; input
that is not a game record exits 2 (through :class:`InputError`).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from companion.games.garum import Game, GameRecord, Verdict
from companion.games.garum.commands.record_files import read_record
from companion.printable import printable

VIOLATION_FOUND = 1


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check",
        help="replay a Garum game record and list every rule violation",
        description="Replays a game record turn by turn against the rules.",
    )
    parser.add_argument("file", metavar="FILE", help="game record (.jsonl)")
    parser.add_argument("--json", action="store_true", help="print the JSON document")
    parser.add_argument("--board", metavar="PROFILE", help="a board profile file to use instead")
    parser.set_defaults(handler=run)


def replay(record: GameRecord) -> list[Verdict]:
    """The verdict on every turn; an illegal turn's board is taken as played."""
    game = Game.new(record.setup)
    verdicts = []
    for state in record.states:
        verdict, game = game.play(state)
        verdicts.append(verdict)
    return verdicts


def run(args: argparse.Namespace) -> int:
    record = read_record(args.file, args.board)
    verdicts = replay(record)
    turns = [_turn_json(record, i, v) for i, v in enumerate(verdicts)]
    legal = all(v.legal for v in verdicts)
    status = 0 if legal else VIOLATION_FOUND
    if args.json:
        print(json.dumps({"turns": turns, "legal": legal}))
        return status
    names = {c: printable(s.name) for s in record.setup.seats for c in s.colours}
    for verdict, turn in zip(verdicts, turns, strict=True):
        who = names.get(turn["colour"], "ghost")
        head = (
            f"turn {turn['turn']:>2}  round {turn['round']:>2}  {turn['colour']} ({who})  "
            f"vat {turn['vat']}"
        )
        if verdict.legal:
            print(f"{head}: ok")
        for violation in verdict.violations:
            print(f"{head}: {violation.code.value}: {violation.message}")
            print(f"{'':>10}rule: {violation.rule}")
    total = len(record.setup.turn_plan)
    bad = sum(not v.legal for v in verdicts)
    state = "complete" if len(verdicts) == total else f"incomplete ({len(verdicts)} of {total})"
    print(
        f"\n{len(verdicts)} turns checked, game {state}: "
        + ("every turn legal" if legal else f"{bad} turn(s) broke a rule")
    )
    return status


def _turn_json(record: GameRecord, index: int, verdict: Verdict) -> dict[str, Any]:
    turn = verdict.turn
    vat = turn.vat
    if vat is None and verdict.placed_slot is not None:
        vat = verdict.placed_slot.vat
    return {
        "turn": turn.number,
        "round": turn.round,
        "colour": turn.colour,
        "vat": vat,
        "violations": verdict.codes,
    }

"""Real café messages to start from: one simulated table's log, published as a table would."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.cafe.simtable import SimulatedTable
from companion.cafe.snapshot import TableFold, event_message

SAMPLE_TABLE = "table-01"
SAMPLE_TURNS = 12


@dataclass(frozen=True)
class CafeStep:
    """One log event as the ``events`` message, and the ``state`` message after it."""

    event: dict[str, Any]
    state: dict[str, Any]


def cafe_steps(workdir: Path, seed: int) -> list[CafeStep]:
    table = SimulatedTable(workdir / "cafe-sample.db", seed=seed)
    try:
        for board in table.new_game()[:SAMPLE_TURNS]:
            table.show(board)
        fold = TableFold()
        steps = []
        for event in table.log.events():
            fold.apply(event)
            steps.append(
                CafeStep(
                    event_message(SAMPLE_TABLE, event),
                    fold.snapshot(SAMPLE_TABLE, f"http://{SAMPLE_TABLE}.local:5000/"),
                )
            )
        return steps
    finally:
        table.close()

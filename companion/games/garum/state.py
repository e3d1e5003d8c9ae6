"""The board-state interchange format: 256 fish cells and 32 worker spaces.

``cells`` is one 256-character string, row-major (``row * 16 + col``), each character one of
``B G Y R`` (a fish of that colour), ``.`` (no tile) or ``?`` (unreadable).  ``workers`` holds
32 entries, rows 0-15 then columns 0-15: ``None`` (empty), ``"?"`` (unreadable) or a colour
letter followed by ``v`` (vilicus) or ``d`` (dominus).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.errors import InputError

GRID = 16
CELL_CHARS = frozenset("BGYR.?")
WORKER_CODES = frozenset(c + k for c in "BGYR" for k in "vd")
VALID_WORKERS = WORKER_CODES | {"?"}  # what a worker space may hold besides null
EMPTY_CELLS = "." * (GRID * GRID)
NO_WORKERS: tuple[str | None, ...] = (None,) * (2 * GRID)


@dataclass(frozen=True, slots=True)
class BoardState:
    """What is on the board at one moment, as seen or as expected."""

    cells: str = EMPTY_CELLS
    workers: tuple[str | None, ...] = NO_WORKERS

    def cell(self, row: int, col: int) -> str:
        return self.cells[row * GRID + col]

    @property
    def rows(self) -> list[str]:
        return [self.cells[r * GRID : (r + 1) * GRID] for r in range(GRID)]

    @property
    def is_certain(self) -> bool:
        """False when any cell or worker space is unreadable."""
        return "?" not in self.cells and "?" not in self.workers

    def to_dict(self) -> dict[str, Any]:
        return {
            "cells": self.rows,
            "workers": {"rows": list(self.workers[:GRID]), "cols": list(self.workers[GRID:])},
        }

    @classmethod
    def from_dict(cls, data: Any, *, path: str = "") -> BoardState:
        """Validates a parsed board-state object; errors name the offending field."""

        def where(sub: str) -> str:
            return f"{path}.{sub}" if path else sub

        if not isinstance(data, dict):
            raise InputError(
                "expected a JSON object with 'cells' and 'workers'", field=path or None
            )
        if "cells" not in data:
            raise InputError("missing", field=where("cells"))
        rows = data["cells"]
        if not isinstance(rows, list) or len(rows) != GRID:
            raise InputError("expected a list of 16 strings", field=where("cells"))
        for r, row in enumerate(rows):
            if not isinstance(row, str) or len(row) != GRID:
                raise InputError("expected a string of 16 characters", field=where(f"cells[{r}]"))
            for c, ch in enumerate(row):
                if ch not in CELL_CHARS:
                    raise InputError(
                        f"character {ch!r} at column {c + 1} is not one of B G Y R . ?",
                        field=where(f"cells[{r}]"),
                    )
        workers_data = data.get("workers", {"rows": [None] * GRID, "cols": [None] * GRID})
        if not isinstance(workers_data, dict):
            raise InputError("expected an object with 'rows' and 'cols'", field=where("workers"))
        workers: list[str | None] = []
        for side in ("rows", "cols"):
            entries = workers_data.get(side)
            if not isinstance(entries, list) or len(entries) != GRID:
                raise InputError("expected a list of 16 entries", field=where(f"workers.{side}"))
            for i, entry in enumerate(entries):
                if entry is not None and not (isinstance(entry, str) and entry in VALID_WORKERS):
                    raise InputError(
                        f"expected null, '?' or a colour letter + v/d (like 'Gv'), got {entry!r}",
                        field=where(f"workers.{side}[{i}]"),
                    )
                workers.append(entry)
        return cls("".join(rows), tuple(workers))

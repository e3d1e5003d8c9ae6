"""The stable violation codes, and the verdict on one observed turn."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.games.garum.rules import Slot, Turn


class ViolationCode(StrEnum):
    """Codes shared by the checker, the dashboard and the log; never renamed."""

    WRONG_VAT = "wrong_vat"
    WRONG_COLOUR = "wrong_colour"
    EXTRA_TILE = "extra_tile"
    NO_TILE = "no_tile"
    TILE_CHANGED = "tile_changed"
    WORKER_OFF_LINE = "worker_off_line"
    WORKER_AREA_CLOSED = "worker_area_closed"
    EXTRA_WORKER = "extra_worker"
    WORKER_CHANGED = "worker_changed"
    WORKER_SUPPLY = "worker_supply"
    GHOST_WORKER = "ghost_worker"
    WORKER_WRONG_COLOUR = "worker_wrong_colour"


ORDER = {code: i for i, code in enumerate(ViolationCode)}

RULE_TEXT = {
    ViolationCode.WRONG_VAT: "A tile must go into the vat of the round's aureus.",
    ViolationCode.WRONG_COLOUR: (
        "Each colour places one of its own tiles: the tile's predominant colour must be "
        "the colour whose turn it is."
    ),
    ViolationCode.EXTRA_TILE: "Exactly one tile is placed per turn.",
    ViolationCode.NO_TILE: "Placing a tile is mandatory on every turn.",
    ViolationCode.TILE_CHANGED: "Tiles on the board never move, turn or leave.",
    ViolationCode.WORKER_OFF_LINE: (
        "A worker goes on a line that passes through the vat where the tile was placed."
    ),
    ViolationCode.WORKER_AREA_CLOSED: (
        "No worker may go on a line of an area whose other vats are already full."
    ),
    ViolationCode.EXTRA_WORKER: "At most one worker is placed per turn.",
    ViolationCode.WORKER_CHANGED: "Workers never move or leave once placed.",
    ViolationCode.WORKER_SUPPLY: "Each colour has only 5 vilicus and 1 dominus.",
    ViolationCode.GHOST_WORKER: "The ghost colour never places workers.",
    ViolationCode.WORKER_WRONG_COLOUR: "A colour may only place its own workers.",
}


@dataclass(frozen=True, slots=True)
class Violation:
    code: ViolationCode
    message: str  # plain words, naming the turn's colour, the vat or the line
    cells: tuple[int, ...] = ()
    lines: tuple[int, ...] = ()

    @property
    def rule(self) -> str:
        return RULE_TEXT[self.code]


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the rules say about one observed turn."""

    turn: Turn
    violations: tuple[Violation, ...]
    placed_slot: Slot | None  # the tile this turn placed (the best candidate if several)
    new_workers: tuple[int, ...]  # lines that gained a worker
    uncertain_cells: tuple[int, ...] = ()  # cells the observation could not read

    @property
    def legal(self) -> bool:
        return not self.violations

    @property
    def codes(self) -> list[str]:
        return [v.code.value for v in self.violations]

"""What the table session consumes, as small interfaces, so hardware and fakes plug in alike.

An observation source (a camera) and a button source each run in their own thread and only
hand items to the session's queue; the session thread alone decides and drives the lights.
What an observation is, and what the lights show, is the game's business
(:mod:`companion.games.table_seam`).
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import StrEnum
from typing import Protocol

from companion.games.table_seam import ButtonPress, LightsPicture

__all__ = ["ButtonPress", "ButtonRole", "ButtonSource", "LightsSink", "ObservationSource"]


class ObservationSource(Protocol):
    def readings(self) -> Iterator[object | None]:
        """Blocks for the next item; ``None`` means nothing stable (a hand over the board)."""
        ...

    def close(self) -> None: ...


class LightsSink(Protocol):
    def show(self, lights: LightsPicture) -> None: ...


class ButtonRole(StrEnum):
    """What the table's two buttons (and a vat press) ask of the game."""

    ACCEPT = "accept"  # accept the flagged move
    UNDO = "undo"  # take back the last accepted turn
    VAT = "vat"  # emperor variant: choose a vat (value = vat number)


class ButtonSource(Protocol):
    def presses(self) -> Iterator[ButtonPress]:
        """Blocks for the next press; ends when the buttons are closed."""
        ...

    def close(self) -> None: ...

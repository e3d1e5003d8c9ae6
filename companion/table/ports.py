"""What the table session consumes, as small interfaces, so hardware and fakes plug in alike.

A reading source and a button source each run in their own thread and only hand items to
the session's queue; the session thread alone decides and drives the lights.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from companion.games.garum.state import BoardState


@dataclass(frozen=True)
class Reading:
    """A stable reading of the board, with the camera frame (JPEG) kept as evidence."""

    state: BoardState
    jpeg: bytes | None = None


class ReadingSource(Protocol):
    def readings(self) -> Iterator[Reading | None]:
        """Blocks for the next item; ``None`` means no stable reading (a hand over the board)."""
        ...

    def close(self) -> None: ...


class LightStatus(StrEnum):
    IDLE = "idle"  # no game
    TURN = "turn"  # play on: the round's vat and the colour to play
    CHOOSE_VAT = "choose_vat"  # emperor variant: waiting for the holder's choice
    ILLEGAL = "illegal"  # a flagged move waits for the operator
    DESYNC = "desync"  # the board differs from what the rules expect
    ENDED = "ended"


@dataclass(frozen=True)
class TableLights:
    """What the LED device should show: the round's vat, whose turn, and the table status."""

    status: LightStatus
    vat: int | None = None
    colour: str | None = None
    seat: int | None = None  # the seat to play (None for the ghost colour)
    upcoming_vats: tuple[int, ...] = field(default=())  # haruspex: the whole order

    def to_dict(self) -> dict[str, object]:
        return {
            "status": self.status.value,
            "vat": self.vat,
            "colour": self.colour,
            "seat": self.seat,
            "upcoming_vats": list(self.upcoming_vats),
        }


class LightsSink(Protocol):
    def show(self, lights: TableLights) -> None: ...


class Button(StrEnum):
    ACCEPT = "accept"  # accept the flagged move
    UNDO = "undo"  # take back the last accepted turn
    VAT = "vat"  # emperor variant: choose a vat (value = vat number)


@dataclass(frozen=True)
class ButtonPress:
    button: Button
    value: int | None = None


class ButtonSource(Protocol):
    def presses(self) -> Iterator[ButtonPress]:
        """Blocks for the next press; ends when the buttons are closed."""
        ...

    def close(self) -> None: ...

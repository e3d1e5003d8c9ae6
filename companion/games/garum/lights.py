"""Garum on the LED device: the round's vat, the colour to play and the table's status."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from companion.link.lights import StatusLight
from companion.link.lights import TableLights as DevicePicture


class LightStatus(StrEnum):
    IDLE = "idle"  # no game
    TURN = "turn"  # play on: the round's vat and the colour to play
    CHOOSE_VAT = "choose_vat"  # emperor variant: waiting for the holder's choice
    ILLEGAL = "illegal"  # a flagged move waits for the operator
    DESYNC = "desync"  # the board differs from what the rules expect
    ENDED = "ended"


_ON_DEVICE = {
    LightStatus.IDLE: StatusLight.IDLE,
    LightStatus.TURN: StatusLight.OK,
    LightStatus.CHOOSE_VAT: StatusLight.OK,
    LightStatus.ILLEGAL: StatusLight.ILLEGAL,
    LightStatus.DESYNC: StatusLight.DESYNC,
    LightStatus.ENDED: StatusLight.IDLE,
}


@dataclass(frozen=True)
class TurnLights:
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

    def on_device(self) -> DevicePicture:
        """The picture in the device's terms: vat, seat to play and status."""
        return DevicePicture(vat=self.vat, seat=self.seat, status=_ON_DEVICE[self.status])

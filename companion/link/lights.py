"""What the table wants lit, as one immutable value the link sends whole."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from companion.errors import InputError
from companion.link import protocol

DICE_COLOURS: tuple[str, ...] = protocol.COLOURS[1:]
VAT_NUMBERS = range(1, 17)
SEATS = range(4)


class StatusLight(enum.Enum):
    """The status LED: how the table's checks stand."""

    IDLE = "idle"
    OK = "ok"
    DESYNC = "desync"
    ILLEGAL = "illegal"

    @property
    def code(self) -> int:
        return protocol.STATUS_NAMES.index(self.value)


@dataclass(frozen=True)
class TableLights:
    """The whole desired picture: vat (aureus 1-16), seat (0-3), dice colours, status.

    ``None`` leaves that LED dark. ``rolling`` animates the dice LEDs; the colours shown
    when it stops are the ones given in ``dice``.
    """

    vat: int | None = None
    seat: int | None = None
    dice: tuple[str | None, str | None] = (None, None)
    rolling: bool = False
    status: StatusLight = StatusLight.IDLE

    def __post_init__(self) -> None:
        if self.vat is not None and self.vat not in VAT_NUMBERS:
            raise InputError(f"vat {self.vat} is not a vat number 1-16", field="vat")
        if self.seat is not None and self.seat not in SEATS:
            raise InputError(f"seat {self.seat} is not a seat 0-3", field="seat")
        if len(self.dice) != 2:
            raise InputError("two dice colours are needed", field="dice")
        for index, colour in enumerate(self.dice):
            if colour is not None and colour not in DICE_COLOURS:
                raise InputError(
                    f"unknown colour {colour!r}; one of {', '.join(DICE_COLOURS)}",
                    field=f"dice.{index}",
                )
        if not isinstance(self.status, StatusLight):
            raise InputError(f"status {self.status!r} is not a StatusLight", field="status")

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form (for the dashboard and logs)."""
        return {
            "vat": self.vat,
            "seat": self.seat,
            "dice": list(self.dice),
            "rolling": self.rolling,
            "status": self.status.value,
        }

    def on_device(self) -> TableLights:
        """Already the device's picture (what a game's lights picture turns into)."""
        return self

    def to_payload(self) -> bytes:
        """The SET_STATE payload carrying this whole picture."""
        die1, die2 = (protocol.COLOURS.index(c or "off") for c in self.dice)
        payload: bytes = protocol.codec.encode_state(
            self.vat, self.seat, die1, die2, self.rolling, self.status.code
        )
        return payload

    @classmethod
    def from_payload(cls, payload: bytes) -> TableLights:
        """Decode a state payload (from a READ reply); ValueError when malformed."""
        vat, seat, die1, die2, rolling, status = protocol.codec.decode_state(payload)
        return cls(
            vat=vat,
            seat=seat,
            dice=(_colour(die1), _colour(die2)),
            rolling=rolling,
            status=StatusLight(protocol.STATUS_NAMES[status]),
        )


def _colour(code: int) -> str | None:
    return None if code == 0 else protocol.COLOURS[code]


class DeviceMode(enum.Enum):
    """What the LED device is doing, as it reports it (UNPLUGGED: emulator only)."""

    UNPLUGGED = "unplugged"
    WAITING = "waiting"  # powered or greeted, no state yet: status LED blue
    SHOWING = "showing"
    DISCONNECTED = "disconnected"  # heartbeat timeout: state dropped, status blinks red


_MODES = {
    protocol.MODE_WAITING: DeviceMode.WAITING,
    protocol.MODE_SHOWING: DeviceMode.SHOWING,
    protocol.MODE_DISCONNECTED: DeviceMode.DISCONNECTED,
}

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class LedReadout:
    """The device's own account of its LEDs (a READ reply)."""

    mode: DeviceMode
    lights: TableLights | None
    pixels: tuple[RGB, ...]

    def lit(self) -> dict[int, RGB]:
        """Chain index -> colour of every LED that is on."""
        return {i: rgb for i, rgb in enumerate(self.pixels) if any(rgb)}

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form: mode, picture and ``#rrggbb`` per LED in chain order."""
        return {
            "mode": self.mode.value,
            "lights": None if self.lights is None else self.lights.to_dict(),
            "pixels": ["#{:02x}{:02x}{:02x}".format(*rgb) for rgb in self.pixels],
        }

    @classmethod
    def from_payload(cls, payload: bytes) -> LedReadout:
        """Decode mode, has-state, state, LED count and pixels; ValueError if malformed."""
        if len(payload) < 9:
            raise ValueError(f"readout of {len(payload)} bytes is too short")
        count = payload[8]
        if len(payload) != 9 + 3 * count:
            raise ValueError(f"readout claims {count} LEDs but carries {len(payload) - 9} bytes")
        if payload[0] not in _MODES:
            raise ValueError(f"unknown device mode {payload[0]}")
        rgb = payload[9:]
        return cls(
            mode=_MODES[payload[0]],
            lights=TableLights.from_payload(payload[2:8]) if payload[1] else None,
            pixels=tuple((rgb[i], rgb[i + 1], rgb[i + 2]) for i in range(0, len(rgb), 3)),
        )

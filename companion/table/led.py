"""The table's lights on the LED device, through the serial link's host thread."""

from __future__ import annotations

from companion.link import HostLink, StatusLight
from companion.link import TableLights as DeviceLights
from companion.link.emulator import Emulator
from companion.table.ports import LightStatus, TableLights

_STATUS = {
    LightStatus.IDLE: StatusLight.IDLE,
    LightStatus.TURN: StatusLight.OK,
    LightStatus.CHOOSE_VAT: StatusLight.OK,
    LightStatus.ILLEGAL: StatusLight.ILLEGAL,
    LightStatus.DESYNC: StatusLight.DESYNC,
    LightStatus.ENDED: StatusLight.IDLE,
}


def device_lights(lights: TableLights) -> DeviceLights:
    """The session's picture in the device's terms: vat, seat to play and status."""
    return DeviceLights(vat=lights.vat, seat=lights.seat, status=_STATUS[lights.status])


class LinkLights:
    """A lights sink on a :class:`HostLink`; ``show`` returns at once, the link thread
    delivers, retries and re-sends after a replug."""

    def __init__(self, port: str | None = None, *, emulate: bool = False) -> None:
        self.emulator = Emulator().start() if emulate else None
        self.link = HostLink(self.emulator.port if self.emulator else port).start()

    def show(self, lights: TableLights) -> None:
        self.link.show(device_lights(lights))

    def close(self) -> None:
        self.link.stop()
        if self.emulator is not None:
            self.emulator.stop()

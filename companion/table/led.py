"""The table's lights on the LED device, through the serial link's host thread."""

from __future__ import annotations

from companion.games.table_seam import LightsPicture
from companion.link import HostLink
from companion.link.emulator import Emulator


class LinkLights:
    """A lights sink on a :class:`HostLink`; ``show`` returns at once, the link thread
    delivers, retries and re-sends after a replug."""

    def __init__(self, port: str | None = None, *, emulate: bool = False) -> None:
        self.emulator = Emulator().start() if emulate else None
        self.link = HostLink(self.emulator.port if self.emulator else port).start()

    def show(self, lights: LightsPicture) -> None:
        self.link.show(lights.on_device())

    def close(self) -> None:
        self.link.stop()
        if self.emulator is not None:
            self.emulator.stop()

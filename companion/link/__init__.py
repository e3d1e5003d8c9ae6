"""The serial link to the LED device: codec, transport, host thread and an emulator."""

from companion.link.host import DeviceInfo, HostLink, LinkCounters, LinkState
from companion.link.lights import StatusLight, TableLights

__all__ = [
    "DeviceInfo",
    "HostLink",
    "LinkCounters",
    "LinkState",
    "StatusLight",
    "TableLights",
]

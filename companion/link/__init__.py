"""The serial link to the LED device: codec, transport, host thread and an emulator."""

from companion.link.host import DeviceInfo, HostLink, LinkCounters, LinkState
from companion.link.lights import DeviceMode, LedReadout, StatusLight, TableLights

__all__ = [
    "DeviceInfo",
    "DeviceMode",
    "HostLink",
    "LedReadout",
    "LinkCounters",
    "LinkState",
    "StatusLight",
    "TableLights",
]

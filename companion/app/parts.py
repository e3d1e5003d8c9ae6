"""The table's hardware from its file: the LED device (or the terminal) and the GPIO buttons.

This is the only place that knows which concrete LED device and buttons are used; adding a
backend is one more case in :func:`make_lights` or :func:`make_buttons`.  What the buttons
mean, and how the LEDs are driven through a game, is the game's business.
"""

from __future__ import annotations

import sys

from companion.devices.buttons import Buttons, RPiGPIOPins
from companion.errors import InputError
from companion.games.live_seam import LiveGame
from companion.games.table_seam import LightsPicture
from companion.table.config import TableConfig
from companion.table.device_buttons import DeviceButtons
from companion.table.led import LinkLights
from companion.table.ports import ButtonSource, LightsSink


class PrintedLights:
    """Lights shown as a line on the terminal, for a table without the LED device."""

    def show(self, lights: LightsPicture) -> None:
        shown = lights.to_dict()
        words = [str(shown["status"])] if "status" in shown else []
        for key, value in shown.items():
            if key != "status" and isinstance(value, str | int) and not isinstance(value, bool):
                words.append(f"{key} {value}")
        print(f"lights: {' '.join(words)}", file=sys.stderr, flush=True)


class NoLights:
    def show(self, lights: LightsPicture) -> None:
        pass


def make_lights(config: TableConfig) -> LightsSink:
    kind = config.lights.kind
    if kind == "print":
        return PrintedLights()
    if kind in ("serial", "emulated"):
        port = config.lights.options.get("port")
        if port is not None and not isinstance(port, str):
            raise InputError(
                "expected a serial port path", source=config.source, field="lights.port"
            )
        return LinkLights(port, emulate=kind == "emulated")
    return NoLights()


def make_buttons(config: TableConfig, live: LiveGame) -> ButtonSource | None:
    if config.buttons.kind == "gpio":
        plan = live.buttons(config)
        return DeviceButtons(Buttons(RPiGPIOPins(), plan.pins), plan.meaning)
    return None

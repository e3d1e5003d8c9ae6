"""Physical buttons on the Pi's GPIO: the edge callback only enqueues a press."""

from __future__ import annotations

import queue
from collections.abc import Iterator
from typing import Any

from companion.errors import CompanionError
from companion.table.ports import Button, ButtonPress


class GpioButtons:
    """Buttons wired between a GPIO pin (BCM numbering) and ground, pulled up."""

    def __init__(self, pins: dict[Button, int], *, debounce_ms: int = 200) -> None:
        try:
            import RPi.GPIO as gpio  # type: ignore[import-not-found, unused-ignore]
        except ImportError as exc:
            raise CompanionError(
                "buttons kind 'gpio' needs RPi.GPIO: pip install 'companion[pi]' "
                "(on a Pi 5: 'companion[pi5]')"
            ) from exc
        self._gpio: Any = gpio
        self._queue: queue.Queue[ButtonPress | None] = queue.Queue()
        gpio.setmode(gpio.BCM)
        for button, pin in pins.items():
            gpio.setup(pin, gpio.IN, pull_up_down=gpio.PUD_UP)
            gpio.add_event_detect(
                pin,
                gpio.FALLING,
                callback=lambda _pin, b=button: self._queue.put(ButtonPress(b)),
                bouncetime=debounce_ms,
            )
        self._pins = list(pins.values())

    def presses(self) -> Iterator[ButtonPress]:
        while (item := self._queue.get()) is not None:
            yield item

    def close(self) -> None:
        for pin in self._pins:
            self._gpio.remove_event_detect(pin)
        self._gpio.cleanup(self._pins)
        self._queue.put(None)

"""A table's buttons: the debounced GPIO buttons of :mod:`companion.devices.buttons` as a
:class:`~companion.table.ports.ButtonSource`; the game says what each event means."""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterator

from companion.devices.buttons import ButtonEvent, Buttons
from companion.table.ports import ButtonPress


class DeviceButtons:
    """The presses the game's ``meaning`` makes of button events; an event that means
    nothing (a release, an unused button, a stuck one in most games) does nothing."""

    def __init__(
        self, buttons: Buttons, meaning: Callable[[ButtonEvent], ButtonPress | None]
    ) -> None:
        self.buttons = buttons
        self.meaning = meaning
        self._closed = False

    def presses(self) -> Iterator[ButtonPress]:
        self.buttons.start()
        while not self._closed:
            try:
                event = self.buttons.events.get(timeout=0.2)
            except queue.Empty:
                continue
            press = self.meaning(event)
            if press is not None:
                yield press

    def close(self) -> None:
        self._closed = True
        self.buttons.stop()

"""A camera table's buttons: the debounced GPIO buttons of :mod:`companion.devices.buttons`
as a :class:`~companion.table.ports.ButtonSource` (confirm accepts a flagged move)."""

from __future__ import annotations

import queue
from collections.abc import Iterator

from companion.devices.buttons import Button as DeviceButton
from companion.devices.buttons import ButtonAction, Buttons
from companion.table.ports import ButtonPress, ButtonRole

# What each physical button means at a table judged by its camera.
MEANING = {DeviceButton.CONFIRM: ButtonRole.ACCEPT, DeviceButton.UNDO: ButtonRole.UNDO}


class DeviceButtons:
    """Presses of the mapped buttons; a stuck button or an unused one does nothing."""

    def __init__(self, buttons: Buttons) -> None:
        self.buttons = buttons
        self._closed = False

    def presses(self) -> Iterator[ButtonPress]:
        self.buttons.start()
        while not self._closed:
            try:
                event = self.buttons.events.get(timeout=0.2)
            except queue.Empty:
                continue
            meaning = MEANING.get(event.button)
            if event.action is ButtonAction.PRESSED and meaning is not None:
                yield ButtonPress(meaning)

    def close(self) -> None:
        self._closed = True
        self.buttons.stop()

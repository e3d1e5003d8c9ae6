"""The Garum table's buttons through the debounced device buttons and a fake pin backend."""

from __future__ import annotations

import threading
import time

from companion.devices.buttons import Button as DeviceButton
from companion.devices.buttons import Buttons, FakePins
from companion.table.device_buttons import DeviceButtons
from companion.table.ports import ButtonPress, ButtonRole

PINS = {DeviceButton.CONFIRM: 17, DeviceButton.UNDO: 27, DeviceButton.NEW_GAME: 23}


def collect(source: DeviceButtons, out: list[ButtonPress]) -> threading.Thread:
    def run() -> None:
        for press in source.presses():
            out.append(press)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_confirm_accepts_undo_undoes_bounces_count_once_unused_buttons_do_nothing() -> None:
    pins = FakePins(PINS)
    source = DeviceButtons(Buttons(pins, PINS, debounce_s=0.02))
    presses: list[ButtonPress] = []
    thread = collect(source, presses)
    time.sleep(0.05)
    now = time.monotonic()
    pins.bounce(DeviceButton.CONFIRM, now, pressed=True, edges=5)
    time.sleep(0.1)
    pins.release(DeviceButton.CONFIRM)
    pins.press(DeviceButton.NEW_GAME)
    time.sleep(0.1)
    pins.release(DeviceButton.NEW_GAME)
    pins.press(DeviceButton.UNDO)
    time.sleep(0.1)
    pins.release(DeviceButton.UNDO)
    time.sleep(0.1)
    source.close()
    thread.join(timeout=2)
    assert presses == [ButtonPress(ButtonRole.ACCEPT), ButtonPress(ButtonRole.UNDO)]

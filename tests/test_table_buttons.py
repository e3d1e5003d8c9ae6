"""A table's GPIO buttons through the debounced device buttons and a fake pin backend: each
game says which buttons it has and what a press means."""

from __future__ import annotations

import queue
import threading
import time
from pathlib import Path

import pytest

from companion.devices.buttons import Button as DeviceButton
from companion.devices.buttons import ButtonEvent, Buttons, FakePins
from companion.errors import InputError
from companion.games import registry
from companion.games.live_seam import ButtonPlan, live_of
from companion.table.config import Backend, TableConfig
from companion.table.device_buttons import DeviceButtons
from companion.table.ports import ButtonPress, ButtonRole

PINS = {"accept_pin": 17, "undo_pin": 27}


def plan_of(game: str, tmp_path: Path, pins: dict[str, object] = PINS) -> ButtonPlan:
    config = TableConfig(str(tmp_path / "table.toml"), tmp_path, buttons=Backend("gpio", pins))
    return live_of(registry.game(game)).buttons(config)


def collect(source: DeviceButtons, out: list[ButtonPress]) -> threading.Thread:
    def run() -> None:
        for press in source.presses():
            out.append(press)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_confirm_accepts_undo_undoes_bounces_count_once_unused_buttons_do_nothing(
    tmp_path: Path,
) -> None:
    plan = plan_of(registry.DEFAULT_GAME, tmp_path)
    wired = {**plan.pins, DeviceButton.NEW_GAME: 23}  # a button the game does not use
    assert plan.pins == {DeviceButton.CONFIRM: 17, DeviceButton.UNDO: 27}
    pins = FakePins(wired)
    source = DeviceButtons(Buttons(pins, wired, debounce_s=0.02), plan.meaning)
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


def test_a_camera_table_without_its_pins_names_the_missing_key(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        plan_of(registry.DEFAULT_GAME, tmp_path, {"accept_pin": 17})
    assert caught.value.field == "buttons.undo_pin"
    assert caught.value.source == str(tmp_path / "table.toml")


def drained(events: queue.Queue[ButtonEvent]) -> list[ButtonEvent]:
    out = []
    while not events.empty():
        out.append(events.get_nowait())
    return out


def test_a_dice_table_presses_each_button_by_name_and_says_when_one_is_stuck(
    tmp_path: Path,
) -> None:
    plan = plan_of("ides", tmp_path, {})
    assert set(plan.pins) == {
        DeviceButton.CONFIRM,
        DeviceButton.ROLL,
        DeviceButton.NEXT,
        DeviceButton.PREVIOUS,
    }
    pins = FakePins(plan.pins)
    buttons = Buttons(pins, plan.pins, stuck_after_s=5.0).attach()
    pins.press(DeviceButton.NEXT, at_s=1.0)
    buttons.pump(1.1)
    pins.release(DeviceButton.NEXT, at_s=1.5)
    buttons.pump(1.6)
    pins.press(DeviceButton.ROLL, at_s=2.0)
    buttons.pump(2.1)
    buttons.pump(9.0)  # the roll button still held: a jammed switch
    presses = [plan.meaning(event) for event in drained(buttons.events)]
    assert [p for p in presses if p is not None] == [
        ButtonPress("next"),
        ButtonPress("roll"),
        ButtonPress("roll stuck"),
    ]

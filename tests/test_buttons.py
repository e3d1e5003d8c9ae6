"""Buttons through the fake pin backend: presses, bounce, glitches, a stuck switch."""

from __future__ import annotations

import queue
from pathlib import Path

import pytest

from companion.devices.buttons import (
    Button,
    ButtonAction,
    ButtonEvent,
    Buttons,
    FakePins,
    make_backend,
    on_raspberry_pi,
)
from companion.errors import CompanionError


@pytest.fixture
def pins() -> FakePins:
    return FakePins()


@pytest.fixture
def buttons(pins: FakePins) -> Buttons:
    return Buttons(pins, debounce_s=0.03, stuck_after_s=5.0, clock=lambda: 0.0).attach()


def drain(buttons: Buttons) -> list[tuple[Button, ButtonAction]]:
    out = []
    while True:
        try:
            event = buttons.events.get_nowait()
        except queue.Empty:
            return out
        out.append((event.button, event.action))


def test_a_clean_press_and_release(pins: FakePins, buttons: Buttons) -> None:
    pins.press(Button.CONFIRM, at_s=1.0)
    buttons.pump(1.01)
    assert drain(buttons) == []  # not settled yet
    buttons.pump(1.05)
    pins.release(Button.CONFIRM, at_s=1.2)
    buttons.pump(1.3)
    assert drain(buttons) == [
        (Button.CONFIRM, ButtonAction.PRESSED),
        (Button.CONFIRM, ButtonAction.RELEASED),
    ]


def test_bounce_is_one_press(pins: FakePins, buttons: Buttons) -> None:
    pins.bounce(Button.UNDO, 2.0, pressed=True)
    buttons.pump(2.005)
    buttons.pump(2.1)
    pins.bounce(Button.UNDO, 3.0, pressed=False)
    buttons.pump(3.1)
    assert drain(buttons) == [
        (Button.UNDO, ButtonAction.PRESSED),
        (Button.UNDO, ButtonAction.RELEASED),
    ]


def test_a_glitch_shorter_than_the_debounce_is_ignored(pins: FakePins, buttons: Buttons) -> None:
    pins.press(Button.ROLL, at_s=1.0)
    pins.release(Button.ROLL, at_s=1.004)
    buttons.pump(1.5)
    assert drain(buttons) == []


def test_stuck_button_is_reported_once(pins: FakePins, buttons: Buttons) -> None:
    pins.press(Button.NEW_GAME, at_s=0.0)
    for now in (0.1, 4.9, 5.0, 5.5, 9.0):
        buttons.pump(now)
    assert drain(buttons) == [
        (Button.NEW_GAME, ButtonAction.PRESSED),
        (Button.NEW_GAME, ButtonAction.STUCK),
    ]
    pins.release(Button.NEW_GAME, at_s=10.0)
    buttons.pump(10.1)
    assert drain(buttons) == [(Button.NEW_GAME, ButtonAction.RELEASED)]


def test_buttons_are_independent(pins: FakePins, buttons: Buttons) -> None:
    pins.press(Button.CONFIRM, at_s=1.0)
    pins.bounce(Button.ROLL, 1.0, pressed=True)
    buttons.pump(1.2)
    assert sorted(b.value for b, _ in drain(buttons)) == ["confirm", "roll"]


def test_thread_delivers_events_from_the_queue(pins: FakePins) -> None:
    with Buttons(pins, debounce_s=0.0) as live:
        pins.press(Button.CONFIRM)
        event = live.events.get(timeout=10)
    assert isinstance(event, ButtonEvent)
    assert (event.button, event.action) == (Button.CONFIRM, ButtonAction.PRESSED)


def test_backend_choice_is_explicit(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert isinstance(make_backend("fake"), FakePins)
    with pytest.raises(CompanionError, match="unknown buttons backend"):
        make_backend("gpiozero")
    monkeypatch.setenv("COMPANION_BUTTONS", "fake")
    assert isinstance(make_backend(), FakePins)
    model = tmp_path / "model"
    model.write_text("Raspberry Pi 5 Model B Rev 1.0\x00")
    assert on_raspberry_pi(model)
    assert not on_raspberry_pi(tmp_path / "missing")


def test_missing_gpio_module_fails_with_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "RPi", None)  # as on a Pi where nothing is installed
    monkeypatch.setitem(sys.modules, "RPi.GPIO", None)
    with pytest.raises(CompanionError, match="rpi-lgpio"):
        make_backend("rpigpio")


def test_an_unwatched_fake_cannot_be_pressed(pins: FakePins) -> None:
    with pytest.raises(CompanionError):
        pins.press(Button.CONFIRM)

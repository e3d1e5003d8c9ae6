"""The table's four buttons: confirm/next, undo, roll dice, new game.

GPIO edges arrive on the backend's own thread; its callback only enqueues them. One
owner (``Buttons.pump``, run by the buttons thread or by a test) debounces them,
notices a button held down for too long, and puts ``ButtonEvent`` values on
``Buttons.events`` for the table loop to take.

The backend is chosen once and loudly, in the spirit of a pin factory: ``rpigpio``
(RPi.GPIO on a Pi 1-4, rpi-lgpio on a Pi 5: same module name), or ``fake`` for tests and
machines without GPIO.
"""

from __future__ import annotations

import enum
import importlib
import os
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from companion.errors import CompanionError


class Button(enum.Enum):
    CONFIRM = "confirm"  # confirm the placement / next turn
    UNDO = "undo"
    ROLL = "roll"  # roll the dice, in a game that throws them
    NEW_GAME = "new_game"
    NEXT = "next"  # the next choice a game offers, in a game that offers several
    PREVIOUS = "previous"  # the previous offered choice


class ButtonAction(enum.Enum):
    PRESSED = "pressed"
    RELEASED = "released"
    STUCK = "stuck"  # held far longer than a press: a jammed switch or a shorted wire


@dataclass(frozen=True)
class ButtonEvent:
    button: Button
    action: ButtonAction
    at_s: float  # monotonic time of the edge (or of the stuck verdict)


# BCM numbers; each button closes its pin to ground (internal pull-up). hardware/wiring.md
DEFAULT_PINS: Mapping[Button, int] = {
    Button.CONFIRM: 17,
    Button.UNDO: 27,
    Button.ROLL: 22,
    Button.NEW_GAME: 23,
}

EdgeCallback = Callable[[int, bool, float], None]  # pin, pressed, monotonic time


class PinBackend(Protocol):
    """Reports edges on input pins; the only part that touches GPIO."""

    def watch(self, pins: Sequence[int], callback: EdgeCallback) -> None: ...

    def close(self) -> None: ...


class FakePins:
    """Buttons without hardware, driven by tests (and idle on machines without GPIO).

    Like real switches it can bounce and jam: ``bounce`` produces a burst of edges,
    ``press`` without ``release`` is a stuck button.
    """

    def __init__(self, pins: Mapping[Button, int] = DEFAULT_PINS) -> None:
        self._pins = dict(pins)
        self._callback: EdgeCallback | None = None

    def watch(self, pins: Sequence[int], callback: EdgeCallback) -> None:
        self._callback = callback

    def close(self) -> None:
        self._callback = None

    def _edge(self, button: Button, pressed: bool, at_s: float | None) -> None:
        if self._callback is None:
            raise CompanionError("the fake buttons are not being watched")
        self._callback(self._pins[button], pressed, time.monotonic() if at_s is None else at_s)

    def press(self, button: Button, at_s: float | None = None) -> None:
        self._edge(button, True, at_s)

    def release(self, button: Button, at_s: float | None = None) -> None:
        self._edge(button, False, at_s)

    def bounce(self, button: Button, at_s: float, *, pressed: bool, edges: int = 5) -> None:
        """A contact chattering for a few milliseconds, settling on ``pressed``."""
        level = not pressed
        for i in range(edges * 2 + 1):
            level = not level
            self._edge(button, level, at_s + i * 0.001)


class RPiGPIOPins:
    """RPi.GPIO, or rpi-lgpio on a Pi 5, which installs the same ``RPi.GPIO`` module."""

    def __init__(self) -> None:
        try:
            self._gpio: Any = importlib.import_module("RPi.GPIO")
        except (ImportError, RuntimeError) as exc:
            raise CompanionError(f"the buttons need RPi.GPIO: {exc}. {_INSTALL_HINT}") from exc
        self._pins: list[int] = []

    def watch(self, pins: Sequence[int], callback: EdgeCallback) -> None:
        gpio = self._gpio
        gpio.setmode(gpio.BCM)
        for pin in pins:
            gpio.setup(pin, gpio.IN, pull_up_down=gpio.PUD_UP)

            def on_edge(channel: int) -> None:
                callback(channel, gpio.input(channel) == gpio.LOW, time.monotonic())

            gpio.add_event_detect(pin, gpio.BOTH, callback=on_edge)
            self._pins.append(pin)

    def close(self) -> None:
        if self._pins:
            self._gpio.cleanup(self._pins)
            self._pins = []


_INSTALL_HINT = (
    "On a Raspberry Pi 1-4: `sudo apt install python3-rpi.gpio` (or pip install "
    "'companion[pi]'); on a Raspberry Pi 5: `pip uninstall RPi.GPIO; pip install rpi-lgpio` "
    "(or 'companion[pi5]'). Or set COMPANION_BUTTONS=fake to run without buttons."
)


def on_raspberry_pi(model_file: Path = Path("/proc/device-tree/model")) -> bool:
    try:
        return "Raspberry Pi" in model_file.read_text(errors="replace")
    except OSError:
        return False


def make_backend(name: str | None = None) -> PinBackend:
    """``rpigpio``, ``fake`` or ``auto`` (default, or ``$COMPANION_BUTTONS``).

    ``auto`` means RPi.GPIO on a Raspberry Pi, failing with the fix if it is missing,
    and the idle fake anywhere else (there are no buttons to read there).
    """
    choice = (name or os.environ.get("COMPANION_BUTTONS") or "auto").lower()
    if choice == "fake":
        return FakePins()
    if choice == "rpigpio":
        return RPiGPIOPins()
    if choice == "auto":
        return RPiGPIOPins() if on_raspberry_pi() else FakePins()
    raise CompanionError(f"unknown buttons backend {choice!r}: use auto, rpigpio or fake")


@dataclass
class _PinState:
    button: Button
    stable: bool = False  # debounced level: True while pressed
    raw: bool = False
    last_edge_s: float = 0.0
    pressed_since_s: float = 0.0
    stuck_reported: bool = False


class Buttons:
    """Debounced button events on ``events`` (a ``queue.Queue``), from any backend."""

    def __init__(
        self,
        backend: PinBackend,
        pins: Mapping[Button, int] = DEFAULT_PINS,
        *,
        debounce_s: float = 0.03,
        stuck_after_s: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.backend = backend
        self.debounce_s = debounce_s
        self.stuck_after_s = stuck_after_s
        self.events: queue.Queue[ButtonEvent] = queue.Queue()
        self._clock = clock
        self._pins = {pin: _PinState(button) for button, pin in pins.items()}
        self._edges: queue.SimpleQueue[tuple[int, bool, float]] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._attached = False

    def attach(self) -> Buttons:
        """Start receiving edges (without the pumping thread: the caller pumps)."""
        if not self._attached:
            self.backend.watch(sorted(self._pins), self._on_edge)
            self._attached = True
        return self

    def start(self, period_s: float = 0.01) -> Buttons:
        """Receive edges and pump them on a thread of our own."""
        self.attach()
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(
                target=self._run, args=(period_s,), name="buttons", daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._attached:
            self.backend.close()
            self._attached = False

    def __enter__(self) -> Buttons:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _on_edge(self, pin: int, pressed: bool, at_s: float) -> None:
        self._edges.put((pin, pressed, at_s))  # backend thread: enqueue, nothing else

    def _run(self, period_s: float) -> None:
        while not self._stop.wait(period_s):
            self.pump()

    def pump(self, now_s: float | None = None) -> None:
        """Apply queued edges; emit settled presses, releases and stuck buttons."""
        now = self._clock() if now_s is None else now_s
        while True:
            try:
                pin, pressed, at_s = self._edges.get_nowait()
            except queue.Empty:
                break
            state = self._pins.get(pin)
            if state is not None:
                state.raw = pressed
                state.last_edge_s = at_s
        for state in self._pins.values():
            self._settle(state, now)

    def _settle(self, state: _PinState, now: float) -> None:
        if state.raw != state.stable and now - state.last_edge_s >= self.debounce_s:
            state.stable = state.raw
            action = ButtonAction.PRESSED if state.stable else ButtonAction.RELEASED
            self.events.put(ButtonEvent(state.button, action, state.last_edge_s))
            state.pressed_since_s = state.last_edge_s
            state.stuck_reported = False
        held = now - state.pressed_since_s
        if state.stable and not state.stuck_reported and held >= self.stuck_after_s:
            state.stuck_reported = True
            self.events.put(ButtonEvent(state.button, ButtonAction.STUCK, now))

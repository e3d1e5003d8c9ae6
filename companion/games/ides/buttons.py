"""Playing The Ides of March with the table's buttons: roll, next, previous, confirm.

:func:`meaning` says what each button event presses at the table (a live table's buttons
use it through the game's live seam).

``Buttons`` debounces the GPIO edges and queues events; this driver takes them off that queue
(one thread, or a test calling :meth:`IdesButtons.handle_pending`) and hands each press to
the table, whose Ides match decides what it does (see
:meth:`companion.games.ides.referee.IdesMatch.press`).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Mapping

from companion.devices.buttons import Button, ButtonAction, ButtonEvent, Buttons
from companion.games.table_seam import ButtonPress

# BCM pins: confirm and roll as on a camera table; next and previous on two more buttons.
IDES_PINS: Mapping[Button, int] = {
    Button.CONFIRM: 17,
    Button.ROLL: 22,
    Button.NEXT: 24,
    Button.PREVIOUS: 25,
}


def meaning(event: ButtonEvent) -> ButtonPress | None:
    """Each button presses its own name; one held down too long says so once."""
    if event.action is ButtonAction.STUCK:
        return ButtonPress(f"{event.button.value} stuck")
    if event.action is not ButtonAction.PRESSED:
        return None
    return ButtonPress(event.button.value)


class IdesButtons:
    """Turns button events into presses at the table (``press`` returns what happened)."""

    def __init__(self, press: Callable[[ButtonPress], str], buttons: Buttons) -> None:
        self.press = press
        self.buttons = buttons
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def handle(self, event: ButtonEvent) -> str:
        """Acts on one event; returns what happened, in words (for logs and tests)."""
        press = meaning(event)
        if press is None:
            return "released"
        outcome = self.press(press)
        if event.action is ButtonAction.STUCK:
            return f"{event.button.value} is stuck: ignored until released"
        return outcome

    def handle_pending(self) -> list[str]:
        """Handles every queued event now (the caller pumps ``buttons`` first)."""
        out: list[str] = []
        while True:
            try:
                event = self.buttons.events.get_nowait()
            except queue.Empty:
                return out
            out.append(self.handle(event))

    def start(self) -> IdesButtons:
        self.buttons.start()
        self._thread = threading.Thread(target=self._run, name="ides-buttons", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                event = self.buttons.events.get(timeout=0.2)
            except queue.Empty:
                continue
            self.handle(event)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self.buttons.stop()

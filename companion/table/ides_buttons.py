"""Playing The Ides of March with the table's buttons: roll, next, previous, confirm.

``Buttons`` debounces the GPIO edges and queues events; this driver takes them off that queue
(one thread, or a test calling :meth:`IdesButtons.handle_pending`) and acts on the
:class:`IdesTable`.  *Roll* throws the die when a plain roll is offered; *next* and
*previous* move the highlighted choice among the offered ones (the dashboard shows it);
*confirm* applies it.  A press the rules cannot use is refused in words, like any refusal.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Mapping

from companion.devices.buttons import Button, ButtonAction, ButtonEvent, Buttons
from companion.games.ides import DiceMode, IllegalAction, Roll, Rule
from companion.table.ides_session import IdesTable

# BCM pins: confirm and roll as on the Garum table; next and previous on two more buttons.
IDES_PINS: Mapping[Button, int] = {
    Button.CONFIRM: 17,
    Button.ROLL: 22,
    Button.NEXT: 24,
    Button.PREVIOUS: 25,
}


class IdesButtons:
    """Turns button events into actions on ``table``."""

    def __init__(self, table: IdesTable, buttons: Buttons) -> None:
        self.table = table
        self.buttons = buttons
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def handle(self, event: ButtonEvent) -> str:
        """Acts on one event; returns what happened, in words (for logs and tests)."""
        if event.action is ButtonAction.STUCK:
            self.table.note_button(f"{event.button.value} stuck")
            return f"{event.button.value} is stuck: ignored until released"
        if event.action is not ButtonAction.PRESSED:
            return "released"
        self.table.note_button(event.button.value)
        try:
            return self._press(event.button)
        except IllegalAction as exc:
            return f"refused: {exc.message}"

    def _press(self, button: Button) -> str:
        table = self.table
        if button is Button.NEXT or button is Button.PREVIOUS:
            chosen = table.select(1 if button is Button.NEXT else -1)
            return "nothing to choose" if chosen is None else f"highlighted {chosen.KIND}"
        if button is Button.ROLL:
            rolls = [a for a in table.choices() if isinstance(a, Roll)]
            if len(rolls) != 1:
                why = (
                    "physical dice: pick the face the die shows with next and confirm"
                    if table.dice_mode is DiceMode.PHYSICAL
                    else "no roll is offered now: choose with next and confirm"
                )
                refusal = IllegalAction(Rule.WRONG_STEP, why)
                table.refuse(refusal)
                raise refusal
            applied = table.act(rolls[0], by="buttons")
            return f"rolled {applied.KIND}"
        if button is Button.CONFIRM:
            chosen = table.highlighted()
            if chosen is None:
                return "nothing to confirm"
            applied = table.act(chosen, by="buttons")
            return f"applied {applied.KIND}"
        return f"the {button.value} button is not used in an Ides game"

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

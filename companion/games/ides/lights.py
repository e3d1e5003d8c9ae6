"""The Ides game on the LED device: whose turn, and the two dice (a roll animates, then the face).

The first dice LED is the orange die, the second the purple die.  Each shows the last face
thrown on it until the dice pass to another player, so a red that ends a turn stays visible
while the next player starts.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

from companion.games.ides import Die, Game, RollRecord
from companion.link.lights import StatusLight, TableLights


class LightsOut(Protocol):
    """Anything that shows a ``TableLights`` picture: ``HostLink`` or a test recorder."""

    def show(self, lights: TableLights) -> None: ...


class Picture(Protocol):
    """A game's lights picture as the table hands it to a sink."""

    def on_device(self) -> TableLights: ...


def dice_faces(rolls: tuple[RollRecord, ...]) -> tuple[str | None, str | None]:
    """The (orange, purple) colours to show after ``rolls``: the latest throws of the player
    who holds the dice now; a new roller clears the other die."""
    faces: dict[Die, str | None] = {Die.ORANGE: None, Die.PURPLE: None}
    roller: int | None = None
    for record in rolls:
        if record.seat != roller:
            faces = {Die.ORANGE: None, Die.PURPLE: None}
            roller = record.seat
        faces[record.die] = record.face.value
    return faces[Die.ORANGE], faces[Die.PURPLE]


def picture(game: Game | None, *, refused: bool = False, rolling: bool = False) -> TableLights:
    """What the LEDs should show for ``game``: seat, dice, and ILLEGAL after a refusal."""
    if game is None:
        return TableLights(status=StatusLight.IDLE)
    if game.over:
        return TableLights(seat=game.winner, dice=dice_faces(game.rolls), status=StatusLight.IDLE)
    return TableLights(
        seat=game.current,
        dice=dice_faces(game.rolls),
        rolling=rolling,
        status=StatusLight.ILLEGAL if refused else StatusLight.OK,
    )


class DiceLights:
    """Sends pictures to the device; a rolling picture animates for ``roll_s`` seconds, then
    the faces show.

    ``on_settle`` is called (from a timer thread) when an animation ends, so the dashboard can
    show the face too.  A newer picture cancels a pending settle.  As the table's lights sink
    it raises ``OSError`` like the device it drives.
    """

    def __init__(
        self,
        out: LightsOut | None,
        *,
        roll_s: float = 0.8,
        on_settle: Callable[[TableLights], None] | None = None,
    ) -> None:
        self._out = out
        self.roll_s = roll_s
        self._on_settle = on_settle
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self.shown: TableLights | None = None
        self.error: str | None = None

    def show(self, picture: Picture) -> None:
        """Shows ``picture`` (a rolling one animates first, then settles on its faces)."""
        lights = picture.on_device()
        with self._lock:
            self._cancel()
            if not lights.rolling:
                self._send(lights)
            elif self.roll_s > 0:
                self._send(lights)
                still = TableLights(lights.vat, lights.seat, lights.dice, status=lights.status)
                self._timer = threading.Timer(self.roll_s, self._settle, args=(still,))
                self._timer.daemon = True
                self._timer.start()
                return
        if lights.rolling:  # no animation: the faces at once
            self._settle_now(
                TableLights(lights.vat, lights.seat, lights.dice, status=lights.status)
            )
        if self.error is not None:
            raise OSError(self.error)

    def _settle_now(self, lights: TableLights) -> None:
        with self._lock:
            self._send(lights)
        if self._on_settle is not None:
            self._on_settle(lights)

    def _settle(self, lights: TableLights) -> None:
        with self._lock:
            if self._timer is None or threading.current_thread() is not self._timer:
                return
            self._timer = None
            self._send(lights)
        if self._on_settle is not None:
            self._on_settle(lights)

    def _send(self, lights: TableLights) -> None:
        self.shown = lights
        if self._out is None:
            return
        try:
            self._out.show(lights)
            self.error = None
        except OSError as exc:  # the game plays on without its LEDs; the next picture retries
            self.error = str(exc)

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def close(self) -> None:
        with self._lock:
            self._cancel()

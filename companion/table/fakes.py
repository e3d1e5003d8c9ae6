"""Stand-ins for the table's hardware, shipped in the package so demos and tests use the
same parts; each can fail the way the real one does (unplugged, stuck)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator

from companion.games.table_seam import ButtonPress, LightsPicture


class ScriptedReadings:
    """Plays a list of readings (``None`` = a hand over the board), then waits or ends."""

    def __init__(self, items: Iterable[object | None], *, gap_s: float = 0.0) -> None:
        self._items = list(items)
        self._gap_s = gap_s
        self._closed = threading.Event()
        self.fail_at_end: Exception | None = None  # e.g. OSError: the camera was pulled out

    def readings(self) -> Iterator[object | None]:
        for item in self._items:
            if self._closed.wait(self._gap_s) if self._gap_s else self._closed.is_set():
                return
            yield item
        if self.fail_at_end is not None:
            raise self.fail_at_end

    def unplug(self) -> None:
        """The camera goes away: the stream ends."""
        self._closed.set()

    close = unplug


class RecordingLights:
    """Remembers what it was asked to show; ``unplugged`` makes it fail like a lost link."""

    def __init__(self) -> None:
        self.shown: list[LightsPicture] = []
        self.unplugged = False

    def show(self, lights: LightsPicture) -> None:
        if self.unplugged:
            raise OSError("the LED device is not connected")
        self.shown.append(lights)

    @property
    def last(self) -> LightsPicture | None:
        return self.shown[-1] if self.shown else None


class QueueButtons:
    """Buttons pressed from code; a stuck button repeats its press."""

    def __init__(self) -> None:
        self._queue: queue.Queue[ButtonPress | None] = queue.Queue()

    def press(self, press: ButtonPress, *, times: int = 1) -> None:
        for _ in range(times):
            self._queue.put(press)

    def presses(self) -> Iterator[ButtonPress]:
        while True:
            item = self._queue.get()
            if item is None:
                return
            yield item

    def close(self) -> None:
        self._queue.put(None)

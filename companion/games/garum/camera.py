"""Camera frames to stable readings: recognise each frame, pass only still, unoccluded views.

Runs in the reading pump's thread, so recognition never blocks the session, the LEDs or the
dashboard; the frame rate is capped so a fast camera cannot starve the other threads.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import cv2

from companion.boards.profile import BoardProfile
from companion.games.garum.sighting import Sighting
from companion.vision.reader import BoardReader
from companion.vision.sources import FrameSource
from companion.vision.stability import StabilityGate


class CameraReadings:
    """A :class:`~companion.table.ports.ObservationSource` over any camera of
    :mod:`companion.vision.sources`; each accepted reading carries its frame as JPEG."""

    def __init__(
        self,
        source: FrameSource,
        profile: BoardProfile,
        *,
        still_s: float = 0.5,
        max_fps: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._source = source
        self._reader = BoardReader(profile)
        self._still_s = still_s
        self._gate = StabilityGate(still_s=still_s)
        self._next_board: BoardProfile | None = None
        self._period_s = 1.0 / max_fps
        self._clock = clock
        self._closed = False

    def readings(self) -> Iterator[Sighting | None]:
        next_s = self._clock()
        for frame in self._source.frames():
            if self._closed:
                return
            if self._next_board is not None:
                self._reader = BoardReader(self._next_board)
                self._gate = StabilityGate(still_s=self._still_s)
                self._next_board = None
            seen = self._reader.read(frame)
            accepted = self._gate.update(frame, seen, self._clock())
            if accepted is not None:
                ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
                yield Sighting(accepted, bytes(jpeg) if ok else None, seen.glare)
            elif seen.occluded or seen.state is None:
                yield None
            next_s += self._period_s
            pause = next_s - self._clock()
            if pause > 0:
                time.sleep(pause)
            else:
                next_s = self._clock()

    def use_board(self, profile: BoardProfile) -> None:
        """Reads another board from the next frame on (a new game on another board)."""
        self._next_board = profile

    @property
    def source(self) -> FrameSource:
        return self._source

    def close(self) -> None:
        self._closed = True
        self._source.close()

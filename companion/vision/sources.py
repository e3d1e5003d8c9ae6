"""Frame sources: everything that yields BGR frames, behind one small interface.

``FrameSource.frames()`` yields ``numpy`` BGR images; ``close()`` releases the device.  A
source that loses its device raises :class:`SourceError` (a camera unplugged mid-game is a
failure to report, not a reason to hang).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.boards import BoardProfile
from companion.errors import CompanionError, InputError
from companion.games.garum.state import BoardState
from companion.input_files import read_bytes
from companion.limits import MAX_IMAGE_FILE_BYTES
from companion.vision.image_header import HeaderError, check_image_size, image_size
from companion.vision.render import Camera, Shot, random_camera, render

Frame = NDArray[np.uint8]
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov", ".mjpeg")
# The frame size (width, height) a real camera is asked for unless told otherwise: a 4:3
# mode every Pi camera and most webcams give.
DEFAULT_FRAME_SIZE = (1280, 960)


class SourceError(CompanionError):
    """The camera or file stopped delivering frames."""


class FrameSource(Protocol):
    def frames(self) -> Iterator[Frame]: ...

    def close(self) -> None: ...


class ImageSource:
    """One image file, a folder of images (sorted by name) or a video file, for replay."""

    def __init__(self, path: str | Path, loop: bool = False) -> None:
        self.path = Path(path)
        self.loop = loop
        if not self.path.exists():
            raise InputError("no such file or folder", source=str(self.path))

    def _files(self) -> list[Path]:
        if self.path.is_dir():
            files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not files:
                raise InputError("folder holds no images", source=str(self.path))
            return files
        return [self.path]

    def frames(self) -> Iterator[Frame]:
        while True:
            if self.path.suffix.lower() in VIDEO_SUFFIXES:
                yield from _video_frames(cv2.VideoCapture(str(self.path)), str(self.path))
            else:
                for file in self._files():
                    yield read_image(file)
            if not self.loop:
                return

    def close(self) -> None:
        return None


def read_image(path: str | Path) -> Frame:
    """A BGR image from a file, or :class:`InputError` saying why not.

    The size the header declares is checked before decoding, and the bytes decoded are the
    ones checked (the file is read once)."""
    source = str(path)
    data = read_bytes(path, MAX_IMAGE_FILE_BYTES)
    try:
        width, height = image_size(data)
    except HeaderError as exc:
        raise InputError(str(exc), source=source) from None
    check_image_size(width, height, source)
    try:
        image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    except cv2.error:
        image = None
    if image is None:
        raise InputError("not a readable image (damaged pixel data)", source=source)
    check_image_size(image.shape[1], image.shape[0], source)
    return np.asarray(image, dtype=np.uint8)


def _video_frames(capture: Any, name: str) -> Iterator[Frame]:
    if not capture.isOpened():
        raise SourceError(f"{name}: cannot open")
    try:
        while True:
            ok, frame = capture.read()
            if not ok:
                return
            yield np.asarray(frame, dtype=np.uint8)
    finally:
        capture.release()


class OpenCVCamera:
    """A USB webcam through ``cv2.VideoCapture``."""

    def __init__(
        self,
        index: int = 0,
        width: int = DEFAULT_FRAME_SIZE[0],
        height: int = DEFAULT_FRAME_SIZE[1],
    ) -> None:
        self.capture = cv2.VideoCapture(index)
        if not self.capture.isOpened():
            raise SourceError(f"camera {index}: cannot open (is it plugged in?)")
        self.capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        self.capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self.index = index

    def frames(self) -> Iterator[Frame]:
        while True:
            ok, frame = self.capture.read()
            if not ok:
                raise SourceError(f"camera {self.index}: stopped delivering frames")
            yield np.asarray(frame, dtype=np.uint8)

    def close(self) -> None:
        self.capture.release()


class PiCamera:
    """The Raspberry Pi camera through picamera2; exposure and white balance are locked
    after a settling time so the colours of the board do not drift during a game."""

    def __init__(
        self,
        width: int = DEFAULT_FRAME_SIZE[0],
        height: int = DEFAULT_FRAME_SIZE[1],
        settle_s: float = 2.0,
    ) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise SourceError(
                "picamera2 is not installed: on Raspberry Pi OS run "
                "'sudo apt install python3-picamera2' (or use --camera opencv)"
            ) from exc
        self.camera = Picamera2()
        config = self.camera.create_video_configuration(
            main={"size": (width, height), "format": "BGR888"}
        )
        self.camera.configure(config)
        self.camera.start()
        time.sleep(settle_s)
        metadata = self.camera.capture_metadata()
        self.camera.set_controls(
            {
                "AeEnable": False,
                "AwbEnable": False,
                "ExposureTime": metadata["ExposureTime"],
                "AnalogueGain": metadata["AnalogueGain"],
                "ColourGains": metadata["ColourGains"],
            }
        )

    def frames(self) -> Iterator[Frame]:
        while True:
            # picamera2's "BGR888" is stored B, G, R in memory order on little-endian.
            yield np.asarray(self.camera.capture_array("main")[..., :3], dtype=np.uint8)

    def close(self) -> None:
        self.camera.stop()
        self.camera.close()


class SyntheticCamera:
    """A fake camera over a simulated board: renders whatever state it is given.

    The pose, light and noise are fixed for the camera's life (chosen from ``seed``), so
    frames change only when the board does.  ``state`` and ``hand`` can be changed between
    frames; ``unplugged`` makes the next frame fail like a camera pulled out of its socket.
    """

    def __init__(
        self,
        profile: BoardProfile,
        state: BoardState | None = None,
        seed: int = 0,
        width: int = 1280,
        height: int = 960,
    ) -> None:
        self.profile = profile
        self.state = state or BoardState()
        self.hand = False
        self.unplugged = False
        self.seed = seed
        self.width, self.height = width, height
        self.camera: Camera = random_camera(
            profile, Shot(seed, width, height), np.random.default_rng(seed)
        )
        self._frame_no = 0

    def frame(self) -> Frame:
        if self.unplugged:
            raise SourceError("synthetic camera: unplugged")
        self._frame_no += 1
        shot = Shot(self.seed, self.width, self.height, hand=self.hand)
        return render(self.profile, self.state, shot, camera=self.camera).image

    def frames(self) -> Iterator[Frame]:
        while True:
            yield self.frame()

    def close(self) -> None:
        return None

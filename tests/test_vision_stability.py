"""The stability gate and the frame sources, driven by the synthetic camera."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.boards import load_profile
from companion.errors import InputError
from companion.games.garum.state import BoardState
from companion.vision.reader import BoardReader
from companion.vision.render import random_state
from companion.vision.sources import ImageSource, SourceError, SyntheticCamera
from companion.vision.stability import StabilityGate

PROFILE = load_profile("troia")


def _run(camera: SyntheticCamera, reader: BoardReader, gate: StabilityGate, times: list[float]):  # type: ignore[no-untyped-def]
    results = []
    frame = camera.frame()
    reading = reader.read(frame)
    for now in times:
        results.append(gate.update(frame, reading, now))
    return results


def test_reading_accepted_only_after_the_view_is_still() -> None:
    state = random_state(PROFILE, np.random.default_rng(4))
    camera = SyntheticCamera(PROFILE, state, seed=8)
    reader = BoardReader(PROFILE)
    gate = StabilityGate(still_s=0.5)
    results = _run(camera, reader, gate, [0.0, 0.1, 0.3, 0.45, 0.55, 0.7])
    assert results[:4] == [None] * 4
    accepted = results[4]
    assert accepted is not None and accepted == gate.accepted
    assert results[5] is None  # unchanged: nothing new to report
    # The camera still reads this board as it was placed.
    assert all(a in ("?", b) for a, b in zip(accepted.cells, state.cells, strict=True))


def test_hand_over_the_board_yields_no_reading() -> None:
    state = random_state(PROFILE, np.random.default_rng(5))
    camera = SyntheticCamera(PROFILE, state, seed=9)
    camera.hand = True
    reader = BoardReader(PROFILE)
    frame = camera.frame()
    reading = reader.read(frame)
    assert reading.state is None or reading.occluded
    gate = StabilityGate(still_s=0.2)
    assert [gate.update(frame, reading, t) for t in (0.0, 0.5, 1.0, 2.0)] == [None] * 4


def test_motion_resets_the_wait() -> None:
    camera = SyntheticCamera(PROFILE, BoardState(), seed=3)
    reader = BoardReader(PROFILE)
    gate = StabilityGate(still_s=0.5)
    still = camera.frame()
    reading = reader.read(still)
    moved = np.roll(still, 40, axis=1)  # the whole picture shifted: motion
    assert gate.update(still, reading, 0.0) is None
    assert gate.update(still, reading, 0.4) is None
    assert gate.update(moved, reading, 0.6) is None
    # Stillness is counted from the first frame that matches the one before it.
    assert gate.update(moved, reading, 0.8) is None
    assert gate.update(moved, reading, 1.2) is None
    assert gate.update(moved, reading, 1.35) is not None


def test_synthetic_camera_unplugged_fails_like_hardware() -> None:
    camera = SyntheticCamera(PROFILE, seed=1, width=640, height=480)
    assert camera.frame().shape == (480, 640, 3)
    camera.unplugged = True
    with pytest.raises(SourceError):
        camera.frame()


def test_image_folder_replays_in_name_order(tmp_path: Path) -> None:
    for name, value in (("b.png", 20), ("a.png", 10), ("c.jpg", 30)):
        # 64 x 64: the smallest photo read_image accepts (limits.MIN_IMAGE_SIDE_PX).
        cv2.imwrite(str(tmp_path / name), np.full((64, 64, 3), value, np.uint8))
    (tmp_path / "notes.txt").write_text("not an image")
    frames = list(ImageSource(tmp_path).frames())
    assert [int(f[0, 0, 0]) for f in frames] == [10, 20, 30]
    with pytest.raises(InputError, match="no such file"):
        ImageSource(tmp_path / "absent")

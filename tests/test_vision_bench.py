"""``companion bench vision --frames DIR``: a folder of photos scored like generated frames."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.boards import load_profile
from companion.cli import main
from companion.vision.bench import _generated
from companion.vision.conditions import SENSOR_MODES_PX
from companion.vision.naive_reader import NaiveReader
from companion.vision.render import Shot, random_state, render, shot_for

PROFILE = load_profile("troia")


def _folder(tmp_path: Path, seeds: tuple[int, ...], lie_about: int | None = None) -> Path:
    for seed in seeds:
        truth = random_state(PROFILE, np.random.default_rng(seed))
        photo = render(PROFILE, truth, Shot(seed, max_tilt_deg=15.0))
        cv2.imwrite(str(tmp_path / f"img{seed}.jpg"), photo.image, [cv2.IMWRITE_JPEG_QUALITY, 95])
        data = truth.to_dict()
        if seed == lie_about:  # the truth file says one tile is another colour
            row = data["cells"][next(r for r, text in enumerate(data["cells"]) if "B" in text)]
            fixed = row.replace("B", "R", 1)
            data["cells"] = [fixed if text == row else text for text in data["cells"]]
        (tmp_path / f"img{seed}.json").write_text(json.dumps({**data, "occluded": False}))
    return tmp_path


def test_a_folder_of_photos_is_scored_with_every_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path, (103, 102), lie_about=102)
    assert main(["bench", "vision", "--frames", str(folder), "--list"]) == 0
    out = capsys.readouterr().out
    assert "frames                         2 from" in out
    # The frame whose truth disagrees with what it shows is listed, and counted as wrong.
    assert "img102.jpg: cells 1 wrong" in out
    assert "boards exact                   50.000 %" in out
    assert "times the naive reader" in out
    # Generated frames and the reader's arithmetic depend on these: the figures name them.
    assert f"OpenCV {cv2.__version__}, numpy {np.__version__}" in out


def test_a_folder_without_truth_files_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "lonely.jpg").write_bytes(b"not even an image")
    assert main(["bench", "vision", "--frames", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no image with a NAME.json truth file" in err[0]


def test_the_naive_reader_reads_a_clear_board_and_gives_up_without_markers() -> None:
    truth = random_state(PROFILE, np.random.default_rng(7))
    photo = render(PROFILE, truth, Shot(7, max_tilt_deg=15.0))
    cells = NaiveReader(PROFILE).read(photo.image)
    assert cells is not None and len(cells) == 256
    # No confidence and no glare handling, but most cells of a clear view come out right.
    assert sum(a == b for a, b in zip(cells, truth.cells, strict=True)) > 200
    assert NaiveReader(PROFILE).read(np.full((480, 640, 3), 128, np.uint8)) is None


def test_each_reader_is_timed_as_often_as_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--repeat N`` reads every frame N times with each reader (the fastest time counts),
    while each frame is still scored once."""
    import companion.vision.bench as bench

    reads = {"ours": 0, "naive": 0}

    class CountedReader(bench.BoardReader):
        def read(self, frame_bgr):  # type: ignore[no-untyped-def]
            reads["ours"] += 1
            return super().read(frame_bgr)

    class CountedNaive(bench.NaiveReader):
        def read(self, frame_bgr):  # type: ignore[no-untyped-def]
            reads["naive"] += 1
            return super().read(frame_bgr)

    monkeypatch.setattr(bench, "BoardReader", CountedReader)
    monkeypatch.setattr(bench, "NaiveReader", CountedNaive)
    folder = _folder(tmp_path, (103, 104))
    assert main(["bench", "vision", "--frames", str(folder), "--repeat", "3"]) == 0
    assert reads == {"ours": 6, "naive": 6}
    assert "frames                         2 from" in capsys.readouterr().out
    assert main(["bench", "vision", "--frames", str(folder), "--repeat", "0"]) == 2


def test_a_sensor_mode_sets_every_generated_frame_and_keeps_each_table() -> None:
    seed = 60_001
    shot = shot_for(seed, False, True)
    mode = next(m for m in SENSOR_MODES_PX if m != (shot.width, shot.height))
    drawn = next(_generated(PROFILE, 1, seed, 0, True))
    forced = next(_generated(PROFILE, 1, seed, 0, True, mode))
    assert forced.image.shape[:2] == (mode[1], mode[0]) != drawn.image.shape[:2]
    assert forced.truth == drawn.truth  # the same board, in another mode


def test_a_sensor_mode_is_one_of_the_pi_cameras_and_needs_generated_conditions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["bench", "vision", "--conditions", "--sensor-mode", "1280x721"])
    assert "not one of 1280x720" in capsys.readouterr().err
    assert main(["bench", "vision", "--frames", "2", "--sensor-mode", "1280x720"]) == 2
    assert "--sensor-mode: only sets the mode" in capsys.readouterr().err

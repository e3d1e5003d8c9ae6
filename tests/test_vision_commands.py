"""The vision commands end to end: recognize, calibrate, markers."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from vision_helpers import confident_wrong_cells

from companion.boards import load_profile
from companion.cli import main
from companion.games.garum.state import BoardState
from companion.vision.colour import ColourModel
from companion.vision.markers import png_dpi
from companion.vision.reader import BoardReader
from companion.vision.render import Shot, random_state, render

PROFILE = load_profile("troia")


@pytest.fixture(scope="module")
def board_photo(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    truth = random_state(PROFILE, np.random.default_rng(42))
    photo = render(PROFILE, truth, Shot(42))
    path = tmp_path_factory.mktemp("photos") / "board.jpg"
    assert cv2.imwrite(str(path), photo.image)
    return path, truth


def test_recognize_json_lines_and_error_lines(
    board_photo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    path, truth = board_photo
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 200, np.uint8))
    missing = tmp_path / "missing.jpg"
    status = main(["recognize", str(path), str(blank), str(missing), str(path), "--json"])
    lines = capsys.readouterr().out.splitlines()
    assert status == 1
    assert len(lines) == 4
    first, second, third, fourth = (json.loads(line) for line in lines)
    state = BoardState.from_dict(first)
    assert confident_wrong_cells(state, truth) == []
    assert set(second) == {"error"} and "board not found" in second["error"]
    assert set(third) == {"error"} and "no such file" in third["error"]
    assert "\n" not in second["error"]
    assert BoardState.from_dict(fourth) == state  # order kept, each image read alone


def test_recognize_all_good_exits_zero(board_photo, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    path, _ = board_photo
    assert main(["recognize", str(path), "--json"]) == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) == 1


def test_recognize_text_grid(board_photo, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    path, _ = board_photo
    assert main(["recognize", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == str(path)
    assert len(lines) == 2 + 16


def test_recognize_with_unknown_board_profile(
    board_photo, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    path, _ = board_photo
    assert main(["recognize", str(path), "--board", "/nonexistent/profile.json"]) == 2
    assert "no such board profile" in capsys.readouterr().err


def test_calibration_round_trip(
    board_photo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    path, truth = board_photo
    out = tmp_path / "troia-calibrated.json"
    assert main(["calibrate", str(path), "--out", str(out)]) == 0
    profile = load_profile(out)
    assert profile.calibration is not None
    model = ColourModel.from_profile(profile)
    default = ColourModel.from_profile(PROFILE)
    assert model != default  # measured, not copied
    assert set(model.species_ab) == set("BGYR")
    # The calibrated profile reads the same board with no confident error.
    reading = BoardReader(profile).read(cv2.imread(str(path)))
    assert reading.state is not None
    assert confident_wrong_cells(reading.state, truth) == []
    capsys.readouterr()
    assert main(["recognize", str(path), "--json", "--board", str(out)]) == 0


def test_calibrate_without_a_board_fails_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 200, np.uint8))
    assert main(["calibrate", str(blank), "--out", str(tmp_path / "x.json")]) == 1
    assert "board not found" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_marker_sheet_at_true_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "markers.png"
    assert main(["markers", "--out", str(out), "--dpi", "150"]) == 0
    sheet = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
    expected_px = round(440 / 25.4 * 150)
    assert sheet.shape == (expected_px, expected_px)
    dpi = png_dpi(out)
    assert dpi is not None and abs(dpi - 150) < 0.1
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), cv2.aruco.DetectorParameters()
    )
    corners, ids, _ = detector.detectMarkers(sheet)
    assert sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    for quad, mid in zip(corners, ids.ravel(), strict=True):
        side_mm = float(np.linalg.norm(quad[0][0] - quad[0][1])) / 150 * 25.4
        assert abs(side_mm - 32) < 0.5
        centre_mm = quad[0].mean(axis=0) / 150 * 25.4
        assert np.allclose(centre_mm, PROFILE.markers.centres_mm[int(mid)], atol=0.5)


def test_marker_sheet_refuses_other_formats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["markers", "--out", str(tmp_path / "m.jpg")]) == 2
    assert ".png" in capsys.readouterr().err

"""The printable marker PDF, rendered by poppler's pdftoppm as a printer driver would and
measured with OpenCV: page size, marker size, ids, placement and the 10 cm ruler."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from companion.boards import load_profile
from companion.cli import main

DPI = 300
PX_PER_MM = DPI / 25.4
PAPERS_PT = {"a4": (595.276, 841.89), "letter": (612.0, 792.0)}
PROFILE = load_profile("troia")


def media_boxes(pdf: bytes) -> list[tuple[float, ...]]:
    found = re.findall(rb"/MediaBox\s*\[([^\]]*)\]", pdf)
    return [tuple(float(v) for v in box.split()) for box in found]


def render(pdf: Path, tmp_path: Path) -> list[NDArray[np.uint8]]:
    subprocess.run(
        ["pdftoppm", "-r", str(DPI), "-gray", "-png", str(pdf), str(tmp_path / "page")],
        check=True,
        timeout=120,
    )
    return [cv2.imread(str(p), cv2.IMREAD_GRAYSCALE) for p in sorted(tmp_path.glob("page*.png"))]


def longest_dark_run(row: NDArray[np.bool_]) -> tuple[int, int]:
    """(length, start) of the longest run of True in ``row``."""
    padded = np.concatenate(([False], row, [False])).astype(np.int8)
    edges = np.flatnonzero(np.diff(padded))
    starts, ends = edges[::2], edges[1::2]
    if not len(starts):
        return 0, 0
    best = int(np.argmax(ends - starts))
    return int(ends[best] - starts[best]), int(starts[best])


def first_dark(line: NDArray[np.bool_]) -> int:
    return int(np.flatnonzero(line)[0])


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_pdf_prints_the_markers_at_true_size(
    tmp_path: Path, paper: str, capsys: pytest.CaptureFixture[str]
) -> None:
    pdf = tmp_path / "markers.pdf"
    assert main(["markers", "--out", str(pdf), "--paper", paper]) == 0
    assert "100 %" in capsys.readouterr().out
    boxes = media_boxes(pdf.read_bytes())
    assert boxes
    width_pt, height_pt = PAPERS_PT[paper]
    for x0, y0, x1, y1 in boxes:
        assert (x0, y0) == (0, 0) and x1 <= width_pt + 0.01 and y1 <= height_pt + 0.01
    (page,) = render(pdf, tmp_path)
    assert abs(page.shape[1] / PX_PER_MM - width_pt / 72 * 25.4) < 0.5
    dark = page < 128

    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), cv2.aruco.DetectorParameters()
    )
    corners, ids, _ = detector.detectMarkers(page)
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    width_mm, height_mm = PROFILE.geometry.sheet_mm
    for quad, mid in zip(corners, ids.ravel().tolist(), strict=True):
        points = quad[0]
        for a, b in zip(points, np.roll(points, -1, axis=0), strict=True):
            assert abs(float(np.linalg.norm(a - b)) / PX_PER_MM - 32) < 0.5
        # From the marker's centre, out through its white margin to the piece's thick edges:
        # they stand for the board's edges, so their distance is the profile's.
        cx, cy = (round(v) for v in points.mean(axis=0))
        want_x, want_y = PROFILE.markers.centres_mm[mid]
        past_marker = round(17 * PX_PER_MM)
        if want_x <= width_mm / 2:
            run = dark[cy, : cx - past_marker][::-1]
        else:
            run, want_x = dark[cy, cx + past_marker :], width_mm - want_x
        if want_y <= height_mm / 2:
            column = dark[: cy - past_marker, cx][::-1]
        else:
            column, want_y = dark[cy + past_marker :, cx], height_mm - want_y
        to_edge_x = (past_marker + first_dark(run) + 0.3 * PX_PER_MM) / PX_PER_MM
        to_edge_y = (past_marker + first_dark(column) + 0.3 * PX_PER_MM) / PX_PER_MM
        assert abs(to_edge_x - want_x) < 0.5 and abs(to_edge_y - want_y) < 0.5

    # The ruler is the longest straight line on the page; its millimetre ticks hang below.
    runs = [longest_dark_run(row) for row in dark]
    y = int(np.argmax([length for length, _ in runs]))
    length, start = runs[y]
    assert abs(length / PX_PER_MM - 100) < 0.5
    below = dark[y + round(1.0 * PX_PER_MM), start : start + length]
    ticks = np.count_nonzero(np.diff(np.concatenate(([0], below.astype(np.int8), [0]))) == 1)
    assert ticks == 101


def test_png_output_still_works_and_other_formats_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png = tmp_path / "sheet.png"
    assert main(["markers", "--out", str(png), "--dpi", "100"]) == 0
    assert cv2.imread(str(png), cv2.IMREAD_GRAYSCALE).shape == (1732, 1732)
    capsys.readouterr()
    assert main(["markers", "--out", str(tmp_path / "m.jpg")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ".pdf" in err and ".png" in err
    assert not (tmp_path / "m.jpg").exists()

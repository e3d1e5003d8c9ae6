"""``companion bench vision``: recognition accuracy and speed, on generated or given frames.

Generated frames come from the project's own renderer; ``--frames DIR`` scores any folder of
photographs with their truth beside them (``NAME.jpg`` + ``NAME.json`` in the board-state
format, ``"occluded": true`` for a frame with an arm over the board), so the reader can be
measured on material it was never tuned on. Both print the same figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.arguments import count, seed
from companion.boards import GRID, BoardProfile, load_profile
from companion.errors import InputError
from companion.games.garum.state import BoardState
from companion.progress import Progress
from companion.vision.conditions import SENSOR_MODES_PX
from companion.vision.naive_reader import NaiveReader
from companion.vision.reader import BoardReader, Reading
from companion.vision.render import Photo, random_state, render, shot_for

NAME = "vision"
HELP = "recognition accuracy and per-frame time, on generated frames or a folder of photos"
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")
MAX_GENERATED = 100_000  # frames one run may generate (about a day of one core)


@dataclass(frozen=True)
class ScoredFrame:
    """One photograph with what is truly on the board."""

    name: str
    image: NDArray[np.uint8]
    truth: BoardState
    hand: bool


def add_arguments(parser: Any) -> None:
    parser.add_argument(
        "--frames",
        default="200",
        metavar="N|DIR",
        help="a number of frames to generate (200), or a folder of NAME.jpg + NAME.json to score",
    )
    parser.add_argument("--seed", type=seed, default=1, help="first seed of generated frames (1)")
    parser.add_argument(
        "--occluded-every", type=count, default=5, help="every Nth generated frame has a hand (5)"
    )
    parser.add_argument("--board", default="troia", help="board profile (troia)")
    parser.add_argument(
        "--conditions",
        action="store_true",
        help="generate frames under a real table's conditions: Pi sensor modes, two lamps, "
        "hard shadows, tablecloths, barrel distortion, exposure off by half a stop",
    )
    parser.add_argument(
        "--sensor-mode",
        type=_sensor_mode,
        metavar="WxH",
        help="with --conditions, every frame in this one sensor mode (one of "
        + ", ".join(f"{w}x{h}" for w, h in SENSOR_MODES_PX)
        + "), the rest of each table as drawn: what the mode costs, scene for scene",
    )
    parser.add_argument(
        "--list", action="store_true", help="print one line per frame that is not read exactly"
    )
    parser.add_argument(
        "--repeat",
        type=count,
        default=3,
        metavar="N",
        help="time each reader N times per frame and keep the fastest, so that other work "
        "on the machine weighs less on the speed figures (3)",
    )


def _sensor_mode(text: str) -> tuple[int, int]:
    """``WxH`` as one of the Pi cameras' sensor modes the conditions draw from."""
    modes = {f"{w}x{h}": (w, h) for w, h in SENSOR_MODES_PX}
    if text not in modes:
        raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(modes)}")
    return modes[text]


def run(args: argparse.Namespace) -> int:
    cv2.setNumThreads(1)  # timings are per frame on one core
    profile = load_profile(args.board)
    try:
        frames, total, described = _source(args, profile)
    except InputError as exc:
        print(f"companion bench vision: {exc}", file=sys.stderr)
        return 2
    tally = AccuracyTally()
    naive = NaiveReader(profile)
    # Each reader is built once, as a table builds its own once per board; ours forgets
    # the board's pose before every run, so that no frame is placed by the one before.
    reader = BoardReader(profile)
    progress = Progress(total, "vision")
    misread: list[str] = []
    try:
        for frame in frames:
            ours_ms, naive_ms = [], []
            for _ in range(args.repeat):
                reader.forget_pose()
                start = time.perf_counter()
                reading = reader.read(frame.image)
                ours_ms.append((time.perf_counter() - start) * 1000)
                start = time.perf_counter()
                naive.read(frame.image)
                naive_ms.append((time.perf_counter() - start) * 1000)
            tally.times_ms.append(min(ours_ms))
            tally.naive_ms.append(min(naive_ms))
            misread.append(tally.add(frame, reading))
            progress.advance()
    except InputError as exc:
        progress.close()
        print(f"companion bench vision: {exc}", file=sys.stderr)
        return 2
    progress.close()
    if args.list:
        for line in filter(None, misread):
            print(line)
    tally.report(described)
    return 0


def _source(
    args: argparse.Namespace, profile: BoardProfile
) -> tuple[Iterator[ScoredFrame], int, str]:
    text = str(args.frames)
    if args.sensor_mode is not None and not (text.isdigit() and args.conditions):
        raise InputError(
            "only sets the mode of frames generated with --conditions", source="--sensor-mode"
        )
    if text.isdigit():
        if len(text) > len(str(MAX_GENERATED)) or not 1 <= int(text) <= MAX_GENERATED:
            raise InputError(f"generates 1 to {MAX_GENERATED} frames", source=f"--frames {text}")
        total = int(text)
        hands = sum(1 for k in range(total) if _hand(k, args.occluded_every))
        kind = "under real-table conditions" if args.conditions else "1280x960"
        if args.sensor_mode is not None:
            kind += ", all at {}x{}".format(*args.sensor_mode)
        described = f"{total} generated ({kind}; {hands} with a hand; seed {args.seed})"
        frames = _generated(
            profile, total, args.seed, args.occluded_every, args.conditions, args.sensor_mode
        )
        return frames, total, described
    folder = Path(text)
    if not folder.is_dir():
        raise InputError("is neither a number of frames nor a folder", source=text)
    names = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    names = [p for p in names if p.with_suffix(".json").is_file()]
    if not names:
        raise InputError("holds no image with a NAME.json truth file beside it", source=text)
    return _folder(names), len(names), f"{len(names)} from {folder}"


def _hand(k: int, every: int) -> bool:
    return every > 0 and k % every == every - 1


def _generated(
    profile: BoardProfile,
    count: int,
    seed: int,
    every: int,
    conditions: bool,
    mode: tuple[int, int] | None = None,
) -> Iterator[ScoredFrame]:
    for k in range(count):
        yield generated_frame(profile, seed + k, _hand(k, every), conditions, mode)


def generated_frame(
    profile: BoardProfile,
    seed: int,
    hand: bool,
    conditions: bool,
    mode: tuple[int, int] | None = None,
) -> ScoredFrame:
    """The generated bench's frame numbered ``seed``: its true board and its photo (see
    :func:`generated_photo`)."""
    photo = generated_photo(profile, seed, hand, conditions, mode)
    return ScoredFrame(f"seed {seed}", photo.image, photo.state, hand)


def generated_photo(
    profile: BoardProfile,
    seed: int,
    hand: bool,
    conditions: bool,
    mode: tuple[int, int] | None = None,
) -> Photo:
    """The generated bench's photo numbered ``seed``, with an arm over the board when
    ``hand``, under a real table's conditions when ``conditions``, in sensor ``mode``
    (width, height) if given.  One place makes it, so a frame the bench lists can be read
    again on its own, its homography and all."""
    truth = random_state(profile, np.random.default_rng(seed + 7_919))
    shot = shot_for(seed, hand, conditions)
    if mode is not None:
        shot = replace(shot, width=mode[0], height=mode[1])
    return render(profile, truth, shot)


def _folder(images: list[Path]) -> Iterator[ScoredFrame]:
    for path in images:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise InputError("cannot be read as an image", source=str(path))
        truth_path = path.with_suffix(".json")
        try:
            data = json.loads(truth_path.read_text())
        except (OSError, ValueError) as exc:
            raise InputError(f"is not readable JSON ({exc})", source=str(truth_path)) from exc
        truth = BoardState.from_dict(data)
        yield ScoredFrame(
            path.name, np.asarray(image, dtype=np.uint8), truth, bool(data.get("occluded"))
        )


@dataclass
class AccuracyTally:
    """Running counts over a set of frames, and the figures they make."""

    frames: int = 0
    not_found: int = 0
    cells_total: int = 0
    cells_wrong: int = 0
    cells_unknown: int = 0
    cells_glare: int = 0  # unread where glare clipped the sensor (see Reading.glare)
    boards_clear: int = 0
    boards_exact: int = 0
    boards_short_by_glare: int = 0  # inexact only for unread cells in glare
    workers_total: int = 0
    workers_right: int = 0
    workers_wrong: int = 0
    hand_frames: int = 0
    hand_cells_wrong: int = 0
    hand_frames_wrong: int = 0
    hand_workers_wrong: int = 0
    hand_unread_fractions: list[float] = field(default_factory=list)
    missed_hands: int = 0
    false_hands: int = 0
    times_ms: list[float] = field(default_factory=list)
    naive_ms: list[float] = field(default_factory=list)

    def add(self, frame: ScoredFrame, reading: Reading) -> str:
        """Counts one frame; returns a line describing it when it was not read exactly."""
        self.frames += 1
        if reading.state is None:
            self.not_found += 1
            return f"{frame.name}: board not found ({reading.error})"
        got, truth = reading.state, frame.truth
        wrong = sum(1 for a, b in zip(got.cells, truth.cells, strict=True) if a not in ("?", b))
        unknown = got.cells.count("?")
        pairs = list(zip(got.workers, truth.workers, strict=True))
        workers_wrong = sum(1 for a, b in pairs if a != b and a != "?")
        workers_unknown = sum(1 for a, _ in pairs if a == "?")
        if reading.occluded and not frame.hand:
            self.false_hands += 1
        if frame.hand and not reading.occluded:
            self.missed_hands += 1
        if frame.hand:
            self.hand_frames += 1
            self.hand_cells_wrong += wrong
            self.hand_workers_wrong += workers_wrong
            self.hand_frames_wrong += wrong > 0
            self.hand_unread_fractions.append(unknown / len(truth.cells))
        else:
            self.boards_clear += 1
            self.cells_total += len(truth.cells)
            self.cells_wrong += wrong
            self.cells_unknown += unknown
            self.cells_glare += len(reading.glare)
            self.workers_total += 2 * GRID
            self.workers_right += sum(1 for a, b in pairs if a == b)
            self.workers_wrong += workers_wrong
            exact = got.cells == truth.cells and got.workers == truth.workers
            self.boards_exact += exact
            if exact:
                return ""
            self.boards_short_by_glare += got.workers == truth.workers and all(
                a == b or i in reading.glare
                for i, (a, b) in enumerate(zip(got.cells, truth.cells, strict=True))
            )
        if frame.hand and wrong == 0 and workers_wrong == 0:
            return ""
        return (
            f"{frame.name}{' (hand)' if frame.hand else ''}: cells {wrong} wrong, "
            f"{unknown} unread ({len(reading.glare)} in glare); "
            f"workers {workers_wrong} wrong, {workers_unknown} unread"
        )

    def report(self, described: str) -> None:
        unread = self.hand_unread_fractions
        lines = [
            ("frames", described),
            # Our renderer's frames, and the reader's arithmetic, move with these versions.
            ("libraries", f"OpenCV {cv2.__version__}, numpy {np.__version__}"),
            ("board not found", f"{self.not_found}  (target 0)"),
            ("confident-wrong cells", f"{_pct(self.cells_wrong, self.cells_total)}  (<= 0.02 %)"),
            ("unreadable cells", f"{_pct(self.cells_unknown, self.cells_total)}  (<= 0.5 %)"),
            ("boards exact", f"{_pct(self.boards_exact, self.boards_clear)}  (>= 97 %)"),
            # Clipped in two channels, inks glare washed alike leave one colour (Reading.glare).
            (
                "unread cells in glare",
                f"{self.cells_glare} of {self.cells_unknown} "
                f"(boards inexact for them alone: {self.boards_short_by_glare})",
            ),
            ("workers right", f"{_pct(self.workers_right, self.workers_total)}  (>= 99.5 %)"),
            ("workers confidently wrong", _pct(self.workers_wrong, self.workers_total)),
            (
                "confident-wrong cells, hand",
                f"{self.hand_cells_wrong} in {self.hand_frames_wrong} of {self.hand_frames} "
                "frames  (target 0)",
            ),
            ("wrong workers, hand", str(self.hand_workers_wrong)),
            (
                "cells unread, hand",
                (f"{100 * statistics.fmean(unread):.1f} % on average" if unread else "n/a")
                + "  (<= 40 %)",
            ),
            ("hand missed / imagined", f"{self.missed_hands} / {self.false_hands} frames"),
        ]
        if self.times_ms:
            median, p95 = _median_p95(self.times_ms)
            naive_median, naive_p95 = _median_p95(self.naive_ms)
            lines.append(("time per frame, one core", f"median {median:.1f} ms, p95 {p95:.1f} ms"))
            lines.append(
                (
                    "naive reader, same frames",
                    f"median {naive_median:.1f} ms, p95 {naive_p95:.1f} ms",
                )
            )
            lines.append(
                (
                    "times the naive reader",
                    f"median {median / naive_median:.1f}x (<= 3x), "
                    f"p95 {p95 / naive_p95:.1f}x (<= 6x)",
                )
            )
        for label, value in lines:
            print(f"{label:<31}{value}")


def _median_p95(times_ms: list[float]) -> tuple[float, float]:
    ordered = sorted(times_ms)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return statistics.median(ordered), p95


def _pct(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.3f} %" if whole else "n/a"

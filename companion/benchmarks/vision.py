"""``companion bench vision``: recognition accuracy and speed on generated photographs."""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import cv2
import numpy as np

from companion.boards import GRID, load_profile
from companion.cli._arguments import count, positive_count, seed
from companion.cli._progress import Progress
from companion.vision.reader import BoardReader
from companion.vision.render import Shot, random_state, render

NAME = "vision"
HELP = "recognition accuracy and per-frame time on synthetic photographs"


def add_arguments(parser: Any) -> None:
    parser.add_argument(
        "--frames", type=positive_count, default=200, help="frames to generate (200)"
    )
    parser.add_argument("--seed", type=seed, default=1, help="first seed (1)")
    parser.add_argument(
        "--occluded-every", type=count, default=5, help="every Nth frame has a hand (5)"
    )
    parser.add_argument("--board", default="troia", help="board profile (troia)")


def run(args: argparse.Namespace) -> int:
    cv2.setNumThreads(1)  # timings are per frame on one core
    profile = load_profile(args.board)
    cells_total = cells_wrong = cells_unknown = 0
    boards_clear = boards_exact = 0
    workers_total = workers_right = workers_wrong = 0
    occluded_frames = occluded_wrong = not_found = false_hands = missed_hands = 0
    times_ms: list[float] = []
    progress = Progress(args.frames, "vision")
    for k in range(args.frames):
        seed = args.seed + k
        rng = np.random.default_rng(seed + 7_919)
        truth = random_state(profile, rng)
        hand = args.occluded_every > 0 and k % args.occluded_every == args.occluded_every - 1
        photo = render(profile, truth, Shot(seed, hand=hand))
        reader = BoardReader(profile)
        start = time.perf_counter()
        reading = reader.read(photo.image)
        times_ms.append((time.perf_counter() - start) * 1000)
        progress.advance()
        if reading.state is None:
            not_found += 1
            continue
        got = reading.state
        wrong = sum(1 for a, b in zip(got.cells, truth.cells, strict=True) if a not in ("?", b))
        if reading.occluded and not hand:
            false_hands += 1
        if hand and not reading.occluded:
            missed_hands += 1
        if hand:
            occluded_frames += 1
            occluded_wrong += wrong
            continue
        boards_clear += 1
        cells_total += len(truth.cells)
        cells_wrong += wrong
        cells_unknown += got.cells.count("?")
        workers_total += 2 * GRID
        pairs = list(zip(got.workers, truth.workers, strict=True))
        workers_right += sum(1 for a, b in pairs if a == b)
        workers_wrong += sum(1 for a, b in pairs if a != b and a != "?")
        if got.cells == truth.cells and got.workers == truth.workers:
            boards_exact += 1
    progress.close()
    times_ms.sort()
    p95 = times_ms[min(len(times_ms) - 1, int(0.95 * len(times_ms)))] if times_ms else 0.0
    print(f"frames                         {args.frames} (1280x960; {occluded_frames} with a hand)")
    print(f"board not found                {not_found}")
    print(f"confident-wrong cells          {_pct(cells_wrong, cells_total)}  (target <= 0.02 %)")
    print(f"unreadable cells               {_pct(cells_unknown, cells_total)}  (target <= 0.5 %)")
    print(f"boards exact                   {_pct(boards_exact, boards_clear)}  (target >= 97 %)")
    print(
        f"workers right                  {_pct(workers_right, workers_total)}  (target >= 99.5 %)"
    )
    print(f"workers confidently wrong      {_pct(workers_wrong, workers_total)}")
    print(f"confident-wrong cells, hand    {occluded_wrong}  (target 0)")
    print(f"hand missed / hand imagined    {missed_hands} / {false_hands} frames")
    if times_ms:
        median = statistics.median(times_ms)
        print(f"time per frame, one core       median {median:.1f} ms, p95 {p95:.1f} ms")
    return 0


def _pct(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.3f} %" if whole else "n/a"

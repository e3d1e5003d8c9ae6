"""SIGKILL at random points: nothing acknowledged is lost and the game resumes exactly.

The hundred-point version over whole games is ``companion bench crash``.
"""

from __future__ import annotations

import subprocess
import sys

from companion.benchmarks._crash_harness import output_until_killed, run_points


def test_ten_kill_points_lose_nothing() -> None:
    report = run_points(10, seed=3, turns=16)
    assert report.points == 10 and report.acknowledged > 0
    assert report.lost == 0 and report.chain_broken == 0
    assert report.resumed_differs == 0 and report.finished_differs == 0


def test_every_line_printed_before_the_kill_is_read() -> None:
    # The child has printed everything and exited; reading the first line reads ahead.
    script = "for i in range(500): print(i)"
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    proc.wait(timeout=60)
    assert output_until_killed(proc, 1, 0.0) == [f"{i}\n" for i in range(500)]

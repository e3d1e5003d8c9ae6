"""SIGKILL at random points: nothing acknowledged is lost and the game resumes exactly.

The hundred-point version over whole games is ``companion bench crash``.
"""

from __future__ import annotations

from companion.benchmarks._crash_harness import run_points


def test_ten_kill_points_lose_nothing() -> None:
    report = run_points(10, seed=3, turns=16)
    assert report.points == 10 and report.acknowledged > 0
    assert report.lost == 0 and report.chain_broken == 0
    assert report.resumed_differs == 0 and report.finished_differs == 0

"""SIGKILL at random points: nothing acknowledged is lost and the game resumes exactly.

The hundred-point version over whole games is ``companion bench crash``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from crash_helpers import kill_after_every_event

from companion.benchmarks._crash_harness import output_until_killed, run_points


def test_ten_kill_points_lose_nothing() -> None:
    report = run_points(10, seed=3, turns=16)
    assert report.points == 10 and report.acknowledged > 0
    assert report.lost == 0 and report.chain_broken == 0
    assert report.resumed_differs == 0 and report.finished_differs == 0


def test_kill_points_in_a_game_of_actions_lose_nothing() -> None:
    report = run_points(6, seed=2, turns=4, game="ides")
    assert report.points == 6 and report.acknowledged > 0
    assert report.lost == 0 and report.chain_broken == 0
    assert report.resumed_differs == 0 and report.finished_differs == 0


def test_every_line_printed_before_the_kill_is_read() -> None:
    # The child has printed everything and exited; reading the first line reads ahead.
    script = "for i in range(500): print(i)"
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    proc.wait(timeout=60)
    assert output_until_killed(proc, 1, 0.0) == [f"{i}\n" for i in range(500)]


@pytest.mark.parametrize(("game", "turns"), [("garum", 6), ("ides", 6)])
def test_a_kill_after_any_event_resumes_the_same_game(
    tmp_path: Path, game: str, turns: int
) -> None:
    report = kill_after_every_event(tmp_path, game, seed=4, turns=turns)
    assert report.points > 20
    assert report.lost == 0 and report.chain_broken == 0
    assert report.resumed_differs == 0 and report.finished_differs == 0

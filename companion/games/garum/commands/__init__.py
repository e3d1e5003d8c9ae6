"""Garum's commands: read photos, score and check records, simulate games, print markers.

Each module defines ``register(subparsers)``; :class:`GarumCommands` adds them all when the
command line asks the registered games for their commands.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Sequence
from typing import Any

from companion.games.command_seam import BenchTarget, CaseFiles, CaseMaker

COMMAND_MODULES = ("calibrate", "check", "markers", "recognize", "score", "simulate")


class GarumCommands:
    """The :class:`~companion.games.command_seam.GameCommands` of Garum."""

    def register(self, subparsers: Any) -> None:
        for name in COMMAND_MODULES:
            importlib.import_module(f"{__name__}.{name}").register(subparsers)

    def bench_targets(self) -> Sequence[BenchTarget]:
        from companion.games.garum.commands import bench_rules
        from companion.vision import bench as bench_vision

        return [bench_rules, bench_vision]

    def fuzz_cases(self, files: CaseFiles, rng: random.Random) -> Sequence[tuple[float, CaseMaker]]:
        from companion.games.garum.commands.fuzz_cases import GarumCliCases

        return GarumCliCases.seeded(files, rng).weighted()

"""The Ides of March's part of the command line: the table commands serve it already."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from companion.games.command_seam import BenchTarget, CaseFiles, CaseMaker


class IdesCommands:
    """No subcommands of its own yet: ``companion run`` and ``demo`` play it as any game."""

    def register(self, subparsers: Any) -> None:
        del subparsers

    def bench_targets(self) -> Sequence[BenchTarget]:
        return ()

    def fuzz_cases(self, files: CaseFiles, rng: random.Random) -> Sequence[tuple[float, CaseMaker]]:
        del files, rng
        return ()

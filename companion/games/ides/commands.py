"""The Ides of March's part of the command line: the table commands serve it already."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from companion.games.command_seam import BenchTarget


class IdesCommands:
    """No subcommands of its own yet: ``companion run`` and ``demo`` play it as any game."""

    def register(self, subparsers: Any) -> None:
        del subparsers

    def bench_targets(self) -> Sequence[BenchTarget]:
        return ()

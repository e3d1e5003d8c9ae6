"""What a game adds to the ``companion`` command line: its subcommands and its benchmarks.

The command line lists no game: it asks every registered game for its
:class:`GameCommands` and lets each add its own subcommands, so a game installed from
another package brings its commands with it.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, Protocol


class BenchTarget(Protocol):
    """One ``companion bench NAME`` measurement (a module with these four names will do)."""

    NAME: str
    HELP: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


class GameCommands(Protocol):
    """A game's part of the command line."""

    def register(self, subparsers: Any) -> None:
        """Adds the game's subcommands; each sets ``handler`` like the generic ones."""
        ...

    def bench_targets(self) -> Sequence[BenchTarget]:
        """The measurements ``companion bench`` offers for this game."""
        ...

"""What a game adds to the ``companion`` command line: its subcommands and its benchmarks.

The command line lists no game: it asks every registered game for its
:class:`GameCommands` and lets each add its own subcommands, so a game installed from
another package brings its commands with it.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from companion.games.plugin import GamePlugin


class BenchTarget(Protocol):
    """One ``companion bench NAME`` measurement (a module with these four names will do)."""

    NAME: str
    HELP: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


@dataclass(frozen=True)
class CliCase:
    """One hostile input to a command, for ``companion bench fuzz``."""

    kind: str
    argv: list[str]
    how: str
    invalid: bool  # must be refused: exit status 0 is a finding
    preview: str = ""
    escape_codes_matter: bool = False  # stdout must not carry the ESC character


class CaseFiles(Protocol):
    """Where a case's input files go; the fuzz removes them after each case."""

    def write(self, name: str, data: bytes) -> str:
        """Writes a fresh file and returns its path."""
        ...

    def scratch(self, name: str) -> Path:
        """A fresh path for a file the command itself writes."""
        ...


CaseMaker = Callable[[], CliCase]


class GameCommands(Protocol):
    """A game's part of the command line."""

    def register(self, subparsers: Any) -> None:
        """Adds the game's subcommands; each sets ``handler`` like the generic ones."""
        ...

    def bench_targets(self) -> Sequence[BenchTarget]:
        """The measurements ``companion bench`` offers for this game."""
        ...

    def fuzz_cases(self, files: CaseFiles, rng: random.Random) -> Sequence[tuple[float, CaseMaker]]:
        """Weighted makers of hostile inputs to the game's commands (``bench fuzz``)."""
        ...


class NoCommands:
    """The commands of a game that adds none: it is played through ``run`` and ``demo``."""

    def register(self, subparsers: Any) -> None:
        del subparsers

    def bench_targets(self) -> Sequence[BenchTarget]:
        return ()

    def fuzz_cases(self, files: CaseFiles, rng: random.Random) -> Sequence[tuple[float, CaseMaker]]:
        del files, rng
        return ()


def commands_of(plugin: GamePlugin) -> GameCommands:
    """The game's commands; a plugin whose hook is not implemented adds none."""
    try:
        return plugin.commands()
    except NotImplementedError:
        return NoCommands()

"""The ``companion`` command line.

Each module of this package that defines ``register(subparsers)`` adds one command, so a
new capability adds a file rather than editing a central list; then every registered game
adds its own commands (:mod:`companion.games.command_seam`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence
from typing import NoReturn

from companion import __version__
from companion.errors import CompanionError, InputError
from companion.games.command_seam import commands_of
from companion.games.registry import games
from companion.printable import one_line

DEBUG_ENV = "COMPANION_DEBUG"
"""Set to 1 to see the full traceback of an internal error instead of its one line."""


class OneLineParser(argparse.ArgumentParser):
    """Reports a bad argument in one line, like every other bad input."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {one_line(message)} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    titles = ", ".join(plugin.title for plugin in games().values())
    parser = OneLineParser(
        prog="companion",
        description=f"A physical-table companion for real board games ({titles}).",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if callable(register):
            register(subparsers)
    for plugin in games().values():
        commands_of(plugin).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except InputError as exc:
        print(f"companion: error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except CompanionError as exc:
        print(f"companion: error: {one_line(str(exc))}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (``| head``): not an error of ours.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("companion: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # the safety net: each known bad input has its own message
        if os.environ.get(DEBUG_ENV) == "1":
            raise
        print(
            f"companion: internal error: {type(exc).__name__}: {one_line(str(exc))} "
            f"(set {DEBUG_ENV}=1 to see where)",
            file=sys.stderr,
        )
        return 2

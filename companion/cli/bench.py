"""``companion bench NAME``: measurements that print figures.

Every module in :mod:`companion.benchmarks` that defines ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(args)`` becomes one benchmark, and so does every
target a registered game brings (:meth:`GameCommands.bench_targets`).
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import companion.benchmarks as benchmarks
from companion.games.command_seam import BenchTarget, commands_of
from companion.games.registry import games


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "bench",
        help="run a benchmark and print its figures",
        description="Measurements that print figures (speed, accuracy, latency, loss).",
    )
    names = parser.add_subparsers(dest="benchmark", metavar="BENCHMARK", required=True)
    targets: list[BenchTarget] = [
        importlib.import_module(f"{benchmarks.__name__}.{info.name}")
        for info in pkgutil.iter_modules(benchmarks.__path__)
        if not info.name.startswith("_")
    ]
    for plugin in games().values():
        targets.extend(commands_of(plugin).bench_targets())
    for target in sorted(targets, key=lambda t: t.NAME):
        sub = names.add_parser(target.NAME, help=target.HELP, description=target.HELP)
        target.add_arguments(sub)
        sub.set_defaults(handler=target.run)

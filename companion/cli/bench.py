"""``companion bench NAME``: measurements that print figures.

Every module in :mod:`companion.benchmarks` that defines ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(args)`` becomes one benchmark.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import companion.benchmarks as benchmarks


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "bench",
        help="run a benchmark and print its figures",
        description="Measurements that print figures (speed, accuracy, latency, loss).",
    )
    names = parser.add_subparsers(dest="benchmark", metavar="BENCHMARK", required=True)
    for info in sorted(pkgutil.iter_modules(benchmarks.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{benchmarks.__name__}.{info.name}")
        sub = names.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(sub)
        sub.set_defaults(handler=module.run)

"""``companion run --config FILE``: the table on real hardware, with the dashboard."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from companion.app.table import serve
from companion.arguments import port_number, seed
from companion.cafe.broker import check_ca_file
from companion.cafe.options import add_cafe_arguments, cafe_from_args
from companion.table.config import demo_config, load_config, make_data_dir


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run the table from a configuration file (camera, LEDs, buttons, dashboard)",
        description=(
            "Runs the live table described by a TOML file; resumes the last game from the "
            "game log after a restart. The operator token comes from COMPANION_OPERATOR_TOKEN, "
            "else from the file named by [web] token_file (see companion init)."
        ),
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", metavar="FILE", help="the table's TOML file")
    source.add_argument(
        "--demo",
        metavar="FOLDER",
        nargs="?",
        const="companion-data",
        help="simulated players and the emulated LED device; data in FOLDER "
        "(default companion-data)",
    )
    parser.add_argument("--port", type=port_number, help="serve the dashboard on this port instead")
    parser.add_argument("--seed", type=seed, help="--demo: replay the same simulated game")
    add_cafe_arguments(parser)  # café hook: --mqtt URL --table ID (companion.cafe)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.demo is not None:
        config = demo_config(Path(args.demo), seed=args.seed)
    else:
        config = load_config(args.config)
    if args.port is not None:
        config = replace(config, port=args.port)
    make_data_dir(config)
    demo = args.demo is not None
    cafe = cafe_from_args(args)
    if cafe is not None:
        check_ca_file(cafe.broker.ca_file)
    return serve(config, cafe, narrate=demo, fresh=demo)

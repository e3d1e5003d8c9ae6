"""``companion demo``: a simulated game of any installed game, played through its real rules
engine at a live table (``--game``, the default game when not given)."""

from __future__ import annotations

import argparse
from typing import Any

from companion.app.demo import run_demo
from companion.arguments import port_number, seed
from companion.cafe.options import add_cafe_arguments
from companion.games.live_seam import live_of
from companion.games.registry import DEFAULT_GAME, games


def register(subparsers: Any) -> None:
    known = games()
    parser = subparsers.add_parser(
        "demo",
        help="play a simulated game on the embedded defaults",
        description=(
            "Plays a simulated game at a live table: simulated players play through the "
            "real rules engine, the emulated LED device shows the game, the dashboard shows "
            "it on http://127.0.0.1:5000 (--port). Each game adds its own options below."
        ),
    )
    parser.add_argument(
        "--game",
        choices=list(known),
        default=DEFAULT_GAME,
        help=f"the game to play (default {DEFAULT_GAME})",
    )
    parser.add_argument(
        "--players", type=int, choices=(2, 3, 4), default=4, help="how many play (default 4)"
    )
    parser.add_argument("--seed", type=seed, help="replay the same game")
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="the dashboard's address (default 127.0.0.1: this machine only)",
    )
    parser.add_argument(
        "--port",
        type=port_number,
        default=5000,
        help="the dashboard's port (default 5000; 0 picks a free one)",
    )
    for name, plugin in known.items():
        group = parser.add_argument_group(f"{plugin.title} (--game {name})")
        live_of(plugin).add_demo_arguments(group)
    add_cafe_arguments(parser)  # café hook: --mqtt URL --table ID (companion.cafe)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.game == DEFAULT_GAME and (args.mqtt or args.table):
        # café hook: the default game played by a simulated, published table
        args.delay = 0.05 if args.pace_s is None else args.pace_s  # its own name
        from companion.cafe.demo import play_published_demo

        return play_published_demo(args)
    return run_demo(args)

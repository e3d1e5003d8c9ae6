"""``companion demo``: any game's demo served at a live table built like a real one.

The game turns its own options into a :class:`~companion.games.live_seam.DemoTable` (the
camera, the game to start, simulated players); the table gets the emulated LED device (the
real firmware code behind a pseudo-terminal) and the dashboard, as ``companion run`` would
give it.  A demo the game plays by itself (in the terminal) needs none of this.
"""

from __future__ import annotations

import argparse
import tempfile
from contextlib import ExitStack
from pathlib import Path

from companion.app.table import serve
from companion.cafe.broker import check_ca_file
from companion.cafe.options import cafe_from_args
from companion.games import registry
from companion.games.live_seam import DemoTable, live_of
from companion.table.config import Backend, TableConfig


def run_demo(args: argparse.Namespace) -> int:
    plugin = registry.game(args.game)
    plan = live_of(plugin).demo(args)
    if isinstance(plan, int):
        return plan
    cafe = cafe_from_args(args)
    if cafe is not None:
        check_ca_file(cafe.broker.ca_file)
    with ExitStack() as stack:
        data_dir = plan.data_dir
        if data_dir is None:
            data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="demo-")))
        config = demo_table_config(plan, data_dir, plugin.name, args.host, args.port)
        return serve(
            config,
            cafe,
            narrate=True,
            fresh=plan.fresh,
            intro=plan.intro,
            players=plan.players,
            hold_s=plan.hold_s,
            stopped=plan.stopped,
        )


def demo_table_config(
    plan: DemoTable, data_dir: Path, game: str, host: str, port: int
) -> TableConfig:
    """The table a demo asks for, with the emulated LED device."""
    camera = dict(plan.camera)
    kind = str(camera.pop("kind", "none"))
    return TableConfig(
        source=str(data_dir / "table.toml"),
        data_dir=data_dir,
        host=host,
        port=port,
        camera=Backend(kind, camera),
        lights=Backend("emulated"),
        game={**(plan.game or {}), "game": game},
    )

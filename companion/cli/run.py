"""``companion run --config FILE``: the table on real hardware, with the dashboard."""

from __future__ import annotations

import argparse
import signal
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from companion.cafe.broker import check_ca_file
from companion.cafe.options import add_cafe_arguments, cafe_from_args
from companion.cli._arguments import port_number, seed
from companion.table.config import TableConfig, demo_config, load_config, make_data_dir
from companion.table.runner import Table
from companion.web.config import WebConfig


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
    if config.game is not None and config.game.get("game") == "ides":
        from companion.table.ides_run import serve_ides

        return serve_ides(config)
    demo = args.demo is not None
    cafe = cafe_from_args(args)
    if cafe is not None:
        check_ca_file(cafe.broker.ca_file)
    return serve(config, cafe, narrate=demo, fresh=demo)


def serve(
    config: TableConfig,
    cafe: Any = None,
    *,
    narrate: bool = False,
    fresh: bool = False,
    intro: str | None = None,
) -> int:
    """Runs the table until Ctrl-C or SIGTERM; ``narrate`` prints each change, ``fresh``
    starts a new game even if the log holds one in play, ``intro`` is printed once it is up."""
    web = WebConfig.from_env(token_file=config.token_file)
    table = Table.open(config, web=web, fresh=fresh).start()
    dashboard = f"{(web.public_url or table.server.url).rstrip('/')}/"
    publisher = cafe.start(config.log_path, dashboard) if cafe is not None else None
    print(f"dashboard: {table.server.url}/  (TV: /tv, phone: /phone)", flush=True)
    print(f"operator token: {web.token_note()}", flush=True)
    print(f"game log: {config.log_path}", flush=True)
    if intro:
        print(intro, flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        with table.session.viewers.subscribe() as sub:
            before: dict[str, Any] = {}
            while not done.is_set():
                update = sub.get(0.2)
                if update is not None and narrate:
                    for line in news(before, update):
                        print(line, flush=True)
                before = update or before
    except KeyboardInterrupt:
        pass
    finally:
        if publisher is not None:  # café hook: says offline before the table goes
            publisher.stop()
        table.close()
    return 0


def news(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What changed at the table, in a line or two for the terminal."""
    lines = []
    played = after.get("turns_played", 0)
    if played > before.get("turns_played", 0):
        lines.append(f"turn {played} accepted")
    flag = after.get("flag")
    if flag and flag != before.get("flag"):
        rules = "; ".join(v["message"] for v in flag["violations"]) or "the board differs"
        lines.append(f"flagged ({flag['outcome']}): {rules}")
    turn = after.get("turn")
    if turn and turn != before.get("turn"):
        vat = turn["vat"] if turn["vat"] is not None else "to be chosen"
        lines.append(f"  next: {turn['seat_name']} ({turn['colour']}), vat {vat}")
    if after.get("status") == "ended" and before.get("status") != "ended":
        winners = ", ".join(after.get("scores", {}).get("winners", []))
        lines.append(f"game over: {winners} won (Ctrl-C to stop the dashboard)")
    return lines

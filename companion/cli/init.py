"""``companion init [--config FILE] [--force]``: write a table's configuration and token.

Writes a commented ``table.toml`` (every key with its default) and, beside it, the operator
token in a file only its owner can read.  The token is shown once, when it is made; an
existing token is kept, so re-running ``init`` never locks the operator out.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from companion.errors import InputError
from companion.table.config import BUTTON_KINDS, CAMERA_KINDS, LIGHT_KINDS, load_config
from companion.table.config_template import TemplateChoices, config_template
from companion.web.token_file import new_token, read_token, write_token

DEFAULT_CONFIG = "table.toml"


def register(subparsers: Any) -> None:
    defaults = TemplateChoices()
    parser = subparsers.add_parser(
        "init",
        help="write a commented table.toml and a persistent operator token",
        description=__doc__,
    )
    parser.add_argument(
        "--config", default=DEFAULT_CONFIG, metavar="FILE", help="file to write (table.toml)"
    )
    parser.add_argument("--force", action="store_true", help="replace an existing FILE")
    parser.add_argument("--camera", choices=CAMERA_KINDS, default=defaults.camera)
    parser.add_argument("--lights", choices=LIGHT_KINDS, default=defaults.lights)
    parser.add_argument("--buttons", choices=BUTTON_KINDS, default=defaults.buttons)
    parser.add_argument(
        "--host", default=defaults.host, help=f"dashboard address ({defaults.host}: every network)"
    )
    parser.add_argument("--port", type=int, default=defaults.port, help="dashboard port (5000)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    path = Path(args.config)
    if not 0 <= args.port <= 65535:
        raise InputError(f"expected a port number 0-65535, got {args.port}", field="--port")
    if path.exists() and not args.force:
        raise InputError("already exists: keep it, or pass --force to replace it", source=str(path))
    choices = TemplateChoices(
        camera=args.camera,
        lights=args.lights,
        buttons=args.buttons,
        host=args.host,
        port=args.port,
    )
    token_file = path.parent / choices.token_file
    kept = token_file.exists()
    if kept:
        read_token(token_file)  # one the table can use: readable, owner only, long enough
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(config_template(choices), encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", source=str(path)) from None
    load_config(path)  # the file just written must be one the table accepts
    print(f"wrote {path}")
    if kept:
        print(f"kept the operator token in {token_file} (companion token show)")
    else:
        token = new_token()
        write_token(token_file, token)
        print(f"operator token: {token}")
        print(f"  kept in {token_file} (owner only); `companion token show` prints it again")
    print(f"start the table with: companion run --config {path.resolve()}")
    return 0

"""``companion token show|rotate [--config FILE]``: the operator token kept in its file.

``show`` prints the token of the file named by ``[web] token_file``; ``rotate`` replaces it
with a new random one (or ``--token`` yours).  A running table keeps the token it read at
start: restart it for a new token to count.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from companion.cli.init import DEFAULT_CONFIG
from companion.errors import InputError
from companion.table.config import load_config
from companion.web.token_file import new_token, read_token, write_token

ENV_TOKEN = "COMPANION_OPERATOR_TOKEN"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "token", help="show or rotate the operator token kept in its file", description=__doc__
    )
    config = argparse.ArgumentParser(add_help=False)
    config.add_argument(
        "--config", default=DEFAULT_CONFIG, metavar="FILE", help="the table's TOML (table.toml)"
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser("show", parents=[config], help="print the operator token")
    rotate = actions.add_parser("rotate", parents=[config], help="replace the operator token")
    rotate.add_argument("--token", metavar="TOKEN", help="use this token or PIN (4+ characters)")
    parser.set_defaults(handler=run)


def token_file_of(config_path: str) -> Path:
    config = load_config(config_path)
    if config.token_file is None:
        raise InputError(
            "names no operator token file: add token_file under [web]",
            source=config_path,
            field="web.token_file",
        )
    return config.token_file


def run(args: argparse.Namespace) -> int:
    path = token_file_of(args.config)
    if args.action == "show":
        print(read_token(path))
    else:
        write_token(path, args.token if args.token is not None else new_token())
        print(f"operator token: {read_token(path)}")
        print(f"  kept in {path}; restart the table for it to count")
        print("  (on a Raspberry Pi: sudo systemctl restart companion)")
    if os.environ.get(ENV_TOKEN, "").strip():
        print(f"note: {ENV_TOKEN} is set here, and a table started with it uses that instead")
    return 0

"""``companion calibrate IMAGE --out FILE [--board FILE]``: learn the board's colours.

Measures the sheet, vat floor and tile colours in a photo of the board (an empty board
and/or some tiles of each colour) and writes a copy of the profile with a ``calibration``
object; pass that file as ``--board`` to the other commands.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from companion.boards import load_profile
from companion.errors import CompanionError, InputError
from companion.vision.calibration import calibrate, save_profile, with_calibration
from companion.vision.sources import read_image


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "calibrate", help="learn the board's colours from a photo", description=__doc__
    )
    parser.add_argument("image", metavar="IMAGE", help="photo of the board")
    parser.add_argument("--out", required=True, metavar="FILE", help="profile file to write")
    parser.add_argument("--board", default="troia", metavar="FILE", help="board profile")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    profile = load_profile(args.board)
    image = read_image(args.image)
    try:
        model = calibrate(profile, image)
    except InputError:
        raise
    except CompanionError as exc:
        raise CompanionError(f"{args.image}: {exc}") from None
    data = with_calibration(profile, model)
    try:
        save_profile(data, Path(args.out))
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", source=args.out) from None
    print(f"{args.out}: calibrated profile written ({', '.join(sorted(model.species_ab))})")
    return 0

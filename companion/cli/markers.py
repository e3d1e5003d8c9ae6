"""``companion markers --out FILE [--dpi N] [--board FILE]``: print the marker sheet."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from companion.boards import load_profile
from companion.errors import InputError
from companion.vision.markers import marker_sheet, write_png


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "markers",
        help="write the ArUco marker sheet at true print size (PNG)",
        description=__doc__,
    )
    parser.add_argument("--out", required=True, metavar="FILE", help="PNG file to write")
    parser.add_argument("--dpi", type=int, default=300, help="print resolution (300)")
    parser.add_argument("--board", default="troia", metavar="FILE", help="board profile")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if out.suffix.lower() != ".png":
        raise InputError("the marker sheet is written as PNG: use a .png name", source=args.out)
    if not 72 <= args.dpi <= 2400:
        raise InputError(f"dpi must be between 72 and 2400, got {args.dpi}", field="--dpi")
    profile = load_profile(args.board)
    sheet = marker_sheet(profile, args.dpi)
    try:
        write_png(out, sheet, args.dpi)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", source=args.out) from None
    g = profile.geometry
    print(
        f"{out}: {sheet.shape[1]} x {sheet.shape[0]} px at {args.dpi} dpi = "
        f"{g.sheet_mm[0]:g} x {g.sheet_mm[1]:g} mm; print at 100 % (no fit-to-page)"
    )
    return 0

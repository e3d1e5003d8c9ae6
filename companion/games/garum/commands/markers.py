"""``companion markers --out FILE [--paper a4|letter] [--dpi N] [--board FILE]``: the markers.

A ``.pdf`` is for printing at home: A4 or Letter pages with each marker on a corner piece to
cut out, placement marks and a 10 cm ruler.  A ``.png`` is the whole board sheet in one
image at ``--dpi``, for a print shop or a board printed with its markers.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from companion.boards import load_profile
from companion.errors import InputError
from companion.vision.marker_pdf import PAPERS_MM, marker_pages
from companion.vision.markers import marker_sheet, write_png
from companion.vision.pdf import write_pdf


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "markers",
        help="write the ArUco markers at true print size (PDF pages or a PNG sheet)",
        description=__doc__,
    )
    parser.add_argument("--out", required=True, metavar="FILE", help="a .pdf or .png file")
    parser.add_argument(
        "--paper", choices=sorted(PAPERS_MM), default="a4", help="PDF paper size (a4)"
    )
    parser.add_argument("--dpi", type=int, default=300, help="PNG print resolution (300)")
    parser.add_argument("--board", default="troia", metavar="FILE", help="board profile")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    suffix = out.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise InputError(
            "the markers are written as PDF or PNG: use a .pdf or .png name", source=args.out
        )
    profile = load_profile(args.board)
    m = profile.markers
    try:
        if suffix == ".pdf":
            pages = marker_pages(profile, args.paper)
            write_pdf(out, pages, title=f"{profile.name} board markers")
            size = f"{len(pages)} {args.paper.upper() if args.paper == 'a4' else 'Letter'} page"
            print(
                f"{out}: {size}{'s' if len(pages) > 1 else ''}, {len(m.centres_mm)} markers of "
                f"{m.side_mm:g} mm; print at 100 % (no fit-to-page), then check the 10 cm ruler"
            )
            return 0
        if not 72 <= args.dpi <= 2400:
            raise InputError(f"dpi must be between 72 and 2400, got {args.dpi}", field="--dpi")
        sheet = marker_sheet(profile, args.dpi)
        write_png(out, sheet, args.dpi)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", source=args.out) from None
    g = profile.geometry
    print(
        f"{out}: {sheet.shape[1]} x {sheet.shape[0]} px at {args.dpi} dpi = "
        f"{g.sheet_mm[0]:g} x {g.sheet_mm[1]:g} mm; print at 100 % (no fit-to-page)"
    )
    return 0

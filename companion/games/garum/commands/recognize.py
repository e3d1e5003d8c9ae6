"""``companion recognize IMAGE... [--json] [--board FILE]``: read board photos.

With ``--json``, one board-state JSON line per image in the order given; an image whose
board cannot be found (or that cannot be read) gives ``{"error": "..."}`` instead, and the
exit status is 1 if any image failed.  An image that cannot be read is also named in one
line on standard error.  Without ``--json``, a readable grid per image.  Unread cells that
glare washed out are named apart (``glare``): moving the lamp or the camera reads them.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from companion.boards import GRID, BoardProfile, load_profile
from companion.errors import InputError
from companion.printable import one_line
from companion.vision.reader import BoardReader, Reading
from companion.vision.sources import read_image


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "recognize", help="read the board state from photographs", description=__doc__
    )
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="photo files")
    parser.add_argument("--json", action="store_true", help="one JSON line per image")
    parser.add_argument(
        "--board", default="troia", metavar="FILE", help="board profile (name or file)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    profile = load_profile(args.board)
    failed = 0
    for path in args.images:
        # Each photo stands alone: no homography carries over between files.
        reader = BoardReader(profile)
        try:
            reading = reader.read(read_image(path))
        except InputError as exc:
            failed += 1
            print(f"companion: error: {one_line(str(exc))}", file=sys.stderr, flush=True)
            if args.json:  # the line still holds this image's place in the output
                print(_json_line(Reading(None, error=exc.message), path), flush=True)
            continue
        if reading.state is None:
            failed += 1
        text = _json_line(reading, path) if args.json else _text(reading, path, profile)
        print(text, flush=True)
    return 1 if failed else 0


def _json_line(reading: Reading, path: str) -> str:
    if reading.state is None:
        return json.dumps({"error": one_line(f"{path}: {reading.error}")})
    data = reading.state.to_dict()
    data["occluded"] = reading.occluded
    data["glare"] = sorted(reading.glare)
    data["timings_ms"] = {k: round(v, 1) for k, v in reading.timings_ms.items()}
    return json.dumps(data)


def _text(reading: Reading, path: str, profile: BoardProfile) -> str:
    if reading.state is None:
        return f"{path}: {reading.error}"
    state = reading.state
    cols = state.workers[GRID:]
    head = "     " + " ".join((w or "..")[:2].rjust(2) for w in cols)
    lines = [f"{path}" + ("  (hand over the board)" if reading.occluded else ""), head]
    for r, row in enumerate(state.rows):
        worker = (state.workers[r] or "..").rjust(2)
        lines.append(f"{worker}   " + " ".join(f" {ch}" for ch in row))
    if reading.glare:
        vats = profile.vats_of(reading.glare)
        lines.append(
            f"glare: {len(reading.glare)} unread cell(s) washed out in vat(s) "
            f"{', '.join(map(str, vats))}: move the lamp or tilt the camera"
        )
    return "\n".join(lines)

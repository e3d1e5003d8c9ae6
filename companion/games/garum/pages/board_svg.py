"""The board drawn as SVG on the server, in the profile's own millimetre coordinates.

Server-side so the kiosk TV and old phones need no drawing code; every value placed in the
markup is a number, a colour from the profile or a letter from the board-state format, and
text is escaped all the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from markupsafe import Markup, escape

from companion.boards.profile import BoardProfile
from companion.games.garum.state import GRID


def _f(x: float) -> str:
    return f"{x:.1f}"


def board_svg(
    profile: BoardProfile,
    board: dict[str, Any],
    *,
    active_vat: int | None = None,
    legal_cells: Iterable[int] = (),
    legal_lines: Iterable[int] = (),
    flagged_cells: Iterable[int] = (),
    flagged_lines: Iterable[int] = (),
    title: str = "Board",
    editable: bool = False,
    sized: bool = False,
) -> Markup:
    """The board as SVG; ``editable`` draws a worker mark on every space (hidden when empty)
    so the correction editor can change any of them; ``sized`` gives the drawing its width and
    height in millimetre units, to sit inside a larger standalone file."""
    g = profile.geometry
    species = profile.colours.species
    cells = "".join(board["cells"])
    workers = list(board["workers"]["rows"]) + list(board["workers"]["cols"])
    legal_c, legal_l = set(legal_cells), set(legal_lines)
    flag_c, flag_l = set(flagged_cells), set(flagged_lines)
    w, h = g.sheet_mm
    half = g.cell_mm / 2
    out = [
        f'<svg class="board{" editable" if editable else ""}" viewBox="0 0 {_f(w)} {_f(h)}"'
        + (f' width="{_f(w)}" height="{_f(h)}"' if sized else "")
        + f' xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{_f(w)}" height="{_f(h)}" fill="{escape(profile.colours.sheet)}"/>',
    ]
    side = 4 * g.cell_mm
    for vat, (vr, vc) in profile.vat_position.items():
        x, y = g.cell_corner_mm(vr * 4, vc * 4)
        active = vat == active_vat
        out.append(
            f'<rect class="vat{" active" if active else ""}" data-vat="{vat}" x="{_f(x)}"'
            f' y="{_f(y)}" width="{_f(side)}" height="{_f(side)}"'
            f' fill="{escape(profile.colours.vat_floor)}"'
            f' stroke="{"#f5e663" if active else escape(profile.colours.wall)}"'
            f' stroke-width="{4 if active else 1.5}"/>'
        )
        out.append(
            f'<text class="vatno" x="{_f(x + side / 2)}" y="{_f(y + side / 2 + 5)}"'
            f' text-anchor="middle">{vat}</text>'
        )
    for i, ch in enumerate(cells):
        r, c = divmod(i, GRID)
        if profile.vat_of_cell[i] is None:
            continue
        cx, cy = g.cell_centre_mm(r, c)
        x, y = cx - half + 0.8, cy - half + 0.8
        s = g.cell_mm - 1.6
        classes = ["cell"]
        if i in legal_c:
            classes.append("legal")
        if i in flag_c:
            classes.append("flagged")
        fill = species.get(ch, "none")
        if ch == "?":
            fill = "#999999"
        out.append(
            f'<rect class="{" ".join(classes)}" data-cell="{i}" data-fish="{escape(ch)}"'
            f' x="{_f(x)}" y="{_f(y)}" width="{_f(s)}" height="{_f(s)}" rx="2"'
            f' fill="{escape(fill)}"/>'
        )
        kind = profile.bonus_kind.get(i)
        if kind is not None and ch == ".":
            out.append(
                f'<text class="bonus" x="{_f(cx)}" y="{_f(cy + 3)}" text-anchor="middle">'
                f"{escape(kind)}</text>"
            )
    for line in range(2 * GRID):
        x, y = g.worker_space_centre_mm(line)
        classes = ["space"]
        if line in legal_l:
            classes.append("legal")
        if line in flag_l:
            classes.append("flagged")
        out.append(
            f'<circle class="{" ".join(classes)}" data-line="{line}" cx="{_f(x)}" cy="{_f(y)}"'
            f' r="{_f(g.worker_space_diameter_mm / 2)}"/>'
        )
        worker = workers[line]
        if worker or editable:
            colour = species.get(worker[0], "#999999") if worker else "none"
            radius = 7.5 if worker and worker.endswith("d") else 5.5
            shown = "" if worker else ' visibility="hidden"'
            on = f' data-line="{line}"' if editable else ""
            out.append(
                f'<circle class="worker" data-worker="{escape(worker or "")}"{on} cx="{_f(x)}"'
                f' cy="{_f(y)}" r="{radius}" fill="{escape(colour)}"{shown}/>'
            )
            out.append(
                f'<text class="wkind"{on} x="{_f(x)}" y="{_f(y + 3)}" text-anchor="middle"'
                f"{shown}>{escape((worker or '')[1:] or '?')}</text>"
            )
    out.append("</svg>")
    return Markup("".join(out))

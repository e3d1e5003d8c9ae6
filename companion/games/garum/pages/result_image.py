"""The result to keep: one standalone SVG of the final board with every seat's score, the
winner and why, and the log's seal, so a table can print or share the game after the log
is gone."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from markupsafe import Markup, escape

from companion.boards.profile import BoardProfile
from companion.games.garum.pages.board_svg import board_svg
from companion.games.garum.pages.end_screen import winner_words
from companion.games.garum.pages.folders import STATIC_FOLDER, STYLESHEET
from companion.games.garum.rules import COLOUR_NAMES

LINE_MM = 14.0
MARGIN_MM = 12.0


@cache
def _board_style() -> str:
    """The dashboard's own board rules, so the file looks like the page without a second copy."""
    css = (STATIC_FOLDER / STYLESHEET).read_text(encoding="utf-8")
    return "\n".join(line for line in css.splitlines() if line.startswith("svg.board"))


def _text(x: float, y: float, words: str, css: str = "") -> str:
    klass = f' class="{css}"' if css else ""
    return f'<text x="{x:.1f}" y="{y:.1f}"{klass}>{escape(words)}</text>'


def result_svg(profile: BoardProfile, view: Mapping[str, Any], game: int) -> Markup:
    """``view`` (a table view of the ended game) drawn as one SVG file, true size in mm."""
    w, h = profile.geometry.sheet_mm
    setup = view["setup"]
    scores = view["scores"]
    lines: list[tuple[str, str]] = [
        (f"Game #{game} · {setup['title']} · {setup['variant']}", "head"),
    ]
    for seat in scores["seats"]:
        colours = " + ".join(COLOUR_NAMES.get(c, c) for c in seat["colours"])
        won = " (winner)" if seat["name"] in scores["winners"] else ""
        lines.append(
            (
                f"{seat['name']} ({colours}): {seat['total']} points, "
                f"{seat['vilicus']} vilicus on the board{won}",
                "seat",
            )
        )
    for colour, score in scores["colours"].items():
        if not score["lines"] and not score["bonus"]:
            continue
        parts = ", ".join(f"{ln['name']} {ln['points']:+d}" for ln in score["lines"])
        lines.append(
            (
                f"{COLOUR_NAMES.get(colour, colour).capitalize()}: bonus {score['bonus']}, workers "
                f"{score['workers']}{' (' + parts + ')' if parts else ''}",
                "detail",
            )
        )
    lines.append((winner_words(view), "reason"))
    if view.get("chain_head"):
        lines.append((f"Seal of the game log: {view['chain_head']}", "seal"))
    height = h + MARGIN_MM + LINE_MM * len(lines)
    board = board_svg(profile, view["board"], title="The final board", sized=True)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.1f}mm" height="{height:.1f}mm"'
        f' viewBox="0 0 {w:.1f} {height:.1f}">',
        f"<title>{escape(lines[0][0])}</title>",
        "<style>",
        _board_style(),
        "text { font-family: 'DejaVu Sans', sans-serif; font-size: 8px; fill: #2b2520; }",
        "text.head { font-size: 10px; font-weight: bold; } text.reason { font-weight: bold; }",
        "text.seal { font-size: 5px; } text.detail { font-size: 6.5px; }",
        "</style>",
        f'<rect width="{w:.1f}" height="{height:.1f}" fill="#ffffff"/>',
        str(board),
    ]
    for i, (words, css) in enumerate(lines):
        out.append(_text(MARGIN_MM, h + MARGIN_MM + i * LINE_MM, words, css))
    out.append("</svg>")
    return Markup("\n".join(out))

"""Where Garum's page files sit in its package (read by the page kit and the result image)."""

from __future__ import annotations

from pathlib import Path

TEMPLATE_FOLDER = Path(__file__).parent / "templates"
STATIC_FOLDER = Path(__file__).parent / "static"
STYLESHEET = "garum.css"

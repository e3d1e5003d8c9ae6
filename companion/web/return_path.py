"""Where to send someone back to after logging in: only a path on this site.

A ``next`` taken from a link could point anywhere; following one to another site would let a
crafted link bounce the operator, just logged in, to a look-alike page.  Only a relative path
of this site is followed, anything else sends them to the table page.
"""

from __future__ import annotations

from urllib.parse import urlsplit

HOME = "/"
MAX_PATH_CHARS = 512


def safe_return_path(raw: str | None) -> str:
    """``raw`` if it is a same-site path such as ``/tv`` or ``/history/3?step=2``, else ``/``.

    Refused: absolute URLs, scheme-relative ``//host``, backslashes (browsers read ``/\\host``
    as ``//host``), control characters, and anything not starting with one ``/``."""
    if not raw or len(raw) > MAX_PATH_CHARS or not raw.startswith("/") or raw.startswith("//"):
        return HOME
    if "\\" in raw or any(ord(c) < 0x20 or ord(c) == 0x7F for c in raw):
        return HOME
    parts = urlsplit(raw)
    if parts.scheme or parts.netloc:
        return HOME
    return raw

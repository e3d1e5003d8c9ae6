"""Checks on what a request carries, done before a view builds anything from it.

Every JSON body the app parses goes through :class:`BoundedJSONProvider`, so a view added
later is bounded too; request size limits are set by :func:`limit_request_size`.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, abort, request
from flask.json.provider import DefaultJSONProvider

from companion.bounded_json import loads_bounded
from companion.errors import InputError

SQLITE_MAX_INTEGER = 2**63 - 1
"""The largest id a game log can hold; a larger one in a URL names no game."""

MAX_FORM_PARTS = 100
"""Form fields per request: the largest form, the setup page, has about twenty."""


class BoundedJSONProvider(DefaultJSONProvider):
    """Flask's JSON, with the nesting and number bounds of :func:`loads_bounded`; a body
    outside them is a 400 naming the request body, even for ``get_json(silent=True)``."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return loads_bounded(s, source="request body")


def limit_request_size(app: Flask, max_body_bytes: int) -> None:
    """Refuses (413) any body over ``max_body_bytes`` before reading it, whatever the view.

    Flask's own limits apply when a view reads the body; the hook also refuses a declared
    length at once, so a 300 MB upload to a page that ignores bodies is never read either.
    """
    app.config.update(
        MAX_CONTENT_LENGTH=max_body_bytes,
        MAX_FORM_MEMORY_SIZE=max_body_bytes,
        MAX_FORM_PARTS=MAX_FORM_PARTS,
    )

    @app.before_request
    def _refuse_large_bodies() -> None:
        length = request.content_length
        if length is not None and length > max_body_bytes:
            abort(413, f"request body of {length} bytes; at most {max_body_bytes} are accepted")


def whole_number(value: Any, *, field: str, low: int, high: int) -> int:
    """``value`` (a JSON integer, or a form's decimal text) as an int in ``low..high``;
    anything else (a fraction, a flag, a huge or non-finite number) is an InputError."""
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and value.strip().isdecimal() and len(value.strip()) <= 6:
        number = int(value.strip())
    if number is None or not low <= number <= high:
        raise InputError(f"must be a whole number {low}-{high}", field=field)
    return number

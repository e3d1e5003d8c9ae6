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

    A declared length is refused at once, so a 300 MB upload is never read.  A chunked
    body declares none: at most one byte over the limit is read (Flask's stream limit) and
    kept for the view, and a body that reaches past the limit is refused rather than cut.
    """
    app.config.update(
        MAX_CONTENT_LENGTH=max_body_bytes + 1,
        MAX_FORM_MEMORY_SIZE=max_body_bytes,
        MAX_FORM_PARTS=MAX_FORM_PARTS,
    )
    too_large = f"at most {max_body_bytes} bytes of request body are accepted"

    @app.before_request
    def _refuse_large_bodies() -> None:
        length = request.content_length
        if length is not None and length > max_body_bytes:
            abort(413, f"request body of {length} bytes; {too_large}")
        chunked = length is None and request.environ.get("wsgi.input_terminated")
        if chunked and len(request.get_data(cache=True)) > max_body_bytes:
            abort(413, f"chunked request body too long; {too_large}")


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

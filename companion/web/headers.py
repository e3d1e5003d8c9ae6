"""Security headers every companion web app sends: one place for the policy."""

from __future__ import annotations

from typing import Any

from flask import Flask


def send_security_headers(app: Flask, headers: dict[str, str]) -> None:
    """Adds ``nosniff``, ``no-referrer`` (a link followed to another site does not tell it
    the table's address) and ``headers`` (a content security policy, framing rules) to
    every response that does not set them itself."""
    wanted = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", **headers}

    @app.after_request
    def _headers(response: Any) -> Any:
        for name, value in wanted.items():
            response.headers.setdefault(name, value)
        return response

"""Who may act: viewers read, the operator (token header or PIN login) acts.

Form posts carry a per-session CSRF token; API calls authenticated by the token header
need none (a browser cannot add that header cross-site), but API calls relying on the
login cookie must echo the CSRF token in ``X-CSRF-Token``.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

from flask import abort, current_app, request, session

F = TypeVar("F", bound=Callable[..., Any])

TOKEN_HEADER = "X-Companion-Token"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"


def _token_matches(offered: str | None) -> bool:
    expected = current_app.config["COMPANION"].operator_token
    return offered is not None and hmac.compare_digest(offered.encode(), expected.encode())


def header_token() -> str | None:
    token = request.headers.get(TOKEN_HEADER)
    if token is None:
        auth = request.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            token = auth[len("Bearer ") :]
    return token


def is_operator() -> bool:
    return bool(session.get("operator")) or _token_matches(header_token())


def csrf_token() -> str:
    """This browser session's CSRF token, created on first use."""
    token = session.get(CSRF_FIELD)
    if not isinstance(token, str):
        token = secrets.token_urlsafe(24)
        session[CSRF_FIELD] = token
    return token


def csrf_ok() -> bool:
    expected = session.get(CSRF_FIELD)
    offered = request.form.get(CSRF_FIELD) or request.headers.get(CSRF_HEADER)
    return (
        isinstance(expected, str)
        and offered is not None
        and hmac.compare_digest(offered.encode(), expected.encode())
    )


def log_in(pin: str) -> bool:
    if not _token_matches(pin):
        return False
    session.clear()
    session["operator"] = True
    csrf_token()
    return True


def operator_required(view: F) -> F:
    """401 without the token or a login; 400 when a cookie-authenticated request lacks CSRF."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _token_matches(header_token()):
            return view(*args, **kwargs)
        if not session.get("operator"):
            abort(401, "operator token or PIN login required")
        if not csrf_ok():
            abort(400, "missing or wrong CSRF token")
        return view(*args, **kwargs)

    return cast(F, wrapper)


def csrf_required(view: F) -> F:
    """For form posts that need no login (the login form itself)."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not csrf_ok():
            abort(400, "missing or wrong CSRF token")
        return view(*args, **kwargs)

    return cast(F, wrapper)

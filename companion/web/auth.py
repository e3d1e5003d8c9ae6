"""Who may act: viewers read, the operator (token header or PIN login) acts.

Form posts carry a per-session CSRF token; API calls authenticated by the token header
need none (a browser cannot add that header cross-site), but API calls relying on the
login cookie must echo the CSRF token in ``X-CSRF-Token``.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
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


class LoginThrottle:
    """At most ``attempts`` wrong PINs per ``window_s``: a short PIN cannot be guessed fast."""

    def __init__(self, attempts: int = 5, window_s: float = 60.0) -> None:
        self.attempts = attempts
        self.window_s = window_s
        self._failures: list[float] = []
        self._lock = threading.Lock()

    def blocked(self) -> bool:
        now = time.monotonic()
        with self._lock:
            self._failures = [t for t in self._failures if now - t < self.window_s]
            return len(self._failures) >= self.attempts

    def failed(self) -> None:
        with self._lock:
            self._failures.append(time.monotonic())


def log_in(pin: str) -> bool:
    """Checks the PIN (refusing all while throttled) and opens an operator session."""
    throttle: LoginThrottle = current_app.extensions["companion_login"]
    if throttle.blocked():
        abort(429, "too many wrong PINs: wait a minute")
    if not _token_matches(pin):
        throttle.failed()
        return False
    session.clear()
    session["operator"] = True
    csrf_token()
    return True


def operator_required(view: F) -> F:
    """401 without the token or a login; 400 when a cookie-authenticated request lacks CSRF."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        offered = header_token()
        if offered is not None:
            throttle: LoginThrottle = current_app.extensions["companion_login"]
            if throttle.blocked():
                abort(429, "too many wrong tokens: wait a minute")
            if _token_matches(offered):
                return view(*args, **kwargs)
            throttle.failed()
            abort(401, "wrong operator token")
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

"""Who may act: viewers read, the operator (token header or PIN login) acts.

Form posts carry a per-session CSRF token; API calls authenticated by the token header
need none (a browser cannot add that header cross-site), but API calls relying on the
login cookie must echo the CSRF token in ``X-CSRF-Token``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

from flask import abort, current_app, request, session

F = TypeVar("F", bound=Callable[..., Any])

TOKEN_HEADER = "X-Companion-Token"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"


def _utf8(text: str) -> bytes:
    """Any text as bytes, even with the lone surrogates an environment variable may hold."""
    return text.encode("utf-8", "surrogatepass")


def _token_matches(offered: str | None) -> bool:
    expected = current_app.config["COMPANION"].operator_token
    return offered is not None and hmac.compare_digest(_utf8(offered), _utf8(expected))


def header_token() -> str | None:
    token = request.headers.get(TOKEN_HEADER)
    if token is None:
        auth = request.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            token = auth[len("Bearer ") :]
    return token


def is_operator() -> bool:
    return logged_in() or _token_matches(header_token())


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
    """At most ``attempts`` wrong PINs or tokens per ``window_s`` from one client address.

    Counted per address, so a guesser slows down only itself and never the operator's
    phone; at most ``max_addresses`` are remembered (the stalest forgotten first), so a
    flood of addresses cannot fill the memory.
    """

    def __init__(
        self, attempts: int = 5, window_s: float = 60.0, max_addresses: int = 4096
    ) -> None:
        self.attempts = attempts
        self.window_s = window_s
        self.max_addresses = max_addresses
        self._failures: OrderedDict[str, list[float]] = OrderedDict()
        self._lock = threading.Lock()

    def _recent(self, address: str, now: float) -> list[float]:
        times = [t for t in self._failures.get(address, ()) if now - t < self.window_s]
        if times:
            self._failures[address] = times
        else:
            self._failures.pop(address, None)
        return times

    def blocked(self, address: str) -> bool:
        with self._lock:
            return len(self._recent(address, time.monotonic())) >= self.attempts

    def failed(self, address: str) -> None:
        now = time.monotonic()
        with self._lock:
            times = self._recent(address, now)
            self._failures[address] = [*times[-self.attempts :], now]
            self._failures.move_to_end(address)
            while len(self._failures) > self.max_addresses:
                self._failures.popitem(last=False)

    @property
    def addresses(self) -> int:
        """How many addresses are remembered now."""
        with self._lock:
            return len(self._failures)


class OperatorSessions:
    """The operator logins open on this server, each bound to the token that opened it.

    The session cookie carries only an id; logging out forgets the id, so a copy of the
    old cookie opens nothing, and a login opened with a token that has since changed
    (``companion token rotate``, then a restart or reload) no longer counts.
    """

    def __init__(self, max_sessions: int = 64) -> None:
        self.max_sessions = max_sessions
        self._open: OrderedDict[str, str] = OrderedDict()  # id -> digest of its token
        self._lock = threading.Lock()

    def open(self, token_digest: str) -> str:
        sid = secrets.token_urlsafe(24)
        with self._lock:
            self._open[sid] = token_digest
            while len(self._open) > self.max_sessions:
                self._open.popitem(last=False)
        return sid

    def valid(self, sid: object, token_digest: str) -> bool:
        if not isinstance(sid, str):
            return False
        with self._lock:
            opened_with = self._open.get(sid)
        return opened_with is not None and hmac.compare_digest(opened_with, token_digest)

    def close(self, sid: object) -> None:
        with self._lock:
            if isinstance(sid, str):
                self._open.pop(sid, None)


def client_address() -> str:
    """The peer's address as the server saw it (never a header a client could forge)."""
    return request.remote_addr or "unknown"


def _token_digest() -> str:
    """A keyed digest of the current operator token: what a login is bound to."""
    config = current_app.config["COMPANION"]
    key = current_app.config["SECRET_KEY"]
    return hmac.new(_utf8(str(key)), _utf8(config.operator_token), hashlib.sha256).hexdigest()


def _operator_sessions() -> OperatorSessions:
    found: OperatorSessions = current_app.extensions["companion_sessions"]
    return found


def _throttle() -> LoginThrottle:
    found: LoginThrottle = current_app.extensions["companion_login"]
    return found


def logged_in() -> bool:
    """True when this browser holds a login that is still open and still matches the token."""
    return _operator_sessions().valid(session.get("operator"), _token_digest())


def log_in(pin: str) -> bool:
    """Checks the PIN (refusing all from a throttled address) and opens an operator session."""
    throttle = _throttle()
    if throttle.blocked(client_address()):
        abort(429, "too many wrong PINs from this device: wait a minute")
    if not _token_matches(pin):
        throttle.failed(client_address())
        return False
    session.clear()
    session["operator"] = _operator_sessions().open(_token_digest())
    csrf_token()
    return True


def log_out() -> None:
    """Ends this browser's login on the server too, so a copy of its cookie is worthless."""
    _operator_sessions().close(session.get("operator"))
    session.clear()


def operator_required(view: F) -> F:
    """401 without the token or a login; 400 when a cookie-authenticated request lacks CSRF."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        offered = header_token()
        if offered is not None:
            throttle = _throttle()
            if throttle.blocked(client_address()):
                abort(429, "too many wrong tokens from this device: wait a minute")
            if _token_matches(offered):
                return view(*args, **kwargs)
            throttle.failed(client_address())
            abort(401, "wrong operator token")
        if not logged_in():
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

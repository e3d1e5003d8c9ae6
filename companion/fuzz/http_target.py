"""Hostile requests to every dashboard endpoint through Flask's test client.

What to send the games' routes comes from the registered games: each game's page kit offers
requests for its table as it is now (:class:`RouteSample`), sent as they are, mutated,
without credentials or with hostile form fields.  Three callers take turns: a viewer with
no credentials, the operator's tool with the token header, and the operator's browser (PIN
login cookie and CSRF token).  A last phase sends wrong tokens and PINs from another
address, then checks that the operator's own token still works.  A 500 is a finding on
any request; a 2xx or 3xx is a finding when the request had to be refused (one a game
marks as against its rules, a surely invalid mutation of a body its route reads whole, an
operator action without credentials).  Server-Sent Event streams are not fuzzed: they
never end.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import quote

from flask import Flask, got_request_exception

from companion.bounded_json import loads_bounded
from companion.errors import InputError
from companion.fuzz.hostile import Mutant, garbage, mutate_value, random_bytes
from companion.fuzz.tally import ACCEPTED_INVALID, CRASH, HTTP_500, LOCKED_OUT, TargetTally
from companion.games.page_seam import PageKit, RouteSample
from companion.progress import Progress
from companion.web.game_pages import installed_kits

OPERATOR_ADDR = "10.0.0.2"
VIEWER_ADDR = "10.0.0.3"
STRANGER_ADDR = "10.0.0.66"
PAGES = (
    *("/", "/tv", "/phone", "/live/table", "/live/tv", "/live/phone", "/history", "/setup"),
    *("/login", "/qr.svg", "/api/state"),
)
GAME_PAGES = ("/{game}", "/{game}/live", "/api/{game}/state")  # every registered game's
GAME_POSTS = ("/api/{game}/act", "/api/{game}/new_game", "/api/{game}/end", "/{game}/act")
TABLE_ACTIONS = ("new_game", "undo", "end", "acknowledge")  # the table's own, for any game
HOSTILE_NUMBERS = ("0", "1", "2", "9223372036854775808", "18446744073709551616", "9" * 5000)
_CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


@dataclass(frozen=True)
class Request:
    kind: str  # the generator, for the report
    method: str
    path: str
    route: str  # the path with its variable parts named, to group findings
    who: str = "token"  # viewer | token | cookie | stranger
    body: bytes | None = None
    content_type: str = "application/json"
    form: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    how: str = ""
    invalid: bool = False  # must be refused: a 2xx or 3xx is a finding
    changes_game: bool = False  # refused without the operator's credentials


@dataclass(frozen=True)
class HttpCredentials:
    token: str
    token_header: str = "X-Companion-Token"


def sample_path(game: str, sample: RouteSample) -> str:
    """Where a game's sample goes: its own routes, or the table's when it says so."""
    if sample.form is not None:
        return f"/operator/{sample.route}" if sample.table else f"/{game}/{sample.route}"
    return f"/api/{sample.route}" if sample.table else f"/api/{game}/{sample.route}"


class HttpTarget:
    name = "http"

    def __init__(
        self,
        app: Flask,
        credentials: HttpCredentials,
        seed: int,
        advance: Callable[[random.Random], None] | None = None,
    ) -> None:
        """``advance`` plays the next turn at the table (as its camera would), so corrections
        and undos meet a game in progress."""
        self.app = app
        app.logger.disabled = True  # a 500's traceback is counted, not printed
        self.credentials = credentials
        self.rng = random.Random(seed)
        self.advance = advance
        self.viewer = app.test_client()
        self.operator = app.test_client()
        self.browser = app.test_client()
        self.stranger = app.test_client()
        self.browser_csrf = ""
        self.kits: dict[str, PageKit] = installed_kits()
        self._views: dict[str, dict[str, Any]] = {}  # each game's state, until a change
        self._raised: list[BaseException] = []
        # Any app's: a dashboard may pass some paths on to another app (one per table).
        got_request_exception.connect(self._on_exception)
        self.generators: list[tuple[float, Callable[[], Request]]] = [
            (14, self.page),
            (36, self.api_action),
            (12, self.api_refusal),
            (8, self.without_token),
            (11, self.operator_form),
            (3, self.login_form),
            (5, self.garbage_post),
            (2, self.valid_new_game),
            (0.05, self.oversized),
        ]

    # -- running ---------------------------------------------------------------------------

    def run(self, count: int, tally: TargetTally, progress: Progress | None = None) -> None:
        self._log_in_browser()
        final = min(max(1, count // 2), max(20, count // 100))  # the guessing phase
        weights = [w for w, _ in self.generators]
        makers = [m for _, m in self.generators]
        for _ in range(count - final):
            if self.advance is not None and self.rng.random() < 0.08:
                self.advance(self.rng)
                self._views.clear()
            self.send(self.rng.choices(makers, weights)[0](), tally)
            if progress is not None:
                progress.advance()
        for _ in range(final - 1):
            self.send(self.wrong_credentials(), tally)
            if progress is not None:
                progress.advance()
        if final:
            self.send(self.lockout_probe(), tally)
            if progress is not None:
                progress.advance()

    def send(self, req: Request, tally: TargetTally) -> int | None:
        tally.sent += 1
        example = f"{req.who}: {req.method} {req.path[:120]} | {req.how}"
        try:
            status = self._request(req)
        except Exception as exc:  # the finding itself: the server side raised through
            tally.found(CRASH, f"{req.method} {req.route}: {type(exc).__name__}", example)
            return None
        if status >= 500:
            raised = f": {type(self._raised[-1]).__name__}" if self._raised else ""
            tally.found(HTTP_500, f"{req.method} {req.route}{raised}", example)
        elif status == 401 and req.who == "cookie":
            self._log_in_browser()  # the session ended (a logout, a rotated token)
        accepted = 200 <= status < 400
        if accepted and req.method != "GET":
            self._views.clear()  # it may have changed a game
        if req.kind == "lockout probe" and status in (401, 429):
            tally.found(
                LOCKED_OUT, "the right token refused after another address guessed", example
            )
        elif accepted and req.changes_game and req.who in ("viewer", "stranger"):
            tally.found(ACCEPTED_INVALID, f"{req.kind}: accepted without credentials", example)
        elif accepted and req.invalid:
            tally.found(ACCEPTED_INVALID, f"{req.kind}: answered {status}", example)
        return status

    def _on_exception(self, _sender: Any, exception: BaseException, **_: Any) -> None:
        """Flask's signal for an exception a view raised: names the cause of a 500."""
        self._raised.append(exception)

    def _request(self, req: Request) -> int:
        self._raised.clear()
        client = {
            "viewer": self.viewer,
            "token": self.operator,
            "cookie": self.browser,
            "stranger": self.stranger,
        }[req.who]
        address = {"token": OPERATOR_ADDR, "cookie": OPERATOR_ADDR, "stranger": STRANGER_ADDR}
        headers = dict(req.headers)
        if req.who == "token":
            headers.setdefault(self.credentials.token_header, self.credentials.token)
        kwargs: dict[str, Any] = {
            "headers": headers,
            "environ_base": {"REMOTE_ADDR": address.get(req.who, VIEWER_ADDR)},
        }
        if req.form is not None:
            kwargs["data"] = req.form
        elif req.body is not None:
            kwargs["data"] = req.body
            kwargs["content_type"] = req.content_type
        response = client.open(req.path, method=req.method, **kwargs)
        status = response.status_code
        response.close()
        return status

    def _log_in_browser(self) -> None:
        """The operator's browser: a PIN login, and the CSRF token its forms carry."""
        env = {"REMOTE_ADDR": OPERATOR_ADDR}
        found = _CSRF.search(self._page(self.browser, "/login", env))
        if found is None:
            return
        form = {"pin": self.credentials.token, "csrf_token": found.group(1)}
        self.browser.post("/login", data=form, environ_base=env).close()
        found = _CSRF.search(self._page(self.browser, "/setup", env))
        self.browser_csrf = found.group(1) if found else ""

    @staticmethod
    def _page(client: Any, path: str, env: dict[str, str]) -> str:
        response = client.get(path, environ_base=env)
        try:
            return str(response.get_data(as_text=True))
        finally:
            response.close()

    def _json(self, path: str, who: str = "viewer") -> Any:
        client = self.operator if who == "token" else self.viewer
        headers = {self.credentials.token_header: self.credentials.token} if who == "token" else {}
        response = client.get(path, headers=headers)
        try:
            return response.get_json(silent=True) if response.status_code == 200 else None
        finally:
            response.close()

    # -- what the games offer ---------------------------------------------------------------

    def _sample(self, wanted: Callable[[RouteSample], bool]) -> tuple[str, RouteSample] | None:
        """One of the requests the registered games offer for their tables as they are now
        (each game's state asked of its own route, as a viewer, again after anything that
        may have changed it), among those ``wanted``: a game with more to offer is fuzzed
        more.  None if no game offers one."""
        offered: list[tuple[str, RouteSample]] = []
        for name, kit in self.kits.items():
            view = self._views.get(name)
            if view is None:
                found = self._json(f"/api/{name}/state")
                view = self._views[name] = found if isinstance(found, dict) else {}
            offered += [(name, s) for s in kit.samples(view, self.rng) if wanted(s)]
        return self.rng.choice(offered) if offered else None

    @staticmethod
    def _json_request(game: str, sample: RouteSample, kind: str, body: bytes, how: str) -> Request:
        path = sample_path(game, sample)
        return Request(kind, "POST", path, path, body=body, how=how, changes_game=True)

    # -- generators ------------------------------------------------------------------------

    def page(self) -> Request:
        rng = self.rng
        roll = rng.random()
        who = "viewer" if rng.random() < 0.7 else "token"
        if roll < 0.5:
            pages = [*PAGES, *(p.format(game=g) for g in self.kits for p in GAME_PAGES)]
            path = rng.choice(pages)
            return Request("page", "GET", path, path, who)
        if roll < 0.8:
            number = rng.choice(HOSTILE_NUMBERS)
            tail = rng.choice(("", "/record.jsonl"))
            route = f"/history/<int>{tail}"
            return Request("history", "GET", f"/history/{number}{tail}", route, who)
        if roll < 0.9:
            digest = rng.choice(("0" * 64, "../../etc/passwd", "%00", "a" * 5000, "%2e%2e"))
            return Request("photo", "GET", f"/photo/{digest}.jpg", "/photo/<digest>.jpg", who)
        junk = "".join(rng.choice("abc/%.?=&#;<>'\"\\ \t~") for _ in range(rng.choice((5, 300))))
        # Quoted as a browser sends it; no leading "//", which would name a host instead.
        path = "/" + quote(junk, safe="/%?=&;~").lstrip("/")
        return Request("junk path", "GET", path, "/<junk>", who)

    def api_action(self) -> Request:
        """A request a game accepts, as it is or mutated (then refused if surely invalid and
        the route reads its whole body)."""
        found = self._sample(lambda s: s.body is not None and not s.invalid)
        if found is None:
            return self.garbage_post()
        game, sample = found
        body = dict(sample.body or {})
        if self.rng.random() < 0.3:
            return self._json_request(
                game, sample, sample.route, json.dumps(body).encode(), sample.how
            )
        m = mutate_value(body, self.rng)
        req = self._json_request(game, sample, f"{sample.route}: mutated body", m.data, m.how)
        return replace(req, invalid=m.surely_invalid and sample.checked)

    def api_refusal(self) -> Request:
        """A well-formed request the rules must refuse."""
        found = self._sample(lambda s: s.body is not None and s.invalid)
        if found is None:
            return self.api_action()
        game, sample = found
        body = json.dumps(sample.body).encode()
        req = self._json_request(game, sample, f"{sample.route}: must be refused", body, sample.how)
        return replace(req, invalid=True)

    def without_token(self) -> Request:
        """An operator action from a viewer: valid or not, it must change nothing."""
        roll = self.rng.random()
        if roll < 0.7:
            inner = self.rng.choice((self.api_action, self.api_refusal))()
        else:
            inner = self.operator_form()
        return replace(inner, kind="operator action", who="viewer", headers={}, changes_game=True)

    def operator_form(self) -> Request:
        """A game's form from the operator's browser, with hostile fields now and then, and
        now and then without its CSRF token (which must be refused)."""
        rng = self.rng
        found = self._sample(lambda s: s.form is not None)
        if found is None:
            return self.login_form()
        game, sample = found
        form: dict[str, Any] = dict(sample.form or {})
        if form and rng.random() < 0.6:
            key = rng.choice(sorted(form))
            form[key] = _hostile_value(form[key], rng)
        how = f"{sample.how}: form " + ", ".join(sorted(form))
        csrf_ok = rng.random() < 0.9
        form["csrf_token"] = self.browser_csrf if csrf_ok else rng.choice(("", "forged"))
        path = sample_path(game, sample)
        return Request(
            f"form {path}" + ("" if csrf_ok else " without CSRF"),
            "POST",
            path,
            path,
            "cookie",
            form=form,
            how=how,
            invalid=not csrf_ok,
            changes_game=True,
        )

    def login_form(self) -> Request:
        rng = self.rng
        path = rng.choice(("/login", "/logout"))
        form = {"pin": _hostile_text(rng), "csrf_token": rng.choice(("", "forged", "\x00"))}
        return Request(
            f"{path} without CSRF",
            "POST",
            path,
            path,
            "viewer",
            form=form,
            how="no session, forged CSRF",
            invalid=path == "/login",
        )

    def garbage_post(self) -> Request:
        rng = self.rng
        m: Mutant = garbage(rng)
        paths = [f"/api/{a}" for a in TABLE_ACTIONS] + ["/login"]
        paths += [p.format(game=g) for g in self.kits for p in GAME_POSTS]
        found = self._sample(lambda s: True)
        if found is not None:
            paths.append(sample_path(*found))
        path = rng.choice(paths)
        content_type = rng.choice(
            (
                "application/json",
                "application/x-www-form-urlencoded",
                "multipart/form-data",
                "text/plain",
                "application/json; charset=utf-16",
            )
        )
        return Request(
            "garbage body",
            "POST",
            path,
            path,
            body=m.data,
            content_type=content_type,
            how=f"{m.how} as {content_type}",
        )

    def valid_new_game(self) -> Request:
        found = self._sample(
            lambda s: s.route == "new_game" and s.body is not None and not s.invalid
        )
        if found is None:
            return self.api_action()
        game, sample = found
        return replace(
            self._json_request(
                game, sample, "new game", json.dumps(sample.body).encode(), sample.how
            ),
            changes_game=False,
        )

    def oversized(self) -> Request:
        size = 8 * 1024 * 1024
        if self.rng.random() < 0.5:
            body = b'{"seats": "' + b"A" * size + b'"}'
            return Request(
                "oversized body",
                "POST",
                "/api/new_game",
                "/api/new_game",
                body=body,
                how=f"{len(body)} bytes of JSON",
            )
        form = {"pin": "A" * size, "csrf_token": "x"}
        return Request(
            "oversized body",
            "POST",
            "/login",
            "/login",
            "viewer",
            form=form,
            how=f"{size} bytes of form",
        )

    def wrong_credentials(self) -> Request:
        """Another address guessing: wrong tokens in either header, wrong PINs."""
        rng = self.rng
        guess = "".join(rng.choice("0123456789abcdefXYZ-_ ") for _ in range(rng.choice((4, 9, 64))))
        guess = guess.strip() or "0000"
        if rng.random() < 0.3:
            form = {"pin": guess, "csrf_token": self._stranger_csrf()}
            return Request(
                "wrong PIN",
                "POST",
                "/login",
                "/login",
                "stranger",
                form=form,
                how=f"PIN {guess!r}",
                invalid=True,
            )
        header = rng.choice(
            ((self.credentials.token_header, guess), ("Authorization", f"Bearer {guess}"))
        )
        path, body = self._table_action(lambda s: True)
        return Request(
            "wrong token",
            "POST",
            path,
            path,
            "stranger",
            body=body,
            headers=dict([header]),
            how=f"{header[0]}: {guess!r}",
            changes_game=True,
        )

    def _table_action(self, wanted: Callable[[RouteSample], bool]) -> tuple[str, bytes]:
        """A request a game accepts at the table's own routes (where guesses and the probe
        both go: one table, one throttle), or else one of the table's own actions."""
        found = self._sample(
            lambda s: s.table and s.body is not None and not s.invalid and wanted(s)
        )
        if found is None:
            return f"/api/{self.rng.choice(TABLE_ACTIONS)}", b"{}"
        return sample_path(*found), json.dumps(found[1].body).encode()

    def _stranger_csrf(self) -> str:
        page = self._page(self.stranger, "/login", {"REMOTE_ADDR": STRANGER_ADDR})
        found = _CSRF.search(page)
        return found.group(1) if found else ""

    def lockout_probe(self) -> Request:
        """The operator's own token, from the operator's address, after the guesses."""
        path, body = self._table_action(lambda s: s.route == "new_game")
        return Request(
            "lockout probe",
            "POST",
            path,
            path,
            "token",
            body=body,
            how="the right token after another address's wrong guesses",
        )


def _hostile_text(rng: random.Random) -> str:
    return rng.choice(
        (
            "\x00",
            "\x1b[2J",
            "<script>alert(1)</script>",
            "9" * 5000,
            "A" * 100_000,
            "\u202e" + "😀" * 10,
            "[" * 10_000,
            *HOSTILE_NUMBERS,
            *("1.9", "nan", "-5"),
            random_bytes(rng, 32).decode("latin-1"),
        )
    )


def _hostile_value(value: str | list[str], rng: random.Random) -> str | list[str]:
    """A form field's value made hostile: JSON text mutated as JSON half the time (it
    stays close to what the game reads), else hostile text; a list, a few hostile texts."""
    if isinstance(value, list):
        return [_hostile_text(rng) for _ in range(rng.choice((1, 2, 5)))]
    try:
        parsed = loads_bounded(value, source="form field")
    except InputError:
        parsed = None
    if isinstance(parsed, dict | list) and rng.random() < 0.5:
        return mutate_value(parsed, rng).text
    return _hostile_text(rng)

"""Hostile requests to every dashboard endpoint through Flask's test client.

Three callers take turns: a viewer with no credentials, the operator's tool with the token
header, and the operator's browser (PIN login cookie and CSRF token).  A last phase sends
wrong tokens and PINs from another address, then checks that the operator's own token
still works.  A 500 is a finding on any request; a 2xx or 3xx is a finding when the request
had to be refused (an invalid correction, a roll whose face the caller chose, an operator
action without credentials).  Server-Sent Event streams are not fuzzed: they never end.
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

from companion.fuzz.hostile import Mutant, garbage, mutate_value, random_bytes
from companion.fuzz.tally import ACCEPTED_INVALID, CRASH, HTTP_500, LOCKED_OUT, TargetTally
from companion.progress import Progress

OPERATOR_ADDR = "10.0.0.2"
VIEWER_ADDR = "10.0.0.3"
STRANGER_ADDR = "10.0.0.66"
GARUM_ACTIONS = ("new_game", "accept", "correct", "undo", "end", "choose_vat")
PAGES = (
    *("/", "/tv", "/phone", "/live/table", "/live/tv", "/live/phone", "/history", "/setup"),
    *("/login", "/qr.svg", "/ides", "/ides/live", "/api/state", "/api/ides/state"),
)
HOSTILE_NUMBERS = ("0", "1", "2", "9223372036854775808", "18446744073709551616", "9" * 5000)
COLOURS = ("B", "G", "Y", "R")
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


def _new_game_body(rng: random.Random) -> dict[str, Any]:
    colours = list(COLOURS)
    rng.shuffle(colours)
    players = rng.choice((2, 3, 4))
    if players == 2:
        seats = [{"name": "Ana", "colours": colours[:2]}, {"name": "Ben", "colours": colours[2:]}]
    else:
        seats = [
            {"name": n, "colours": [c]}
            for n, c in zip(("Ana", "Ben", "Cy", "Di"), colours, strict=True)
        ]
        seats = seats[:players]
    return {
        "board": rng.choice(("troia", "baelo-claudia")),
        "variant": rng.choice(("standard", "emperor", "haruspex")),
        "seats": seats,
        "ghost": colours[3] if players == 3 else None,
        "first_seat": rng.randrange(players),
    }


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
        self._raised: list[BaseException] = []
        # Any app's: a dashboard may pass some paths on to another app (one per table).
        got_request_exception.connect(self._on_exception)
        self.generators: list[tuple[float, Callable[[], Request]]] = [
            (14, self.page),
            (26, self.api_action),
            (8, self.api_refusal),
            (8, self.without_token),
            (8, self.operator_form),
            (10, self.ides_act),
            (3, self.ides_new_game),
            (3, self.ides_form),
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

    # -- generators ------------------------------------------------------------------------

    def page(self) -> Request:
        rng = self.rng
        roll = rng.random()
        who = "viewer" if rng.random() < 0.7 else "token"
        if roll < 0.5:
            path = rng.choice(PAGES)
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

    def _valid_body(self, action: str) -> dict[str, Any]:
        if action == "new_game":
            return _new_game_body(self.rng)
        if action == "correct":
            state = self._json("/api/state") or {}
            board = state.get("board") or {"cells": ["." * 16] * 16}
            return {"board": board}
        if action == "choose_vat":
            return {"vat": self.rng.randint(1, 16)}
        return {}

    def api_action(self) -> Request:
        action = self.rng.choice(GARUM_ACTIONS)
        m = mutate_value(self._valid_body(action), self.rng)
        matters = action in ("new_game", "correct", "choose_vat")
        return Request(
            f"{action}: mutated body",
            "POST",
            f"/api/{action}",
            f"/api/{action}",
            body=m.data,
            how=m.how,
            invalid=m.surely_invalid and matters,
            changes_game=True,
        )

    def api_refusal(self) -> Request:
        """A well-formed request the rules must refuse."""
        rng = self.rng
        action = rng.choice(("new_game", "correct", "choose_vat"))
        if action == "correct":
            colour = rng.choice(COLOURS)
            board, how = rng.choice(
                (
                    ({"cells": [colour * 16] * 16}, f"256 {colour} cells: more tiles than exist"),
                    ({"cells": ["." * 16] * 17}, "17 rows"),
                    ({"cells": ["." * 15] * 16}, "rows of 15 cells"),
                    ({"cells": ["X" * 16] * 16}, "cells of an unknown colour"),
                    ({"cells": ["?" * 16] * 16}, "unreadable cells"),
                )
            )
            body: dict[str, Any] = {"board": board}
        elif action == "choose_vat":
            raw = rng.choice(("1.9", '"3"', "true", "1" + "0" * 40, "0", "17", "-5", "NaN"))
            data = f'{{"vat": {raw}}}'.encode()
            return Request(
                "choose_vat: no such vat",
                "POST",
                "/api/choose_vat",
                "/api/choose_vat",
                body=data,
                how=f"vat {raw}",
                invalid=True,
                changes_game=True,
            )
        else:
            body = _new_game_body(rng)
            choice = rng.randrange(6)
            if choice == 0:
                body["seats"] = [{"name": f"P{i}", "colours": [c]} for i, c in enumerate("BGYRB")]
                how = "five seats"
            elif choice == 1:
                body["seats"][0]["name"] = "N" * 41
                how = "a 41-character name"
            elif choice == 2:
                body["first_seat"] = 0.5
                how = "first_seat 0.5"
            elif choice == 3:
                body["variant"] = "bogus"
                how = "an unknown variant"
            elif choice == 4:
                body["board"] = "../../etc/passwd"
                how = "a board path"
            else:
                body["seats"][1]["colours"] = list(body["seats"][0]["colours"])
                how = "two seats with the same colours"
        return Request(
            f"{action}: must be refused",
            "POST",
            f"/api/{action}",
            f"/api/{action}",
            body=json.dumps(body).encode(),
            how=how,
            invalid=True,
            changes_game=True,
        )

    def without_token(self) -> Request:
        """An operator action from a viewer: valid or not, it must change nothing."""
        roll = self.rng.random()
        if roll < 0.5:
            inner = self.rng.choice((self.api_action, self.api_refusal))()
        elif roll < 0.7:
            inner = self.operator_form()
        elif roll < 0.9:
            inner = self.ides_act()
        else:
            inner = self.ides_new_game()
        return replace(inner, kind="operator action", who="viewer", headers={}, changes_game=True)

    def operator_form(self) -> Request:
        rng = self.rng
        action = rng.choice(GARUM_ACTIONS)
        form: dict[str, Any] = {}
        if action == "new_game":
            body = _new_game_body(rng)
            for i, seat in enumerate(body["seats"]):
                form[f"name{i}"] = seat["name"]
                form[f"colours{i}"] = seat["colours"]
            form.update(board=body["board"], variant=body["variant"], first_seat="0")
        elif action == "correct":
            form["board"] = mutate_value(self._valid_body("correct"), rng).text
        elif action == "choose_vat":
            form["vat"] = rng.choice((*HOSTILE_NUMBERS, "1.9", "nan", "\x00", "😀"))
        if form and rng.random() < 0.5:
            key = rng.choice(sorted(form))
            form[key] = _hostile_text(rng)
        how = "form " + ", ".join(sorted(form))
        csrf_ok = rng.random() < 0.9
        form["csrf_token"] = self.browser_csrf if csrf_ok else rng.choice(("", "forged"))
        return Request(
            f"operator form {action}" + ("" if csrf_ok else " without CSRF"),
            "POST",
            f"/operator/{action}",
            f"/operator/{action}",
            "cookie",
            form=form,
            how=how,
            invalid=not csrf_ok,
            changes_game=True,
        )

    def ides_act(self) -> Request:
        state = self._json("/api/ides/state") or {}
        choices = state.get("choices") or []
        if not choices:
            return self._ides_new_game_request(["Livia", "Marcus", "Julia"], "a new game")
        rng = self.rng
        action = dict(rng.choice(choices)["action"])
        roll = rng.random()
        if roll < 0.4:
            how, invalid = f"offered {action.get('kind')}", False
            data = json.dumps({"action": action}).encode()
        elif roll < 0.6 and "face" in action:
            action["face"] = rng.choice(("green", "red", "yellow", "purple"))
            how, invalid = f"{action.get('kind')} with the face chosen by the caller", True
            data = json.dumps({"action": action}).encode()
        else:
            m = mutate_value({"action": action}, rng)
            data, how, invalid = m.data, m.how, m.surely_invalid
        return Request(
            "ides act",
            "POST",
            "/api/ides/act",
            "/api/ides/act",
            body=data,
            how=how,
            invalid=invalid,
            changes_game=True,
        )

    def ides_new_game(self) -> Request:
        rng = self.rng
        players = ["Livia", "Marcus", "Julia", "Titus"][: rng.randint(2, 4)]
        if rng.random() < 0.3:
            bad = rng.choice(([], ["Solo"], ["A", "B", "C", "D", "E"], ["A", ""], ["A", "N" * 41]))
            return self._ides_new_game_request(bad, f"players {bad!r}", invalid=True)
        m = mutate_value({"players": players, "first_seat": 0}, rng)
        return replace(self._ides_new_game_request(players, m.how, m.surely_invalid), body=m.data)

    def _ides_new_game_request(self, players: Any, how: str, invalid: bool = False) -> Request:
        data = json.dumps({"players": players, "first_seat": 0}).encode()
        return Request(
            "ides new game",
            "POST",
            "/api/ides/new_game",
            "/api/ides/new_game",
            body=data,
            how=how,
            invalid=invalid,
            changes_game=True,
        )

    def ides_form(self) -> Request:
        rng = self.rng
        if rng.random() < 0.5:
            form: dict[str, Any] = {"choice": _hostile_text(rng)}
            path = "/ides/act"
        else:
            form = {"player": [_hostile_text(rng) for _ in range(rng.choice((1, 2, 5)))]}
            path = "/ides/new"
        form["csrf_token"] = self.browser_csrf
        return Request(
            f"ides form {path}",
            "POST",
            path,
            path,
            "cookie",
            form=form,
            how="hostile form fields",
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
        path = rng.choice(
            [f"/api/{a}" for a in GARUM_ACTIONS]
            + ["/api/ides/act", "/api/ides/new_game", "/api/ides/end", "/login", "/ides/act"]
        )
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
        body = _new_game_body(self.rng)
        return Request(
            "new game",
            "POST",
            "/api/new_game",
            "/api/new_game",
            body=json.dumps(body).encode(),
            how=f"{body['variant']} on {body['board']}",
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
        action = rng.choice(GARUM_ACTIONS)
        header = rng.choice(
            ((self.credentials.token_header, guess), ("Authorization", f"Bearer {guess}"))
        )
        return Request(
            "wrong token",
            "POST",
            f"/api/{action}",
            f"/api/{action}",
            "stranger",
            body=json.dumps(self._valid_body(action)).encode(),
            headers=dict([header]),
            how=f"{header[0]}: {guess!r}",
            changes_game=True,
        )

    def _stranger_csrf(self) -> str:
        page = self._page(self.stranger, "/login", {"REMOTE_ADDR": STRANGER_ADDR})
        found = _CSRF.search(page)
        return found.group(1) if found else ""

    def lockout_probe(self) -> Request:
        """The operator's own token, from the operator's address, after the guesses."""
        return Request(
            "lockout probe",
            "POST",
            "/api/new_game",
            "/api/new_game",
            "token",
            body=json.dumps(_new_game_body(self.rng)).encode(),
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
            '{"kind": "roll", "die": "orange", "face": "green"}',
            random_bytes(rng, 32).decode("latin-1"),
        )
    )
